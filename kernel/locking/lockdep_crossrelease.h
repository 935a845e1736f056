/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The narrow interface between lockdep.c and the crossrelease engine
 * (lockdep_crossrelease.c).  Nothing else includes this file but the
 * crossrelease KUnit suites.
 */
#ifndef __KERNEL_LOCKING_LOCKDEP_CROSSRELEASE_H
#define __KERNEL_LOCKING_LOCKDEP_CROSSRELEASE_H

#include <linux/atomic.h>
#include <linux/crossrelease.h>
#include <linux/percpu.h>

struct held_lock;
struct lock_class;
struct lock_trace;
struct seq_file;
struct task_struct;

#ifdef CONFIG_LOCKDEP_CROSSRELEASE

/* --- Provided by lockdep.c for the engine --- */

bool lockdep_xr_enter(unsigned long *flags);
bool lockdep_xr_key_assignable(const struct lockdep_map *lock);
void lockdep_xr_exit(unsigned long flags);
int lockdep_xr_class_idx(struct lockdep_map *lock);
struct lock_trace *lockdep_xr_save_trace(void);
void lockdep_xr_print_trace(const struct lock_trace *trace, unsigned int spaces);
/* lockdep_xr_add_dep(): 0 reported, 1 known, 2 added, or: */
#define LOCKDEP_XR_SKIPPED	3
int lockdep_xr_add_dep(struct held_lock *prev, struct held_lock *next,
		       struct lock_trace *trace);

/* --- Provided by the engine for lockdep.c --- */

extern atomic_t xr_nr_in_flight;
extern atomic64_t xr_gen;

void __xr_hist_add(struct task_struct *curr, struct held_lock *hlock);

void xr_init_task(struct task_struct *task);
void xr_zap_class(unsigned int class_idx);
bool xr_print_commit_header(struct held_lock *src, struct held_lock *tgt);
bool xr_print_commit_scenario(struct held_lock *src, struct held_lock *tgt,
			      struct lock_class *parent);
void xr_show_stats(struct seq_file *m);

/* Report and go on: a cycle through a crosslock leaves lockdep on */
struct lock_list;
bool xr_cycle_goes_on(struct lock_list *target, struct held_lock *src,
		      struct held_lock *tgt);
struct lock_list *xr_cycle_report(struct lock_list *target,
				  struct held_lock *src, struct held_lock *tgt,
				  struct lock_trace *trace);
void xr_cycle_report_done(void);

/* For the test suites */
void xr_reports_reset(void);
unsigned int xr_max_reports_get(void);
unsigned int xr_max_reports_set(unsigned int max);

/*
 * Statistics, printed in /proc/lockdep_stats and read by the KUnit suites.
 * Per-CPU counters: a folio unlock counts a commit, and a shared atomic
 * would be the one cache line every CPU writes.
 */
enum xr_counter_id {
	XR_COUNTER_COMMITS,
	XR_COUNTER_DEPS_CHECKED,
	XR_COUNTER_DEPS_ADDED,
	XR_COUNTER_DEPS_CACHED,
	XR_COUNTER_HIST_OVERFLOWS,
	XR_COUNTER_DEPS_UNCACHED,
	XR_COUNTER_STACKS_SAVED,
	XR_COUNTER_STACKS_DROPPED,
	XR_COUNTER_STALE_ENTRIES,
	XR_COUNTER_REPORTS_PRINTED,
	XR_COUNTER_REPORTS_SUPPRESSED,
	XR_COUNTER_MISUSE,
	XR_COUNTER_OPPORTUNISTIC,
	XR_COUNTER_OWNER_STALE,
	XR_COUNTER_OWNER_UNTRACKED,
	XR_COUNTER_HIST_IMPLIED,
	XR_COUNTER_HIST_REPEATED,
	XR_COUNTER_COUNT,	/* number of counters */
};

DECLARE_PER_CPU(unsigned long, xr_counters[XR_COUNTER_COUNT]);

static inline void xr_counter_inc(enum xr_counter_id id)
{
	this_cpu_inc(xr_counters[id]);
}

unsigned long xr_counter_read(enum xr_counter_id id);

/* The class and read mode of @hlock, as kept in xr_task::repeat_key */
static __always_inline u16 xr_repeat_key(const struct held_lock *hlock)
{
	return hlock->class_idx | hlock->read << MAX_LOCKDEP_KEYS_BITS;
}

/*
 * Is @hlock, taken in process context, the same as the newest entry of
 * the history (same class, call site and read mode, no crosslock acquired
 * since)?  Then writing it adds nothing: see xr_hist_redundant().
 */
static __always_inline bool xr_hist_repeats(const struct task_struct *curr,
					    const struct held_lock *hlock)
{
	const struct xr_task *xt = &curr->xr;

	return xt->repeat_ip == hlock->acquire_ip &&
	       xt->repeat_key == xr_repeat_key(hlock) && !hlock->irq_context &&
	       xt->repeat_gen == atomic64_read(&xr_gen);
}

/*
 * Called for every successful typical-lock acquisition.  An acquisition
 * made while no crosslock is in flight can never become a crossrelease
 * dependency (its generation precedes every later crosslock), so the
 * common case costs one read of a global counter; a lock taken again and
 * again while one is in flight costs a few compares.
 */
static __always_inline void xr_hist_add(struct task_struct *curr,
					struct held_lock *hlock)
{
	if (!atomic_read(&xr_nr_in_flight))
		return;
	if (xr_hist_repeats(curr, hlock))
		xr_counter_inc(XR_COUNTER_HIST_REPEATED);
	else
		__xr_hist_add(curr, hlock);
}

#else /* !CONFIG_LOCKDEP_CROSSRELEASE */

static inline void xr_hist_add(struct task_struct *curr,
			       struct held_lock *hlock) { }
static inline void xr_init_task(struct task_struct *task) { }
static inline void xr_zap_class(unsigned int class_idx) { }
static inline bool xr_print_commit_header(struct held_lock *src,
					  struct held_lock *tgt)
{
	return false;
}

static inline bool xr_print_commit_scenario(struct held_lock *src,
					    struct held_lock *tgt,
					    struct lock_class *parent)
{
	return false;
}

static inline void xr_show_stats(struct seq_file *m) { }

struct lock_list;
static inline bool xr_cycle_goes_on(struct lock_list *target,
				    struct held_lock *src,
				    struct held_lock *tgt)
{
	return false;
}

static inline struct lock_list *xr_cycle_report(struct lock_list *target,
						struct held_lock *src,
						struct held_lock *tgt,
						struct lock_trace *trace)
{
	return NULL;
}

static inline void xr_cycle_report_done(void) { }

#endif /* CONFIG_LOCKDEP_CROSSRELEASE */
#endif /* __KERNEL_LOCKING_LOCKDEP_CROSSRELEASE_H */

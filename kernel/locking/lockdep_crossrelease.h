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

void __xr_hist_add(struct task_struct *curr, struct held_lock *hlock);

/*
 * Called for every successful typical-lock acquisition.  An acquisition
 * made while no crosslock is in flight can never become a crossrelease
 * dependency (its generation precedes every later crosslock), so the
 * common case costs one read of a global counter.
 */
static __always_inline void xr_hist_add(struct task_struct *curr,
					struct held_lock *hlock)
{
	if (atomic_read(&xr_nr_in_flight))
		__xr_hist_add(curr, hlock);
}

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

/* Statistics, also read by the KUnit suites */
struct xr_stats {
	atomic_long_t	commits;
	atomic_long_t	deps_checked;
	atomic_long_t	deps_added;
	atomic_long_t	deps_cached;
	atomic_long_t	deps_uncached;
	atomic_long_t	hist_overflows;
	atomic_long_t	stacks_saved;
	atomic_long_t	stacks_dropped;
	atomic_long_t	stale_entries;
	atomic_long_t	reports_printed;
	atomic_long_t	reports_suppressed;
	atomic_long_t	misuse;
	atomic_long_t	opportunistic;
	atomic_long_t	owner_stale;
	atomic_long_t	owner_untracked;
};

extern struct xr_stats xr_stats;

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

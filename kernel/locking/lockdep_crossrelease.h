/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The narrow interface between lockdep.c and the crossrelease engine
 * (lockdep_crossrelease*.c), also read by lockdep_proc.c and the
 * crossrelease KUnit helpers and suites.
 */
#ifndef __KERNEL_LOCKING_LOCKDEP_CROSSRELEASE_H
#define __KERNEL_LOCKING_LOCKDEP_CROSSRELEASE_H

#include <linux/atomic.h>
#include <linux/crossrelease.h>
#include <linux/lockdep.h>
#include <linux/percpu.h>
#include <linux/sched.h>

struct held_lock;
struct lock_class;
struct lock_trace;
struct seq_file;
struct task_struct;

#ifdef CONFIG_LOCKDEP_CROSSRELEASE

/* --- Provided by lockdep.c for the engine --- */

bool crosslock_lockdep_enter(unsigned long *flags);
bool crosslock_key_assignable(const struct lockdep_map *lock);
void crosslock_lockdep_exit(unsigned long flags);
int crosslock_class_idx(struct lockdep_map *lock);
int crosslock_lockdep_enter_class(struct lockdep_map *lock,
				  unsigned long *flags);
int crosslock_cached_class_idx(const struct lockdep_map *lock);
struct lock_trace *crosslock_save_trace(void);
void crosslock_print_trace(const struct lock_trace *trace, unsigned int spaces);
unsigned int crosslock_class_of(const struct lock_class *class);
const char *crosslock_class_name(unsigned int class_idx, char *buf, size_t len);
/* What crosslock_add_dep() did with a dependency */
enum crosslock_dep_result {
	CROSSLOCK_DEP_OFF,	/* a report switched lockdep off, or it was off */
	CROSSLOCK_DEP_KNOWN,	/* in the graph already, or implied by a path */
	CROSSLOCK_DEP_ADDED,	/* added to the graph */
	CROSSLOCK_DEP_SKIPPED,	/* a class went away, or the tables are nearly full */
};

enum crosslock_dep_result crosslock_add_dep(struct held_lock *prev,
					    struct held_lock *next,
					    struct lock_trace *trace);

/* --- Provided by the engine for lockdep.c --- */

extern atomic64_t crosslock_gen;

void __crosslock_hist_add(struct task_struct *curr, struct held_lock *hlock);
void crosslock_hist_add_merged(struct task_struct *curr, int trylock,
			       unsigned long ip);

void crosslock_init_task(struct task_struct *task);
void crosslock_zap_class(unsigned int class_idx);
bool crosslock_print_commit_header(struct held_lock *src, struct held_lock *tgt);
bool crosslock_print_commit_scenario(struct held_lock *src, struct held_lock *tgt,
				     struct lock_class *parent);
void crosslock_show_stats(struct seq_file *m);

/* Report and go on: a cycle through a crosslock leaves lockdep on */
struct lock_list;
bool crosslock_cycle_goes_on(struct lock_list *target, struct held_lock *src,
			     struct held_lock *tgt);
struct lock_list *crosslock_cycle_report(struct lock_list *target,
					 struct held_lock *src, struct held_lock *tgt,
					 struct lock_trace *trace, bool *full);
void crosslock_cycle_print_begin(void);
void crosslock_cycle_print_end(struct lock_list *cycle, bool full);

/* For the test suites */
void crosslock_reports_reset(void);
unsigned int crosslock_max_reports_get(void);
unsigned int crosslock_max_reports_set(unsigned int max);
u64 crosslock_dep_cache_entry(unsigned int xclass, unsigned int class);
void crosslock_dep_cache_add(u64 entry);
bool crosslock_dep_cache_has(unsigned int xclass, unsigned int class);
unsigned int crosslock_dep_cache_stale(void);
void crosslock_class_tables_forget(bool (*gone)(const void *owner, void *arg),
				   void *arg);

/*
 * Statistics, printed in /proc/lockdep_stats and read by the KUnit suites.
 * Per-CPU counters: a folio unlock counts a commit, and a shared atomic
 * would be the one cache line every CPU writes.
 */
enum crosslock_counter_id {
	CROSSLOCK_COUNTER_COMMITS,
	CROSSLOCK_COUNTER_DEPS_CHECKED,
	CROSSLOCK_COUNTER_DEPS_ADDED,
	CROSSLOCK_COUNTER_DEPS_CACHED,
	CROSSLOCK_COUNTER_HIST_OVERFLOWS,
	CROSSLOCK_COUNTER_DEPS_UNCACHED,
	CROSSLOCK_COUNTER_STACKS_SAVED,
	CROSSLOCK_COUNTER_STACKS_DROPPED,
	CROSSLOCK_COUNTER_STALE_ENTRIES,
	CROSSLOCK_COUNTER_REPORTS_PRINTED,
	CROSSLOCK_COUNTER_REPORTS_SUPPRESSED,
	CROSSLOCK_COUNTER_REPORTS_BRIEF,
	CROSSLOCK_COUNTER_MISUSE,
	CROSSLOCK_COUNTER_OPPORTUNISTIC,
	CROSSLOCK_COUNTER_OWNER_STALE,
	CROSSLOCK_COUNTER_UNTRACKED,	/* + enum crosslock_untracked */
	CROSSLOCK_COUNTER_UNTRACKED_LAST =
		CROSSLOCK_COUNTER_UNTRACKED + CROSSLOCK_UNTRACKED_NR - 1,
	CROSSLOCK_COUNTER_HIST_IMPLIED,
	CROSSLOCK_COUNTER_HIST_REPEATED,
	CROSSLOCK_COUNTER_CHAINS_CACHED,
	CROSSLOCK_COUNTER_WAITS_CACHED,
	CROSSLOCK_COUNTER_HIST_SPINNING,
	CROSSLOCK_COUNTER_COUNT,	/* number of counters */
};

DECLARE_PER_CPU(unsigned long, crosslock_counters[CROSSLOCK_COUNTER_COUNT]);

static inline void crosslock_counter_inc(enum crosslock_counter_id id)
{
	this_cpu_inc(crosslock_counters[id]);
}

unsigned long crosslock_counter_read(enum crosslock_counter_id id);

/* The class and read mode of @hlock, as kept in crosslock_task::repeat_key */
static __always_inline u16 crosslock_repeat_key(const struct held_lock *hlock)
{
	return hlock->class_idx | hlock->read << MAX_LOCKDEP_KEYS_BITS;
}

/*
 * Is @hlock, taken in process context, the same as the newest entry of
 * the history (same class, call site and read mode, no crosslock acquired
 * since)?  Then writing it adds nothing: see xr_hist_redundant().
 */
static __always_inline bool crosslock_hist_repeats(const struct task_struct *curr,
						   const struct held_lock *hlock)
{
	const struct crosslock_task *xt = &curr->crosslock;

	return xt->repeat_ip == hlock->acquire_ip &&
	       xt->repeat_key == crosslock_repeat_key(hlock) && !hlock->irq_context &&
	       xt->repeat_gen == atomic64_read(&crosslock_gen);
}

/*
 * Is @lock one that nothing sleeps under: raw_spinlock_t, and spinlock_t
 * and rwlock_t unless they sleep (PREEMPT_RT)?  A crosslock's wait sleeps
 * (wait_for_completion(), folio_lock(), dma_fence_wait() all call
 * might_sleep()), so a dependency from a crosslock to such a lock can only
 * close a cycle through a sleep in atomic context, which the kernel
 * reports by itself.  The map's wait type is read rather than its
 * class's, before the held lock is even found: a class takes its own from
 * the map that registers it, and the maps of a class share their
 * initialiser's key and so its lock type.  On PREEMPT_RT without
 * CONFIG_PROVE_RAW_LOCK_NESTING, LD_WAIT_CONFIG is LD_WAIT_SPIN and the
 * two cannot be told apart: nothing is skipped then.
 */
static __always_inline bool crosslock_map_spins(const struct lockdep_map *lock)
{
	short inner = lock->wait_type_inner;

	if (IS_ENABLED(CONFIG_PREEMPT_RT))
		return IS_ENABLED(CONFIG_PROVE_RAW_LOCK_NESTING) &&
		       inner == LD_WAIT_SPIN;
	return inner == LD_WAIT_SPIN || inner == LD_WAIT_CONFIG;
}

/*
 * Called by lock_acquire() with what __lock_acquire() returned: 1 for a
 * lock pushed on the held-lock stack, 2 for one merged into the held lock
 * of its class (under a nest lock), 0 for none.  An acquisition made while
 * no crosslock is in flight can never become a crossrelease dependency
 * (its generation precedes every later crosslock), and one of a spinning
 * lock can never close a cycle (crosslock_map_spins()): after a boot with
 * "crossrelease=off" this costs a patched-out branch; a spinning lock, most
 * acquisitions, one read of its map, in flight or not; any other with
 * nothing in flight one read of a global counter, and a lock taken again
 * and again while one is in flight a few compares.
 */
static __always_inline void crosslock_lock_acquired(struct task_struct *curr,
						    struct lockdep_map *lock,
						    int ret, int trylock,
						    unsigned long ip)
{
	struct held_lock *hlock;

	if (!crosslock_on())
		return;
	/*
	 * First, as most are, and before the counter of crosslocks in
	 * flight, which every folio lock and unlock writes: it needs
	 * neither the held lock nor its class.
	 */
	if (crosslock_map_spins(lock)) {
		crosslock_counter_inc(CROSSLOCK_COUNTER_HIST_SPINNING);
		return;
	}
	if (!ret || !atomic_read(&crosslock_nr_in_flight))
		return;
	if (ret == 2) {
		crosslock_hist_add_merged(curr, trylock, ip);
		return;
	}
	hlock = curr->held_locks + curr->lockdep_depth - 1;
	/* trylocks never wait; rcu_read_lock() and friends are not checked */
	if (hlock->trylock || !hlock->check)
		return;
	if (crosslock_hist_repeats(curr, hlock))
		crosslock_counter_inc(CROSSLOCK_COUNTER_HIST_REPEATED);
	else
		__crosslock_hist_add(curr, hlock);
}

#else /* !CONFIG_LOCKDEP_CROSSRELEASE */

static inline void crosslock_lock_acquired(struct task_struct *curr,
					   struct lockdep_map *lock,
					   int ret, int trylock,
					   unsigned long ip) { }
static inline void crosslock_init_task(struct task_struct *task) { }
static inline void crosslock_zap_class(unsigned int class_idx) { }
static inline bool crosslock_print_commit_header(struct held_lock *src,
						 struct held_lock *tgt)
{
	return false;
}

static inline bool crosslock_print_commit_scenario(struct held_lock *src,
						   struct held_lock *tgt,
						   struct lock_class *parent)
{
	return false;
}

static inline void crosslock_show_stats(struct seq_file *m) { }

struct lock_list;
static inline bool crosslock_cycle_goes_on(struct lock_list *target,
					   struct held_lock *src,
					   struct held_lock *tgt)
{
	return false;
}

static inline struct lock_list *crosslock_cycle_report(struct lock_list *target,
						       struct held_lock *src,
						       struct held_lock *tgt,
						       struct lock_trace *trace,
						       bool *full)
{
	return NULL;
}

static inline void crosslock_cycle_print_begin(void) { }
static inline void crosslock_cycle_print_end(struct lock_list *cycle,
					     bool full) { }

#endif /* CONFIG_LOCKDEP_CROSSRELEASE */
#endif /* __KERNEL_LOCKING_LOCKDEP_CROSSRELEASE_H */

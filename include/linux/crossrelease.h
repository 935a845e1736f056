/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Crossrelease: lockdep for locks released by another context.
 *
 * A crosslock is a lockdep map whose "release" may happen in a context
 * other than the one that acquired it: a completion is waited for by one
 * task and completed by another, a folio lock is taken by a task and
 * dropped by an I/O completion.  See Documentation/locking/crossrelease.rst.
 */
#ifndef __LINUX_CROSSRELEASE_H
#define __LINUX_CROSSRELEASE_H

#include <linux/atomic.h>
#include <linux/crossrelease_types.h>
#include <linux/jump_label.h>

/**
 * enum crosslock_untracked - why an owned crosslock's release has no record
 * @CROSSLOCK_UNTRACKED_UNSEEN:   its bit was set where no hook saw it: before
 *                                the tracking began, or by a raw bit operation
 *                                (set_buffer_locked())
 * @CROSSLOCK_UNTRACKED_SPLIT:    a tail page of a split folio, whose lock was
 *                                the head's: the head's record is committed by
 *                                the unlock of the head, or of the page the
 *                                split kept locked, in the same context
 * @CROSSLOCK_UNTRACKED_NO_STATE: the instance has no room for a record (a page
 *                                without page_ext)
 * @CROSSLOCK_UNTRACKED_NR:       number of causes
 */
enum crosslock_untracked {
	CROSSLOCK_UNTRACKED_UNSEEN,
	CROSSLOCK_UNTRACKED_SPLIT,
	CROSSLOCK_UNTRACKED_NO_STATE,
	CROSSLOCK_UNTRACKED_NR,
};

/**
 * CROSSLOCK_OFF_PARAM() - define a boot parameter that turns a kind off
 * @name: the parameter, as typed on the command line ("lockdep_writeback")
 * @wanted: an __initdata bool of the kind, cleared by "@name=off"
 *
 * An early parameter, as page_owner= is: page_ext asks each kind whether
 * it needs room when it sizes itself.  For the kinds' own files, which
 * include <linux/init.h> and <linux/string.h>.
 */
#define CROSSLOCK_OFF_PARAM(name, wanted)				\
	static int __init wanted##_param(char *str)			\
	{								\
		if (str && !strcmp(str, "off"))				\
			wanted = false;					\
		return 0;						\
	}								\
	early_param(name, wanted##_param)

#ifdef CONFIG_LOCKDEP_CROSSRELEASE

DECLARE_STATIC_KEY_TRUE(crosslock_on_key);

/**
 * crosslock_on - may crossrelease track anything in this boot?
 *
 * The first test of every hook on a hot path: after a boot with
 * "crossrelease=off" it is a patched-out branch, and the hook costs
 * nothing more.  True during early boot either way; what it guards
 * checks crosslock_enabled() again.
 *
 * Return: false after a boot with "crossrelease=off", once early
 * initcalls have run; true otherwise.
 */
static __always_inline bool crosslock_on(void)
{
	return static_branch_likely(&crosslock_on_key);
}

void crosslock_init_map(struct crosslock *xmap, const char *name,
			struct lock_class_key *key, unsigned int flags);
void crosslock_acquire(struct crosslock *xmap, int trylock, unsigned long ip);
void crosslock_commit(struct crosslock *xmap);
void crosslock_release(struct crosslock *xmap, unsigned long ip);
void crosslock_give_up(struct crosslock *xmap, unsigned long ip);
bool crosslock_enabled(void);

void crosslock_wait(struct lockdep_map *map, unsigned long ip);
void crosslock_bound_begin(void);
void crosslock_bound_end(void);
void crosslock_bound_push(struct crosslock_bound *saved);
void crosslock_bound_pop(struct crosslock_bound *saved);
void crosslock_opportunistic_begin(void);
void crosslock_opportunistic_end(void);
void crosslock_hide_begin(void);
void crosslock_hide_end(void);
struct lock_class_key *crosslock_tag_class(const char *what, const void *tag,
					   const char **name);

void crosslock_owner_wait(struct lockdep_map *map, unsigned long ip);
void crosslock_owner_acquire(struct lockdep_map *map, struct crosslock_owner *o,
			     unsigned long ip);
void crosslock_owner_lock(struct lockdep_map *map, struct crosslock_owner *o,
			  unsigned long ip);
void crosslock_owner_replaced(struct crosslock_owner *old);
void crosslock_owner_copied(const struct crosslock_owner *o);
bool crosslock_owner_try_release(struct crosslock_owner *o);
bool crosslock_owner_release(struct lockdep_map *map, struct crosslock_owner *o,
			     bool commit);
void crosslock_owner_untracked(enum crosslock_untracked cause);

extern atomic_t crosslock_nr_in_flight;

/**
 * crosslock_owner_mark_untracked - say why @o's release will have no record
 * @o:     the state of an owned crosslock instance, not acquired
 * @cause: why its bit is set without a record
 *
 * The release counts it under @cause in /proc/lockdep_stats.
 */
static inline void crosslock_owner_mark_untracked(struct crosslock_owner *o,
						  enum crosslock_untracked cause)
{
	crosslock_owner_replaced(o);	/* a state still acquired is stale */
	WRITE_ONCE(o->gen, 0);
	WRITE_ONCE(o->ip, cause);
}

/*
 * A crosslock's class sleeps, as its waits do: lockdep then reports a wait
 * under a spinning lock ("Invalid wait context") even when the wait does
 * not block, which is what lets the engine leave spinning locks out of
 * its histories (see crosslock_map_spins()).
 */

/**
 * CROSSLOCK_MAP_INIT - static initialiser of the class map of a crosslock
 * @_name: class name
 * @_key:  &struct lock_class_key of the class
 */
#define CROSSLOCK_MAP_INIT(_name, _key)					\
	{ .name = (_name), .key = (void *)(_key),			\
	  .wait_type_inner = LD_WAIT_SLEEP, }

/**
 * crosslock_init_class - initialise the class map of a crosslock
 * @map:  the lockdep map that stands for the class
 * @name: class name
 * @key:  class key
 */
#define crosslock_init_class(map, name, key)				\
	lockdep_init_map_wait((map), (name), (key), 0, LD_WAIT_SLEEP)

/**
 * crosslock_owner_wait_needed - would a wait for an owned crosslock matter?
 * @depth: how many locks the waiter holds (current->lockdep_depth)
 *
 * With no lock held nothing depends on the wait now, and with no
 * crosslock in flight no commit can use its history entry later: the
 * primitive need not even look up the class for crosslock_owner_wait().
 *
 * Return: true if the wait would make a held lock depend on the crosslock
 * or could be committed later.
 */
static __always_inline bool crosslock_owner_wait_needed(unsigned int depth)
{
	return crosslock_on() &&
	       (depth || atomic_read(&crosslock_nr_in_flight));
}

#else /* !CONFIG_LOCKDEP_CROSSRELEASE */

static inline void crosslock_init_map(struct crosslock *xmap,
				      const char *name,
				      struct lock_class_key *key,
				      unsigned int flags) { }
static inline void crosslock_acquire(struct crosslock *xmap,
				     int trylock, unsigned long ip) { }
static inline void crosslock_commit(struct crosslock *xmap) { }
static inline void crosslock_release(struct crosslock *xmap,
				     unsigned long ip) { }
static inline void crosslock_give_up(struct crosslock *xmap,
				     unsigned long ip) { }
static inline bool crosslock_enabled(void) { return false; }
static inline bool crosslock_on(void) { return false; }
/* a macro, as lock_map_acquire(): @map may be a field only lockdep has */
#define crosslock_wait(map, ip) do { } while (0)
static inline void crosslock_bound_begin(void) { }
static inline void crosslock_bound_end(void) { }
static inline void crosslock_bound_push(struct crosslock_bound *saved) { }
static inline void crosslock_bound_pop(struct crosslock_bound *saved) { }
static inline void crosslock_opportunistic_begin(void) { }
static inline void crosslock_opportunistic_end(void) { }
static inline void crosslock_hide_begin(void) { }
static inline void crosslock_hide_end(void) { }
static inline struct lock_class_key *
crosslock_tag_class(const char *what, const void *tag, const char **name)
{
	return NULL;
}

static inline void crosslock_owner_wait(struct lockdep_map *map,
					unsigned long ip) { }
static inline void crosslock_owner_acquire(struct lockdep_map *map,
					   struct crosslock_owner *o,
					   unsigned long ip) { }
static inline void crosslock_owner_lock(struct lockdep_map *map,
					struct crosslock_owner *o,
					unsigned long ip) { }
static inline void crosslock_owner_replaced(struct crosslock_owner *old) { }
static inline void crosslock_owner_copied(const struct crosslock_owner *o) { }
static inline void crosslock_owner_untracked(enum crosslock_untracked cause) { }
static inline void crosslock_owner_mark_untracked(struct crosslock_owner *o,
						  enum crosslock_untracked cause) { }

static inline bool crosslock_owner_try_release(struct crosslock_owner *o)
{
	return true;
}

static inline bool crosslock_owner_wait_needed(unsigned int depth)
{
	return false;
}

static inline bool crosslock_owner_release(struct lockdep_map *map,
					   struct crosslock_owner *o,
					   bool commit)
{
	return false;
}

#endif /* CONFIG_LOCKDEP_CROSSRELEASE */

/**
 * crosslock_init - initialise a crosslock map with a class per call site
 * @xmap: the crosslock map
 * @name: class name; by convention "(primitive)instance"
 * @flags: CROSSLOCK_* flags
 */
#define crosslock_init(xmap, name, flags)				\
do {									\
	static struct lock_class_key __key;				\
									\
	crosslock_init_map((xmap), (name), &__key, (flags));		\
} while (0)

#endif /* __LINUX_CROSSRELEASE_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Completions as crosslocks (CONFIG_LOCKDEP_COMPLETIONS).
 *
 * Waiting for a completion acquires its crosslock, complete() and
 * complete_all() commit it, and the end of the wait releases it.  Each
 * initialisation site is a class, "(complete)<expression>".  Only
 * <linux/completion.h> includes this file.
 */
#ifndef __LINUX_COMPLETION_CROSSRELEASE_H
#define __LINUX_COMPLETION_CROSSRELEASE_H

#ifndef __LINUX_COMPLETION_H
#error "include <linux/completion.h> instead"
#endif

#include <linux/crossrelease.h>
#include <linux/limits.h>

#define COMPLETION_MAP_INIT(work)					\
	, .dep_map = STATIC_CROSSLOCK_INIT("(complete)" #work, NULL,	\
					   CROSSLOCK_SELF_RELEASE)

/**
 * init_completion - Initialize a dynamically allocated completion
 * @x:  pointer to completion structure that is to be initialized
 *
 * Every call site is its own lockdep class, named after @x.
 */
#define init_completion(x)						\
do {									\
	static struct lock_class_key __key;				\
	struct completion *__x = (x);					\
									\
	crosslock_init_map(&__x->dep_map, "(complete)" #x, &__key,	\
			   CROSSLOCK_SELF_RELEASE);		\
	__init_completion(__x);						\
} while (0)

/**
 * init_completion_map - Initialize a completion in the class of a lock
 * @x:  pointer to completion structure that is to be initialized
 * @m:  lockdep map whose class waiting for @x acquires
 *
 * For completions that stand for an existing lockdep map, such as the
 * bio completion of a disk or the flush of a work item.
 */
#define init_completion_map(x, m)					\
do {									\
	struct completion *__x = (x);					\
	struct lockdep_map *__m = (m);					\
									\
	crosslock_init_map(&__x->dep_map, __m->name, __m->key,	\
			   CROSSLOCK_SELF_RELEASE);		\
	__init_completion(__x);						\
} while (0)

/**
 * completion_set_class - give a completion another lockdep class
 * @x:    the completion; nobody may be waiting for it
 * @name: class name, "(complete)..."
 * @key:  class key
 *
 * For completions that a helper initialises on behalf of its callers, so
 * that each caller gets a class of its own (e.g. a kthread_worker flush
 * waits in its worker's order class).
 */
static inline void completion_set_class(struct completion *x,
					const char *name,
					struct lock_class_key *key)
{
	crosslock_init_map(&x->dep_map, name, key, CROSSLOCK_SELF_RELEASE);
}

/**
 * completion_set_tag_class - a class per (helper, what it serves)
 * @x:    the completion; nobody may be waiting for it
 * @what: the helper, e.g. "wait_rcu_gp"
 * @tag:  a static object naming what the helper serves this time, e.g.
 *        the call_rcu() function of an RCU flavour
 *
 * For helpers whose completions stand for several unrelated events: the
 * class becomes "(complete)<what>:<tag>".  Keeps the default class if the
 * engine's table of such classes is full.
 */
static inline void completion_set_tag_class(struct completion *x,
					    const char *what, const void *tag)
{
	struct lock_class_key *key;
	const char *name;

	key = crosslock_tag_class(what, tag, &name);
	if (key)
		completion_set_class(x, name, key);
}

/**
 * completion_set_untracked - leave a completion out of crossrelease
 * @x: the completion; nobody may be waiting for it
 *
 * Waits for @x are not checked and complete() commits nothing, as for a
 * lock given lockdep_set_novalidate_class().  For completions that only
 * sequence steps whose locks are distinct instances of one class, such as
 * a test forcing an ABBA between two ww_mutexes, which lockdep, seeing
 * classes, would read as a cycle.
 */
static inline void completion_set_untracked(struct completion *x)
{
	x->dep_map.state.flags |= CROSSLOCK_UNTRACKED;
}

/*
 * A wait with a finite timeout ends by itself, so by default it is not a
 * wait dependency (MAX_SCHEDULE_TIMEOUT is LONG_MAX).
 */
static __always_inline bool complete_wait_tracked(long timeout)
{
	return crosslock_on() &&
	       (timeout == LONG_MAX ||
		IS_ENABLED(CONFIG_LOCKDEP_COMPLETIONS_TIMEOUT));
}

/*
 * Every wait is an acquisition, whether or not it has to sleep: the locks
 * the waiter holds depend on the completion.  Its end tells whether it got
 * a complete() (@ret > 0: what the waiter releases next depends on it, see
 * crosslock_release()) or gave up.
 */
static inline void complete_acquire(struct completion *x, long timeout,
				    unsigned long ip)
{
	if (complete_wait_tracked(timeout))
		crosslock_acquire(&x->dep_map, 0, ip);
}

static inline void complete_release(struct completion *x, long timeout,
				    long ret, unsigned long ip)
{
	if (!complete_wait_tracked(timeout))
		return;
	if (ret > 0)
		crosslock_release(&x->dep_map, ip);
	else
		crosslock_give_up(&x->dep_map, ip);
}

static inline void complete_commit(struct completion *x)
{
	if (crosslock_on())
		crosslock_commit(&x->dep_map);
}

#endif /* __LINUX_COMPLETION_CROSSRELEASE_H */

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

#include <linux/lockdep.h>
#include <linux/spinlock_types_raw.h>

#ifdef CONFIG_LOCKDEP_CROSSRELEASE

#define XR_COMM_LEN	16

/*
 * struct cross_lock - the in-flight state of one crosslock instance
 *
 * Only the primitive that embeds the crosslock ever reaches this state;
 * the engine keeps no pointer to it, so an on-stack crosslock may go away
 * as soon as its last acquirer released it.
 */
struct cross_lock {
	arch_spinlock_t	lock;		/* serialises the fields below */
	unsigned int	nr_acquired;	/* acquisitions not yet released */
	u64		gen;		/* generation of the first of them */
	unsigned int	flags;		/* CROSSLOCK_* */
	pid_t		pid;		/* who acquired it first */
	unsigned long	ip;		/* and where */
	char		comm[XR_COMM_LEN];
};

/**
 * struct lockdep_map_cross - a lockdep map that may be released elsewhere
 * @map:   the ordinary lockdep map; its class is the crosslock's class
 * @xlock: in-flight state, private to the crossrelease engine
 */
struct lockdep_map_cross {
	struct lockdep_map	map;
	struct cross_lock	xlock;
};

/*
 * Flags of a crosslock.  CROSSLOCK_SELF_RELEASE: every acquirer releases
 * its own acquisition (a wait), so a task may not exit between the two.
 * CROSSLOCK_UNTRACKED: set by the engine on a crosslock it cannot give a
 * class (a static initialiser used on the stack); it is then ignored.
 */
#define CROSSLOCK_SELF_RELEASE	0x1
#define CROSSLOCK_UNTRACKED	0x2

/**
 * struct cross_owner - acquirer of a crosslock held by one owner at a time
 * @gen: low 32 bits of the generation of the acquisition; 0 while not
 *       acquired.  A lock held for more than 2^32 generations looks younger
 *       than it is, which can only hide dependencies, never invent one.
 * @pid: who acquired it
 * @ip:  and where
 *
 * For crosslocks whose own bit already serialises owners (a folio lock):
 * the primitive keeps one of these per instance, 16 bytes on 64-bit, and
 * its class in a shared lockdep map.
 */
struct cross_owner {
	unsigned int	gen;
	pid_t		pid;
	unsigned long	ip;
};

#define STATIC_CROSS_LOCK_INIT(_flags)				\
	{ .lock = __ARCH_SPIN_LOCK_UNLOCKED, .flags = (_flags), }

/**
 * STATIC_CROSS_LOCKDEP_MAP_INIT - static initialiser of a crosslock map
 * @_name: class name, as shown in reports and /proc/lockdep
 * @_key:  &struct lock_class_key of the class
 * @_flags: CROSSLOCK_* flags
 */
#define STATIC_CROSS_LOCKDEP_MAP_INIT(_name, _key, _flags)	\
	{ .map = STATIC_LOCKDEP_MAP_INIT(_name, _key),		\
	  .xlock = STATIC_CROSS_LOCK_INIT(_flags), }

void lockdep_init_map_crosslock(struct lockdep_map_cross *xmap,
				const char *name,
				struct lock_class_key *key,
				unsigned int flags);
void lock_acquire_crosslock(struct lockdep_map_cross *xmap, int trylock,
			    unsigned long ip);
void lock_commit_crosslock(struct lockdep_map_cross *xmap);
void lock_release_crosslock(struct lockdep_map_cross *xmap, unsigned long ip);
bool crossrelease_enabled(void);

void crosslock_note_wait(struct lockdep_map *map, unsigned long ip);
void crosslock_bound_begin(void);
void crosslock_bound_end(void);
void crosslock_opportunistic_begin(void);
void crosslock_opportunistic_end(void);
void crosslock_hide_begin(void);
void crosslock_hide_end(void);
struct lock_class_key *crosslock_tag_class(const char *what, const void *tag,
					   const char **name);

void crosslock_owner_wait(struct lockdep_map *map, unsigned long ip);
void crosslock_owner_acquire(struct lockdep_map *map, struct cross_owner *o,
			     unsigned long ip);
void crosslock_owner_replaced(struct cross_owner *old);
bool crosslock_owner_commit_needed(const struct cross_owner *o);
bool crosslock_owner_release(struct lockdep_map *map, struct cross_owner *o,
			     bool commit);

#else /* !CONFIG_LOCKDEP_CROSSRELEASE */

struct lockdep_map_cross { };

#define CROSSLOCK_SELF_RELEASE	0x1
#define STATIC_CROSS_LOCKDEP_MAP_INIT(_name, _key, _flags)	{ }

static inline void lockdep_init_map_crosslock(struct lockdep_map_cross *xmap,
					      const char *name,
					      struct lock_class_key *key,
					      unsigned int flags) { }
static inline void lock_acquire_crosslock(struct lockdep_map_cross *xmap,
					  int trylock, unsigned long ip) { }
static inline void lock_commit_crosslock(struct lockdep_map_cross *xmap) { }
static inline void lock_release_crosslock(struct lockdep_map_cross *xmap,
					  unsigned long ip) { }
static inline bool crossrelease_enabled(void) { return false; }
static inline void crosslock_note_wait(struct lockdep_map *map,
				       unsigned long ip) { }
static inline void crosslock_bound_begin(void) { }
static inline void crosslock_bound_end(void) { }
static inline void crosslock_opportunistic_begin(void) { }
static inline void crosslock_opportunistic_end(void) { }
static inline void crosslock_hide_begin(void) { }
static inline void crosslock_hide_end(void) { }
static inline struct lock_class_key *
crosslock_tag_class(const char *what, const void *tag, const char **name)
{
	return NULL;
}

#endif /* CONFIG_LOCKDEP_CROSSRELEASE */

/**
 * cross_lockdep_init_map - initialise a crosslock map with a class per call site
 * @xmap: the crosslock map
 * @name: class name; by convention "(primitive)instance"
 * @flags: CROSSLOCK_* flags
 */
#define cross_lockdep_init_map(xmap, name, flags)			\
do {									\
	static struct lock_class_key __xr_key;				\
									\
	lockdep_init_map_crosslock((xmap), (name), &__xr_key, (flags));	\
} while (0)

#endif /* __LINUX_CROSSRELEASE_H */

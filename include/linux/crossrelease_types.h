/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Crossrelease types: the crosslock embedded in completions and dma-fences,
 * the one-owner state kept per folio, and the per-task history embedded in
 * task_struct.  Only types: included by <linux/completion.h>,
 * <linux/dma-fence.h> and <linux/sched.h>.  The API is in
 * <linux/crossrelease.h>; see Documentation/locking/crossrelease.rst.
 */
#ifndef __LINUX_CROSSRELEASE_TYPES_H
#define __LINUX_CROSSRELEASE_TYPES_H

#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/lockdep_types.h>
#include <linux/spinlock_types_raw.h>
#include <linux/types.h>

/*
 * Flags of a crosslock.  CROSSLOCK_SELF_RELEASE: every acquirer releases
 * its own acquisition (a wait), so a task may not exit between the two.
 * CROSSLOCK_UNTRACKED: set by the engine on a crosslock it cannot give a
 * class (a static initialiser used on the stack); it is then ignored.
 */
#define CROSSLOCK_SELF_RELEASE	0x1
#define CROSSLOCK_UNTRACKED	0x2

#ifdef CONFIG_LOCKDEP_CROSSRELEASE

#define CROSSLOCK_COMM_LEN	16

/*
 * struct crosslock_state - the in-flight state of one crosslock instance
 *
 * Only the primitive that embeds the crosslock ever reaches this state;
 * the engine keeps no pointer to it, so an on-stack crosslock may go away
 * as soon as its last acquirer released it.
 */
struct crosslock_state {
	arch_spinlock_t	lock;		/* serialises the fields below */
	unsigned int	nr_acquired;	/* acquisitions not yet released */
	u64		gen;		/* generation of the first of them */
	unsigned int	flags;		/* CROSSLOCK_* */
	pid_t		pid;		/* who acquired it first */
	unsigned long	ip;		/* and where */
	char		comm[CROSSLOCK_COMM_LEN];
	atomic64_t	released_gen;	/* generation of the latest release */
};

/**
 * struct crosslock - a lockdep map that may be released elsewhere
 * @map:   the ordinary lockdep map; its class is the crosslock's class
 * @state: in-flight state, private to the crossrelease engine
 */
struct crosslock {
	struct lockdep_map	map;
	struct crosslock_state	state;
};

/**
 * struct crosslock_owner - acquirer of a crosslock held by one owner at a time
 * @gen: low 32 bits of the generation of the acquisition; 0 while not
 *       acquired.  A lock held for more than 2^32 generations looks younger
 *       than it is, which can only hide dependencies, never invent one.
 * @pid: who acquired it
 * @class_id: the primitive's own number for the class it was acquired in,
 *       so that the release need not look the class up again
 * @ip:  where it was acquired; while not acquired, why its release would
 *       have no record, if the primitive knows (enum crosslock_untracked)
 *
 * For crosslocks whose own bit already serialises owners (a folio lock):
 * the primitive keeps one of these per instance, 16 bytes on 64-bit, and
 * its class in a shared lockdep map.  The bit orders every access to
 * @pid and @class_id; @gen and @ip are also read without it.
 */
struct crosslock_owner {
	unsigned int	gen;
	unsigned int	pid:24;
	unsigned int	class_id:8;
	unsigned long	ip;
};

#define __CROSSLOCK_STATE_INIT(_flags)				\
	{ .lock = __ARCH_SPIN_LOCK_UNLOCKED, .flags = (_flags), }

/**
 * STATIC_CROSSLOCK_INIT - static initialiser of a crosslock map
 * @_name: class name, as shown in reports and /proc/lockdep
 * @_key:  &struct lock_class_key of the class
 * @_flags: CROSSLOCK_* flags
 */
#define STATIC_CROSSLOCK_INIT(_name, _key, _flags)	\
	{ .map = STATIC_LOCKDEP_MAP_INIT(_name, _key),		\
	  .state = __CROSSLOCK_STATE_INIT(_flags), }

#define CROSSLOCK_HIST_SIZE	BIT(CONFIG_LOCKDEP_CROSSRELEASE_HIST_BITS)

/* Flags of a history entry */
#define CROSSLOCK_HIST_READ_MASK	0x03	/* held_lock::read of the acquisition */
#define CROSSLOCK_HIST_WAIT		0x04	/* a wait on a crosslock */

/* crosslock_task::bounded: which kind of section bounds commits */
#define CROSSLOCK_BOUND_BEGIN		1	/* crosslock_bound_begin() */
#define CROSSLOCK_BOUND_PUSH		2	/* crosslock_bound_push() */

/*
 * One acquisition in a task's history: which class, where, when (the
 * global crosslock generation it saw, 64 bits so that it never wraps), in
 * which context instance, and the running sum of that instance's entries
 * up to this one (see struct crosslock_span).
 */
struct crosslock_hist_entry {
	u64		gen;
	u64		sum;
	unsigned long	ip;
	unsigned int	ctx;
	u16		class_idx;
	u8		irq_context;
	u8		flags;
};

/**
 * struct crosslock_span - the entries of the current instance of one
 *                         context kind (task, softirq, hardirq, both)
 * @ctx:       the instance, as in crosslock_hist_entry::ctx
 * @first_pos: position of its first entry in the history (its
 *             crosslock_task::nr_written then)
 * @first_gen: generation of its first entry
 * @last_gen:  generation of its newest entry
 * @sum:       sum of a hash of each of its entries' class and flags, a
 *             key for the set of dependencies a commit walks
 */
struct crosslock_span {
	u64		first_gen;
	u64		last_gen;
	u64		sum;
	unsigned int	ctx;
	unsigned int	first_pos;
};

struct crosslock_bound;

/**
 * struct crosslock_task - a task's crossrelease state
 * @nr_written: entries ever written; the newest is at (@nr_written - 1)
 * @ctx:        process-context instance, bumped per work item and syscall
 * @nr_waits:   crosslock acquisitions of this task not yet released by it
 * @bound:      @nr_written when the current bounded section began
 * @bounded:    in a bounded section: CROSSLOCK_BOUND_BEGIN for one of
 *              crosslock_bound_begin(), CROSSLOCK_BOUND_PUSH for one of
 *              crosslock_bound_push()
 * @pushed:     the sections crosslock_bound_push() saved, innermost first
 * @opportunistic: depth of crosslock_opportunistic_begin() sections, per
 *              context kind (task, softirq, hardirq, hardirq over softirq)
 * @hidden:     depth of crosslock_hide_begin() sections: acquisitions
 *              there are annotations, not locks, and are not recorded
 * @repeat_ip:  with @repeat_key and @repeat_gen, the newest entry if it
 *              is a process-context acquisition a repeat may skip; 0 if not
 * @repeat_gen: its generation
 * @repeat_key: its class index and read mode
 * @span:       per context kind, the entries of its current instance
 * @hist:       ring of the most recent acquisitions
 */
struct crosslock_task {
	unsigned int		nr_written;
	unsigned int		ctx;
	unsigned int		nr_waits;
	unsigned int		bound;
	struct crosslock_bound	*pushed;
	u8			bounded;
	u8			hidden;
	u8			opportunistic[4];
	u16			repeat_key;
	unsigned long		repeat_ip;
	u64			repeat_gen;
	struct crosslock_span	span[4];
	struct crosslock_hist_entry	hist[CROSSLOCK_HIST_SIZE];
};

/**
 * struct crosslock_bound - a task's bounded section, saved
 * @outer:   the section saved before this one
 * @bound:   its crosslock_task::bound, moved up with it when an entry is
 *           put below it
 * @bounded: its crosslock_task::bounded
 *
 * Kept on the stack by crosslock_bound_push() and crosslock_bound_pop().
 */
struct crosslock_bound {
	struct crosslock_bound	*outer;
	unsigned int		bound;
	u8			bounded;
};

#else /* !CONFIG_LOCKDEP_CROSSRELEASE */

struct crosslock { };
struct crosslock_owner { };
struct crosslock_bound { };

#define STATIC_CROSSLOCK_INIT(_name, _key, _flags)	{ }

#endif /* CONFIG_LOCKDEP_CROSSRELEASE */
#endif /* __LINUX_CROSSRELEASE_TYPES_H */

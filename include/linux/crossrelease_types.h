/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-task state of the lockdep crossrelease engine, embedded in
 * task_struct.  See kernel/locking/lockdep_crossrelease.c.
 */
#ifndef __LINUX_CROSSRELEASE_TYPES_H
#define __LINUX_CROSSRELEASE_TYPES_H

#include <linux/bits.h>
#include <linux/types.h>

#ifdef CONFIG_LOCKDEP_CROSSRELEASE

#define XR_HIST_SIZE	BIT(CONFIG_LOCKDEP_CROSSRELEASE_HIST_BITS)

/* Flags of a history entry */
#define XR_HIST_READ_MASK	0x03	/* held_lock::read of the acquisition */
#define XR_HIST_WAIT		0x04	/* a wait on a crosslock */
#define XR_HIST_OWNED		0x08	/* ... with one owner at a time */

/*
 * One acquisition in a task's history: which class, where, when (the
 * global crosslock generation it saw, 64 bits so that it never wraps) and
 * in which context instance.
 */
struct xr_hist_entry {
	u64		gen;
	unsigned long	ip;
	unsigned int	ctx;
	u16		class_idx;
	u8		irq_context;
	u8		flags;
};

/**
 * struct xr_task - a task's crossrelease state
 * @nr_written: entries ever written; the newest is at (@nr_written - 1)
 * @ctx:        process-context instance, bumped per work item and syscall
 * @nr_waits:   crosslock acquisitions of this task not yet released by it
 * @bound:      @nr_written when the current bounded section began
 * @bounded:    in a bounded section (crosslock_bound_begin())
 * @opportunistic: depth of crosslock_opportunistic_begin() sections
 * @opportunistic_irq: the irq context those sections were begun in
 * @hidden:     depth of crosslock_hide_begin() sections: acquisitions
 *              there are annotations, not locks, and are not recorded
 * @repeat_ip:  with @repeat_key and @repeat_gen, the newest entry if it
 *              is a process-context acquisition a repeat may skip; 0 if not
 * @repeat_gen: its generation
 * @repeat_key: its class index and read mode
 * @hist:       ring of the most recent acquisitions
 */
struct xr_task {
	unsigned int		nr_written;
	unsigned int		ctx;
	unsigned int		nr_waits;
	unsigned int		bound;
	u8			bounded;
	u8			opportunistic;
	u8			opportunistic_irq;
	u8			hidden;
	u16			repeat_key;
	unsigned long		repeat_ip;
	u64			repeat_gen;
	struct xr_hist_entry	hist[XR_HIST_SIZE];
};

#endif /* CONFIG_LOCKDEP_CROSSRELEASE */
#endif /* __LINUX_CROSSRELEASE_TYPES_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the files of the crossrelease engine only: the core
 * (lockdep_crossrelease.c) and its reports (lockdep_crossrelease_report.c).
 */
#ifndef __KERNEL_LOCKING_LOCKDEP_CROSSRELEASE_INTERNALS_H
#define __KERNEL_LOCKING_LOCKDEP_CROSSRELEASE_INTERNALS_H

#include <linux/crossrelease_types.h>
#include <linux/lockdep.h>
#include <linux/types.h>

struct lock_trace;

/* A snapshot of a crosslock, taken at commit and used by the report. */
struct crosslock_snapshot {
	struct held_lock	xhlock;
	u64			gen;
	pid_t			pid;
	char			comm[CROSSLOCK_COMM_LEN];
	unsigned int		irq_context;
	bool			incomplete;	/* the walk left a dependency out */
	u8			entry_flags;	/* of the entry being committed */
};

/*
 * Classes of crosslocks, marked by the core when one is acquired or
 * committed; a cycle through a crosslock has a marked class on it.
 */
extern DECLARE_BITMAP(crosslock_classes, MAX_LOCKDEP_KEYS);

/* The core: the stack saved for a (class, call site), or NULL */
struct lock_trace *crosslock_stack_lookup(unsigned int class_idx,
					  unsigned long ip);

/* The reports: around each dependency a commit adds */
void crosslock_report_enter(struct crosslock_snapshot *c);
void crosslock_report_exit(void);
/* The reports: forget the cycles printed through a freed class */
void crosslock_cycle_forget_class(unsigned int class_idx);

#endif /* __KERNEL_LOCKING_LOCKDEP_CROSSRELEASE_INTERNALS_H */

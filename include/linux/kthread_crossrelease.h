/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The order of a kthread_worker's items, for lockdep crossrelease: the
 * hooks kernel/kthread.c calls (kernel/kthread_crossrelease.c).
 */
#ifndef __LINUX_KTHREAD_CROSSRELEASE_H
#define __LINUX_KTHREAD_CROSSRELEASE_H

#include <linux/types.h>

struct completion;
struct kthread_worker;
struct task_struct;

#ifdef CONFIG_LOCKDEP_CROSSRELEASE
void kthread_worker_own_order(struct kthread_worker *worker,
			      struct task_struct *task);
void kthread_worker_free_order(struct kthread_worker *worker);
bool kthread_work_order_begin(struct kthread_worker *worker, bool barrier);
void kthread_work_order_end(struct kthread_worker *worker, bool held);
void kthread_flush_order(struct kthread_worker *worker,
			 struct completion *done);
void kthread_flush_order_idle(struct kthread_worker *worker,
			      unsigned long ip);
#else
static inline void kthread_worker_own_order(struct kthread_worker *worker,
					    struct task_struct *task) { }
static inline void kthread_worker_free_order(struct kthread_worker *worker) { }
static inline bool kthread_work_order_begin(struct kthread_worker *worker,
					    bool barrier)
{
	return false;
}

static inline void kthread_work_order_end(struct kthread_worker *worker,
					  bool held) { }
static inline void kthread_flush_order(struct kthread_worker *worker,
				       struct completion *done) { }
static inline void kthread_flush_order_idle(struct kthread_worker *worker,
					    unsigned long ip) { }
#endif /* CONFIG_LOCKDEP_CROSSRELEASE */

#endif /* __LINUX_KTHREAD_CROSSRELEASE_H */

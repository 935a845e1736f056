// SPDX-License-Identifier: GPL-2.0
/*
 * The order of a kthread_worker's items, for lockdep crossrelease.
 *
 * A kthread_worker runs its items one at a time, in order, like an
 * ordered workqueue: an item cannot start before the items queued before
 * it have finished, and a flush waits for every item queued before its
 * barrier.  Each item holds the worker's order class while it runs, so
 * the class depends on what items take; an item notes a wait for it at
 * its start, so a crosslock the item releases depends on what the items
 * before it took; and a flush's completion has that class, so a flush
 * under a lock that an earlier item takes closes a cycle.  Workers of
 * kthread_create_worker() each get a class of their own, so that the
 * barriers of one never alias another's.
 */
#include <linux/completion.h>
#include <linux/crossrelease.h>
#include <linux/kthread.h>
#include <linux/kthread_crossrelease.h>
#include <linux/lockdep.h>
#include <linux/sched.h>

/**
 * kthread_worker_own_order - give a created worker an order class of its own
 * @worker: the worker, of kthread_create_worker()
 * @task:   its thread, which names the class
 */
void kthread_worker_own_order(struct kthread_worker *worker,
			      struct task_struct *task)
{
	snprintf(worker->order_name, sizeof(worker->order_name),
		 "(kthread_worker)%s", task->comm);
	lockdep_register_key(&worker->order_key);
	lockdep_init_map_wait(&worker->order_map, worker->order_name,
			      &worker->order_key, 0, LD_WAIT_SLEEP);
}

/**
 * kthread_worker_free_order - drop the order class of kthread_worker_own_order()
 * @worker: the worker, about to be freed
 */
void kthread_worker_free_order(struct kthread_worker *worker)
{
	if (worker->order_map.key == &worker->order_key)
		lockdep_unregister_key(&worker->order_key);
}

/**
 * kthread_work_order_begin - an item starts: it waited for the items before it
 * @worker:  the worker running it
 * @barrier: the item is a flush barrier, whose completion is of the order
 *           class already
 *
 * Return: true if the item now holds the order class; pass it to
 * kthread_work_order_end().
 */
bool kthread_work_order_begin(struct kthread_worker *worker, bool barrier)
{
	if (barrier || !worker->order_map.key)
		return false;
	crosslock_wait(&worker->order_map, _RET_IP_);
	lock_map_acquire(&worker->order_map);
	return true;
}

/**
 * kthread_work_order_end - an item has run
 * @worker: the worker that ran it
 * @held:   what kthread_work_order_begin() returned
 */
void kthread_work_order_end(struct kthread_worker *worker, bool held)
{
	if (held)
		lock_map_release(&worker->order_map);
}

/**
 * kthread_flush_order - give a flush barrier's completion the order class
 * @worker: the worker flushed
 * @done:   the barrier's completion
 */
void kthread_flush_order(struct kthread_worker *worker, struct completion *done)
{
#ifdef CONFIG_LOCKDEP_COMPLETIONS
	if (worker->order_map.key)
		completion_set_class(done, worker->order_map.name,
				     worker->order_map.key);
#endif
}

/**
 * kthread_flush_order_idle - a flush found its work idle
 * @worker: the worker
 * @ip:     the flush's caller
 *
 * It does not wait, but it would have waited for every item in front of
 * the work had it been queued: the locks the flusher holds depend on the
 * worker's order all the same, as flush_work() tells lockdep for a work
 * item whether or not it waits.
 */
void kthread_flush_order_idle(struct kthread_worker *worker, unsigned long ip)
{
	if (worker->order_map.key)
		crosslock_owner_wait(&worker->order_map, ip);
}

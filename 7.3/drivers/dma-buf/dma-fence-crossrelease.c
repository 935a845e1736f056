// SPDX-License-Identifier: GPL-2.0
/*
 * dma-fences as lockdep crosslocks.
 *
 * A dma_fence_wait() is a wait for an event that some other context
 * produces with dma_fence_signal(): a crosslock.  The wait makes the
 * locks the waiter holds depend on the fence; the signal commits what its
 * context acquired since the wait began, so that a wait under a lock the
 * signaller needs is reported, as for completions.
 *
 * The objections of the explicit annotations (commit 5fbff813a4a3) are
 * answered by three rules:
 *
 *  - Classes are per &dma_fence_ops, that is per driver and kind of
 *    timeline, named "(dma_fence)<driver name>": fences of unrelated
 *    drivers never share a class.
 *  - A signal inside crosslock_fence_opportunistic_begin() and
 *    crosslock_fence_opportunistic_end() commits nothing: opportunistic cleanup
 *    is not on the path to the fence's completion.  The fast path of
 *    dma_fence_is_signaled() is such a signal.
 *  - Inside a dma_fence_begin_signalling() section, a signal commits only
 *    what was acquired inside the section: the section is the critical
 *    path the driver declared.  Outside sections, the usual crossrelease
 *    rule applies (since the wait began, in this work item or system call).
 *
 * Only waits without a timeout are tracked: a finite wait ends by itself.
 */
#define pr_fmt(fmt) "dma-fence crossrelease: " fmt

#include <linux/crossrelease_class_table.h>
#include <linux/dma-fence.h>
#include <linux/dma-fence-crossrelease.h>
#include <linux/sched.h>
#include <linux/spinlock.h>

#define XR_FENCE_CLASSES	64
#define XR_FENCE_NAME_LEN	48

struct xr_fence_class {
	struct crosslock_class_slot	slot;	/* the fence's ops */
	struct lock_class_key		key;
	char				name[XR_FENCE_NAME_LEN];
};

static struct xr_fence_class xr_fence_classes[XR_FENCE_CLASSES];
DEFINE_CROSSLOCK_CLASS_TABLE(xr_fences, xr_fence_classes);
static struct xr_fence_class xr_fence_overflow = {
	.name = "(dma_fence)other",
};

static void xr_fence_class_init(void *entry, const void *ops, const void *arg)
{
	const struct dma_fence_ops *fops = ops;
	struct xr_fence_class *c = entry;

	snprintf(c->name, XR_FENCE_NAME_LEN, "(dma_fence)%s",
		 fops->get_driver_name((struct dma_fence *)arg));
}

static struct xr_fence_class *xr_fence_class(struct dma_fence *fence)
{
	/* being initialised: nobody else sees the fence yet */
	const struct dma_fence_ops *ops = rcu_dereference_protected(fence->ops, true);
	struct xr_fence_class *c;

	c = crosslock_class_find(&xr_fences, ops, NULL);
	if (!c)
		c = crosslock_class_add(&xr_fences, ops, NULL,
					xr_fence_class_init, fence);
	if (!c) {
		pr_warn_once("more than %d kinds of fences, the others share one class\n",
			     XR_FENCE_CLASSES);
		c = &xr_fence_overflow;
	}
	return c;
}

/**
 * crosslock_fence_init - give a new fence the class of its ops
 * @fence: the fence, being initialised by dma_fence_init()
 */
void crosslock_fence_init(struct dma_fence *fence)
{
	struct xr_fence_class *c = xr_fence_class(fence);

	crosslock_init_map(&fence->dep_map, c->name, &c->key,
			   CROSSLOCK_SELF_RELEASE);
}

static bool xr_fence_tracked_wait(signed long timeout)
{
	return timeout == MAX_SCHEDULE_TIMEOUT;
}

/**
 * crosslock_fence_acquire - a task starts waiting for a fence
 * @fence:   the fence
 * @timeout: the wait's timeout; only waits without one are tracked
 * @ip:      the caller
 */
void crosslock_fence_acquire(struct dma_fence *fence, signed long timeout,
			     unsigned long ip)
{
	if (xr_fence_tracked_wait(timeout))
		crosslock_acquire(&fence->dep_map, 0, ip);
}

/**
 * crosslock_fence_release - the wait of crosslock_fence_acquire() ended
 * @fence:   the fence
 * @timeout: the timeout given to crosslock_fence_acquire()
 * @ip:      the caller
 *
 * A wait that ends with the fence signalled got the signal, whether it
 * slept for it or not (see crosslock_release()); one interrupted before
 * gave up.
 */
void crosslock_fence_release(struct dma_fence *fence, signed long timeout,
			     unsigned long ip)
{
	if (!xr_fence_tracked_wait(timeout))
		return;
	if (test_bit(DMA_FENCE_FLAG_SIGNALED_BIT, &fence->flags))
		crosslock_release(&fence->dep_map, ip);
	else
		crosslock_give_up(&fence->dep_map, ip);
}

/**
 * crosslock_fence_commit - a fence is being signalled
 * @fence: the fence, with its lock held, before the callbacks run
 */
void crosslock_fence_commit(struct dma_fence *fence)
{
	crosslock_commit(&fence->dep_map);
}

/**
 * crosslock_fence_section_begin - a dma_fence_begin_signalling() section began
 *
 * Signals inside it commit only what this task acquired inside it.
 */
void crosslock_fence_section_begin(void)
{
	crosslock_bound_begin();
}

/**
 * crosslock_fence_section_end - the section of crosslock_fence_section_begin() ended
 */
void crosslock_fence_section_end(void)
{
	crosslock_bound_end();
}

// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite: crossrelease stays silent on correct kernel code.
 *
 * Each case replays, with the stock kernel API, a sequence that once made
 * crossrelease report a deadlock that cannot happen, or crash: a flush of
 * an item of an ordered workqueue, kthread_stop() and kthread_park() of
 * unrelated threads, a workqueue destroyed before a complete(), a static
 * crosslock initialiser used on the stack, folios of different owners,
 * and flushes of unrelated kthread workers.  Every case asserts that no
 * lockdep report was printed and that lockdep is still on.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/lockdep_pagelock.h>
#include <linux/mutex.h>
#include <linux/pagemap.h>
#include <linux/shmem_fs.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "lockdep_kunit.h"
#include "lockdep_crossrelease.h"

struct xp_ctx {
	struct lock_class_key key_a, key_b;
	struct mutex a;			/* lock of the scenarios */
	struct mutex b;			/* another, of another class */
	struct completion done, go;
	struct work_struct work;
	struct kthread_work kwork;
	struct lockdep_capture cap;
	long misuse, stale;
};

static int xp_test_init(struct kunit *test)
{
	struct xp_ctx *ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);

	if (!ctx)
		return -ENOMEM;
	test->priv = ctx;
	lockdep_register_key(&ctx->key_a);
	lockdep_register_key(&ctx->key_b);
	mutex_init(&ctx->a);
	mutex_init(&ctx->b);
	lockdep_set_class_and_name(&ctx->a, &ctx->key_a, "xp_test_A");
	lockdep_set_class_and_name(&ctx->b, &ctx->key_b, "xp_test_B");
	init_completion(&ctx->done);
	init_completion(&ctx->go);

	if (!crosslock_enabled())
		kunit_skip(test, "booted with crossrelease=off");
	if (!lockdep_kunit_is_on())
		kunit_skip(test, "lockdep is off (earlier report?)");
	ctx->misuse = crosslock_counter_read(CROSSLOCK_COUNTER_MISUSE);
	ctx->stale = crosslock_counter_read(CROSSLOCK_COUNTER_STALE_ENTRIES);
	lockdep_kunit_capture_start(&ctx->cap);
	return 0;
}

static void xp_test_exit(struct kunit *test)
{
	struct xp_ctx *ctx = test->priv;

	mutex_destroy(&ctx->a);
	mutex_destroy(&ctx->b);
	lockdep_unregister_key(&ctx->key_a);
	lockdep_unregister_key(&ctx->key_b);
	kfree(ctx);
}

static void expect_quiet(struct kunit *test, struct xp_ctx *ctx)
{
	KUNIT_EXPECT_FALSE(test, lockdep_kunit_any_report(&ctx->cap));
	KUNIT_EXPECT_TRUE(test, lockdep_kunit_is_on());
}

static void take(struct mutex *m)
{
	mutex_lock(m);
	mutex_unlock(m);
}

static void park_until_stopped(void)
{
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
}

/* --- flush_work() and cancel_work_sync() on an ordered workqueue --- */

static void take_a_work(struct work_struct *work)
{
	struct xp_ctx *ctx = container_of(work, struct xp_ctx, work);

	take(&ctx->a);
}

static void xp_ordered_flush_quiet(struct kunit *test)
{
	struct xp_ctx *ctx = test->priv;
	struct workqueue_struct *wq;
	int i;

	wq = alloc_ordered_workqueue("xp_ordered", 0);
	KUNIT_ASSERT_NOT_NULL(test, wq);
	INIT_WORK(&ctx->work, take_a_work);
	for (i = 0; i < 20; i++) {
		queue_work(wq, &ctx->work);
		flush_work(&ctx->work);
		queue_work(wq, &ctx->work);
		cancel_work_sync(&ctx->work);
		queue_work(wq, &ctx->work);
		flush_workqueue(wq);
	}
	destroy_workqueue(wq);
	expect_quiet(test, ctx);
}

/* --- kthread_stop() and kthread_park() of unrelated kthreads --- */

static int idle_fn(void *data)
{
	park_until_stopped();
	return 0;
}

/* Takes A on its way out, after kthread_stop() began to wait. */
static int take_a_on_exit_fn(void *data)
{
	struct xp_ctx *ctx = data;

	park_until_stopped();
	take(&ctx->a);
	return 0;
}

/*
 * K1 is stopped under A; K2, created elsewhere, takes A before it exits
 * while someone without A stops it.  No wait for an exit ever needs A.
 */
static void xp_kthread_stop_quiet(struct kunit *test)
{
	struct xp_ctx *ctx = test->priv;
	struct task_struct *k1, *k2;

	k1 = kthread_run(idle_fn, ctx, "xp_idle");
	KUNIT_ASSERT_FALSE(test, IS_ERR(k1));
	mutex_lock(&ctx->a);
	kthread_stop(k1);
	mutex_unlock(&ctx->a);

	k2 = kthread_run(take_a_on_exit_fn, ctx, "xp_take_a");
	KUNIT_ASSERT_FALSE(test, IS_ERR(k2));
	kthread_stop(k2);
	expect_quiet(test, ctx);
}

static int park_idle_fn(void *data)
{
	while (!kthread_should_stop()) {
		if (kthread_should_park())
			kthread_parkme();
		schedule_timeout_interruptible(1);
	}
	return 0;
}

static int take_a_before_park_fn(void *data)
{
	struct xp_ctx *ctx = data;

	while (!kthread_should_stop()) {
		if (kthread_should_park()) {
			take(&ctx->a);
			kthread_parkme();
		}
		schedule_timeout_interruptible(1);
	}
	return 0;
}

static void xp_kthread_park_quiet(struct kunit *test)
{
	struct xp_ctx *ctx = test->priv;
	struct task_struct *k1, *k2;

	k1 = kthread_run(park_idle_fn, ctx, "xp_park_idle");
	KUNIT_ASSERT_FALSE(test, IS_ERR(k1));
	k2 = kthread_run(take_a_before_park_fn, ctx, "xp_park_a");
	KUNIT_ASSERT_FALSE(test, IS_ERR(k2));

	mutex_lock(&ctx->a);
	KUNIT_EXPECT_EQ(test, kthread_park(k1), 0);
	mutex_unlock(&ctx->a);
	KUNIT_EXPECT_EQ(test, kthread_park(k2), 0);

	kthread_stop(k1);
	kthread_stop(k2);
	expect_quiet(test, ctx);
}

/* --- a class freed between the acquisition and the commit --- */

static void nop_work(struct work_struct *work) { }

static int wait_done_fn(void *data)
{
	struct xp_ctx *ctx = data;

	wait_for_completion(&ctx->done);
	park_until_stopped();
	return 0;
}

/*
 * The completer's history names the class of a workqueue that
 * destroy_workqueue() freed (and that another class may have taken over
 * since): the commit skips it, and neither oopses nor adds an edge.
 */
static void xp_destroyed_workqueue_then_complete_quiet(struct kunit *test)
{
	struct xp_ctx *ctx = test->priv;
	struct workqueue_struct *wq;
	struct task_struct *t;
	int i;

	for (i = 0; i < 3; i++) {
		reinit_completion(&ctx->done);
		t = kthread_run(wait_done_fn, ctx, "xp_waiter");
		KUNIT_ASSERT_FALSE(test, IS_ERR(t));
		lockdep_kunit_until_waiting(&ctx->done, 1);

		wq = alloc_workqueue("xp_percpu_%d", 0, 0, i);
		KUNIT_ASSERT_NOT_NULL(test, wq);
		INIT_WORK(&ctx->work, nop_work);
		queue_work(wq, &ctx->work);
		flush_workqueue(wq);
		destroy_workqueue(wq);
		synchronize_rcu();	/* the freed index may now be reused */

		complete(&ctx->done);
		kthread_stop(t);
	}
	KUNIT_EXPECT_GT(test, crosslock_counter_read(CROSSLOCK_COUNTER_STALE_ENTRIES),
			ctx->stale);
	expect_quiet(test, ctx);
}

/* --- a static crosslock initialiser on the stack --- */

/*
 * A static initialiser (DECLARE_COMPLETION()) leaves the key to lockdep,
 * which can only use a static address as one: on the stack, lockdep would
 * switch itself off.  Crossrelease warns once and leaves the crosslock
 * untracked.  (A whole DECLARE_COMPLETION() on the stack still trips
 * lockdep's own check, on the wait queue's spinlock.)
 */
static void xp_onstack_static_initialiser_warns(struct kunit *test)
{
	struct xp_ctx *ctx = test->priv;
	struct crosslock bad =
		STATIC_CROSSLOCK_INIT("(xp_test)onstack", NULL,
				      CROSSLOCK_SELF_RELEASE);

	mutex_lock(&ctx->a);
	crosslock_acquire(&bad, 0, _THIS_IP_);
	crosslock_release(&bad, _THIS_IP_);
	mutex_unlock(&ctx->a);
	crosslock_commit(&bad);
	KUNIT_EXPECT_GT(test, crosslock_counter_read(CROSSLOCK_COUNTER_MISUSE), ctx->misuse);
	KUNIT_EXPECT_TRUE(test, bad.state.flags & CROSSLOCK_UNTRACKED);
	KUNIT_EXPECT_EQ(test, bad.state.nr_acquired, 0U);
	expect_quiet(test, ctx);
}

/* --- folios of different owners are different classes --- */

/*
 * The shape of a btrfs report: a file folio is unlocked after A is taken
 * (file -> A), A is held while B is taken (A -> B), and a folio of
 * another owner is locked under B (B -> other).  With one class for all
 * folios this closed a cycle; a file's folio and a folio that belongs to
 * nothing are different classes.
 */
static void xp_folio_classes_apart_quiet(struct kunit *test)
{
	struct xp_ctx *ctx = test->priv;
	struct folio *file_folio, *free_folio;
	struct file *file;
	struct page *page;

	if (!crosslock_folio_enabled())
		kunit_skip(test, "folio locks not tracked");
	file = shmem_kernel_file_setup("xp_test", PAGE_SIZE, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(file));
	page = shmem_read_mapping_page(file->f_mapping, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(page));
	file_folio = page_folio(page);
	free_folio = folio_alloc(GFP_KERNEL, 0);
	KUNIT_ASSERT_NOT_NULL(test, free_folio);

	/* named after the first file system type seen with those a_ops */
	KUNIT_EXPECT_NOT_NULL(test, strstr(crosslock_folio_class_name(file_folio),
					   IS_ENABLED(CONFIG_SHMEM) ?
					   ":shmem_aops" : ":ram_aops"));
	KUNIT_EXPECT_STREQ(test, crosslock_folio_class_name(free_folio),
			   "(PG_locked)folio");

	folio_lock(file_folio);
	take(&ctx->a);
	folio_unlock(file_folio);

	mutex_lock(&ctx->a);
	take(&ctx->b);
	mutex_unlock(&ctx->a);

	mutex_lock(&ctx->b);
	folio_lock(free_folio);
	folio_unlock(free_folio);
	mutex_unlock(&ctx->b);

	folio_put(free_folio);
	put_page(page);
	fput(file);
	expect_quiet(test, ctx);
}

/* --- flushes of unrelated kthread workers --- */

struct xp_flusher {
	struct kthread_worker *worker;
	struct kthread_work *work;
	struct mutex *held;
};

static int flush_under_lock_fn(void *data)
{
	struct xp_flusher *f = data;

	mutex_lock(f->held);
	kthread_flush_work(f->work);
	mutex_unlock(f->held);
	park_until_stopped();
	return 0;
}

struct xp_kwork {
	struct kthread_work work;
	struct completion go;
	struct mutex *take;
};

static void wait_go_then_take_fn(struct kthread_work *work)
{
	struct xp_kwork *w = container_of(work, struct xp_kwork, work);

	wait_for_completion(&w->go);
	take(w->take);
}

/*
 * Worker 1's item takes B while a flush of it waits under A; worker 2's
 * item takes A while a flush of it waits under B.  The flushes wait for
 * different workers: the marker's completion of one must not depend on
 * what the other worker's items take.
 */
static void flush_while_item_takes(struct kunit *test, struct mutex *held,
				   struct mutex *taken)
{
	struct kthread_worker *worker;
	struct xp_flusher f;
	struct task_struct *t;
	struct xp_kwork w;

	worker = kthread_create_worker(0, "xp_worker");
	KUNIT_ASSERT_FALSE(test, IS_ERR(worker));
	init_completion(&w.go);
	w.take = taken;
	kthread_init_work(&w.work, wait_go_then_take_fn);
	kthread_queue_work(worker, &w.work);

	f.worker = worker;
	f.work = &w.work;
	f.held = held;
	t = kthread_run(flush_under_lock_fn, &f, "xp_flusher");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	msleep(50);		/* the flusher waits for the marker */
	complete(&w.go);
	kthread_stop(t);
	kthread_destroy_worker(worker);
}

static void xp_kthread_worker_flushes_quiet(struct kunit *test)
{
	struct xp_ctx *ctx = test->priv;

	flush_while_item_takes(test, &ctx->a, &ctx->b);
	flush_while_item_takes(test, &ctx->b, &ctx->a);
	expect_quiet(test, ctx);
}

static struct kunit_case xp_test_cases[] = {
	KUNIT_CASE(xp_ordered_flush_quiet),
	KUNIT_CASE(xp_kthread_stop_quiet),
	KUNIT_CASE(xp_kthread_park_quiet),
	KUNIT_CASE(xp_destroyed_workqueue_then_complete_quiet),
	KUNIT_CASE(xp_onstack_static_initialiser_warns),
	KUNIT_CASE(xp_folio_classes_apart_quiet),
	KUNIT_CASE(xp_kthread_worker_flushes_quiet),
	{}
};

static struct kunit_suite xp_test_suite = {
	.name = "crossrelease_precision",
	.init = xp_test_init,
	.exit = xp_test_exit,
	.test_cases = xp_test_cases,
};

kunit_test_suite(xp_test_suite);

MODULE_LICENSE("GPL");

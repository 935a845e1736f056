// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite: crossrelease stays silent on correct kernel code.
 *
 * Each case replays, with the stock kernel API, a sequence that once made
 * crossrelease report a deadlock that cannot happen, or crash: a flush of
 * an item of an ordered workqueue, kthread_stop() and kthread_park() of
 * unrelated threads, a workqueue destroyed before a complete(), a static
 * crosslock initialiser used on the stack, folios of different owners,
 * flushes of unrelated kthread workers, and two tasks handing completions
 * back and forth.  Every case asserts that no lockdep report was printed
 * and that lockdep is still on.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/folio_crossrelease.h>
#include <linux/kthread.h>
#include <linux/mutex.h>
#include <linux/pagemap.h>
#include <linux/shmem_fs.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "lockdep_kunit.h"
#include "lockdep_crossrelease.h"

struct xp_ctx {
	struct lockdep_kunit_fixture fx; /* fx.m: A, lock of the scenarios */
	struct lock_class_key key_b;
	struct mutex b;			/* another, of another class */
	struct completion done, go;
	struct work_struct work;
	struct kthread_work kwork;
	long misuse, stale;
};

static int xp_test_init(struct kunit *test)
{
	struct xp_ctx *ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);

	if (!ctx)
		return -ENOMEM;
	test->priv = ctx;
	lockdep_kunit_fixture_init(&ctx->fx, "xp_test_A");
	lockdep_register_key(&ctx->key_b);
	mutex_init(&ctx->b);
	lockdep_set_class_and_name(&ctx->b, &ctx->key_b, "xp_test_B");
	init_completion(&ctx->done);
	init_completion(&ctx->go);

	crossrelease_kunit_skip_if_off(test);
	ctx->misuse = crosslock_counter_read(CROSSLOCK_COUNTER_MISUSE);
	ctx->stale = crosslock_counter_read(CROSSLOCK_COUNTER_STALE_ENTRIES);
	return 0;
}

static void xp_test_exit(struct kunit *test)
{
	struct xp_ctx *ctx = test->priv;

	mutex_destroy(&ctx->b);
	lockdep_unregister_key(&ctx->key_b);
	lockdep_kunit_fixture_exit(&ctx->fx);
	kfree(ctx);
}

static void take(struct mutex *m)
{
	mutex_lock(m);
	mutex_unlock(m);
}

/* --- flush_work() and cancel_work_sync() on an ordered workqueue --- */

static void take_a_work(struct work_struct *work)
{
	struct xp_ctx *ctx = container_of(work, struct xp_ctx, work);

	take(&ctx->fx.m);
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
	lockdep_kunit_expect_quiet(test, &ctx->fx.cap);
}

/* --- kthread_stop() and kthread_park() of unrelated kthreads --- */

/* Takes A on its way out, after kthread_stop() began to wait. */
static int take_a_on_exit_fn(void *data)
{
	struct xp_ctx *ctx = data;

	lockdep_kunit_idle_until_stopped();
	take(&ctx->fx.m);
	return 0;
}

/*
 * K1 is stopped under A; K2, created elsewhere, takes A before it exits
 * while someone without A stops it.  No wait for an exit ever needs A.
 */
static void xp_kthread_stop_quiet(struct kunit *test)
{
	struct xp_ctx *ctx = test->priv;
	struct lockdep_kunit_kthread idle;
	struct task_struct *k1, *k2;

	k1 = lockdep_kunit_run_kthread(&idle, NULL, NULL, "xp_idle");
	KUNIT_ASSERT_FALSE(test, IS_ERR(k1));
	mutex_lock(&ctx->fx.m);
	lockdep_kunit_stop_kthread(&idle);
	mutex_unlock(&ctx->fx.m);

	k2 = kthread_run(take_a_on_exit_fn, ctx, "xp_take_a");
	KUNIT_ASSERT_FALSE(test, IS_ERR(k2));
	kthread_stop(k2);
	lockdep_kunit_expect_quiet(test, &ctx->fx.cap);
}

static int take_a_before_park_fn(void *data)
{
	struct xp_ctx *ctx = data;

	while (!kthread_should_stop()) {
		if (kthread_should_park()) {
			take(&ctx->fx.m);
			kthread_parkme();
		}
		schedule_timeout_interruptible(1);
	}
	return 0;
}

static void xp_kthread_park_quiet(struct kunit *test)
{
	struct xp_ctx *ctx = test->priv;
	struct lockdep_kunit_kthread idle;
	struct task_struct *k1, *k2;

	/* idles, and parks when asked */
	k1 = lockdep_kunit_run_kthread(&idle, NULL, NULL, "xp_park_idle");
	KUNIT_ASSERT_FALSE(test, IS_ERR(k1));
	k2 = kthread_run(take_a_before_park_fn, ctx, "xp_park_a");
	KUNIT_ASSERT_FALSE(test, IS_ERR(k2));

	mutex_lock(&ctx->fx.m);
	KUNIT_EXPECT_EQ(test, kthread_park(k1), 0);
	mutex_unlock(&ctx->fx.m);
	KUNIT_EXPECT_EQ(test, kthread_park(k2), 0);

	lockdep_kunit_stop_kthread(&idle);
	kthread_stop(k2);
	lockdep_kunit_expect_quiet(test, &ctx->fx.cap);
}

/* --- a class freed between the acquisition and the commit --- */

static void nop_work(struct work_struct *work) { }

static void wait_done_fn(void *data)
{
	struct xp_ctx *ctx = data;

	wait_for_completion(&ctx->done);
}

/*
 * destroy_workqueue() unregisters the workqueue's lockdep key itself, or
 * (since its pool_workqueues are released by a kthread worker) leaves it
 * to that worker: a round's complete() may come before the class is
 * freed.  Rounds go on until a commit met a freed class, within a bound.
 */
#define XP_STALE_ROUNDS		20

static bool xp_stale_seen(struct xp_ctx *ctx)
{
	return crosslock_counter_read(CROSSLOCK_COUNTER_STALE_ENTRIES) > ctx->stale;
}

/*
 * The completer's history names the class of a workqueue that
 * destroy_workqueue() freed (and that another class may have taken over
 * since): the commit skips it, and neither oopses nor adds an edge.
 */
static void xp_destroyed_workqueue_then_complete_quiet(struct kunit *test)
{
	struct xp_ctx *ctx = test->priv;
	struct lockdep_kunit_kthread waiter;
	struct workqueue_struct *wq;
	struct task_struct *t;
	int i;

	for (i = 0; i < 3 || (i < XP_STALE_ROUNDS && !xp_stale_seen(ctx)); i++) {
		reinit_completion(&ctx->done);
		t = lockdep_kunit_run_kthread(&waiter, wait_done_fn, ctx,
					      "xp_waiter");
		KUNIT_ASSERT_FALSE(test, IS_ERR(t));
		lockdep_kunit_until_waiting(&ctx->done, 1);

		wq = alloc_workqueue("xp_percpu_%d", 0, 0, i);
		KUNIT_ASSERT_NOT_NULL(test, wq);
		INIT_WORK(&ctx->work, nop_work);
		queue_work(wq, &ctx->work);
		flush_workqueue(wq);
		destroy_workqueue(wq);
		msleep(20);		/* the key may be freed by a kthread worker */
		synchronize_rcu();	/* the freed index may now be reused */

		complete(&ctx->done);
		lockdep_kunit_stop_kthread(&waiter);
	}
	KUNIT_EXPECT_TRUE(test, xp_stale_seen(ctx));
	lockdep_kunit_expect_quiet(test, &ctx->fx.cap);
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

	mutex_lock(&ctx->fx.m);
	crosslock_acquire(&bad, 0, _THIS_IP_);
	crosslock_release(&bad, _THIS_IP_);
	mutex_unlock(&ctx->fx.m);
	crosslock_commit(&bad);
	KUNIT_EXPECT_GT(test, crosslock_counter_read(CROSSLOCK_COUNTER_MISUSE), ctx->misuse);
	KUNIT_EXPECT_TRUE(test, bad.state.flags & CROSSLOCK_UNTRACKED);
	KUNIT_EXPECT_EQ(test, bad.state.nr_acquired, 0U);
	lockdep_kunit_expect_quiet(test, &ctx->fx.cap);
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
	file = shmem_kernel_file_setup("xp_test", PAGE_SIZE, EMPTY_VMA_FLAGS);
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
	take(&ctx->fx.m);
	folio_unlock(file_folio);

	mutex_lock(&ctx->fx.m);
	take(&ctx->b);
	mutex_unlock(&ctx->fx.m);

	mutex_lock(&ctx->b);
	folio_lock(free_folio);
	folio_unlock(free_folio);
	mutex_unlock(&ctx->b);

	folio_put(free_folio);
	put_page(page);
	fput(file);
	lockdep_kunit_expect_quiet(test, &ctx->fx.cap);
}

/* --- flushes of unrelated kthread workers --- */

struct xp_flusher {
	struct kthread_worker *worker;
	struct kthread_work *work;
	struct mutex *held;		/* held around the flush */
};

static void flush_under_lock_fn(void *data)
{
	struct xp_flusher *f = data;

	mutex_lock(f->held);
	kthread_flush_work(f->work);
	mutex_unlock(f->held);
}

struct xp_kwork {
	struct kthread_work work;
	struct completion go;
	struct mutex *take;		/* taken once "go" completes */
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
	struct lockdep_kunit_kthread flusher;
	struct kthread_worker *worker;
	struct xp_flusher f;
	struct task_struct *t;
	struct xp_kwork w;

	worker = kthread_run_worker(0, "xp_worker");
	KUNIT_ASSERT_FALSE(test, IS_ERR(worker));
	init_completion(&w.go);
	w.take = taken;
	kthread_init_work(&w.work, wait_go_then_take_fn);
	kthread_queue_work(worker, &w.work);

	f.worker = worker;
	f.work = &w.work;
	f.held = held;
	t = lockdep_kunit_run_kthread(&flusher, flush_under_lock_fn, &f,
				      "xp_flusher");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	msleep(50);		/* the flusher waits for the marker */
	complete(&w.go);
	lockdep_kunit_stop_kthread(&flusher);
	kthread_destroy_worker(worker);
}

static void xp_kthread_worker_flushes_quiet(struct kunit *test)
{
	struct xp_ctx *ctx = test->priv;

	flush_while_item_takes(test, &ctx->fx.m, &ctx->b);
	flush_while_item_takes(test, &ctx->b, &ctx->fx.m);
	lockdep_kunit_expect_quiet(test, &ctx->fx.cap);
}

/* --- two tasks handing completions back and forth --- */

/*
 * Waits for "go", completed before it began, completes "done" twice and
 * waits for "go" again, which blocks.
 */
static void handshake_fn(void *data)
{
	struct xp_ctx *ctx = data;

	lockdep_kunit_until_waiting(&ctx->done, 1);
	wait_for_completion(&ctx->go);
	complete(&ctx->done);
	complete(&ctx->done);
	wait_for_completion(&ctx->go);
}

/*
 * Each task waits for a completion that the other completed before the
 * wait, then completes one that the other waits for: a handshake that
 * never blocks for good.  Counted from when they began, the waits that
 * find their completion done come after the other task's next wait, and
 * each complete() would seem to wait for the other's: "done" -> "go" from
 * the kthread's commit, "go" -> "done" from ours.
 */
static void xp_completion_handshake_quiet(struct kunit *test)
{
	struct xp_ctx *ctx = test->priv;
	struct lockdep_kunit_kthread peer;
	struct task_struct *t;

	complete(&ctx->go);
	t = lockdep_kunit_run_kthread(&peer, handshake_fn, ctx, "xp_handshake");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	wait_for_completion(&ctx->done);	/* blocks: the peer waits for it */
	lockdep_kunit_until_waiting(&ctx->go, 1);
	wait_for_completion(&ctx->done);	/* completed before */
	complete(&ctx->go);
	lockdep_kunit_stop_kthread(&peer);
	lockdep_kunit_expect_quiet(test, &ctx->fx.cap);
}

static struct kunit_case xp_test_cases[] = {
	KUNIT_CASE(xp_ordered_flush_quiet),
	KUNIT_CASE(xp_kthread_stop_quiet),
	KUNIT_CASE(xp_kthread_park_quiet),
	KUNIT_CASE(xp_destroyed_workqueue_then_complete_quiet),
	KUNIT_CASE(xp_onstack_static_initialiser_warns),
	KUNIT_CASE(xp_folio_classes_apart_quiet),
	KUNIT_CASE(xp_kthread_worker_flushes_quiet),
	KUNIT_CASE(xp_completion_handshake_quiet),
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

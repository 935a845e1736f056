// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for crosslock -> crosslock dependencies and ordered
 * workqueues (CONFIG_LOCKDEP_CROSSRELEASE with completions).
 *
 * A wait for crosslock B, made by the context that later releases
 * crosslock A after A was acquired, makes A depend on B.  As in the other
 * suites, a case lets lockdep learn one half of a cycle in a run that
 * cannot hang, then plays the other half, and asserts the report, or its
 * absence and that lockdep is still on.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/folio_crossrelease.h>
#include <linux/kthread.h>
#include <linux/mutex.h>
#include <linux/pagemap.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "lockdep_kunit.h"
#include "lockdep_crossrelease.h"

struct cc_ctx {
	struct lockdep_kunit_fixture fx; /* fx.m: the lock of the scenarios */
	struct completion a, b;		/* two completion classes */
	struct folio *f, *g;
	struct work_struct take_m_work, complete_a_work;
	struct kthread_work kw_take_m, kw_complete_a;
	bool completed;			/* the folio case's completer is done */
};

/* One class per init site */
static void init_a(struct cc_ctx *ctx)
{
	init_completion(&ctx->a);
}

static void init_b(struct cc_ctx *ctx)
{
	init_completion(&ctx->b);
}

static int cc_test_init(struct kunit *test)
{
	struct cc_ctx *ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);

	if (!ctx)
		return -ENOMEM;
	test->priv = ctx;
	lockdep_kunit_fixture_init(&ctx->fx, "cc_test_M");
	init_a(ctx);
	init_b(ctx);

	crossrelease_kunit_skip_if_off(test);
	return 0;
}

static void cc_test_exit(struct kunit *test)
{
	struct cc_ctx *ctx = test->priv;

	if (ctx->f)
		folio_put(ctx->f);
	if (ctx->g)
		folio_put(ctx->g);
	lockdep_kunit_fixture_exit(&ctx->fx);
	kfree(ctx);
}

/* --- Actors, each in a kthread: wait for one thing, then release --- */

struct actor {
	struct cc_ctx *ctx;
	struct completion *wait;	/* wait for this (or NULL) */
	bool timeout;			/* ... with a finite timeout */
	bool under_m;			/* ... holding the mutex */
	struct completion *complete;	/* then complete this (or NULL) */
	struct lockdep_kunit_kthread kt;
};

static void actor_fn(void *data)
{
	struct actor *a = data;

	if (a->under_m)
		mutex_lock(&a->ctx->fx.m);
	if (a->wait && a->timeout)
		wait_for_completion_timeout(a->wait, 60 * HZ);
	else if (a->wait)
		wait_for_completion(a->wait);
	if (a->under_m)
		mutex_unlock(&a->ctx->fx.m);
	if (a->complete)
		complete(a->complete);
}

static void start_actor(struct kunit *test, struct actor *a,
			struct cc_ctx *ctx, struct completion *wait,
			struct completion *complete, bool timeout)
{
	a->ctx = ctx;
	a->wait = wait;
	a->complete = complete;
	a->timeout = timeout;
	lockdep_kunit_run_kthread(&a->kt, actor_fn, a, "cc_actor");
	KUNIT_ASSERT_FALSE(test, IS_ERR(a->kt.task));
}

/*
 * @first is waited for by a plain waiter and completed by an actor that
 * first waits for @second, which this task completes: @first -> @second.
 */
static void chain(struct kunit *test, struct cc_ctx *ctx,
		  struct completion *first, struct completion *second,
		  bool timeout)
{
	struct actor waiter = { }, completer = { };

	reinit_completion(first);
	reinit_completion(second);
	start_actor(test, &waiter, ctx, first, NULL, false);
	lockdep_kunit_until_waiting(first, 1);
	start_actor(test, &completer, ctx, second, first, timeout);
	lockdep_kunit_until_waiting(second, 1);
	complete(second);
	lockdep_kunit_stop_kthread(&completer.kt);
	lockdep_kunit_stop_kthread(&waiter.kt);
}

/* A's completer waits for B, B's completer waits for A. */
static void cc_two_completions_reported(struct kunit *test)
{
	struct cc_ctx *ctx = test->priv;
	const struct lockdep_kunit_report cycle = {
		.headline = LOCKDEP_KUNIT_CIRCULAR,
		.lines = { "(complete)&ctx->a", "(complete)&ctx->b" },
		.crossrelease = true,
	};

	lockdep_kunit_expect_xr_report(test);

	chain(test, ctx, &ctx->a, &ctx->b, false);
	chain(test, ctx, &ctx->b, &ctx->a, false);

	lockdep_kunit_expect_matches(test, &ctx->fx.cap, &cycle);
	lockdep_kunit_reset();
	KUNIT_EXPECT_TRUE(test, lockdep_kunit_report_seen(&ctx->fx.cap,
							  "waited for crosslock"));
}

/* The same, but the completers' waits have a timeout: they end anyway. */
static void cc_two_completions_timeout_quiet(struct kunit *test)
{
	struct cc_ctx *ctx = test->priv;

	if (IS_ENABLED(CONFIG_LOCKDEP_COMPLETIONS_TIMEOUT))
		kunit_skip(test, "CONFIG_LOCKDEP_COMPLETIONS_TIMEOUT=y");
	chain(test, ctx, &ctx->a, &ctx->b, true);
	chain(test, ctx, &ctx->b, &ctx->a, true);

	lockdep_kunit_expect_quiet(test, &ctx->fx.cap);
}

/* A folio locked around a wait for A: unlocking it depends on A. */
static void lock_folio_and_wait_fn(void *data)
{
	struct cc_ctx *ctx = data;

	folio_lock(ctx->f);
	wait_for_completion(&ctx->a);
	folio_unlock(ctx->f);
}

/* A's completer waits for a folio lock first: A depends on it. */
static void wait_folio_and_complete_fn(void *data)
{
	struct cc_ctx *ctx = data;

	folio_lock(ctx->g);
	folio_unlock(ctx->g);
	complete(&ctx->a);
	WRITE_ONCE(ctx->completed, true);
}

static void cc_folio_and_completion_reported(struct kunit *test)
{
	struct cc_ctx *ctx = test->priv;
	const struct lockdep_kunit_report cycle = {
		.headline = LOCKDEP_KUNIT_CIRCULAR,
		.lines = { "(PG_locked)folio", "(complete)&ctx->a" },
		.crossrelease = true,
	};
	struct lockdep_kunit_kthread kt, kk;
	struct task_struct *t, *k;

	lockdep_kunit_expect_xr_report(test);
	if (!crosslock_folio_enabled())
		kunit_skip(test, "folio locks not tracked");

	ctx->f = folio_alloc(GFP_KERNEL, 0);
	ctx->g = folio_alloc(GFP_KERNEL, 0);
	KUNIT_ASSERT_NOT_NULL(test, ctx->f);
	KUNIT_ASSERT_NOT_NULL(test, ctx->g);

	t = lockdep_kunit_run_kthread(&kt, lock_folio_and_wait_fn, ctx,
				      "cc_folio_waiter");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	lockdep_kunit_until_waiting(&ctx->a, 1);
	k = lockdep_kunit_run_kthread(&kk, wait_folio_and_complete_fn, ctx,
				      "cc_completer");
	KUNIT_ASSERT_FALSE(test, IS_ERR(k));
	/* a kthread stopped before it first ran never runs its function */
	while (!READ_ONCE(ctx->completed))
		usleep_range(200, 400);
	lockdep_kunit_stop_kthread(&kk);
	lockdep_kunit_stop_kthread(&kt);

	lockdep_kunit_expect_matches(test, &ctx->fx.cap, &cycle);
	lockdep_kunit_reset();
}

/* --- Workqueues: item 1 takes M, item 2 completes A --- */

static void take_m_work(struct work_struct *work)
{
	struct cc_ctx *ctx = container_of(work, struct cc_ctx, take_m_work);

	lockdep_kunit_take_m(&ctx->fx);
}

static void complete_a_work(struct work_struct *work)
{
	struct cc_ctx *ctx = container_of(work, struct cc_ctx,
					  complete_a_work);

	complete(&ctx->a);
}

/*
 * Learn M -> A: a waiter holding M waits for A, which this task completes
 * (a run that cannot hang).  Then start @plain waiting for A without M,
 * for the items of the case to complete.
 */
static void learn_wait_under_m_then_wait(struct kunit *test,
					 struct cc_ctx *ctx,
					 struct actor *plain)
{
	struct actor waiter = { .under_m = true };

	start_actor(test, &waiter, ctx, &ctx->a, NULL, false);
	lockdep_kunit_until_waiting(&ctx->a, 1);
	complete(&ctx->a);
	lockdep_kunit_stop_kthread(&waiter.kt);

	reinit_completion(&ctx->a);
	start_actor(test, plain, ctx, &ctx->a, NULL, false);
	lockdep_kunit_until_waiting(&ctx->a, 1);
}

/*
 * A waiter holds M and waits for A (learnt in a run that cannot hang);
 * then item 1 takes M and item 2 completes A.  On an ordered workqueue
 * item 2 waits for item 1, so A depends on M: a deadlock if the waiter
 * holds M while item 1 is queued before item 2.
 */
static void workqueue_case(struct kunit *test, struct workqueue_struct *wq)
{
	struct cc_ctx *ctx = test->priv;
	struct actor plain = { };

	KUNIT_ASSERT_NOT_NULL(test, wq);
	learn_wait_under_m_then_wait(test, ctx, &plain);
	INIT_WORK(&ctx->take_m_work, take_m_work);
	INIT_WORK(&ctx->complete_a_work, complete_a_work);
	queue_work(wq, &ctx->take_m_work);
	queue_work(wq, &ctx->complete_a_work);
	flush_workqueue(wq);
	lockdep_kunit_stop_kthread(&plain.kt);
	destroy_workqueue(wq);
}

static void cc_ordered_workqueue_reported(struct kunit *test)
{
	struct cc_ctx *ctx = test->priv;
	const struct lockdep_kunit_report cycle = {
		.headline = LOCKDEP_KUNIT_CIRCULAR,
		.lines = { "(complete)&ctx->a", "cc_test_M" },
		.crossrelease = true,
	};

	lockdep_kunit_expect_xr_report(test);

	workqueue_case(test, alloc_ordered_workqueue("cc_test_ordered", 0));

	lockdep_kunit_expect_matches(test, &ctx->fx.cap, &cycle);
	lockdep_kunit_reset();
	KUNIT_EXPECT_TRUE(test, lockdep_kunit_report_seen(&ctx->fx.cap,
							  "cc_test_ordered"));
}

static void cc_ordinary_workqueue_quiet(struct kunit *test)
{
	struct cc_ctx *ctx = test->priv;

	workqueue_case(test, alloc_workqueue("cc_test_wq", 0, 0));

	lockdep_kunit_expect_quiet(test, &ctx->fx.cap);
}

/* --- kthread_workers: items run in order, as on an ordered workqueue --- */

static void kw_take_m(struct kthread_work *work)
{
	struct cc_ctx *ctx = container_of(work, struct cc_ctx, kw_take_m);

	lockdep_kunit_take_m(&ctx->fx);
}

static void kw_complete_a(struct kthread_work *work)
{
	struct cc_ctx *ctx = container_of(work, struct cc_ctx, kw_complete_a);

	complete(&ctx->a);
}

/*
 * The workqueue case on a kthread_worker: a waiter holding M waits for A
 * (learnt in a run that cannot hang), then item 1 takes M and item 2,
 * queued behind it, completes A.
 */
static void cc_kthread_worker_reported(struct kunit *test)
{
	struct cc_ctx *ctx = test->priv;
	struct actor plain = { };
	const struct lockdep_kunit_report cycle = {
		.headline = LOCKDEP_KUNIT_CIRCULAR,
		.lines = { "(complete)&ctx->a", "cc_test_M" },
		.crossrelease = true,
	};
	struct kthread_worker *kw;

	lockdep_kunit_expect_xr_report(test);
	kw = kthread_create_worker(0, "cc_test_kw");
	KUNIT_ASSERT_FALSE(test, IS_ERR(kw));
	learn_wait_under_m_then_wait(test, ctx, &plain);
	kthread_init_work(&ctx->kw_take_m, kw_take_m);
	kthread_init_work(&ctx->kw_complete_a, kw_complete_a);
	kthread_queue_work(kw, &ctx->kw_take_m);
	kthread_queue_work(kw, &ctx->kw_complete_a);
	kthread_flush_worker(kw);
	lockdep_kunit_stop_kthread(&plain.kt);
	kthread_destroy_worker(kw);

	lockdep_kunit_expect_matches(test, &ctx->fx.cap, &cycle);
	lockdep_kunit_reset();
	KUNIT_EXPECT_TRUE(test, lockdep_kunit_report_seen(&ctx->fx.cap,
							  "(kthread_worker)cc_test_kw"));
}

/*
 * Item 1 takes M on @first, item 2 is queued behind it on @second and
 * flushed with no lock held, which waits for both on one worker; then
 * item 2 is queued alone and flushed under M.  On one worker that flush
 * would wait for item 1 whenever item 1 is queued too: a deadlock.
 */
static void kthread_flush_case(struct kthread_worker *first,
			       struct kthread_worker *second,
			       struct cc_ctx *ctx)
{
	kthread_init_work(&ctx->kw_take_m, kw_take_m);
	kthread_init_work(&ctx->kw_complete_a, kw_complete_a);
	kthread_queue_work(first, &ctx->kw_take_m);
	kthread_queue_work(second, &ctx->kw_complete_a);
	kthread_flush_work(&ctx->kw_complete_a);
	kthread_flush_work(&ctx->kw_take_m);

	reinit_completion(&ctx->a);
	mutex_lock(&ctx->fx.m);
	kthread_queue_work(second, &ctx->kw_complete_a);
	kthread_flush_work(&ctx->kw_complete_a);
	mutex_unlock(&ctx->fx.m);
}

static void cc_kthread_flush_reported(struct kunit *test)
{
	struct cc_ctx *ctx = test->priv;
	const struct lockdep_kunit_report cycle = {
		.headline = LOCKDEP_KUNIT_CIRCULAR,
		.lines = { "(kthread_worker)cc_test_kw", "cc_test_M" },
		.crossrelease = true,
	};
	struct kthread_worker *kw;

	lockdep_kunit_expect_xr_report(test);
	kw = kthread_create_worker(0, "cc_test_kw");
	KUNIT_ASSERT_FALSE(test, IS_ERR(kw));

	kthread_flush_case(kw, kw, ctx);
	kthread_destroy_worker(kw);

	lockdep_kunit_expect_matches(test, &ctx->fx.cap, &cycle);
	lockdep_kunit_reset();
}

/* The same on two workers: item 2 never waits for item 1 */
static void cc_kthread_flush_two_workers_quiet(struct kunit *test)
{
	struct cc_ctx *ctx = test->priv;
	struct kthread_worker *kw1, *kw2;

	kw1 = kthread_create_worker(0, "cc_test_kw1");
	KUNIT_ASSERT_FALSE(test, IS_ERR(kw1));
	kw2 = kthread_create_worker(0, "cc_test_kw2");
	if (IS_ERR(kw2))
		kthread_destroy_worker(kw1);
	KUNIT_ASSERT_FALSE(test, IS_ERR(kw2));

	kthread_flush_case(kw1, kw2, ctx);
	kthread_destroy_worker(kw2);
	kthread_destroy_worker(kw1);

	lockdep_kunit_expect_quiet(test, &ctx->fx.cap);
}

static struct kunit_case cc_test_cases[] = {
	KUNIT_CASE(cc_two_completions_reported),
	KUNIT_CASE(cc_two_completions_timeout_quiet),
	KUNIT_CASE(cc_folio_and_completion_reported),
	KUNIT_CASE(cc_ordered_workqueue_reported),
	KUNIT_CASE(cc_ordinary_workqueue_quiet),
	KUNIT_CASE(cc_kthread_worker_reported),
	KUNIT_CASE(cc_kthread_flush_reported),
	KUNIT_CASE(cc_kthread_flush_two_workers_quiet),
	{}
};

static struct kunit_suite cc_test_suite = {
	.name = "crossrelease_chain",
	.init = cc_test_init,
	.exit = cc_test_exit,
	.test_cases = cc_test_cases,
};

kunit_test_suite(cc_test_suite);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit tests for crosslock to crosslock dependencies");

// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for dma-fences as crosslocks (CONFIG_LOCKDEP_DMA_FENCE).
 *
 * A fence waited for under a mutex, and signalled by a context that took
 * the mutex after the wait began, is a deadlock the signaller cannot see.
 * As in the other suites, a case lets lockdep learn the wait under the
 * mutex in a run that cannot hang, then plays the signaller, and asserts
 * the report, or its absence and that lockdep is still on.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/dma-fence.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "lockdep_kunit.h"

#define FENCE_CLASS	"(dma_fence)df_test"

static const char *df_driver_name(struct dma_fence *fence)
{
	return "df_test";
}

static const char *df_timeline_name(struct dma_fence *fence)
{
	return "df_test_timeline";
}

static const struct dma_fence_ops df_ops = {
	.get_driver_name = df_driver_name,
	.get_timeline_name = df_timeline_name,
};

/* Fences of another driver, in a class of their own */
static const char *df_peer_driver_name(struct dma_fence *fence)
{
	return "df_peer";
}

static const struct dma_fence_ops df_peer_ops = {
	.get_driver_name = df_peer_driver_name,
	.get_timeline_name = df_timeline_name,
};

/* How the signaller signals, after it took M */
enum df_signal {
	SIGNAL_PLAIN,		/* dma_fence_signal() */
	SIGNAL_OPPORTUNISTIC,	/* ... marked opportunistic */
	SIGNAL_M_IN_SECTION,	/* M and the signal in a signalling section */
	SIGNAL_M_BEFORE_SECTION, /* M before the section, the signal in it */
};

struct df_ctx {
	struct lockdep_kunit_fixture fx; /* fx.m: the lock of the scenarios */
	spinlock_t fence_lock;	/* the fences' lock */
	u64 context;
	struct dma_fence *fence;
	enum df_signal how;
	bool under_m;		/* the waiter holds M */
};

static int df_test_init(struct kunit *test)
{
	struct df_ctx *ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);

	if (!ctx)
		return -ENOMEM;
	test->priv = ctx;
	lockdep_kunit_fixture_init(&ctx->fx, "df_test_M");
	spin_lock_init(&ctx->fence_lock);
	ctx->context = dma_fence_context_alloc(1);

	crossrelease_kunit_skip_if_off(test);
	return 0;
}

static void df_test_exit(struct kunit *test)
{
	struct df_ctx *ctx = test->priv;

	lockdep_kunit_fixture_exit(&ctx->fx);
	kfree(ctx);
}

static struct dma_fence *new_fence_of(struct kunit *test, struct df_ctx *ctx,
				      const struct dma_fence_ops *ops)
{
	struct dma_fence *f = kzalloc(sizeof(*f), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, f);
	dma_fence_init(f, ops, &ctx->fence_lock, ctx->context, 1);
	return f;
}

static struct dma_fence *new_fence(struct kunit *test, struct df_ctx *ctx)
{
	return new_fence_of(test, ctx, &df_ops);
}

/* The waiter: waits for the fence, holding M or not. */
static void waiter_fn(void *data)
{
	struct df_ctx *ctx = data;

	if (ctx->under_m)
		mutex_lock(&ctx->fx.m);
	dma_fence_wait(ctx->fence, false);
	if (ctx->under_m)
		mutex_unlock(&ctx->fx.m);
}

/* Until the waiter's callback is on the fence (its wait has begun). */
static void until_waiting(struct dma_fence *f)
{
	unsigned long flags;
	bool waiting;
	int i;

	for (i = 0; i < 5000; i++) {
		dma_fence_lock_irqsave(f, flags);
		waiting = !list_empty(&f->cb_list);
		dma_fence_unlock_irqrestore(f, flags);
		if (waiting)
			return;
		usleep_range(200, 400);
	}
}

/* The signaller */
static void signaller_fn(void *data)
{
	struct df_ctx *ctx = data;
	bool cookie;

	switch (ctx->how) {
	case SIGNAL_PLAIN:
		lockdep_kunit_take_m(&ctx->fx);
		dma_fence_signal(ctx->fence);
		break;
	case SIGNAL_OPPORTUNISTIC:
		lockdep_kunit_take_m(&ctx->fx);
		crosslock_fence_opportunistic_begin();
		dma_fence_signal(ctx->fence);
		crosslock_fence_opportunistic_end();
		break;
	case SIGNAL_M_IN_SECTION:
		cookie = dma_fence_begin_signalling();
		lockdep_kunit_take_m(&ctx->fx);
		dma_fence_signal(ctx->fence);
		dma_fence_end_signalling(cookie);
		break;
	case SIGNAL_M_BEFORE_SECTION:
		lockdep_kunit_take_m(&ctx->fx);
		cookie = dma_fence_begin_signalling();
		dma_fence_signal(ctx->fence);
		dma_fence_end_signalling(cookie);
		break;
	}
}

/* One fence, one waiter, signalled by this task or by a signaller. */
static void play(struct kunit *test, struct df_ctx *ctx, bool under_m,
		 bool signaller, enum df_signal how)
{
	struct lockdep_kunit_kthread kw, ks;
	struct task_struct *w, *s = NULL;

	ctx->fence = new_fence(test, ctx);
	ctx->under_m = under_m;
	ctx->how = how;
	w = lockdep_kunit_run_kthread(&kw, waiter_fn, ctx, "df_waiter");
	KUNIT_ASSERT_FALSE(test, IS_ERR(w));
	until_waiting(ctx->fence);
	if (signaller) {
		s = lockdep_kunit_run_kthread(&ks, signaller_fn, ctx,
					      "df_signaller");
		KUNIT_ASSERT_FALSE(test, IS_ERR(s));
	} else {
		dma_fence_signal(ctx->fence);
	}
	while (!dma_fence_is_signaled(ctx->fence))
		usleep_range(500, 1000);
	if (s)
		lockdep_kunit_stop_kthread(&ks);
	lockdep_kunit_stop_kthread(&kw);
	dma_fence_put(ctx->fence);
}

/* Learn M -> (dma_fence): a wait under M, signalled by this task. */
static void learn_wait_under_m(struct kunit *test, struct df_ctx *ctx)
{
	play(test, ctx, true, false, SIGNAL_PLAIN);
}

static void df_wait_under_mutex_reported(struct kunit *test)
{
	struct df_ctx *ctx = test->priv;
	const struct lockdep_kunit_report cycle = {
		.headline = LOCKDEP_KUNIT_CIRCULAR,
		.lines = { FENCE_CLASS, "df_test_M", "is releasing crosslock" },
		.crossrelease = true,
	};

	lockdep_kunit_expect_xr_report(test);

	learn_wait_under_m(test, ctx);
	play(test, ctx, false, true, SIGNAL_PLAIN);

	lockdep_kunit_expect_matches(test, &ctx->fx.cap, &cycle);
	lockdep_kunit_reset();
}

static void df_opportunistic_signal_quiet(struct kunit *test)
{
	struct df_ctx *ctx = test->priv;

	learn_wait_under_m(test, ctx);
	play(test, ctx, false, true, SIGNAL_OPPORTUNISTIC);

	lockdep_kunit_expect_quiet(test, &ctx->fx.cap);
}

/*
 * The example of commit 5fbff813a4a3 ("dma-fence: basic lockdep
 * annotations"): M taken in a signalling section, and a wait under M.
 * Its annotation (dma_fence_map, a plain lockdep map) sees the cycle first
 * and reports it as lockdep does, switching lockdep off; the fence's
 * commit must not add a report of its own.  Hence a suite of its own,
 * linked last and run in a boot of its own (kunit.filter_glob).
 */
static void df_signalling_section_reported_once(struct kunit *test)
{
	struct df_ctx *ctx = test->priv;
	const struct lockdep_kunit_report annotation = {
		.headline = LOCKDEP_KUNIT_CIRCULAR,
		.lines = { "dma_fence_map", "df_test_M" },
	};

	lockdep_kunit_expect_report(test);

	learn_wait_under_m(test, ctx);
	play(test, ctx, false, true, SIGNAL_M_IN_SECTION);

	lockdep_kunit_expect_matches(test, &ctx->fx.cap, &annotation);
	KUNIT_EXPECT_EQ(test, lockdep_kunit_count(&ctx->fx.cap,
						  LOCKDEP_KUNIT_CIRCULAR), 1U);
	lockdep_kunit_reset();
}

/* M taken before the signalling section: the section bounds the commit. */
static void df_mutex_before_section_quiet(struct kunit *test)
{
	struct df_ctx *ctx = test->priv;

	learn_wait_under_m(test, ctx);
	play(test, ctx, false, true, SIGNAL_M_BEFORE_SECTION);

	lockdep_kunit_expect_quiet(test, &ctx->fx.cap);
}

/* Two fences of each class: ours[0] and peers[1] are signalled early */
struct df_handshake {
	struct dma_fence *ours[2];
	struct dma_fence *peers[2];
};

/*
 * Waits for ours[0], signalled before it began, signals peers[0], which
 * the test waits for, and peers[1], then waits for ours[1], which blocks.
 */
static void handshake_fn(void *data)
{
	struct df_handshake *h = data;

	until_waiting(h->peers[0]);
	dma_fence_wait(h->ours[0], false);
	dma_fence_signal(h->peers[0]);
	dma_fence_signal(h->peers[1]);
	dma_fence_wait(h->ours[1], false);
}

/*
 * Two drivers each wait for a fence of the other that is signalled
 * already, then signal one that the other waits for: a handshake that
 * never blocks for good.  Counted from when they began, the waits for
 * signalled fences come after the other side's next wait, and each
 * signal would seem to wait for the other's.
 */
static void df_handshake_quiet(struct kunit *test)
{
	struct df_ctx *ctx = test->priv;
	struct lockdep_kunit_kthread peer;
	struct df_handshake h;
	struct task_struct *t;
	int i;

	for (i = 0; i < 2; i++) {
		h.ours[i] = new_fence(test, ctx);
		h.peers[i] = new_fence_of(test, ctx, &df_peer_ops);
	}
	dma_fence_signal(h.ours[0]);
	t = lockdep_kunit_run_kthread(&peer, handshake_fn, &h, "df_handshake");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	dma_fence_wait(h.peers[0], false);	/* blocks: the peer signals it */
	until_waiting(h.ours[1]);
	dma_fence_wait(h.peers[1], false);	/* signalled before */
	dma_fence_signal(h.ours[1]);
	lockdep_kunit_stop_kthread(&peer);
	for (i = 0; i < 2; i++) {
		dma_fence_put(h.ours[i]);
		dma_fence_put(h.peers[i]);
	}
	lockdep_kunit_expect_quiet(test, &ctx->fx.cap);
}

static struct kunit_case df_test_cases[] = {
	KUNIT_CASE(df_wait_under_mutex_reported),
	KUNIT_CASE(df_opportunistic_signal_quiet),
	KUNIT_CASE(df_mutex_before_section_quiet),
	KUNIT_CASE(df_handshake_quiet),
	{}
};

static struct kunit_case df_annotation_cases[] = {
	KUNIT_CASE(df_signalling_section_reported_once),
	{}
};

static struct kunit_suite df_test_suite = {
	.name = "crossrelease_dma_fence",
	.init = df_test_init,
	.exit = df_test_exit,
	.test_cases = df_test_cases,
};

static struct kunit_suite df_annotation_suite = {
	.name = "dma_fence_annotation",
	.init = df_test_init,
	.exit = df_test_exit,
	.test_cases = df_annotation_cases,
};

kunit_test_suites(&df_test_suite, &df_annotation_suite);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit tests for dma-fences as lockdep crosslocks");

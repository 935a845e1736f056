// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite proving the lockdep report capture helpers: an ABBA mutex
 * inversion must produce a circular-dependency report naming both lock
 * classes, a consistent lock order must produce none.
 */
#include <kunit/test.h>
#include <linux/lockdep.h>
#include <linux/mutex.h>
#include <linux/slab.h>

#include "lockdep_kunit.h"

/* Per-case state: dynamic keys, so unregistering drops the case's classes. */
struct capture_ctx {
	struct lockdep_kunit_fixture fx;	/* fx.m: lock A */
	struct lock_class_key key_b;
	struct mutex b;				/* lock B */
};

static int capture_init(struct kunit *test)
{
	struct capture_ctx *ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);

	if (!ctx)
		return -ENOMEM;
	lockdep_kunit_fixture_init(&ctx->fx, "lockdep_kunit_A");
	lockdep_register_key(&ctx->key_b);
	mutex_init(&ctx->b);
	lockdep_set_class_and_name(&ctx->b, &ctx->key_b, "lockdep_kunit_B");
	test->priv = ctx;

	lockdep_kunit_skip_if_off(test);
	return 0;
}

static void capture_exit(struct kunit *test)
{
	struct capture_ctx *ctx = test->priv;

	mutex_destroy(&ctx->b);
	lockdep_unregister_key(&ctx->key_b);
	lockdep_kunit_fixture_exit(&ctx->fx);
	kfree(ctx);
}

static void lock_pair(struct mutex *first, struct mutex *second)
{
	mutex_lock(first);
	mutex_lock(second);
	mutex_unlock(second);
	mutex_unlock(first);
}

/* A -> B then B -> A in one task: lockdep must report the cycle. */
static void capture_abba_reported(struct kunit *test)
{
	struct capture_ctx *ctx = test->priv;
	const struct lockdep_kunit_report abba = {
		.headline = LOCKDEP_KUNIT_CIRCULAR,
		.lines = { "(lockdep_kunit_A)", "(lockdep_kunit_B)" },
	};

	lockdep_kunit_expect_report(test);

	/* the window opens after lockdep_kunit_expect_report() waited */
	lockdep_kunit_capture_start(&ctx->fx.cap);
	lock_pair(&ctx->fx.m, &ctx->b);
	lock_pair(&ctx->b, &ctx->fx.m);

	lockdep_kunit_expect_matches(test, &ctx->fx.cap, &abba);

	lockdep_kunit_reset();
	if (lockdep_kunit_rearms())
		KUNIT_EXPECT_TRUE(test, lockdep_kunit_is_on());
}

/* A -> B twice: no report, lockdep stays on. */
static void capture_ordered_silent(struct kunit *test)
{
	struct capture_ctx *ctx = test->priv;

	lock_pair(&ctx->fx.m, &ctx->b);
	lock_pair(&ctx->fx.m, &ctx->b);

	lockdep_kunit_expect_quiet(test, &ctx->fx.cap);
	KUNIT_EXPECT_FALSE(test, lockdep_kunit_report_seen(&ctx->fx.cap,
							   "lockdep_kunit_A"));
}

static struct kunit_case capture_cases[] = {
	KUNIT_CASE(capture_ordered_silent),
	/* last: a plain report switches lockdep off for the rest of the boot */
	KUNIT_CASE(capture_abba_reported),
	{}
};

static struct kunit_suite capture_suite = {
	.name = "lockdep_capture",
	.init = capture_init,
	.exit = capture_exit,
	.test_cases = capture_cases,
};

kunit_test_suite(capture_suite);

MODULE_DESCRIPTION("KUnit tests for the lockdep report capture helpers");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

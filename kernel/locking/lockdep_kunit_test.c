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

#define CIRCULAR "possible circular locking dependency detected"

/* Per-case state: dynamic keys, so unregistering drops the case's classes. */
struct capture_ctx {
	struct lock_class_key key_a, key_b;
	struct mutex a, b;
	struct lockdep_capture cap;
};

static int capture_init(struct kunit *test)
{
	struct capture_ctx *ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);

	if (!ctx)
		return -ENOMEM;
	lockdep_register_key(&ctx->key_a);
	lockdep_register_key(&ctx->key_b);
	mutex_init(&ctx->a);
	mutex_init(&ctx->b);
	lockdep_set_class_and_name(&ctx->a, &ctx->key_a, "lockdep_kunit_A");
	lockdep_set_class_and_name(&ctx->b, &ctx->key_b, "lockdep_kunit_B");
	test->priv = ctx;

	if (!lockdep_kunit_is_on())
		kunit_skip(test, "lockdep is off (earlier report?)");
	return 0;
}

static void capture_exit(struct kunit *test)
{
	struct capture_ctx *ctx = test->priv;

	mutex_destroy(&ctx->a);
	mutex_destroy(&ctx->b);
	lockdep_unregister_key(&ctx->key_a);
	lockdep_unregister_key(&ctx->key_b);
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

	lockdep_kunit_expect_report(test);

	lockdep_kunit_capture_start(&ctx->cap);
	lock_pair(&ctx->a, &ctx->b);
	lock_pair(&ctx->b, &ctx->a);

	KUNIT_EXPECT_FALSE(test, lockdep_kunit_is_on());
	KUNIT_EXPECT_TRUE(test, lockdep_kunit_report_seen(&ctx->cap, CIRCULAR));
	KUNIT_EXPECT_TRUE(test, lockdep_kunit_report_seen(&ctx->cap,
							  "(lockdep_kunit_A)"));
	KUNIT_EXPECT_TRUE(test, lockdep_kunit_report_seen(&ctx->cap,
							  "(lockdep_kunit_B)"));

	lockdep_kunit_reset();
	if (lockdep_kunit_rearms())
		KUNIT_EXPECT_TRUE(test, lockdep_kunit_is_on());
}

/* A -> B twice: no report, lockdep stays on. */
static void capture_ordered_silent(struct kunit *test)
{
	struct capture_ctx *ctx = test->priv;

	lockdep_kunit_capture_start(&ctx->cap);
	lock_pair(&ctx->a, &ctx->b);
	lock_pair(&ctx->a, &ctx->b);

	KUNIT_EXPECT_TRUE(test, lockdep_kunit_is_on());
	KUNIT_EXPECT_FALSE(test, lockdep_kunit_any_report(&ctx->cap));
	KUNIT_EXPECT_FALSE(test, lockdep_kunit_report_seen(&ctx->cap,
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

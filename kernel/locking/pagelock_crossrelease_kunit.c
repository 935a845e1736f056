// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for folio locks as crosslocks (CONFIG_LOCKDEP_PAGELOCK).
 *
 * As in the completion suite, a case first lets lockdep learn one half of
 * a cycle in a run that cannot hang, then plays the other half; it asserts
 * the report, or its absence and that lockdep is still on.  All folio
 * locks share the class "(PG_locked)folio"; the mutex of each case has a
 * class of its own, registered and dropped with the case.
 */
#include <kunit/test.h>
#include <linux/gfp.h>
#include <linux/jiffies.h>
#include <linux/lockdep_pagelock.h>
#include <linux/mutex.h>
#include <linux/pagemap.h>
#include <linux/slab.h>
#include <linux/timer.h>

#include "lockdep_kunit.h"
#include "lockdep_crossrelease.h"

#define PG_CLASS	"(PG_locked)folio"

struct pl_ctx {
	struct lockdep_kunit_fixture fx; /* fx.m: the lock of the scenarios */
	struct folio *f, *g;		/* two folios nobody else knows */
	struct completion locked;	/* a helper kthread locked @f */
	struct completion go;		/* ... and may go on */
	struct timer_list timer;
	bool fired;
	long misuse;
};

static int pl_test_init(struct kunit *test)
{
	struct pl_ctx *ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);

	if (!ctx)
		return -ENOMEM;
	test->priv = ctx;
	lockdep_kunit_fixture_init(&ctx->fx, "pl_test_M");
	init_completion(&ctx->locked);
	init_completion(&ctx->go);
	ctx->f = folio_alloc(GFP_KERNEL, 0);
	ctx->g = folio_alloc(GFP_KERNEL, 0);
	KUNIT_ASSERT_NOT_NULL(test, ctx->f);
	KUNIT_ASSERT_NOT_NULL(test, ctx->g);

	if (!crosslock_folio_enabled())
		kunit_skip(test, "folio locks not tracked (lockdep_pagelock=off?)");
	lockdep_kunit_skip_if_off(test);
	ctx->misuse = crosslock_counter_read(CROSSLOCK_COUNTER_MISUSE);
	return 0;
}

static void pl_test_exit(struct kunit *test)
{
	struct pl_ctx *ctx = test->priv;

	if (ctx->f)
		folio_put(ctx->f);
	if (ctx->g)
		folio_put(ctx->g);
	lockdep_kunit_fixture_exit(&ctx->fx);
	kfree(ctx);
}

/* Learn (PG_locked) -> M: take M with a folio locked, then unlock it. */
static void learn_pg_then_m(struct pl_ctx *ctx)
{
	folio_lock(ctx->g);
	lockdep_kunit_take_m(&ctx->fx);
	folio_unlock(ctx->g);
}

/* Quiet, and no misuse either */
static void expect_quiet(struct kunit *test, struct pl_ctx *ctx)
{
	lockdep_kunit_expect_quiet(test, &ctx->fx.cap);
	KUNIT_EXPECT_EQ(test, crosslock_counter_read(CROSSLOCK_COUNTER_MISUSE), ctx->misuse);
}

/* The cycle M -> (PG_locked) -> M: reported, and lockdep goes on */
static const struct lockdep_kunit_report pg_cycle = {
	.headline = LOCKDEP_KUNIT_CIRCULAR,
	.lines = { "(pl_test_M)", PG_CLASS },
	.crossrelease = true,
};

/*
 * Folio ABBA (the design document's example 1): X takes M then locks the
 * folio; Y locks the folio then takes M.  One task plays Y, then X, so
 * nothing can hang.
 */
static void pl_folio_abba_reported(struct kunit *test)
{
	struct pl_ctx *ctx = test->priv;

	lockdep_kunit_expect_xr_report(test);

	learn_pg_then_m(ctx);

	mutex_lock(&ctx->fx.m);
	folio_lock(ctx->g);
	folio_unlock(ctx->g);
	mutex_unlock(&ctx->fx.m);

	lockdep_kunit_expect_matches(test, &ctx->fx.cap, &pg_cycle);
	lockdep_kunit_reset();
}

/* X: locks the folio and leaves it to Z. */
static void lock_and_park_fn(void *data)
{
	struct pl_ctx *ctx = data;

	folio_lock(ctx->f);
	complete(&ctx->locked);
}

/* Z: takes M, then unlocks the folio X locked. */
static void take_m_and_unlock_fn(void *data)
{
	struct pl_ctx *ctx = data;

	lockdep_kunit_take_m(&ctx->fx);
	folio_unlock(ctx->f);
	complete(&ctx->go);
}

static void run_kthread_pair(struct kunit *test, struct pl_ctx *ctx)
{
	struct lockdep_kunit_kthread kx, kz;
	struct task_struct *x, *z;

	x = lockdep_kunit_run_kthread(&kx, lock_and_park_fn, ctx, "pl_locker");
	KUNIT_ASSERT_FALSE(test, IS_ERR(x));
	wait_for_completion(&ctx->locked);
	z = lockdep_kunit_run_kthread(&kz, take_m_and_unlock_fn, ctx,
				      "pl_unlocker");
	KUNIT_ASSERT_FALSE(test, IS_ERR(z));
	wait_for_completion(&ctx->go);
	lockdep_kunit_stop_kthread(&kz);
	lockdep_kunit_stop_kthread(&kx);
}

/*
 * Wait under a mutex (the design document's example 2): X locks the folio; Z
 * takes M and then unlocks it; Y holds M and waits for the folio.  Y is this
 * task, after X and Z.
 */
static void pl_folio_wait_under_mutex_reported(struct kunit *test)
{
	struct pl_ctx *ctx = test->priv;

	lockdep_kunit_expect_xr_report(test);

	run_kthread_pair(test, ctx);

	mutex_lock(&ctx->fx.m);
	folio_lock(ctx->f);
	folio_unlock(ctx->f);
	mutex_unlock(&ctx->fx.m);

	lockdep_kunit_expect_matches(test, &ctx->fx.cap, &pg_cycle);
	lockdep_kunit_reset();
}

/* Waiting for an unlock under M is a wait on the folio lock, too. */
static void pl_wait_locked_reported(struct kunit *test)
{
	struct pl_ctx *ctx = test->priv;

	lockdep_kunit_expect_xr_report(test);

	learn_pg_then_m(ctx);

	mutex_lock(&ctx->fx.m);
	folio_wait_locked(ctx->g);
	mutex_unlock(&ctx->fx.m);

	lockdep_kunit_expect_matches(test, &ctx->fx.cap, &pg_cycle);
	lockdep_kunit_reset();
}

/* Two folios locked in order and unlocked: not recursive locking. */
static void pl_two_folios_quiet(struct kunit *test)
{
	struct pl_ctx *ctx = test->priv;

	mutex_lock(&ctx->fx.m);
	folio_lock(ctx->f);
	folio_lock(ctx->g);
	KUNIT_EXPECT_TRUE(test, crosslock_folio_owned(ctx->f));
	KUNIT_EXPECT_TRUE(test, crosslock_folio_owned(ctx->g));
	folio_unlock(ctx->g);
	folio_unlock(ctx->f);
	mutex_unlock(&ctx->fx.m);

	expect_quiet(test, ctx);
	KUNIT_EXPECT_FALSE(test, crosslock_folio_owned(ctx->f));
	KUNIT_EXPECT_FALSE(test, crosslock_folio_owned(ctx->g));
}

/* Locked by a kthread, unlocked by another: not a bad unlock. */
static void pl_unlock_by_other_task_quiet(struct kunit *test)
{
	struct pl_ctx *ctx = test->priv;

	run_kthread_pair(test, ctx);

	expect_quiet(test, ctx);
	KUNIT_EXPECT_FALSE(test, crosslock_folio_owned(ctx->f));
}

/* A trylock under M never waits: no M -> (PG_locked). */
static void pl_trylock_quiet(struct kunit *test)
{
	struct pl_ctx *ctx = test->priv;

	learn_pg_then_m(ctx);

	mutex_lock(&ctx->fx.m);
	KUNIT_EXPECT_TRUE(test, folio_trylock(ctx->g));
	folio_unlock(ctx->g);
	mutex_unlock(&ctx->fx.m);

	expect_quiet(test, ctx);
}

static void unlock_timer_fn(struct timer_list *t)
{
	struct pl_ctx *ctx = container_of(t, struct pl_ctx, timer);

	folio_unlock(ctx->f);
	WRITE_ONCE(ctx->fired, true);
}

/*
 * Unlocked by a timer (softirq) that lands on this task, which took M
 * after locking the folio: the softirq did not take M, so no dependency,
 * even though lockdep knows M -> (PG_locked).
 */
static void pl_unlock_from_softirq_quiet(struct kunit *test)
{
	struct pl_ctx *ctx = test->priv;
	unsigned long timeout;
	bool fired;

	mutex_lock(&ctx->fx.m);
	folio_lock(ctx->g);
	folio_unlock(ctx->g);
	mutex_unlock(&ctx->fx.m);

	folio_lock(ctx->f);
	lockdep_kunit_take_m(&ctx->fx);
	preempt_disable();
	timer_setup(&ctx->timer, unlock_timer_fn, 0);
	ctx->timer.expires = jiffies + 1;
	add_timer_on(&ctx->timer, smp_processor_id());
	timeout = jiffies + 20 * HZ;	/* TCG on a loaded host is slow */
	while (!READ_ONCE(ctx->fired) && time_before(jiffies, timeout))
		cpu_relax();
	fired = READ_ONCE(ctx->fired);
	preempt_enable();
	del_timer_sync(&ctx->timer);
	if (!fired)
		folio_unlock(ctx->f);

	KUNIT_EXPECT_TRUE(test, fired);
	expect_quiet(test, ctx);
}

/*
 * The non-atomic set and clear, and a locked page given back to the
 * allocator, leave no state behind.
 */
static void pl_set_clear_balanced(struct kunit *test)
{
	struct pl_ctx *ctx = test->priv;

	__folio_set_locked(ctx->f);
	KUNIT_EXPECT_TRUE(test, crosslock_folio_owned(ctx->f));
	__folio_clear_locked(ctx->f);
	KUNIT_EXPECT_FALSE(test, crosslock_folio_owned(ctx->f));

	/* What free_pages_prepare() does for a page freed while locked */
	__folio_set_locked(ctx->f);
	crosslock_folio_free(&ctx->f->page);
	KUNIT_EXPECT_FALSE(test, crosslock_folio_owned(ctx->f));
	__folio_clear_locked(ctx->f);

	folio_lock(ctx->f);
	KUNIT_EXPECT_TRUE(test, crosslock_folio_owned(ctx->f));
	folio_unlock(ctx->f);
	KUNIT_EXPECT_FALSE(test, crosslock_folio_owned(ctx->f));
	expect_quiet(test, ctx);
}

/*
 * The page cache locks a new folio with __folio_set_locked() before anyone
 * can see it, and folio_unlock() unlocks it when the read is done: a lock
 * and an unlock like any other, committed, not a misuse.  A lock bit set
 * behind lockdep's back (copied to the pages of a split, or set before
 * tracking began) has no owner recorded: its unlock is counted as
 * untracked, silently, and is no misuse either.
 */
static void pl_set_locked_then_unlock_quiet(struct kunit *test)
{
	struct pl_ctx *ctx = test->priv;
	long untracked = crosslock_counter_read(CROSSLOCK_COUNTER_OWNER_UNTRACKED);

	__folio_set_locked(ctx->f);
	KUNIT_EXPECT_TRUE(test, crosslock_folio_owned(ctx->f));
	lockdep_kunit_take_m(&ctx->fx);
	folio_unlock(ctx->f);
	KUNIT_EXPECT_FALSE(test, crosslock_folio_owned(ctx->f));

	set_bit(PG_locked, folio_flags(ctx->f, 0));
	KUNIT_EXPECT_FALSE(test, crosslock_folio_owned(ctx->f));
	folio_unlock(ctx->f);
	KUNIT_EXPECT_FALSE(test, folio_test_locked(ctx->f));
	/* at least: other folios may be unlocked untracked meanwhile */
	KUNIT_EXPECT_GE(test, crosslock_counter_read(CROSSLOCK_COUNTER_OWNER_UNTRACKED),
			untracked + 1);
	expect_quiet(test, ctx);
}

static struct kunit_case pl_test_cases[] = {
	KUNIT_CASE(pl_folio_abba_reported),
	KUNIT_CASE(pl_folio_wait_under_mutex_reported),
	KUNIT_CASE(pl_wait_locked_reported),
	KUNIT_CASE(pl_two_folios_quiet),
	KUNIT_CASE(pl_unlock_by_other_task_quiet),
	KUNIT_CASE(pl_trylock_quiet),
	KUNIT_CASE(pl_unlock_from_softirq_quiet),
	KUNIT_CASE(pl_set_clear_balanced),
	KUNIT_CASE(pl_set_locked_then_unlock_quiet),
	{}
};

static struct kunit_suite pl_test_suite = {
	.name = "crossrelease_pagelock",
	.init = pl_test_init,
	.exit = pl_test_exit,
	.test_cases = pl_test_cases,
};

kunit_test_suite(pl_test_suite);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit tests for folio locks as lockdep crosslocks");

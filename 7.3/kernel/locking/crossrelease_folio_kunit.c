// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for folio locks as crosslocks (CONFIG_LOCKDEP_FOLIO_LOCK), folio
 * writeback (CONFIG_LOCKDEP_WRITEBACK) and buffer locks
 * (CONFIG_LOCKDEP_BUFFER_LOCK).
 *
 * As in the completion suite, a case first lets lockdep learn one half of
 * a cycle in a run that cannot hang, then plays the other half; it asserts
 * the report, or its absence and that lockdep is still on.  All folio
 * locks share the class "(PG_locked)folio"; the mutex of each case has a
 * class of its own, registered and dropped with the case.
 */
#include <kunit/test.h>
#include <linux/blkdev.h>
#include <linux/buffer_head.h>
#include <linux/folio_crossrelease.h>
#include <linux/gfp.h>
#include <linux/mutex.h>
#include <linux/pagemap.h>
#include <linux/shmem_fs.h>
#include <linux/slab.h>

#include "lockdep_internals.h"
#include "lockdep_kunit.h"
#include "lockdep_crossrelease.h"

#define PG_CLASS	"(PG_locked)folio"
#define WB_CLASS	"(PG_writeback)folio"
#define BH_CLASS	"(BH_Lock)buffer"

struct pl_ctx {
	struct lockdep_kunit_fixture fx; /* fx.m: the lock of the scenarios */
	struct folio *f, *g;		/* two folios nobody else knows */
	struct buffer_head *bh, *bh2;	/* two buffer heads of no page */
	struct page *page;		/* where a case moves @bh2 */
	struct completion locked;	/* a helper kthread locked @f */
	struct completion go;		/* ... and may go on */
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
#ifdef CONFIG_BUFFER_HEAD
	ctx->bh = alloc_buffer_head(GFP_KERNEL);
	ctx->bh2 = alloc_buffer_head(GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ctx->bh);
	KUNIT_ASSERT_NOT_NULL(test, ctx->bh2);
#endif

	crossrelease_kunit_skip_if_off(test);
	if (!crosslock_folio_enabled())
		kunit_skip(test, "folio locks not tracked (lockdep_folio_lock=off?)");
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
#ifdef CONFIG_BUFFER_HEAD
	if (ctx->bh)
		free_buffer_head(ctx->bh);
	if (ctx->bh2)
		free_buffer_head(ctx->bh2);
#endif
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

/* The cycle M -> (PG_locked)<tmpfs> -> M */
static const struct lockdep_kunit_report shmem_cycle = {
	.headline = LOCKDEP_KUNIT_CIRCULAR,
	.lines = { "(pl_test_M)",
		   IS_ENABLED(CONFIG_SHMEM) ? ":shmem_aops" : ":ram_aops" },
	.crossrelease = true,
};

/*
 * A folio that leaves its mapping while locked (truncated, or the source
 * of a migration) is unlocked in the class it was locked in: file -> M is
 * learnt from the unlock of a folio removed from its tmpfs file (as
 * memory-failure does), and M held while another folio of the file is
 * locked closes the cycle.  Committed in "(PG_locked)folio", as the
 * folio's mapping says at the unlock, the dependency would be lost.
 */
static void pl_folio_left_mapping_reported(struct kunit *test)
{
	struct pl_ctx *ctx = test->priv;
	struct page *page0, *page1;
	struct file *file;

	file = shmem_kernel_file_setup("pl_test", 2 * PAGE_SIZE, EMPTY_VMA_FLAGS);
	KUNIT_ASSERT_FALSE(test, IS_ERR(file));
	page0 = shmem_read_mapping_page(file->f_mapping, 0);
	page1 = shmem_read_mapping_page(file->f_mapping, 1);
	KUNIT_ASSERT_FALSE(test, IS_ERR(page0) || IS_ERR(page1));
	lockdep_kunit_expect_xr_report(test);

	lock_page(page0);
	lockdep_kunit_take_m(&ctx->fx);
	KUNIT_EXPECT_EQ(test,
			generic_error_remove_folio(file->f_mapping, page_folio(page0)),
			0);
	KUNIT_EXPECT_NULL(test, page0->mapping);
	unlock_page(page0);

	mutex_lock(&ctx->fx.m);
	lock_page(page1);
	unlock_page(page1);
	mutex_unlock(&ctx->fx.m);

	lockdep_kunit_expect_matches(test, &ctx->fx.cap, &shmem_cycle);
	lockdep_kunit_reset();
	put_page(page1);
	put_page(page0);
	fput(file);
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

static void unlock_irq_fn(void *ctx)
{
	folio_unlock(((struct pl_ctx *)ctx)->f);
}

/*
 * Unlocked by a timer (softirq) that lands on this task, which took M
 * after locking the folio: the softirq did not take M, so no dependency,
 * even though lockdep knows M -> (PG_locked).
 */
static void pl_unlock_from_softirq_quiet(struct kunit *test)
{
	struct pl_ctx *ctx = test->priv;
	bool fired;

	mutex_lock(&ctx->fx.m);
	folio_lock(ctx->g);
	folio_unlock(ctx->g);
	mutex_unlock(&ctx->fx.m);

	folio_lock(ctx->f);
	lockdep_kunit_take_m(&ctx->fx);
	fired = lockdep_kunit_irq_on_this_task(false, unlock_irq_fn, ctx);
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
 * behind lockdep's back (a raw bit operation, or before tracking began)
 * has no owner recorded: its unlock is counted as untracked, "set unseen",
 * silently, and is no misuse either.
 */
static void pl_set_locked_then_unlock_quiet(struct kunit *test)
{
	struct pl_ctx *ctx = test->priv;
	enum crosslock_counter_id unseen = CROSSLOCK_COUNTER_UNTRACKED +
					   CROSSLOCK_UNTRACKED_UNSEEN;
	long untracked = crosslock_counter_read(unseen);

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
	KUNIT_EXPECT_GE(test, crosslock_counter_read(unseen), untracked + 1);
	expect_quiet(test, ctx);
}

/*
 * A new folio, locked with __folio_set_locked() in no mapping, is not a
 * folio that left its mapping: a wait for the latter under M (a look-up
 * that raced with truncation) and what the owner of the former takes
 * (khugepaged's collapse_file() reads ahead under it, and drops it if the
 * collapse fails) make no cycle.  In one class they would.
 */
static void pl_new_folio_not_orphan_quiet(struct kunit *test)
{
	struct pl_ctx *ctx = test->priv;

	mutex_lock(&ctx->fx.m);
	folio_lock(ctx->g);
	folio_unlock(ctx->g);
	mutex_unlock(&ctx->fx.m);

	__folio_set_locked(ctx->f);
	lockdep_kunit_take_m(&ctx->fx);
	folio_unlock(ctx->f);
	expect_quiet(test, ctx);
}

/*
 * collapse_file() in short: a new folio is locked, given its mapping, M
 * is taken, then the folio is published.  Only what is taken once it
 * can be waited for is a dependency of its unlock: M taken @after the
 * publication closes M -> (PG_locked)<tmpfs> -> M, M taken before does not.
 */
static void new_folio_publish(struct kunit *test, struct pl_ctx *ctx,
			      bool after)
{
	struct file *file;
	struct page *page;

	file = shmem_kernel_file_setup("pl_test", PAGE_SIZE, EMPTY_VMA_FLAGS);
	KUNIT_ASSERT_FALSE(test, IS_ERR(file));
	page = shmem_read_mapping_page(file->f_mapping, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(page));
	if (after)
		lockdep_kunit_expect_xr_report(test);

	mutex_lock(&ctx->fx.m);
	lock_page(page);
	unlock_page(page);
	mutex_unlock(&ctx->fx.m);

	__folio_set_locked(ctx->f);
	ctx->f->mapping = file->f_mapping;
	if (!after)
		lockdep_kunit_take_m(&ctx->fx);
	crosslock_folio_published(ctx->f);
	if (after)
		lockdep_kunit_take_m(&ctx->fx);
	folio_unlock(ctx->f);
	ctx->f->mapping = NULL;

	if (after) {
		lockdep_kunit_expect_matches(test, &ctx->fx.cap, &shmem_cycle);
		lockdep_kunit_reset();
	} else {
		expect_quiet(test, ctx);
	}
	put_page(page);
	fput(file);
}

static void pl_new_folio_private_until_published_quiet(struct kunit *test)
{
	new_folio_publish(test, test->priv, false);
}

static void pl_new_folio_published_reported(struct kunit *test)
{
	new_folio_publish(test, test->priv, true);
}

/* The cycle M -> (PG_writeback) -> M */
static const struct lockdep_kunit_report wb_cycle = {
	.headline = LOCKDEP_KUNIT_CIRCULAR,
	.lines = { "(pl_test_M)", WB_CLASS },
	.crossrelease = true,
};

static void skip_unless_writeback(struct kunit *test)
{
	if (!crosslock_writeback_enabled())
		kunit_skip(test, "writeback not tracked (lockdep_writeback=off?)");
}

/* X: starts writeback of @f, as a file system's writepages does. */
static void start_writeback_fn(void *data)
{
	struct pl_ctx *ctx = data;

	folio_lock(ctx->f);
	folio_start_writeback(ctx->f);
	folio_unlock(ctx->f);
	complete(&ctx->locked);
}

/* Z: the I/O completion work, which takes M before ending writeback. */
static void take_m_and_end_writeback_fn(void *data)
{
	struct pl_ctx *ctx = data;

	lockdep_kunit_take_m(&ctx->fx);
	folio_end_writeback(ctx->f);
	complete(&ctx->go);
}

/* Z, quiet twin: ends writeback first, takes M after. */
static void end_writeback_and_take_m_fn(void *data)
{
	struct pl_ctx *ctx = data;

	folio_end_writeback(ctx->f);
	lockdep_kunit_take_m(&ctx->fx);
	complete(&ctx->go);
}

static void run_writeback_pair(struct kunit *test, struct pl_ctx *ctx,
			       void (*end_fn)(void *data))
{
	struct lockdep_kunit_kthread kx, kz;
	struct task_struct *x, *z;

	x = lockdep_kunit_run_kthread(&kx, start_writeback_fn, ctx, "pl_wb_start");
	KUNIT_ASSERT_FALSE(test, IS_ERR(x));
	wait_for_completion(&ctx->locked);
	KUNIT_EXPECT_TRUE(test, crosslock_writeback_owned(ctx->f));
	z = lockdep_kunit_run_kthread(&kz, end_fn, ctx, "pl_wb_end");
	KUNIT_ASSERT_FALSE(test, IS_ERR(z));
	wait_for_completion(&ctx->go);
	lockdep_kunit_stop_kthread(&kz);
	lockdep_kunit_stop_kthread(&kx);
	KUNIT_EXPECT_FALSE(test, crosslock_writeback_owned(ctx->f));
}

/*
 * Writeback waited for under M, while the context that ends writeback of
 * a folio of the same kind takes M first: X starts writeback, Z takes M
 * and ends it; this task then waits for writeback under M (it has ended:
 * the wait that could have been is enough).
 */
static void pl_writeback_wait_reported(struct kunit *test)
{
	struct pl_ctx *ctx = test->priv;

	skip_unless_writeback(test);
	lockdep_kunit_expect_xr_report(test);

	run_writeback_pair(test, ctx, take_m_and_end_writeback_fn);

	mutex_lock(&ctx->fx.m);
	folio_wait_writeback(ctx->f);
	mutex_unlock(&ctx->fx.m);

	lockdep_kunit_expect_matches(test, &ctx->fx.cap, &wb_cycle);
	lockdep_kunit_reset();
}

/* The twin: M taken after the end of writeback is no dependency of it. */
static void pl_writeback_wait_quiet(struct kunit *test)
{
	struct pl_ctx *ctx = test->priv;

	skip_unless_writeback(test);
	run_writeback_pair(test, ctx, end_writeback_and_take_m_fn);

	mutex_lock(&ctx->fx.m);
	folio_wait_writeback(ctx->f);
	KUNIT_EXPECT_EQ(test, folio_wait_writeback_killable(ctx->f), 0);
	mutex_unlock(&ctx->fx.m);

	expect_quiet(test, ctx);
}

/* The cycle M -> (PG_writeback) -> (PG_locked) -> M */
static const struct lockdep_kunit_report wb_pg_cycle = {
	.headline = LOCKDEP_KUNIT_CIRCULAR,
	.lines = { "(pl_test_M)", PG_CLASS, WB_CLASS },
	.crossrelease = true,
};

/* Writeback of @g started, as a file system's writepages does */
static void start_writeback_of_g(struct pl_ctx *ctx)
{
	folio_lock(ctx->g);
	folio_start_writeback(ctx->g);
	folio_unlock(ctx->g);
}

/* (PG_locked) -> M, then writeback of @g waited for under M */
static void learn_pg_then_m_and_wait_writeback(struct pl_ctx *ctx)
{
	learn_pg_then_m(ctx);
	mutex_lock(&ctx->fx.m);
	folio_wait_writeback(ctx->g);
	mutex_unlock(&ctx->fx.m);
}

#ifdef CONFIG_BLOCK
static void end_writeback_of_g_unplug(struct blk_plug_cb *cb,
				      bool from_schedule)
{
	struct pl_ctx *ctx = cb->data;

	folio_end_writeback(ctx->g);
	kfree(cb);
}

/*
 * An I/O that completes in its submitter's context, when the writer's
 * plug is flushed (or a driver completes it at once), commits only what
 * the completion took: the end of writeback does not depend on the folio
 * the writer locked after it queued the I/O, which the completion never
 * waited for (a writer that sleeps on a lock flushes its plug first).
 * (Runs before the next case, whose true (PG_writeback) -> (PG_locked)
 * stays in the graph: the classes are static.)
 */
static void pl_plug_flush_completion_quiet(struct kunit *test)
{
	struct pl_ctx *ctx = test->priv;
	struct blk_plug plug;

	skip_unless_writeback(test);
	blk_start_plug(&plug);
	start_writeback_of_g(ctx);
	KUNIT_ASSERT_NOT_NULL(test, blk_check_plugged(end_writeback_of_g_unplug, ctx,
						      sizeof(struct blk_plug_cb)));
	folio_lock(ctx->f);			/* the writer's next folio */
	blk_finish_plug(&plug);			/* writeback of @g ends here */
	folio_unlock(ctx->f);
	learn_pg_then_m_and_wait_writeback(ctx);

	expect_quiet(test, ctx);
}
#endif

/*
 * A folio lock waited for by the context that ends writeback is a
 * dependency of the end, as any lock is: the sequence of "f2fs: fix
 * potential deadlock in f2fs_balance_fs()", where the path that ends
 * writeback locked a folio first (f2fs_gc() -> move_data_page()) while a
 * task waited for that writeback with the folio locked.  Here M stands
 * between the folio lock and the wait.
 */
static void pl_folio_lock_before_end_writeback_reported(struct kunit *test)
{
	struct pl_ctx *ctx = test->priv;

	skip_unless_writeback(test);
	lockdep_kunit_expect_xr_report(test);

	start_writeback_of_g(ctx);
	folio_lock(ctx->f);
	folio_unlock(ctx->f);
	folio_end_writeback(ctx->g);		/* (PG_writeback) -> (PG_locked) */
	learn_pg_then_m_and_wait_writeback(ctx);

	lockdep_kunit_expect_matches(test, &ctx->fx.cap, &wb_pg_cycle);
	lockdep_kunit_reset();
}

/*
 * Writeback is a lock of its own: a folio locked under M and written back
 * while M is taken is no cycle, and the class says which bit it is.
 */
static void pl_writeback_class_quiet(struct kunit *test)
{
	struct pl_ctx *ctx = test->priv;

	skip_unless_writeback(test);
	KUNIT_EXPECT_STREQ(test, crosslock_writeback_class_name(ctx->f), WB_CLASS);
	KUNIT_EXPECT_STREQ(test, crosslock_folio_class_name(ctx->f), PG_CLASS);

	mutex_lock(&ctx->fx.m);
	folio_lock(ctx->f);
	folio_start_writeback(ctx->f);
	KUNIT_EXPECT_TRUE(test, crosslock_writeback_owned(ctx->f));
	folio_unlock(ctx->f);
	mutex_unlock(&ctx->fx.m);
	lockdep_kunit_take_m(&ctx->fx);
	folio_end_writeback(ctx->f);
	KUNIT_EXPECT_FALSE(test, crosslock_writeback_owned(ctx->f));
	KUNIT_EXPECT_FALSE(test, crosslock_folio_owned(ctx->f));

	expect_quiet(test, ctx);
}

/* The wait type of the class named @name, or -1 if there is none */
static int pl_class_wait_type(const char *name)
{
	unsigned long i;

	for_each_set_bit(i, lock_classes_in_use, MAX_LOCKDEP_KEYS) {
		const char *n = READ_ONCE(lock_classes[i].name);

		if (n && !strcmp(n, name))
			return lock_classes[i].wait_type_inner;
	}
	return -1;
}

/*
 * Crosslock classes sleep: a wait for one under a spinning lock is
 * reported by lockdep ("Invalid wait context") even when it does not
 * block, which is what lets the engine leave spinning locks out of the
 * history.
 */
static void pl_classes_sleep(struct kunit *test)
{
	struct pl_ctx *ctx = test->priv;

	mutex_lock(&ctx->fx.m);
	folio_lock(ctx->f);
	folio_unlock(ctx->f);
	folio_wait_writeback(ctx->f);
	mutex_unlock(&ctx->fx.m);

	KUNIT_EXPECT_EQ(test, pl_class_wait_type(PG_CLASS), LD_WAIT_SLEEP);
	if (crosslock_writeback_enabled())
		KUNIT_EXPECT_EQ(test, pl_class_wait_type(WB_CLASS), LD_WAIT_SLEEP);
	expect_quiet(test, ctx);
}

#ifdef CONFIG_BUFFER_HEAD
/* The cycle M -> (BH_Lock) -> M */
static const struct lockdep_kunit_report bh_cycle = {
	.headline = LOCKDEP_KUNIT_CIRCULAR,
	.lines = { "(pl_test_M)", BH_CLASS },
	.crossrelease = true,
};

static void skip_unless_buffer(struct kunit *test)
{
	if (!crosslock_buffer_enabled())
		kunit_skip(test, "buffer locks not tracked (lockdep_buffer_lock=off?)");
}

/* X: locks @bh2 and leaves it to Z, as a submitter leaves it to the I/O. */
static void lock_buffer_fn(void *data)
{
	struct pl_ctx *ctx = data;

	lock_buffer(ctx->bh2);
	complete(&ctx->locked);
}

/* Z: takes M, then unlocks @bh2. */
static void take_m_and_unlock_buffer_fn(void *data)
{
	struct pl_ctx *ctx = data;

	lockdep_kunit_take_m(&ctx->fx);
	unlock_buffer(ctx->bh2);
	complete(&ctx->go);
}

/* Z, quiet twin: unlocks @bh2, then takes M. */
static void unlock_buffer_and_take_m_fn(void *data)
{
	struct pl_ctx *ctx = data;

	unlock_buffer(ctx->bh2);
	lockdep_kunit_take_m(&ctx->fx);
	complete(&ctx->go);
}

static void run_buffer_pair(struct kunit *test, struct pl_ctx *ctx,
			    void (*unlock_fn)(void *data))
{
	struct lockdep_kunit_kthread kx, kz;
	struct task_struct *x, *z;

	x = lockdep_kunit_run_kthread(&kx, lock_buffer_fn, ctx, "pl_bh_lock");
	KUNIT_ASSERT_FALSE(test, IS_ERR(x));
	wait_for_completion(&ctx->locked);
	KUNIT_EXPECT_TRUE(test, crosslock_buffer_owned(ctx->bh2));
	z = lockdep_kunit_run_kthread(&kz, unlock_fn, ctx, "pl_bh_unlock");
	KUNIT_ASSERT_FALSE(test, IS_ERR(z));
	wait_for_completion(&ctx->go);
	lockdep_kunit_stop_kthread(&kz);
	lockdep_kunit_stop_kthread(&kx);
	KUNIT_EXPECT_FALSE(test, crosslock_buffer_owned(ctx->bh2));
}

/*
 * A buffer head is locked under M, while another, of the same class, is
 * locked by X and unlocked by Z after Z took M: the lock under M would
 * wait for ever on a buffer that Z is to unlock.
 */
static void pl_buffer_lock_reported(struct kunit *test)
{
	struct pl_ctx *ctx = test->priv;

	skip_unless_buffer(test);
	lockdep_kunit_expect_xr_report(test);

	run_buffer_pair(test, ctx, take_m_and_unlock_buffer_fn);

	mutex_lock(&ctx->fx.m);
	lock_buffer(ctx->bh);
	unlock_buffer(ctx->bh);
	mutex_unlock(&ctx->fx.m);

	lockdep_kunit_expect_matches(test, &ctx->fx.cap, &bh_cycle);
	lockdep_kunit_reset();
}

/* The twin: Z takes M after the unlock; waits under M are then fine. */
static void pl_buffer_lock_quiet(struct kunit *test)
{
	struct pl_ctx *ctx = test->priv;

	skip_unless_buffer(test);
	run_buffer_pair(test, ctx, unlock_buffer_and_take_m_fn);

	mutex_lock(&ctx->fx.m);
	lock_buffer(ctx->bh);
	KUNIT_EXPECT_TRUE(test, crosslock_buffer_owned(ctx->bh));
	KUNIT_EXPECT_TRUE(test, trylock_buffer(ctx->bh2));	/* never waits */
	unlock_buffer(ctx->bh2);
	unlock_buffer(ctx->bh);
	wait_on_buffer(ctx->bh);
	mutex_unlock(&ctx->fx.m);

	KUNIT_EXPECT_STREQ(test, crosslock_buffer_class_name(ctx->bh), BH_CLASS);
	KUNIT_EXPECT_FALSE(test, crosslock_buffer_owned(ctx->bh));
	expect_quiet(test, ctx);
}

/* Z: puts @bh2 over @page, takes M, then unlocks @bh2. */
static void move_take_m_and_unlock_buffer_fn(void *data)
{
	struct pl_ctx *ctx = data;

	folio_set_bh(ctx->bh2, page_folio(ctx->page), 0);
	lockdep_kunit_take_m(&ctx->fx);
	unlock_buffer(ctx->bh2);
	complete(&ctx->go);
}

/*
 * A buffer is unlocked in the class it was locked in, whatever it belongs
 * to at the unlock: X locks a buffer of no page ("(BH_Lock)buffer"), Z
 * puts it over a page of a tmpfs file, takes M and unlocks it.  M held
 * while another buffer of no page is locked closes the cycle; committed
 * in the class the buffer has at the unlock, the dependency would be lost.
 */
static void pl_buffer_moved_while_locked_reported(struct kunit *test)
{
	struct pl_ctx *ctx = test->priv;
	struct file *file;

	skip_unless_buffer(test);
	file = shmem_kernel_file_setup("pl_test", PAGE_SIZE, EMPTY_VMA_FLAGS);
	KUNIT_ASSERT_FALSE(test, IS_ERR(file));
	ctx->page = shmem_read_mapping_page(file->f_mapping, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(ctx->page));
	lockdep_kunit_expect_xr_report(test);

	run_buffer_pair(test, ctx, move_take_m_and_unlock_buffer_fn);
	KUNIT_EXPECT_STRNEQ(test, crosslock_buffer_class_name(ctx->bh2), BH_CLASS);
	ctx->bh2->b_folio = NULL;
	ctx->bh2->b_data = NULL;

	mutex_lock(&ctx->fx.m);
	lock_buffer(ctx->bh);
	unlock_buffer(ctx->bh);
	mutex_unlock(&ctx->fx.m);

	lockdep_kunit_expect_matches(test, &ctx->fx.cap, &bh_cycle);
	lockdep_kunit_reset();
	put_page(ctx->page);
	fput(file);
}

/*
 * Two buffers locked in a row and unlocked in the other order, and a bit
 * set behind lockdep's back: no report, no misuse.
 */
static void pl_buffer_two_and_untracked_quiet(struct kunit *test)
{
	struct pl_ctx *ctx = test->priv;

	skip_unless_buffer(test);
	mutex_lock(&ctx->fx.m);
	lock_buffer(ctx->bh);
	lock_buffer(ctx->bh2);
	unlock_buffer(ctx->bh);
	unlock_buffer(ctx->bh2);
	mutex_unlock(&ctx->fx.m);

	set_buffer_locked(ctx->bh);
	KUNIT_EXPECT_FALSE(test, crosslock_buffer_owned(ctx->bh));
	unlock_buffer(ctx->bh);
	KUNIT_EXPECT_FALSE(test, buffer_locked(ctx->bh));
	expect_quiet(test, ctx);
}

/*
 * A buffer over slab memory, as jbd2's frozen copies of a buffer are with
 * blocks smaller than a page: no page cache behind it, its class is the
 * default one.
 */
static void pl_buffer_on_slab_quiet(struct kunit *test)
{
	struct pl_ctx *ctx = test->priv;
	void *data;

	skip_unless_buffer(test);
	data = kmalloc(512, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, data);
	folio_set_bh(ctx->bh, virt_to_folio(data),
		     offset_in_folio(virt_to_folio(data), data));
	KUNIT_EXPECT_STREQ(test, crosslock_buffer_class_name(ctx->bh), BH_CLASS);

	mutex_lock(&ctx->fx.m);
	lock_buffer(ctx->bh);
	unlock_buffer(ctx->bh);
	mutex_unlock(&ctx->fx.m);

	ctx->bh->b_folio = NULL;
	ctx->bh->b_data = NULL;
	kfree(data);
	expect_quiet(test, ctx);
}
#endif /* CONFIG_BUFFER_HEAD */

static struct kunit_case pl_test_cases[] = {
	KUNIT_CASE(pl_folio_abba_reported),
	KUNIT_CASE(pl_folio_wait_under_mutex_reported),
	KUNIT_CASE(pl_wait_locked_reported),
	KUNIT_CASE(pl_folio_left_mapping_reported),
	KUNIT_CASE(pl_two_folios_quiet),
	KUNIT_CASE(pl_unlock_by_other_task_quiet),
	KUNIT_CASE(pl_trylock_quiet),
	KUNIT_CASE(pl_unlock_from_softirq_quiet),
	KUNIT_CASE(pl_set_clear_balanced),
	KUNIT_CASE(pl_set_locked_then_unlock_quiet),
	KUNIT_CASE(pl_new_folio_not_orphan_quiet),
	KUNIT_CASE(pl_new_folio_private_until_published_quiet),
	KUNIT_CASE(pl_new_folio_published_reported),
	KUNIT_CASE(pl_writeback_wait_reported),
	KUNIT_CASE(pl_writeback_wait_quiet),
	KUNIT_CASE(pl_writeback_class_quiet),
#ifdef CONFIG_BLOCK
	KUNIT_CASE(pl_plug_flush_completion_quiet),
#endif
	KUNIT_CASE(pl_folio_lock_before_end_writeback_reported),
	KUNIT_CASE(pl_classes_sleep),
#ifdef CONFIG_BUFFER_HEAD
	KUNIT_CASE(pl_buffer_lock_reported),
	KUNIT_CASE(pl_buffer_lock_quiet),
	KUNIT_CASE(pl_buffer_moved_while_locked_reported),
	KUNIT_CASE(pl_buffer_two_and_untracked_quiet),
	KUNIT_CASE(pl_buffer_on_slab_quiet),
#endif
	{}
};

static struct kunit_suite pl_test_suite = {
	.name = "crossrelease_folio",
	.init = pl_test_init,
	.exit = pl_test_exit,
	.test_cases = pl_test_cases,
};

kunit_test_suite(pl_test_suite);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit tests for folio locks as lockdep crosslocks");

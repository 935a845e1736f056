// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for the crossrelease engine, driven through its own API with
 * synthetic crosslocks.  Each case asserts that lockdep reported what it
 * must and stayed on, or that it stayed quiet and is still on.
 */
#include <kunit/test.h>
#include <linux/console.h>
#include <linux/cpumask.h>
#include <linux/crossrelease.h>
#include <linux/crossrelease_class_table.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/kallsyms.h>
#include <linux/mutex.h>
#include <linux/panic.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>

#include "lockdep_kunit.h"
#include "lockdep_crossrelease.h"

struct xr_ctx {
	struct lockdep_kunit_fixture fx;	/* fx.m: "xr_test_M" */
	struct kunit *test;
	struct lock_class_key key_n, key_i, key_x, key_z;
	struct mutex n;				/* "xr_test_N" */
	struct lockdep_map irq_lock;		/* "xr_test_irq", as a timer's */
	struct crosslock x, z;
	struct work_struct work1, work2;
	struct task_struct *worker1, *worker2;
	long misuse;		/* CROSSLOCK_COUNTER_MISUSE when the case began */
};

static int xr_test_init(struct kunit *test)
{
	struct xr_ctx *ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);

	if (!ctx)
		return -ENOMEM;
	ctx->test = test;
	lockdep_kunit_fixture_init(&ctx->fx, "xr_test_M");
	lockdep_register_key(&ctx->key_n);
	lockdep_register_key(&ctx->key_i);
	lockdep_register_key(&ctx->key_x);
	lockdep_register_key(&ctx->key_z);
	mutex_init(&ctx->n);
	lockdep_set_class_and_name(&ctx->n, &ctx->key_n, "xr_test_N");
	lockdep_init_map(&ctx->irq_lock, "xr_test_irq", &ctx->key_i, 0);
	crosslock_init_map(&ctx->x, "(xr)test_X", &ctx->key_x, 0);
	crosslock_init_map(&ctx->z, "(xr)test_Z", &ctx->key_z, 0);
	test->priv = ctx;

	crossrelease_kunit_skip_if_off(test);
	ctx->misuse = crosslock_counter_read(CROSSLOCK_COUNTER_MISUSE);
	return 0;
}

static void xr_test_exit(struct kunit *test)
{
	struct xr_ctx *ctx = test->priv;

	mutex_destroy(&ctx->n);
	lockdep_unregister_key(&ctx->key_n);
	lockdep_unregister_key(&ctx->key_i);
	lockdep_unregister_key(&ctx->key_x);
	lockdep_unregister_key(&ctx->key_z);
	lockdep_kunit_fixture_exit(&ctx->fx);
	kfree(ctx);
}

#define XR_IP	_THIS_IP_

/* Wait for X while holding M: M -> X. */
static void wait_under_m(struct xr_ctx *ctx)
{
	mutex_lock(&ctx->fx.m);
	crosslock_acquire(&ctx->x, 0, XR_IP);
	mutex_unlock(&ctx->fx.m);
}

/* One call site, whatever the compiler unrolls: a repeat is a repeat. */
static noinline void take_irq_lock(struct xr_ctx *ctx)
{
	lock_map_acquire(&ctx->irq_lock);
	lock_map_release(&ctx->irq_lock);
}

/* The releaser, a work item, takes M after the wait began: M -> X -> M. */
static void commit_after_m_fn(struct work_struct *work)
{
	struct xr_ctx *ctx = container_of(work, struct xr_ctx, work1);

	ctx->worker1 = current;
	lockdep_kunit_take_m(&ctx->fx);
	crosslock_commit(&ctx->x);
}

static void xr_cycle_reported(struct kunit *test)
{
	struct xr_ctx *ctx = test->priv;
	const struct lockdep_kunit_report cycle = {
		.headline = LOCKDEP_KUNIT_CIRCULAR,
		.lines = {
			"is releasing crosslock (in work item context)",
			"(xr)test_X",
			"(xr_test_M)",
			"Possible unsafe locking scenario by crosslock",
		},
		.crossrelease = true,
	};
	char waiter[TASK_COMM_LEN + 8];

	lockdep_kunit_expect_xr_report(test);

	wait_under_m(ctx);
	INIT_WORK(&ctx->work1, commit_after_m_fn);
	schedule_work(&ctx->work1);
	flush_work(&ctx->work1);
	crosslock_release(&ctx->x, XR_IP);

	lockdep_kunit_expect_matches(test, &ctx->fx.cap, &cycle);
	/* both contexts: the waiter and the releasing worker */
	snprintf(waiter, sizeof(waiter), "which %s/%d", current->comm,
		 task_pid_nr(current));
	lockdep_kunit_expect_seen(test, &ctx->fx.cap, waiter);
	KUNIT_ASSERT_NOT_NULL(test, ctx->worker1);
	lockdep_kunit_expect_seen(test, &ctx->fx.cap, ctx->worker1->comm);
	lockdep_kunit_reset();
}

/* Wait for @x under @under, then take @take and release @x. */
static void wait_then_commit(struct crosslock *x, struct mutex *under,
			     struct mutex *take)
{
	mutex_lock(under);
	crosslock_acquire(x, 0, XR_IP);
	mutex_unlock(under);
	mutex_lock(take);
	mutex_unlock(take);
	crosslock_commit(x);
	crosslock_release(x, XR_IP);
}

/*
 * Report and go on: a cycle through a crosslock is printed once, lockdep
 * stays on and finds the next cycle; over the budget a cycle is printed
 * in one line.
 */
static void xr_report_goes_on(struct kunit *test)
{
	struct xr_ctx *ctx = test->priv;
	struct lockdep_capture *cap = &ctx->fx.cap;
	long printed = crosslock_counter_read(CROSSLOCK_COUNTER_REPORTS_PRINTED);
	long brief = crosslock_counter_read(CROSSLOCK_COUNTER_REPORTS_BRIEF);
	unsigned int max;

	if (!lockdep_kunit_xr_goes_on())
		kunit_skip(test, "booted with crossrelease.max_reports=0");
	crosslock_reports_reset();
	max = crosslock_max_reports_set(2);

	wait_then_commit(&ctx->x, &ctx->fx.m, &ctx->fx.m);	/* M -> X -> M */
	KUNIT_EXPECT_EQ(test, lockdep_kunit_count(cap, LOCKDEP_KUNIT_CIRCULAR), 1U);
	KUNIT_EXPECT_TRUE(test, lockdep_kunit_is_on());

	wait_then_commit(&ctx->x, &ctx->fx.m, &ctx->fx.m);	/* known: quiet */
	KUNIT_EXPECT_EQ(test, lockdep_kunit_count(cap, LOCKDEP_KUNIT_CIRCULAR), 1U);

	wait_then_commit(&ctx->z, &ctx->n, &ctx->n);	/* N -> Z -> N */
	KUNIT_EXPECT_EQ(test, lockdep_kunit_count(cap, LOCKDEP_KUNIT_CIRCULAR), 2U);
	lockdep_kunit_expect_seen(test, cap, "(report 2 of at most 2)");
	KUNIT_EXPECT_EQ(test, crosslock_counter_read(CROSSLOCK_COUNTER_REPORTS_PRINTED),
			printed + 2);

	wait_then_commit(&ctx->x, &ctx->n, &ctx->n);	/* over the budget */
	KUNIT_EXPECT_EQ(test, lockdep_kunit_count(cap, LOCKDEP_KUNIT_CIRCULAR), 2U);
	KUNIT_EXPECT_EQ(test, crosslock_counter_read(CROSSLOCK_COUNTER_REPORTS_BRIEF),
			brief + 1);
	lockdep_kunit_expect_seen(test, cap,
				  "xr_test_N -> (xr)test_X -> xr_test_N; lockdep stays on");

	crosslock_max_reports_set(max);
	crosslock_reports_reset();
	KUNIT_EXPECT_TRUE(test, lockdep_kunit_is_on());
}

/*
 * The go-on cases play "A -> B closes a cycle through a crosslock" with
 * M as A and N as B: a wait for X under N (N -> X), a release of X after
 * taking M (X -> M), then M and N nested, a plain acquisition that closes
 * M -> N -> X -> M.
 */
static void close_cycle_by_acquisition(struct xr_ctx *ctx)
{
	wait_then_commit(&ctx->x, &ctx->n, &ctx->fx.m);
	mutex_lock(&ctx->fx.m);
	mutex_lock(&ctx->n);
	mutex_unlock(&ctx->n);
	mutex_unlock(&ctx->fx.m);
}

/*
 * After a go-on report, the dependency that closed the cycle is in the
 * graph: a waiter for Z holding N, and a releaser of Z that takes M and
 * then N close Z -> M -> N -> Z through that very M -> N, a second report.
 * M's class goes with the case (a dynamic key), so M implies nothing: N
 * is written too, and Z -> N closes N -> Z -> N as well, a third one.
 */
static void xr_go_on_then_implied_cycle(struct kunit *test)
{
	struct xr_ctx *ctx = test->priv;
	struct lockdep_capture *cap = &ctx->fx.cap;

	lockdep_kunit_expect_xr_report(test);
	crosslock_reports_reset();

	close_cycle_by_acquisition(ctx);
	KUNIT_EXPECT_EQ(test, lockdep_kunit_count(cap, LOCKDEP_KUNIT_CIRCULAR), 1U);

	mutex_lock(&ctx->n);
	crosslock_acquire(&ctx->z, 0, XR_IP);		/* N -> Z */
	mutex_unlock(&ctx->n);
	mutex_lock(&ctx->fx.m);
	mutex_lock(&ctx->n);
	mutex_unlock(&ctx->n);
	mutex_unlock(&ctx->fx.m);
	crosslock_commit(&ctx->z);		/* Z -> N, Z -> M: two cycles */
	crosslock_release(&ctx->z, XR_IP);

	if (lockdep_kunit_xr_goes_on()) {
		KUNIT_EXPECT_EQ(test, lockdep_kunit_count(cap, LOCKDEP_KUNIT_CIRCULAR), 3U);
		/* the first closed by an acquisition, the others by a commit */
		KUNIT_EXPECT_EQ(test, lockdep_kunit_count(cap, "is trying to acquire lock"), 1U);
		KUNIT_EXPECT_EQ(test, lockdep_kunit_count(cap, "is releasing crosslock"), 2U);
		lockdep_kunit_expect_seen(test, cap,
					  "xr_test_M --> xr_test_N --> (xr)test_Z");
		lockdep_kunit_expect_seen(test, cap, "(xr)test_Z");
	}
	lockdep_kunit_expect_went_on(test, cap);
	crosslock_reports_reset();
	lockdep_kunit_reset();
}

/*
 * After a go-on report, a plain ABBA of the same two locks is reported by
 * lockdep as without crossrelease; with the budget of full reports spent
 * too, when the cycle through X was only named in one line.  The plain
 * report switches lockdep off: each runs in a boot of its own (suite
 * lockdep_go_on).
 */
static void go_on_then_abba(struct kunit *test, bool spent)
{
	struct xr_ctx *ctx = test->priv;
	struct lockdep_capture *cap = &ctx->fx.cap;
	const struct lockdep_kunit_report abba = {
		.headline = LOCKDEP_KUNIT_CIRCULAR,
		.lines = {
			"is trying to acquire lock",
			"(xr_test_M)",
			"(xr_test_N)",
		},
	};
	unsigned int max = crosslock_max_reports_get();

	lockdep_kunit_expect_report(test);
	if (!lockdep_kunit_xr_goes_on())
		kunit_skip(test, "booted with crossrelease.max_reports=0");
	crosslock_reports_reset();
	if (spent) {
		crosslock_max_reports_set(1);
		wait_then_commit(&ctx->z, &ctx->fx.m, &ctx->fx.m); /* spends it */
	}

	close_cycle_by_acquisition(ctx);
	KUNIT_EXPECT_EQ(test, lockdep_kunit_count(cap, "not printed in full"),
			spent ? 1U : 0U);
	KUNIT_EXPECT_TRUE(test, lockdep_kunit_is_on());

	mutex_lock(&ctx->n);
	mutex_lock(&ctx->fx.m);				/* N -> M: ABBA */
	mutex_unlock(&ctx->fx.m);
	mutex_unlock(&ctx->n);

	KUNIT_EXPECT_EQ(test, lockdep_kunit_count(cap, LOCKDEP_KUNIT_CIRCULAR), 2U);
	lockdep_kunit_expect_matches(test, cap, &abba);
	crosslock_max_reports_set(max);
	crosslock_reports_reset();
	lockdep_kunit_reset();
}

static void xr_go_on_then_abba(struct kunit *test)
{
	go_on_then_abba(test, false);
}

static void xr_budget_spent_then_abba(struct kunit *test)
{
	go_on_then_abba(test, true);
}

/*
 * Locks of one class nested under a nest lock (the ww_mutex and dma_resv
 * pattern): a waiter holding a2 of class A waits for X; the releaser,
 * holding N and a0 since before the wait, takes a1 under N.  The
 * acquisition of a1 joins a0's held lock, and is one all the same:
 * X -> A closes A -> X -> A.
 */
struct nest_ctx {
	struct work_struct work;
	struct crosslock *x;
	struct lock_class_key key_a;
	struct mutex a[3];	/* class A: a0 and a1 under N, a2 the waiter's */
	bool waiting;		/* the work item waits for X */
};

static void wait_under_a2_fn(struct work_struct *work)
{
	struct nest_ctx *nc = container_of(work, struct nest_ctx, work);

	mutex_lock(&nc->a[2]);
	crosslock_acquire(nc->x, 0, XR_IP);		/* A -> X */
	mutex_unlock(&nc->a[2]);
	/* pairs with until_waiting(): the wait began before the flag */
	smp_store_release(&nc->waiting, true);
}

/* Not flush_work() under a lock of class A, which the work item takes */
static void until_waiting(struct nest_ctx *nc)
{
	unsigned long timeout = jiffies + 10 * HZ;

	/* pairs with wait_under_a2_fn() */
	while (!smp_load_acquire(&nc->waiting) && time_before(jiffies, timeout))
		usleep_range(1000, 2000);
}

/*
 * merged: a1 joins the held lock of its class on top of the stack;
 * m_between: M on top, so lockdep adds no M -> A for a1, and M's entry
 * does not imply it.
 */
static const struct lockdep_kunit_variant xr_nest_variants[] = {
	{ "merged", false },
	{ "m_between", true },
};

KUNIT_ARRAY_PARAM(xr_nest, xr_nest_variants, lockdep_kunit_variant_desc);

static void xr_nest_lock_reported(struct kunit *test)
{
	bool between = lockdep_kunit_variant_flag(test);
	struct xr_ctx *ctx = test->priv;
	const struct lockdep_kunit_report cycle = {
		.headline = LOCKDEP_KUNIT_CIRCULAR,
		.lines = { "(xr)test_X", "(xr_test_A)" },
		.crossrelease = true,
	};
	struct nest_ctx *nc;
	int i;

	lockdep_kunit_expect_xr_report(test);
	nc = kunit_kzalloc(test, sizeof(*nc), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, nc);
	nc->x = &ctx->x;
	lockdep_register_key(&nc->key_a);
	for (i = 0; i < 3; i++) {
		mutex_init(&nc->a[i]);
		lockdep_set_class_and_name(&nc->a[i], &nc->key_a, "xr_test_A");
	}

	mutex_lock(&ctx->n);
	mutex_lock_nest_lock(&nc->a[0], &ctx->n);
	INIT_WORK(&nc->work, wait_under_a2_fn);
	schedule_work(&nc->work);
	until_waiting(nc);
	if (between)
		mutex_lock(&ctx->fx.m);
	mutex_lock_nest_lock(&nc->a[1], &ctx->n);	/* after the wait */
	crosslock_commit(&ctx->x);			/* X -> A: a cycle */
	mutex_unlock(&nc->a[1]);
	if (between)
		mutex_unlock(&ctx->fx.m);
	mutex_unlock(&nc->a[0]);
	mutex_unlock(&ctx->n);
	flush_work(&nc->work);
	crosslock_release(&ctx->x, XR_IP);

	KUNIT_EXPECT_TRUE(test, READ_ONCE(nc->waiting));
	lockdep_kunit_expect_matches(test, &ctx->fx.cap, &cycle);
	for (i = 0; i < 3; i++)
		mutex_destroy(&nc->a[i]);
	lockdep_unregister_key(&nc->key_a);
	lockdep_kunit_reset();
}

/*
 * A cycle closed by a wait under a held lock (Z -> M learned first, then a
 * wait for Z under M): reported, and the waiter's held-lock state stays
 * exact, so releasing M afterwards is not a "bad unlock".
 */
static void xr_wait_report_goes_on(struct kunit *test)
{
	struct xr_ctx *ctx = test->priv;
	const struct lockdep_kunit_report cycle = {
		.headline = LOCKDEP_KUNIT_CIRCULAR,
		.lines = { "is trying to acquire lock", "(xr)test_Z" },
		.crossrelease = true,
	};

	lockdep_kunit_expect_xr_report(test);

	crosslock_acquire(&ctx->z, 1, XR_IP);
	lockdep_kunit_take_m(&ctx->fx);
	crosslock_commit(&ctx->z);			/* Z -> M */
	crosslock_release(&ctx->z, XR_IP);

	mutex_lock(&ctx->fx.m);
	crosslock_acquire(&ctx->z, 0, XR_IP);	/* M -> Z: a cycle */
	mutex_unlock(&ctx->fx.m);
	crosslock_release(&ctx->z, XR_IP);

	lockdep_kunit_expect_matches(test, &ctx->fx.cap, &cycle);
	KUNIT_EXPECT_FALSE(test, lockdep_kunit_report_seen(&ctx->fx.cap,
							   "bad unlock balance"));
	lockdep_kunit_reset();
}

/* M was taken before the crosslock was acquired: not a dependency. */
static void xr_lock_before_acquire_quiet(struct kunit *test)
{
	struct xr_ctx *ctx = test->priv;

	/* Keep a crosslock in flight so that the first take of M is recorded */
	crosslock_acquire(&ctx->z, 1, XR_IP);
	lockdep_kunit_take_m(&ctx->fx);
	wait_under_m(ctx);
	crosslock_commit(&ctx->x);
	crosslock_release(&ctx->x, XR_IP);
	crosslock_release(&ctx->z, XR_IP);
	lockdep_kunit_expect_quiet(test, &ctx->fx.cap);
}

/* A cycle through M: reported, and lockdep goes on */
static const struct lockdep_kunit_report cycle_through_m = {
	.headline = LOCKDEP_KUNIT_CIRCULAR,
	.lines = { "(xr_test_M)" },
	.crossrelease = true,
};

/* A lock of the kernel's own static data: its class is never freed */
static DEFINE_MUTEX(xr_test_outer);

static const struct lockdep_kunit_report cycle_through_outer = {
	.headline = LOCKDEP_KUNIT_CIRCULAR,
	.lines = { "xr_test_outer" },
	.crossrelease = true,
};

/*
 * N taken under OUTER after the wait began is not written to the history
 * (the entry of OUTER, held right below it, implies it), nor is a lock
 * taken again at the same call site; the cycle through N is found all the
 * same.
 */
static void xr_nested_lock_implied(struct kunit *test)
{
	struct xr_ctx *ctx = test->priv;
	unsigned long implied = crosslock_counter_read(CROSSLOCK_COUNTER_HIST_IMPLIED);
	unsigned long repeated = crosslock_counter_read(CROSSLOCK_COUNTER_HIST_REPEATED);

	lockdep_kunit_expect_xr_report(test);

	mutex_lock(&ctx->n);
	crosslock_acquire(&ctx->x, 0, XR_IP);	/* N -> X */
	mutex_unlock(&ctx->n);
	mutex_lock(&xr_test_outer);
	mutex_lock(&ctx->n);				/* OUTER -> N, implied */
	mutex_unlock(&ctx->n);
	mutex_unlock(&xr_test_outer);
	KUNIT_EXPECT_GT(test, crosslock_counter_read(CROSSLOCK_COUNTER_HIST_IMPLIED),
			implied);
	take_irq_lock(ctx);
	take_irq_lock(ctx);				/* a repeat */
	KUNIT_EXPECT_GT(test, crosslock_counter_read(CROSSLOCK_COUNTER_HIST_REPEATED),
			repeated);
	crosslock_commit(&ctx->x);			/* X -> OUTER: a cycle */
	crosslock_release(&ctx->x, XR_IP);

	lockdep_kunit_expect_matches(test, &ctx->fx.cap, &cycle_through_outer);
	lockdep_kunit_reset();
}

/*
 * A lock whose class may be freed (here a dynamic key's, unregistered
 * before the commit, as destroy_workqueue() or a module unload would)
 * implies nothing: N, taken under it after the wait began, is written, and
 * the commit still finds X -> N, which closes N -> X -> N.
 */
static void xr_implied_by_freed_class_reported(struct kunit *test)
{
	struct xr_ctx *ctx = test->priv;
	static const struct lockdep_kunit_report cycle = {
		.headline = LOCKDEP_KUNIT_CIRCULAR,
		.lines = { "(xr_test_N)", "(xr)test_X" },
		.crossrelease = true,
	};
	struct {
		struct lock_class_key key;
		struct mutex lock;	/* "xr_test_A", of a dynamic key */
	} *a;

	lockdep_kunit_expect_xr_report(test);
	a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, a);
	lockdep_register_key(&a->key);
	mutex_init(&a->lock);
	lockdep_set_class_and_name(&a->lock, &a->key, "xr_test_A");

	mutex_lock(&ctx->n);
	crosslock_acquire(&ctx->x, 0, XR_IP);	/* N -> X */
	mutex_unlock(&ctx->n);
	mutex_lock(&a->lock);
	mutex_lock(&ctx->n);			/* A -> N: A goes away */
	mutex_unlock(&ctx->n);
	mutex_unlock(&a->lock);
	mutex_destroy(&a->lock);
	lockdep_unregister_key(&a->key);
	crosslock_commit(&ctx->x);		/* X -> N: a cycle */
	crosslock_release(&ctx->x, XR_IP);

	lockdep_kunit_expect_matches(test, &ctx->fx.cap, &cycle);
	lockdep_kunit_reset();
}

/* A tag whose owner goes away, as a module's ops do when it is unloaded */
static char xr_tag_gone;

static bool xr_is_tag_gone(const void *owner, void *arg)
{
	return owner == arg;
}

/*
 * Classes are named after, and keyed by, the address of what owns the
 * crosslocks: once the owner went away, whatever comes later at its
 * address gets a class of its own, not the old one and its dependencies.
 */
static void xr_class_of_gone_owner_dropped(struct kunit *test)
{
	struct lock_class_key *k1, *k2;
	const char *name1, *name2;

	k1 = crosslock_tag_class("xr_test", &xr_tag_gone, &name1);
	KUNIT_ASSERT_NOT_NULL(test, k1);
	KUNIT_EXPECT_PTR_EQ(test, crosslock_tag_class("xr_test", &xr_tag_gone,
						      &name2), k1);
	crosslock_class_tables_forget(xr_is_tag_gone, &xr_tag_gone);
	k2 = crosslock_tag_class("xr_test", &xr_tag_gone, &name2);
	KUNIT_ASSERT_NOT_NULL(test, k2);
	KUNIT_EXPECT_PTR_NE(test, k2, k1);
	KUNIT_EXPECT_STREQ(test, name2, name1);
}

static DEFINE_SPINLOCK(xr_test_spin);
static DEFINE_RAW_SPINLOCK(xr_test_raw_spin);

/*
 * Nothing sleeps under a spinning lock, so a crosslock's wait never comes
 * after one on a cycle: a spinlock or raw spinlock taken while X is in
 * flight is not written, a mutex is.  Interrupts are off while the
 * history is counted, so that no interrupt writes into it.
 */
static void xr_spinning_lock_not_written(struct kunit *test)
{
	struct xr_ctx *ctx = test->priv;
	long spinning = crosslock_counter_read(CROSSLOCK_COUNTER_HIST_SPINNING);
	unsigned int written;
	unsigned long flags;

	crosslock_acquire(&ctx->x, 0, XR_IP);
	local_irq_save(flags);
	written = current->crosslock.nr_written;
	spin_lock(&xr_test_spin);
	spin_unlock(&xr_test_spin);
	raw_spin_lock(&xr_test_raw_spin);
	raw_spin_unlock(&xr_test_raw_spin);
	KUNIT_EXPECT_EQ(test, current->crosslock.nr_written, written);
	local_irq_restore(flags);
	if (!IS_ENABLED(CONFIG_PREEMPT_RT))
		KUNIT_EXPECT_GE(test,
				crosslock_counter_read(CROSSLOCK_COUNTER_HIST_SPINNING),
				spinning + 2);
	written = current->crosslock.nr_written;
	mutex_lock(&ctx->n);
	mutex_unlock(&ctx->n);
	KUNIT_EXPECT_GT(test, current->crosslock.nr_written, written);
	crosslock_commit(&ctx->x);
	crosslock_release(&ctx->x, XR_IP);
	lockdep_kunit_expect_quiet(test, &ctx->fx.cap);
}

/*
 * M was taken before X was acquired and N under M after: M's entry is a
 * generation older and does not imply N, which must be written for the
 * commit to find X -> N.
 */
static void xr_nested_after_acquire_reported(struct kunit *test)
{
	struct xr_ctx *ctx = test->priv;
	const struct lockdep_kunit_report cycle = {
		.headline = LOCKDEP_KUNIT_CIRCULAR,
		.lines = { "(xr_test_N)" },
		.crossrelease = true,
	};

	lockdep_kunit_expect_xr_report(test);

	crosslock_acquire(&ctx->z, 1, XR_IP);	/* entries are written */
	mutex_lock(&ctx->n);
	crosslock_acquire(&ctx->x, 0, XR_IP);	/* N -> X */
	mutex_unlock(&ctx->n);
	crosslock_release(&ctx->x, XR_IP);

	mutex_lock(&ctx->fx.m);
	crosslock_acquire(&ctx->x, 1, XR_IP);	/* X acquired under M */
	mutex_lock(&ctx->n);
	mutex_unlock(&ctx->n);
	mutex_unlock(&ctx->fx.m);
	crosslock_commit(&ctx->x);			/* X -> N: a cycle */
	crosslock_release(&ctx->x, XR_IP);
	crosslock_release(&ctx->z, XR_IP);

	lockdep_kunit_expect_matches(test, &ctx->fx.cap, &cycle);
	lockdep_kunit_reset();
}

/* The repeat cases start with M -> X known and entries being written. */
static void repeat_setup(struct xr_ctx *ctx)
{
	crosslock_acquire(&ctx->z, 1, XR_IP);	/* entries are written */
	wait_under_m(ctx);				/* M -> X */
	crosslock_release(&ctx->x, XR_IP);
}

/* ... and end with X committed: X -> M, if M was written, is a cycle. */
static void repeat_expect_cycle(struct kunit *test, struct xr_ctx *ctx)
{
	crosslock_commit(&ctx->x);
	crosslock_release(&ctx->x, XR_IP);
	crosslock_release(&ctx->z, XR_IP);

	lockdep_kunit_expect_matches(test, &ctx->fx.cap, &cycle_through_m);
	lockdep_kunit_reset();
}

/*
 * M taken again after X was acquired, like the entry before it but a
 * generation later: it must be written for the commit to find X -> M.
 */
static void xr_repeat_after_acquire_reported(struct kunit *test)
{
	struct xr_ctx *ctx = test->priv;

	lockdep_kunit_expect_xr_report(test);
	repeat_setup(ctx);
	lockdep_kunit_take_m(&ctx->fx);
	crosslock_acquire(&ctx->x, 1, XR_IP);
	lockdep_kunit_take_m(&ctx->fx);
	repeat_expect_cycle(test, ctx);
}

/*
 * M taken again right after a bounded section began: the entry it repeats
 * is outside the section, where the commit does not look, so the repeat
 * must be written for the commit to find X -> M.
 */
static void xr_repeat_in_new_section_reported(struct kunit *test)
{
	struct xr_ctx *ctx = test->priv;

	lockdep_kunit_expect_xr_report(test);
	repeat_setup(ctx);
	crosslock_acquire(&ctx->x, 1, XR_IP);
	lockdep_kunit_take_m(&ctx->fx);
	crosslock_bound_begin();
	lockdep_kunit_take_m(&ctx->fx);
	repeat_expect_cycle(test, ctx);
	crosslock_bound_end();
}

/*
 * A section of crosslock_bound_push() (the submission of a bio, the flush
 * of a plug) stays bounded through a crosslock_bound_begin()/end() pair
 * inside it (a dma-fence signalled there): the commit in it does not see
 * M, taken before it began, so M -> X -> M is no cycle.
 */
static void xr_bound_push_outlives_inner_end_quiet(struct kunit *test)
{
	struct xr_ctx *ctx = test->priv;
	struct crosslock_bound saved;

	wait_under_m(ctx);
	lockdep_kunit_take_m(&ctx->fx);
	crosslock_bound_push(&saved);
	crosslock_bound_begin();
	crosslock_bound_end();
	crosslock_commit(&ctx->x);
	crosslock_bound_pop(&saved);
	crosslock_release(&ctx->x, XR_IP);
	lockdep_kunit_expect_quiet(test, &ctx->fx.cap);
}

/* A trylock never waits, so it is never a dependency. */
static void xr_trylock_quiet(struct kunit *test)
{
	struct xr_ctx *ctx = test->priv;

	wait_under_m(ctx);
	KUNIT_ASSERT_TRUE(test, mutex_trylock(&ctx->fx.m));
	mutex_unlock(&ctx->fx.m);
	crosslock_commit(&ctx->x);
	crosslock_release(&ctx->x, XR_IP);
	lockdep_kunit_expect_quiet(test, &ctx->fx.cap);
}

/*
 * The interrupt handler releases X; the task it interrupted took M after
 * the wait began.  The handler's own lock becomes a dependency, the task's
 * M must not.
 */
static void commit_from_irq(void *arg)
{
	struct xr_ctx *ctx = arg;

	lock_map_acquire(&ctx->irq_lock);
	lock_map_release(&ctx->irq_lock);
	crosslock_commit(&ctx->x);
}

/* hardirq: an hrtimer in hard interrupt context; softirq: a timer */
static const struct lockdep_kunit_variant xr_irq_variants[] = {
	{ "hardirq", true },
	{ "softirq", false },
};

KUNIT_ARRAY_PARAM(xr_irq, xr_irq_variants, lockdep_kunit_variant_desc);

static void xr_irq_ignores_task(struct kunit *test)
{
	bool hard = lockdep_kunit_variant_flag(test);
	struct xr_ctx *ctx = test->priv;
	long added = crosslock_counter_read(CROSSLOCK_COUNTER_DEPS_ADDED);
	bool fired;

	wait_under_m(ctx);
	lockdep_kunit_take_m(&ctx->fx);
	fired = lockdep_kunit_irq_on_this_task(hard, commit_from_irq, ctx);
	crosslock_release(&ctx->x, XR_IP);

	KUNIT_ASSERT_TRUE(test, fired);
	lockdep_kunit_expect_quiet(test, &ctx->fx.cap);
	/* the handler's own acquisition was committed */
	KUNIT_EXPECT_GE(test, crosslock_counter_read(CROSSLOCK_COUNTER_DEPS_ADDED), added + 1);
}

/*
 * An interrupt's opportunistic release, inside the task's own section:
 * the interrupt's section is its own, and its release commits nothing.
 */
static void commit_opportunistically_from_irq(void *ctx)
{
	crosslock_opportunistic_begin();
	commit_from_irq(ctx);		/* would be X -> irq_lock: a cycle */
	crosslock_opportunistic_end();
}

static void xr_opportunistic_irq_in_task_section_quiet(struct kunit *test)
{
	struct xr_ctx *ctx = test->priv;
	long opportunistic = crosslock_counter_read(CROSSLOCK_COUNTER_OPPORTUNISTIC);
	unsigned long flags;
	bool fired;

	local_irq_save(flags);
	lock_map_acquire(&ctx->irq_lock);
	crosslock_acquire(&ctx->x, 0, XR_IP);		/* irq_lock -> X */
	lock_map_release(&ctx->irq_lock);
	local_irq_restore(flags);

	crosslock_opportunistic_begin();
	fired = lockdep_kunit_irq_on_this_task(true,
					       commit_opportunistically_from_irq,
					       ctx);
	crosslock_opportunistic_end();
	crosslock_release(&ctx->x, XR_IP);

	KUNIT_ASSERT_TRUE(test, fired);
	KUNIT_EXPECT_GE(test, crosslock_counter_read(CROSSLOCK_COUNTER_OPPORTUNISTIC),
			opportunistic + 1);
	KUNIT_EXPECT_EQ(test, current->crosslock.opportunistic[0], 0);
	lockdep_kunit_expect_quiet(test, &ctx->fx.cap);
}

/* The class index of @map, registered now if need be, as the engine does */
static int class_idx_of(struct lockdep_map *map)
{
	unsigned long flags;
	int idx = -1;

	if (crosslock_lockdep_enter(&flags)) {
		idx = crosslock_class_idx(map);
		crosslock_lockdep_exit(flags);
	}
	return idx;
}

/*
 * The committed-pair cache: an insert that lost the race with the class's
 * zap_class() (a commit that began before the class was freed) does not
 * stay, and the slots of freed classes are taken again.
 */
static void xr_dep_cache_forgets_freed_class(struct kunit *test)
{
	struct xr_ctx *ctx = test->priv;
	struct lock_class_key *key = kunit_kzalloc(test, sizeof(*key), GFP_KERNEL);
	struct lockdep_map map;
	int xclass, class;
	u64 entry;

	KUNIT_ASSERT_NOT_NULL(test, key);
	lockdep_register_key(key);
	lockdep_init_map(&map, "xr_test_freed", key, 0);
	xclass = class_idx_of(&ctx->x.map);
	class = class_idx_of(&map);
	KUNIT_ASSERT_GE(test, xclass, 0);
	KUNIT_ASSERT_GE(test, class, 0);

	entry = crosslock_dep_cache_entry(xclass, class);
	crosslock_dep_cache_add(entry);
	KUNIT_EXPECT_TRUE(test, crosslock_dep_cache_has(xclass, class));
	lockdep_unregister_key(key);		/* zap_class() */
	KUNIT_EXPECT_FALSE(test, crosslock_dep_cache_has(xclass, class));
	KUNIT_EXPECT_GT(test, crosslock_dep_cache_stale(), 0U);

	/* the commit that checked the class before the zap inserts after it */
	crosslock_dep_cache_add(entry);
	KUNIT_EXPECT_FALSE(test, crosslock_dep_cache_has(xclass, class));

	/* the same pair, the index handed to a new class: a stale slot reused */
	crosslock_dep_cache_add(crosslock_dep_cache_entry(xclass, class));
	KUNIT_EXPECT_TRUE(test, crosslock_dep_cache_has(xclass, class));
	lockdep_kunit_expect_quiet(test, &ctx->fx.cap);
}

/*
 * Crosslocks and mutexes, a class each, for cases that need many classes.
 * Lockdep hands out freed class indexes first, then fresh ones in order:
 * the pool grows a crosslock and a mutex at a time until it holds the
 * classes a case looks for, which fresh indexes give within 33 pairs.
 */
#define XR_POOL		512

struct xr_pool {
	struct lock_class_key	xkey[XR_POOL], mkey[XR_POOL];
	struct crosslock	x[XR_POOL];	/* "(xr)test_pool", a class each */
	struct mutex		m[XR_POOL];	/* "xr_test_pool", a class each */
	int			xidx[XR_POOL], midx[XR_POOL];	/* their classes */
	/* by class index: 1 + the crosslock (mutex) of that class, 0: none */
	u16			xslot[MAX_LOCKDEP_KEYS], mslot[MAX_LOCKDEP_KEYS];
	int			nr;
};

static struct xr_pool *xr_pool_create(struct kunit *test)
{
	struct xr_pool *p = vzalloc(sizeof(*p));

	KUNIT_ASSERT_NOT_NULL(test, p);
	return p;
}

/* Record that pool entry @i has class @class in @slot; returns @class */
static int xr_pool_set_slot(u16 *slot, int class, int i)
{
	if (class >= 0 && class < MAX_LOCKDEP_KEYS)
		slot[class] = i + 1;
	return class;
}

/* One more crosslock and one more mutex; false if the pool is full */
static bool xr_pool_grow(struct xr_pool *p)
{
	int i = p->nr;

	if (i == XR_POOL)
		return false;
	lockdep_register_key(&p->xkey[i]);
	crosslock_init_map(&p->x[i], "(xr)test_pool", &p->xkey[i], 0);
	p->xidx[i] = xr_pool_set_slot(p->xslot,
				      class_idx_of(&p->x[i].map), i);
	lockdep_register_key(&p->mkey[i]);
	mutex_init(&p->m[i]);
	lockdep_set_class_and_name(&p->m[i], &p->mkey[i], "xr_test_pool");
	p->midx[i] = xr_pool_set_slot(p->mslot,
				      class_idx_of(&p->m[i].dep_map), i);
	p->nr++;
	return true;
}

static void xr_pool_destroy(struct xr_pool *p)
{
	int i;

	for (i = 0; i < p->nr; i++) {
		mutex_destroy(&p->m[i]);
		lockdep_unregister_key(&p->mkey[i]);
		lockdep_unregister_key(&p->xkey[i]);
	}
	vfree(p);
}

/*
 * Two entries of the pool, @lo and @hi, whose class indexes (@idx, found
 * by class in @slot) are @d apart; false if none
 */
static bool xr_pool_apart(const struct xr_pool *p, const int *idx,
			  const u16 *slot, int d, int *lo, int *hi)
{
	for (*lo = 0; *lo < p->nr; (*lo)++) {
		int class = idx[*lo] + d;

		if (idx[*lo] >= 0 && class < MAX_LOCKDEP_KEYS && slot[class]) {
			*hi = slot[class] - 1;
			return true;
		}
	}
	return false;
}

/*
 * Crosslocks b and d and mutexes a and c whose class indexes are D apart
 * (b = d + D, c = a + D), D a multiple of 64: {a, b} and {c, d} have the
 * same sum and the same residues modulo 64, which a memo keyed by a sum
 * and a residue mask would take for one cycle.
 */
static bool xr_pool_colliding(struct xr_pool *p, int *a, int *b, int *c,
			      int *d)
{
	int delta;

	for (delta = 64; delta < MAX_LOCKDEP_KEYS; delta += 64) {
		if (xr_pool_apart(p, p->xidx, p->xslot, delta, d, b) &&
		    xr_pool_apart(p, p->midx, p->mslot, delta, a, c))
			return true;
	}
	return false;
}

/*
 * The memo of printed cycles tells any two cycles apart: M_a -> X_b -> M_a
 * and M_c -> X_d -> M_c, whose class indexes have the same sum and the
 * same residues modulo 64, are both printed.
 */
static void xr_memo_kept_apart(struct kunit *test)
{
	long printed = crosslock_counter_read(CROSSLOCK_COUNTER_REPORTS_PRINTED);
	long brief = crosslock_counter_read(CROSSLOCK_COUNTER_REPORTS_BRIEF);
	struct xr_pool *p;
	int a, b, c, d;

	if (!lockdep_kunit_xr_goes_on())
		kunit_skip(test, "booted with crossrelease.max_reports=0");
	p = xr_pool_create(test);
	while (!xr_pool_colliding(p, &a, &b, &c, &d)) {
		if (!xr_pool_grow(p)) {
			xr_pool_destroy(p);
			KUNIT_FAIL(test, "no colliding classes among %d pairs", XR_POOL);
			return;
		}
	}

	wait_then_commit(&p->x[b], &p->m[a], &p->m[a]);
	wait_then_commit(&p->x[d], &p->m[c], &p->m[c]);
	KUNIT_EXPECT_EQ(test,
			crosslock_counter_read(CROSSLOCK_COUNTER_REPORTS_PRINTED) +
			crosslock_counter_read(CROSSLOCK_COUNTER_REPORTS_BRIEF),
			printed + brief + 2);
	KUNIT_EXPECT_TRUE(test, lockdep_kunit_is_on());
	xr_pool_destroy(p);
}

/*
 * A class of the new dependency freed while its report prints: a console
 * of the case's own holds the report's first line naming the class until
 * a kthread on another CPU has unregistered the class's key (the graph
 * lock is free then; the key's RCU wait ends once the report is printed).
 */
struct xr_gone {
	struct lock_class_key key;
	struct mutex m;				/* "xr_test_gone" */
	char name[KSYM_NAME_LEN];		/* its class, as printed */
	int class;
	struct task_struct *reporter;
	int cpu;				/* the reporter's */
	bool ready;		/* the kthread runs on another CPU */
	bool stalled;		/* the reporter's print waits for the free */
	bool freed;		/* ... and the class was freed meanwhile */
	bool done;		/* the report is over, stalled or not */
	struct lockdep_kunit_kthread kt;
};

static struct xr_gone *xr_gone;

static bool xr_gone_freed(struct xr_gone *g)
{
	char buf[KSYM_NAME_LEN];

	return strcmp(crosslock_class_name(g->class, buf, sizeof(buf)), g->name);
}

static void xr_gone_console_write(struct console *con, const char *s,
				  unsigned int n)
{
	struct xr_gone *g = READ_ONCE(xr_gone);
	int ms;

	if (!g || g->stalled || current != g->reporter ||
	    !strnstr(s, "xr_test_gone", n))
		return;
	WRITE_ONCE(g->stalled, true);
	for (ms = 0; ms < 10000 && !xr_gone_freed(g); ms++)
		mdelay(1);
	g->freed = xr_gone_freed(g);
}

static struct console xr_gone_console = {
	.name	= "xr_gone",
	.write	= xr_gone_console_write,
	.flags	= CON_ENABLED,
};

static void xr_gone_free_fn(void *data)
{
	struct xr_gone *g = data;

	/*
	 * Off the reporter's CPU before it reports: queued there, this
	 * kthread would wait for the report's end (interrupts off, no tick
	 * to pull it to an idle CPU).
	 */
	set_cpus_allowed_ptr(current, cpumask_of(cpumask_any_but(cpu_online_mask, g->cpu)));
	WRITE_ONCE(g->ready, true);
	while (!READ_ONCE(g->stalled) && !READ_ONCE(g->done))
		usleep_range(1000, 2000);
	lockdep_unregister_key(&g->key);
}

static void xr_gone_until_ready(struct xr_gone *g)
{
	int ms;

	for (ms = 0; ms < 10000 && !READ_ONCE(g->ready); ms++)
		usleep_range(1000, 2000);
}

static void xr_class_freed_while_printed(struct kunit *test)
{
	struct xr_ctx *ctx = test->priv;
	bool warned = test_taint(TAINT_WARN);
	struct xr_gone *g;

	if (!lockdep_kunit_xr_goes_on())
		kunit_skip(test, "booted with crossrelease.max_reports=0");
	if (num_online_cpus() < 2)
		kunit_skip(test, "one CPU: the class is freed from another");
	g = kunit_kzalloc(test, sizeof(*g), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, g);
	lockdep_register_key(&g->key);
	mutex_init(&g->m);
	lockdep_set_class_and_name(&g->m, &g->key, "xr_test_gone");
	g->class = class_idx_of(&g->m.dep_map);
	crosslock_class_name(g->class, g->name, sizeof(g->name));
	g->reporter = current;
	g->cpu = raw_smp_processor_id();
	set_cpus_allowed_ptr(current, cpumask_of(g->cpu));
	crosslock_reports_reset();
	WRITE_ONCE(xr_gone, g);
	register_console(&xr_gone_console);
	if (IS_ERR(lockdep_kunit_run_kthread(&g->kt, xr_gone_free_fn, g, "xr_gone"))) {
		KUNIT_FAIL(test, "no kthread");
	} else {
		xr_gone_until_ready(g);
		wait_then_commit(&ctx->x, &g->m, &g->m);	/* M -> X -> M */
	}

	WRITE_ONCE(g->done, true);
	if (IS_ERR(g->kt.task) || lockdep_kunit_stop_kthread(&g->kt) == -EINTR)
		lockdep_unregister_key(&g->key);	/* it never ran */
	unregister_console(&xr_gone_console);
	WRITE_ONCE(xr_gone, NULL);
	set_cpus_allowed_ptr(current, cpu_possible_mask);
	mutex_destroy(&g->m);

	KUNIT_EXPECT_TRUE(test, lockdep_kunit_is_on());
	if (!warned)
		KUNIT_EXPECT_FALSE(test, test_taint(TAINT_WARN));
	if (!READ_ONCE(g->stalled))
		kunit_skip(test, "the report was printed by another task");
	KUNIT_EXPECT_TRUE_MSG(test, g->freed, "the class outlived the report");
}

/*
 * A class name is cut to the buffer it is printed in, its version and
 * subclass too, without writing past the buffer (or asking vsnprintf() to,
 * which it refuses with a warning).
 */
static void xr_class_name_cut(struct kunit *test)
{
	bool warned = test_taint(TAINT_WARN);
	static const char name[] = "xr_test_a_class_of_a_long_name";
	struct lock_class_key *key = kunit_kzalloc(test, sizeof(*key), GFP_KERNEL);
	char buf[40];
	struct lockdep_map map;
	int idx;

	KUNIT_ASSERT_NOT_NULL(test, key);
	lockdep_register_key(key);
	lockdep_init_map(&map, name, key, 0);
	lock_acquire_exclusive(&map, 1, 0, NULL, _THIS_IP_);	/* subclass 1 */
	lock_release(&map, _THIS_IP_);
	KUNIT_ASSERT_NOT_NULL(test, map.class_cache[1]);
	idx = crosslock_class_of(map.class_cache[1]);

	memset(buf, 'X', sizeof(buf));
	crosslock_class_name(idx, buf, 8);
	KUNIT_EXPECT_STREQ(test, buf, "xr_test");
	KUNIT_EXPECT_NULL(test, memchr_inv(buf + 8, 'X', sizeof(buf) - 8));
	crosslock_class_name(idx, buf, 32);
	KUNIT_EXPECT_STREQ(test, buf, "xr_test_a_class_of_a_long_name/");
	KUNIT_EXPECT_NULL(test, memchr_inv(buf + 32, 'X', sizeof(buf) - 32));
	if (!warned)
		KUNIT_EXPECT_FALSE(test, test_taint(TAINT_WARN));
	lockdep_unregister_key(key);
}

/* Two work items in a row in one worker: the second releases X. */
static void take_m_fn(struct work_struct *work)
{
	struct xr_ctx *ctx = container_of(work, struct xr_ctx, work1);

	ctx->worker1 = current;
	lockdep_kunit_take_m(&ctx->fx);
}

static void commit_fn(struct work_struct *work)
{
	struct xr_ctx *ctx = container_of(work, struct xr_ctx, work2);

	ctx->worker2 = current;
	crosslock_commit(&ctx->x);
}

static void xr_new_work_item_quiet(struct kunit *test)
{
	struct xr_ctx *ctx = test->priv;
	int cpu;

	wait_under_m(ctx);
	INIT_WORK(&ctx->work1, take_m_fn);
	INIT_WORK(&ctx->work2, commit_fn);
	cpu = get_cpu();
	queue_work_on(cpu, system_wq, &ctx->work1);
	queue_work_on(cpu, system_wq, &ctx->work2);
	put_cpu();
	flush_work(&ctx->work1);
	flush_work(&ctx->work2);
	crosslock_release(&ctx->x, XR_IP);

	lockdep_kunit_expect_quiet(test, &ctx->fx.cap);
	if (ctx->worker1 != ctx->worker2)
		kunit_skip(test, "work items ran in different workers");
}

/* More acquisitions than the ring holds: no crash, nothing invented. */
static void xr_history_overflow_quiet(struct kunit *test)
{
	struct xr_ctx *ctx = test->priv;
	long overflows = crosslock_counter_read(CROSSLOCK_COUNTER_HIST_OVERFLOWS);
	int i;

	crosslock_acquire(&ctx->z, 1, XR_IP);
	lockdep_kunit_take_m(&ctx->fx);
	wait_under_m(ctx);
	for (i = 0; i < 3 * CROSSLOCK_HIST_SIZE; i++) {	/* no repeats: */
		mutex_lock(&ctx->n);			/* each is written */
		mutex_unlock(&ctx->n);
		take_irq_lock(ctx);
	}
	crosslock_commit(&ctx->x);
	crosslock_release(&ctx->x, XR_IP);
	crosslock_release(&ctx->z, XR_IP);

	lockdep_kunit_expect_quiet(test, &ctx->fx.cap);
	KUNIT_EXPECT_EQ(test, crosslock_counter_read(CROSSLOCK_COUNTER_HIST_OVERFLOWS),
			overflows + 1);
}

/* Wait for X under M, take N and maybe the irq lock, release X. */
static void commit_x_after_n(struct xr_ctx *ctx, bool irq_lock)
{
	wait_under_m(ctx);
	mutex_lock(&ctx->n);
	mutex_unlock(&ctx->n);
	if (irq_lock)
		take_irq_lock(ctx);
	crosslock_commit(&ctx->x);
	crosslock_release(&ctx->x, XR_IP);
}

struct xr_counts {
	long added, checked, cached, chains;
};

static void xr_counts_read(struct xr_counts *n)
{
	n->added = crosslock_counter_read(CROSSLOCK_COUNTER_DEPS_ADDED);
	n->checked = crosslock_counter_read(CROSSLOCK_COUNTER_DEPS_CHECKED);
	n->cached = crosslock_counter_read(CROSSLOCK_COUNTER_DEPS_CACHED);
	n->chains = crosslock_counter_read(CROSSLOCK_COUNTER_CHAINS_CACHED);
}

/* What the counters moved by since @before */
static void xr_expect_counts(struct kunit *test, const struct xr_counts *before,
			     long added, long checked, long cached, long chains)
{
	struct xr_counts now;

	xr_counts_read(&now);
	KUNIT_EXPECT_EQ(test, now.added - before->added, added);
	KUNIT_EXPECT_EQ(test, now.checked - before->checked, checked);
	KUNIT_EXPECT_EQ(test, now.cached - before->cached, cached);
	KUNIT_EXPECT_EQ(test, now.chains - before->chains, chains);
}

/*
 * The same dependency committed twice: added once, then the second commit
 * is one probe of the chain cache, with no walk.
 */
static void xr_second_commit_adds_nothing(struct kunit *test)
{
	struct xr_ctx *ctx = test->priv;
	struct xr_counts n;

	xr_counts_read(&n);
	commit_x_after_n(ctx, false);
	xr_expect_counts(test, &n, 1, 1, 0, 0);

	xr_counts_read(&n);
	commit_x_after_n(ctx, false);
	xr_expect_counts(test, &n, 0, 0, 0, 1);
	lockdep_kunit_expect_quiet(test, &ctx->fx.cap);
}

/*
 * A commit of a set that differs by one dependency is walked: the pair
 * cache answers the known one, lockdep adds the new one.
 */
static void xr_commit_new_set_walked(struct kunit *test)
{
	struct xr_ctx *ctx = test->priv;
	struct xr_counts n;

	commit_x_after_n(ctx, false);
	xr_counts_read(&n);
	commit_x_after_n(ctx, true);
	xr_expect_counts(test, &n, 1, 1, 1, 0);

	xr_counts_read(&n);
	commit_x_after_n(ctx, true);
	xr_expect_counts(test, &n, 0, 0, 0, 1);
	lockdep_kunit_expect_quiet(test, &ctx->fx.cap);
}

/* Wait for X under M, take a lock of class @key, release X. */
static void commit_x_after_key(struct xr_ctx *ctx, struct lock_class_key *key)
{
	struct lockdep_map map;

	lockdep_init_map(&map, "xr_test_freed", key, 0);
	wait_under_m(ctx);
	lock_map_acquire(&map);
	lock_map_release(&map);
	crosslock_commit(&ctx->x);
	crosslock_release(&ctx->x, XR_IP);
}

/*
 * Freeing a class takes its dependencies out of the graph: every cached
 * commit is forgotten (a set without the class is walked again, its pairs
 * answered by the pair cache), and the commit with the class adds its
 * dependency again.
 */
static void xr_commit_cache_forgets_freed_class(struct kunit *test)
{
	struct xr_ctx *ctx = test->priv;
	struct lock_class_key *key = kunit_kzalloc(test, sizeof(*key), GFP_KERNEL);
	struct xr_counts n;

	KUNIT_ASSERT_NOT_NULL(test, key);
	lockdep_register_key(key);
	commit_x_after_n(ctx, false);
	commit_x_after_key(ctx, key);
	xr_counts_read(&n);
	commit_x_after_key(ctx, key);
	xr_expect_counts(test, &n, 0, 0, 0, 1);

	lockdep_unregister_key(key);		/* zap_class() */
	xr_counts_read(&n);
	commit_x_after_n(ctx, false);
	xr_expect_counts(test, &n, 0, 0, 1, 0);

	lockdep_register_key(key);
	xr_counts_read(&n);
	commit_x_after_key(ctx, key);
	xr_expect_counts(test, &n, 1, 1, 0, 0);
	lockdep_unregister_key(key);
	lockdep_kunit_expect_quiet(test, &ctx->fx.cap);
}

/*
 * A wait under the held locks of an earlier wait of the same class skips
 * lockdep's check; under other held locks it does not, and a wait that
 * closes a cycle after a cached one is still reported.
 */
static void xr_wait_cache_then_cycle_reported(struct kunit *test)
{
	struct xr_ctx *ctx = test->priv;
	long waits;

	lockdep_kunit_expect_xr_report(test);
	wait_under_m(ctx);
	crosslock_release(&ctx->x, XR_IP);
	waits = crosslock_counter_read(CROSSLOCK_COUNTER_WAITS_CACHED);
	wait_under_m(ctx);
	crosslock_release(&ctx->x, XR_IP);
	KUNIT_EXPECT_EQ(test, crosslock_counter_read(CROSSLOCK_COUNTER_WAITS_CACHED),
			waits + 1);
	lockdep_kunit_expect_quiet(test, &ctx->fx.cap);

	/* X -> N, then a wait for X under N: N -> X -> N */
	crosslock_acquire(&ctx->x, 1, XR_IP);
	mutex_lock(&ctx->n);
	mutex_unlock(&ctx->n);
	crosslock_commit(&ctx->x);
	crosslock_release(&ctx->x, XR_IP);
	mutex_lock(&ctx->n);
	crosslock_acquire(&ctx->x, 0, XR_IP);
	mutex_unlock(&ctx->n);
	crosslock_release(&ctx->x, XR_IP);
	KUNIT_EXPECT_EQ(test, crosslock_counter_read(CROSSLOCK_COUNTER_WAITS_CACHED),
			waits + 1);
	KUNIT_EXPECT_EQ(test, lockdep_kunit_count(&ctx->fx.cap, LOCKDEP_KUNIT_CIRCULAR), 1U);
	lockdep_kunit_reset();
}

/*
 * Misuse.  Every misuse the API can see is counted in CROSSLOCK_COUNTER_MISUSE, once
 * per call, and printed once per boot and kind (xr_warn_once()); it never
 * crashes and never switches lockdep off.
 */
#define W_NOT_ACQUIRED	"not acquired (double release?)"
#define W_EXITS		"crosslock acquisition(s) in flight"
#define W_UNINIT	"of uninitialised crosslock"

/* Misuse counted since the case began */
static long misuse_count(struct xr_ctx *ctx)
{
	return crosslock_counter_read(CROSSLOCK_COUNTER_MISUSE) - ctx->misuse;
}

/*
 * A commit with nothing in flight is the common complete() that nobody
 * waits for, or one that comes after the waiter gave up: not a misuse, and
 * nothing to commit.  Committing the late one would add X -> M and close
 * M -> X -> M.
 */
static void xr_commit_unacquired_quiet(struct kunit *test)
{
	struct xr_ctx *ctx = test->priv;

	lockdep_kunit_take_m(&ctx->fx);
	crosslock_commit(&ctx->x);
	crosslock_commit(&ctx->x);

	wait_under_m(ctx);				/* M -> X */
	crosslock_release(&ctx->x, XR_IP);	/* the waiter gave up */
	lockdep_kunit_take_m(&ctx->fx);
	crosslock_commit(&ctx->x);

	KUNIT_EXPECT_EQ(test, misuse_count(ctx), 0L);
	KUNIT_EXPECT_EQ(test, ctx->x.state.nr_acquired, 0U);
	lockdep_kunit_expect_quiet(test, &ctx->fx.cap);
}

static void xr_misuse_release_unacquired(struct kunit *test)
{
	struct xr_ctx *ctx = test->priv;

	crosslock_release(&ctx->x, XR_IP);		/* never acquired */
	KUNIT_EXPECT_EQ(test, misuse_count(ctx), 1L);
	KUNIT_EXPECT_EQ(test, ctx->x.state.nr_acquired, 0U);
	lockdep_kunit_expect_warned_once(test, &ctx->fx.cap, W_NOT_ACQUIRED);
	lockdep_kunit_expect_quiet(test, &ctx->fx.cap);
}

static void xr_misuse_double_release(struct kunit *test)
{
	struct xr_ctx *ctx = test->priv;

	crosslock_acquire(&ctx->x, 1, XR_IP);
	crosslock_release(&ctx->x, XR_IP);
	KUNIT_EXPECT_EQ(test, misuse_count(ctx), 0L);
	crosslock_release(&ctx->x, XR_IP);		/* double release */
	KUNIT_EXPECT_EQ(test, misuse_count(ctx), 1L);
	KUNIT_EXPECT_EQ(test, ctx->x.state.nr_acquired, 0U);
	lockdep_kunit_expect_warned_once(test, &ctx->fx.cap, W_NOT_ACQUIRED);
	lockdep_kunit_expect_quiet(test, &ctx->fx.cap);
}

static void exit_while_waiting_fn(void *data)
{
	struct xr_ctx *ctx = data;

	crosslock_acquire(&ctx->z, 0, XR_IP);
}

/* A task exits between a self-released acquisition and its release. */
static void xr_misuse_exit_in_flight(struct kunit *test)
{
	struct xr_ctx *ctx = test->priv;
	struct lockdep_kunit_kthread k;
	struct task_struct *t;
	int i;

	crosslock_init_map(&ctx->z, "(xr)test_Z", &ctx->key_z,
			   CROSSLOCK_SELF_RELEASE);
	t = lockdep_kunit_run_kthread(&k, exit_while_waiting_fn, ctx,
				      "xr_exit_test");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	msleep(20);
	lockdep_kunit_stop_kthread(&k);
	for (i = 0; i < 100; i++) {	/* the exit check runs late in do_exit() */
		if (misuse_count(ctx))
			break;
		usleep_range(10000, 20000);
	}
	KUNIT_EXPECT_EQ(test, misuse_count(ctx), 1L);
	crosslock_release(&ctx->z, XR_IP);		/* balance it */
	KUNIT_EXPECT_EQ(test, misuse_count(ctx), 1L);
	lockdep_kunit_expect_warned_once(test, &ctx->fx.cap, W_EXITS);
	lockdep_kunit_expect_quiet(test, &ctx->fx.cap);
}

/*
 * A map never passed to crosslock_init_map() (zeroed memory): no
 * name, no key, so lockdep could not give it a class.  Each of the three
 * calls is ignored and counted once.  The acquisition and the commit go
 * through xr_usable(), one kind: "<what> of uninitialised crosslock" is
 * printed once per boot, for the acquisition here unless an earlier
 * misuse of the kind printed it.  The release checks the map itself and
 * prints "release of uninitialised crosslock" once per boot.  The
 * acquisition is a wait under M: lockdep must not see it (no class, no
 * non-static key report), and nothing is in flight.
 */
static void xr_misuse_uninitialised(struct kunit *test)
{
	struct xr_ctx *ctx = test->priv;
	unsigned int waits = current->crosslock.nr_waits;
	struct crosslock *u;

	u = kunit_kzalloc(test, sizeof(*u), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, u);

	mutex_lock(&ctx->fx.m);
	crosslock_acquire(u, 0, XR_IP);
	mutex_unlock(&ctx->fx.m);
	KUNIT_EXPECT_EQ(test, misuse_count(ctx), 1L);
	lockdep_kunit_take_m(&ctx->fx);
	crosslock_commit(u);
	KUNIT_EXPECT_EQ(test, misuse_count(ctx), 2L);
	crosslock_release(u, XR_IP);
	KUNIT_EXPECT_EQ(test, misuse_count(ctx), 3L);

	KUNIT_EXPECT_EQ(test, u->state.nr_acquired, 0U);
	KUNIT_EXPECT_EQ(test, u->state.flags, 0U);
	KUNIT_EXPECT_NULL(test, u->map.key);
	KUNIT_EXPECT_NULL(test, u->map.class_cache[0]);
	KUNIT_EXPECT_EQ(test, current->crosslock.nr_waits, waits);
	lockdep_kunit_expect_warned_once(test, &ctx->fx.cap,
					 "acquire " W_UNINIT);
	lockdep_kunit_expect_warned_once(test, &ctx->fx.cap,
					 "release " W_UNINIT);
	lockdep_kunit_expect_quiet(test, &ctx->fx.cap);
}

/* An end without its begin is counted and warned about once, no WARN. */
static void xr_misuse_unbalanced_end(struct kunit *test)
{
	struct xr_ctx *ctx = test->priv;

	crosslock_hide_end();
	KUNIT_EXPECT_EQ(test, misuse_count(ctx), 1L);
	KUNIT_EXPECT_EQ(test, current->crosslock.hidden, 0);
	crosslock_opportunistic_end();
	KUNIT_EXPECT_EQ(test, misuse_count(ctx), 2L);
	KUNIT_EXPECT_EQ(test, current->crosslock.opportunistic[0], 0);
	lockdep_kunit_expect_warned_once(test, &ctx->fx.cap,
					 "unbalanced crosslock_hide_end");
	lockdep_kunit_expect_warned_once(test, &ctx->fx.cap,
					 "unbalanced crosslock_opportunistic_end");
	KUNIT_EXPECT_FALSE(test, lockdep_kunit_report_seen(&ctx->fx.cap,
							   "WARNING: CPU"));
	lockdep_kunit_expect_quiet(test, &ctx->fx.cap);
}

/*
 * The class table the users of crossrelease share: an entry per owner
 * pair, filled once, found again, and NULL once every slot is taken.
 */
struct xr_test_class {
	struct crosslock_class_slot	slot;
	int				nr;
};

static void xr_test_class_init(void *entry, const void *owner, const void *arg)
{
	struct xr_test_class *c = entry;

	c->nr = *(const int *)arg;
}

static struct xr_test_class xr_test_entries[4];
DEFINE_CROSSLOCK_CLASS_TABLE(xr_test_table, xr_test_entries);

static void xr_class_table_fills_once(struct kunit *test)
{
	struct crosslock_class_table *t = &xr_test_table;
	struct xr_test_class *entries = xr_test_entries;
	static const char owners[5];
	struct xr_test_class *c, *c2;
	int i;

	memset(entries, 0, sizeof(xr_test_entries));
	KUNIT_EXPECT_NULL(test, crosslock_class_find(t, &owners[0], NULL));
	i = 0;
	c = crosslock_class_add(t, &owners[0], NULL, xr_test_class_init, &i);
	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_EXPECT_PTR_EQ(test, c, crosslock_class_find(t, &owners[0], NULL));
	/* a second add finds the first entry and does not init it again */
	i = 99;
	KUNIT_EXPECT_PTR_EQ(test, c, crosslock_class_add(t, &owners[0], NULL,
							 xr_test_class_init, &i));
	KUNIT_EXPECT_EQ(test, c->nr, 0);
	/* the second key keeps owners apart */
	c2 = crosslock_class_add(t, &owners[0], &owners[1], xr_test_class_init, &i);
	KUNIT_ASSERT_NOT_NULL(test, c2);
	KUNIT_EXPECT_PTR_NE(test, c, c2);
	KUNIT_EXPECT_EQ(test, c2->nr, 99);
	/* each CPU's last entry found is tried first, by both keys */
	KUNIT_EXPECT_PTR_EQ(test, c2, crosslock_class_find(t, &owners[0], &owners[1]));
	KUNIT_EXPECT_PTR_EQ(test, c, crosslock_class_find(t, &owners[0], NULL));
	KUNIT_EXPECT_NULL(test, crosslock_class_find(t, &owners[1], NULL));
	for (i = 2; i < 4; i++)
		KUNIT_EXPECT_NOT_NULL(test, crosslock_class_add(t, &owners[i], NULL,
								xr_test_class_init, &i));
	KUNIT_EXPECT_NULL(test, crosslock_class_add(t, &owners[4], NULL,
						    xr_test_class_init, &i));
	for (i = 2; i < 4; i++)
		KUNIT_EXPECT_NOT_NULL(test, crosslock_class_find(t, &owners[i], NULL));
	KUNIT_EXPECT_NULL(test, crosslock_class_find(t, &owners[4], NULL));
}

static struct kunit_case xr_test_cases[] = {
	KUNIT_CASE(xr_cycle_reported),
	KUNIT_CASE(xr_report_goes_on),
	KUNIT_CASE(xr_wait_report_goes_on),
	KUNIT_CASE(xr_go_on_then_implied_cycle),
	KUNIT_CASE_PARAM(xr_nest_lock_reported, xr_nest_gen_params),
	KUNIT_CASE(xr_lock_before_acquire_quiet),
	KUNIT_CASE(xr_nested_lock_implied),
	KUNIT_CASE(xr_implied_by_freed_class_reported),
	KUNIT_CASE(xr_class_of_gone_owner_dropped),
	KUNIT_CASE(xr_spinning_lock_not_written),
	KUNIT_CASE(xr_nested_after_acquire_reported),
	KUNIT_CASE(xr_repeat_after_acquire_reported),
	KUNIT_CASE(xr_repeat_in_new_section_reported),
	KUNIT_CASE(xr_bound_push_outlives_inner_end_quiet),
	KUNIT_CASE(xr_trylock_quiet),
	KUNIT_CASE_PARAM(xr_irq_ignores_task, xr_irq_gen_params),
	KUNIT_CASE(xr_opportunistic_irq_in_task_section_quiet),
	KUNIT_CASE(xr_dep_cache_forgets_freed_class),
	KUNIT_CASE(xr_memo_kept_apart),
	KUNIT_CASE(xr_class_freed_while_printed),
	KUNIT_CASE(xr_class_name_cut),
	KUNIT_CASE(xr_new_work_item_quiet),
	KUNIT_CASE(xr_history_overflow_quiet),
	KUNIT_CASE(xr_second_commit_adds_nothing),
	KUNIT_CASE(xr_commit_new_set_walked),
	KUNIT_CASE(xr_commit_cache_forgets_freed_class),
	KUNIT_CASE(xr_wait_cache_then_cycle_reported),
	KUNIT_CASE(xr_commit_unacquired_quiet),
	KUNIT_CASE(xr_misuse_release_unacquired),
	KUNIT_CASE(xr_misuse_double_release),
	KUNIT_CASE(xr_misuse_exit_in_flight),
	KUNIT_CASE(xr_misuse_uninitialised),
	KUNIT_CASE(xr_misuse_unbalanced_end),
	KUNIT_CASE(xr_class_table_fills_once),
	{}
};

static struct kunit_suite xr_test_suite = {
	.name = "crossrelease",
	.init = xr_test_init,
	.exit = xr_test_exit,
	.test_cases = xr_test_cases,
};

/*
 * Cases that end with a plain report, which switches lockdep off: a suite
 * whose name "crossrelease*" does not match, each case run in a boot of
 * its own (kunit.filter_glob=lockdep_go_on.<case>).
 */
static struct kunit_case xr_go_on_abba_cases[] = {
	KUNIT_CASE(xr_go_on_then_abba),
	KUNIT_CASE(xr_budget_spent_then_abba),
	{}
};

static struct kunit_suite xr_go_on_abba_suite = {
	.name = "lockdep_go_on",
	.init = xr_test_init,
	.exit = xr_test_exit,
	.test_cases = xr_go_on_abba_cases,
};

kunit_test_suites(&xr_test_suite, &xr_go_on_abba_suite);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit tests for the lockdep crossrelease engine");

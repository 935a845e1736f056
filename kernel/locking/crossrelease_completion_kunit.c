// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for completions as crosslocks (CONFIG_LOCKDEP_COMPLETIONS).
 *
 * Lockdep finds deadlocks that did not happen: a case first lets lockdep
 * learn one half of a cycle in a run that cannot hang ("learn"), then
 * plays the other half ("close").  Each case asserts the report, or its
 * absence and that lockdep is still on.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include "lockdep_internals.h"
#include "lockdep_kunit.h"
#include "lockdep_crossrelease.h"

#define NR_WAITERS	3

struct cmp_ctx {
	struct lockdep_kunit_fixture fx; /* fx.m: the lock of the scenarios */
	struct completion done, other, idle;
	struct work_struct work;
};

/* One class per init site: these two are different classes. */
static void init_done(struct cmp_ctx *ctx)
{
	init_completion(&ctx->done);
}

static void init_other(struct cmp_ctx *ctx)
{
	init_completion(&ctx->other);
}

static int cmp_test_init(struct kunit *test)
{
	struct cmp_ctx *ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);

	if (!ctx)
		return -ENOMEM;
	lockdep_kunit_fixture_init(&ctx->fx, "cmp_test_M");
	init_done(ctx);
	init_other(ctx);
	init_completion(&ctx->idle);
	test->priv = ctx;

	crossrelease_kunit_skip_if_off(test);
	return 0;
}

static void cmp_test_exit(struct kunit *test)
{
	struct cmp_ctx *ctx = test->priv;

	lockdep_kunit_fixture_exit(&ctx->fx);
	kfree(ctx);
}

/* --- Waiters, in their own kthreads --- */

enum wait_kind { WAIT_PLAIN, WAIT_UNDER_M, WAIT_TIMEOUT_UNDER_M };

struct waiter {
	struct cmp_ctx *ctx;
	struct completion *c;
	enum wait_kind kind;
	struct lockdep_kunit_kthread kt;
};

static void waiter_fn(void *data)
{
	struct waiter *w = data;

	if (w->kind != WAIT_PLAIN)
		mutex_lock(&w->ctx->fx.m);
	if (w->kind == WAIT_TIMEOUT_UNDER_M)
		wait_for_completion_timeout(w->c, 60 * HZ);
	else
		wait_for_completion(w->c);
	if (w->kind != WAIT_PLAIN)
		mutex_unlock(&w->ctx->fx.m);
}

static void start_waiter(struct kunit *test, struct waiter *w,
			 struct cmp_ctx *ctx, struct completion *c,
			 enum wait_kind kind)
{
	w->ctx = ctx;
	w->c = c;
	w->kind = kind;
	lockdep_kunit_run_kthread(&w->kt, waiter_fn, w, "cmp_waiter");
	KUNIT_ASSERT_FALSE(test, IS_ERR(w->kt.task));
}

static void stop_waiter(struct waiter *w)
{
	lockdep_kunit_stop_kthread(&w->kt);
}

/* Learn M -> (complete)done: wait under M, completed by someone else. */
static void learn_wait_under_m(struct kunit *test, struct cmp_ctx *ctx,
			       struct completion *c, enum wait_kind kind)
{
	struct waiter w;

	reinit_completion(c);
	start_waiter(test, &w, ctx, c, kind);
	lockdep_kunit_until_waiting(c, 1);
	complete(c);
	stop_waiter(&w);
	reinit_completion(c);
}

/* The cycle M -> (complete)done -> M: reported, and lockdep goes on */
static const struct lockdep_kunit_report done_cycle = {
	.headline = LOCKDEP_KUNIT_CIRCULAR,
	.lines = { "(cmp_test_M)", "(complete)&ctx->done" },
	.crossrelease = true,
};

/* --- Completers --- */

static void take_m_and_complete_other_fn(void *data)
{
	struct cmp_ctx *ctx = data;

	lockdep_kunit_take_m(&ctx->fx);
	complete(&ctx->other);
}

static void take_m_and_complete_fn(void *data)
{
	struct cmp_ctx *ctx = data;

	lockdep_kunit_take_m(&ctx->fx);
	complete(&ctx->done);
}

/*
 * A wait under a mutex (the design document's example 3): A holds M and
 * waits for C; B takes M and then completes C.  The completer here is a
 * kthread.
 */
static void cmp_wait_under_mutex_reported(struct kunit *test)
{
	struct cmp_ctx *ctx = test->priv;
	struct lockdep_kunit_kthread k;
	struct task_struct *t;
	struct waiter w;

	lockdep_kunit_expect_xr_report(test);

	learn_wait_under_m(test, ctx, &ctx->done, WAIT_UNDER_M);

	start_waiter(test, &w, ctx, &ctx->done, WAIT_PLAIN);
	lockdep_kunit_until_waiting(&ctx->done, 1);
	t = lockdep_kunit_run_kthread(&k, take_m_and_complete_fn, ctx,
				      "cmp_completer");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	stop_waiter(&w);
	lockdep_kunit_stop_kthread(&k);

	lockdep_kunit_expect_matches(test, &ctx->fx.cap, &done_cycle);
	lockdep_kunit_reset();
}

/*
 * completion_set_untracked(): the steps of cmp_wait_under_mutex_reported(),
 * quiet, and not a misuse.  test-ww_mutex's sequencing completions are
 * marked so (they were reported with lockdep's selftests loaded: its ABBA
 * test's ww_mutexes are distinct instances of one class).
 */
static void cmp_untracked_quiet(struct kunit *test)
{
	struct cmp_ctx *ctx = test->priv;
	long misuse = crosslock_counter_read(CROSSLOCK_COUNTER_MISUSE);
	struct lockdep_kunit_kthread k;
	struct task_struct *t;
	struct waiter w;

	completion_set_untracked(&ctx->other);
	learn_wait_under_m(test, ctx, &ctx->other, WAIT_UNDER_M);

	start_waiter(test, &w, ctx, &ctx->other, WAIT_PLAIN);
	lockdep_kunit_until_waiting(&ctx->other, 1);
	t = lockdep_kunit_run_kthread(&k, take_m_and_complete_other_fn, ctx,
				      "cmp_completer");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	stop_waiter(&w);
	lockdep_kunit_stop_kthread(&k);

	KUNIT_EXPECT_TRUE(test, ctx->other.dep_map.state.flags & CROSSLOCK_UNTRACKED);
	KUNIT_EXPECT_EQ(test, ctx->other.dep_map.state.nr_acquired, 0U);
	KUNIT_EXPECT_EQ(test, crosslock_counter_read(CROSSLOCK_COUNTER_MISUSE), misuse);
	lockdep_kunit_expect_quiet(test, &ctx->fx.cap);
}

static void take_m_and_complete_work(struct work_struct *work)
{
	struct cmp_ctx *ctx = container_of(work, struct cmp_ctx, work);

	lockdep_kunit_take_m(&ctx->fx);
	complete(&ctx->done);
}

/* The completer is a work item that takes the mutex. */
static void cmp_work_completer_reported(struct kunit *test)
{
	struct cmp_ctx *ctx = test->priv;
	struct waiter w;

	lockdep_kunit_expect_xr_report(test);

	learn_wait_under_m(test, ctx, &ctx->done, WAIT_UNDER_M);

	start_waiter(test, &w, ctx, &ctx->done, WAIT_PLAIN);
	lockdep_kunit_until_waiting(&ctx->done, 1);
	INIT_WORK(&ctx->work, take_m_and_complete_work);
	schedule_work(&ctx->work);
	flush_work(&ctx->work);
	stop_waiter(&w);

	lockdep_kunit_expect_matches(test, &ctx->fx.cap, &done_cycle);
	lockdep_kunit_reset();
	KUNIT_EXPECT_TRUE(test, lockdep_kunit_report_seen(&ctx->fx.cap,
							  "work item context"));
}

/* Keep a crosslock in flight so that every acquisition is recorded. */
static void hold_idle_waiter(struct kunit *test, struct cmp_ctx *ctx,
			     struct waiter *w)
{
	start_waiter(test, w, ctx, &ctx->idle, WAIT_PLAIN);
	lockdep_kunit_until_waiting(&ctx->idle, 1);
}

static void release_idle_waiter(struct cmp_ctx *ctx, struct waiter *w)
{
	complete(&ctx->idle);
	stop_waiter(w);
}

/* The completer took M before the wait began: no dependency. */
static void cmp_mutex_before_wait_quiet(struct kunit *test)
{
	struct cmp_ctx *ctx = test->priv;
	struct waiter idle, w;

	learn_wait_under_m(test, ctx, &ctx->done, WAIT_UNDER_M);
	hold_idle_waiter(test, ctx, &idle);

	lockdep_kunit_take_m(&ctx->fx);
	start_waiter(test, &w, ctx, &ctx->done, WAIT_PLAIN);
	lockdep_kunit_until_waiting(&ctx->done, 1);
	complete(&ctx->done);
	stop_waiter(&w);

	release_idle_waiter(ctx, &idle);
	lockdep_kunit_expect_quiet(test, &ctx->fx.cap);
}

/* The completer only trylocks M: a trylock never waits. */
static void cmp_trylock_quiet(struct kunit *test)
{
	struct cmp_ctx *ctx = test->priv;
	struct waiter w;

	learn_wait_under_m(test, ctx, &ctx->done, WAIT_UNDER_M);

	start_waiter(test, &w, ctx, &ctx->done, WAIT_PLAIN);
	lockdep_kunit_until_waiting(&ctx->done, 1);
	KUNIT_ASSERT_TRUE(test, mutex_trylock(&ctx->fx.m));
	mutex_unlock(&ctx->fx.m);
	complete(&ctx->done);
	stop_waiter(&w);

	lockdep_kunit_expect_quiet(test, &ctx->fx.cap);
}

/* M -> one completion class, the other class -> M: no cycle. */
static void cmp_different_init_sites_quiet(struct kunit *test)
{
	struct cmp_ctx *ctx = test->priv;
	struct waiter w;

	learn_wait_under_m(test, ctx, &ctx->done, WAIT_UNDER_M);

	start_waiter(test, &w, ctx, &ctx->other, WAIT_PLAIN);
	lockdep_kunit_until_waiting(&ctx->other, 1);
	lockdep_kunit_take_m(&ctx->fx);
	complete(&ctx->other);
	stop_waiter(&w);

	lockdep_kunit_expect_quiet(test, &ctx->fx.cap);
}

/*
 * Completed from an interrupt that lands on this task, which took M after
 * the wait began: the interrupt's history is its own.
 */
static void complete_irq_fn(void *ctx)
{
	complete(&((struct cmp_ctx *)ctx)->done);
}

/* hrtimer: completed in hard interrupt context; timer: in a softirq */
static const struct lockdep_kunit_variant cmp_irq_variants[] = {
	{ "hrtimer", true },
	{ "timer", false },
};

KUNIT_ARRAY_PARAM(cmp_irq, cmp_irq_variants, lockdep_kunit_variant_desc);

static void cmp_irq_completer_quiet(struct kunit *test)
{
	bool hard = lockdep_kunit_variant_flag(test);
	struct cmp_ctx *ctx = test->priv;
	struct waiter w;
	bool fired;

	learn_wait_under_m(test, ctx, &ctx->done, WAIT_UNDER_M);

	start_waiter(test, &w, ctx, &ctx->done, WAIT_PLAIN);
	lockdep_kunit_until_waiting(&ctx->done, 1);
	lockdep_kunit_take_m(&ctx->fx);
	fired = lockdep_kunit_irq_on_this_task(hard, complete_irq_fn, ctx);
	if (!fired)
		complete(&ctx->done);
	stop_waiter(&w);

	KUNIT_EXPECT_TRUE(test, fired);
	lockdep_kunit_expect_quiet(test, &ctx->fx.cap);
}

/* complete_all() with several waiters commits once, releases them all. */
static void cmp_complete_all_reported(struct kunit *test)
{
	struct cmp_ctx *ctx = test->priv;
	struct waiter w[NR_WAITERS];
	int i;

	lockdep_kunit_expect_xr_report(test);

	learn_wait_under_m(test, ctx, &ctx->done, WAIT_UNDER_M);

	for (i = 0; i < NR_WAITERS; i++)
		start_waiter(test, &w[i], ctx, &ctx->done, WAIT_PLAIN);
	lockdep_kunit_until_waiting(&ctx->done, NR_WAITERS);
	lockdep_kunit_take_m(&ctx->fx);
	complete_all(&ctx->done);
	for (i = 0; i < NR_WAITERS; i++)
		stop_waiter(&w[i]);

	/* every waiter released its acquisition */
	KUNIT_EXPECT_EQ(test, ctx->done.dep_map.state.nr_acquired, 0U);
	lockdep_kunit_expect_matches(test, &ctx->fx.cap, &done_cycle);
	lockdep_kunit_reset();
}

/* Thousands of on-stack completions: one class, bounded table growth. */
static void onstack_round(struct cmp_ctx *ctx)
{
	DECLARE_COMPLETION_ONSTACK(onstack);

	mutex_lock(&ctx->fx.m);
	complete(&onstack);
	wait_for_completion(&onstack);
	mutex_unlock(&ctx->fx.m);
}

/* lockdep's table sizes, which every lock user in the system can grow */
struct cmp_tables {
	unsigned long	classes;
	unsigned long	entries;
	unsigned long	chains;
	u64		traces;
};

static void cmp_tables_read(struct cmp_tables *t)
{
	t->classes = nr_lock_classes;
	t->entries = nr_list_entries;
	t->chains = lock_chain_count();
	t->traces = lockdep_stack_trace_count();
}

static bool cmp_tables_grew(const struct cmp_tables *a, const struct cmp_tables *b)
{
	return b->classes != a->classes || b->entries > a->entries + 4 ||
	       b->chains > a->chains + 4 || b->traces > a->traces + 4;
}

#define CMP_ONSTACK_WINDOWS	5

static void cmp_onstack_10000_quiet(struct kunit *test)
{
	struct cmp_ctx *ctx = test->priv;
	struct cmp_tables before, after;
	int i, w;

	/* The first rounds create the class and its dependencies */
	for (i = 0; i < 10; i++)
		onstack_round(ctx);

	/*
	 * The tables are global: another CPU's first use of some lock (boot
	 * work, a kworker) grows them too.  So the rounds run in windows,
	 * and one window in which nothing grew is enough; a class or an
	 * entry per round, the bug this catches, grows every window.
	 */
	for (w = 0; w < CMP_ONSTACK_WINDOWS; w++) {
		cmp_tables_read(&before);
		for (i = 0; i < 10000 / CMP_ONSTACK_WINDOWS; i++)
			onstack_round(ctx);
		cmp_tables_read(&after);
		if (!cmp_tables_grew(&before, &after))
			break;
	}

	lockdep_kunit_expect_quiet(test, &ctx->fx.cap);
	KUNIT_EXPECT_EQ(test, after.classes, before.classes);
	KUNIT_EXPECT_LE(test, after.entries, before.entries + 4);
	KUNIT_EXPECT_LE(test, after.chains, before.chains + 4);
	KUNIT_EXPECT_LE(test, after.traces, before.traces + 4);
}

/* A wait with a finite timeout is not a wait dependency by default. */
static void cmp_timeout_wait_quiet(struct kunit *test)
{
	struct cmp_ctx *ctx = test->priv;
	struct waiter w;

	if (IS_ENABLED(CONFIG_LOCKDEP_COMPLETIONS_TIMEOUT))
		kunit_skip(test, "CONFIG_LOCKDEP_COMPLETIONS_TIMEOUT=y");

	learn_wait_under_m(test, ctx, &ctx->done, WAIT_TIMEOUT_UNDER_M);

	start_waiter(test, &w, ctx, &ctx->done, WAIT_PLAIN);
	lockdep_kunit_until_waiting(&ctx->done, 1);
	lockdep_kunit_take_m(&ctx->fx);
	complete(&ctx->done);
	stop_waiter(&w);

	lockdep_kunit_expect_quiet(test, &ctx->fx.cap);
}

/* --- Misuse --- */

#define W_NO_KEY	"has no class key and is not static"

static struct lock_class_key cmp_onstack_wait_key;

/*
 * DECLARE_COMPLETION() on the stack: the static initialiser leaves the
 * class key to lockdep, which can only use the address of a static object.
 * Crossrelease warns once, at the first complete() or wait, and leaves the
 * completion untracked: the completion works, no dependency is learned.
 * Its wait queue lock has the same problem, but that is lockdep's own
 * check ("trying to register non-static key", then lockdep is off), which
 * the static initialiser cannot avoid: key that lock here, so that the
 * case sees the crosslock's part only.
 */
static void cmp_misuse_declare_completion_onstack(struct kunit *test)
{
	struct cmp_ctx *ctx = test->priv;
	long misuse = crosslock_counter_read(CROSSLOCK_COUNTER_MISUSE);
	DECLARE_COMPLETION(c);
	struct waiter w;

	lockdep_set_class_and_name(&c.wait.lock, &cmp_onstack_wait_key,
				   "cmp_test_onstack_wait");

	complete(&c);			/* warns and marks it untracked */
	wait_for_completion(&c);	/* completed already: returns */
	KUNIT_EXPECT_EQ(test, crosslock_counter_read(CROSSLOCK_COUNTER_MISUSE), misuse + 1);
	KUNIT_EXPECT_TRUE(test, c.dep_map.state.flags & CROSSLOCK_UNTRACKED);

	/*
	 * Waits in a kthread, completed by this task: were it tracked, the
	 * second round would close M -> (complete)c -> M.
	 */
	learn_wait_under_m(test, ctx, &c, WAIT_UNDER_M);
	start_waiter(test, &w, ctx, &c, WAIT_PLAIN);
	lockdep_kunit_until_waiting(&c, 1);
	lockdep_kunit_take_m(&ctx->fx);
	complete(&c);
	stop_waiter(&w);

	KUNIT_EXPECT_EQ(test, crosslock_counter_read(CROSSLOCK_COUNTER_MISUSE), misuse + 1);
	KUNIT_EXPECT_EQ(test, c.dep_map.state.nr_acquired, 0U);
	lockdep_kunit_expect_warned_once(test, &ctx->fx.cap, W_NO_KEY);
	lockdep_kunit_expect_quiet(test, &ctx->fx.cap);
}

/*
 * An on-stack completion completed after its frame is gone: the waiter
 * timed out and returned, the completer comes late.  Nothing the API can
 * see (the crosslock state lives in the dead frame, and the engine keeps
 * no pointer to it), so no warning is due; the case asserts that the late
 * complete() is a commit with nothing in flight (no report, lockdep on,
 * no misuse) and that the timed-out wait left nothing in flight.
 *
 * The frame must stay intact until the late complete(): on a reused frame
 * complete() would follow a scribbled wait list or spin on a scribbled
 * lock word, an oops or a hang in the completion code whatever lockdep
 * does, so the case does not fill the dead frame with a pattern.  Instead
 * the completion sits deep in the stack, below STALE_PAD_FRAMES padded
 * frames, and the completer touches it only while this task sleeps on
 * @gate, in frames far above it (checked: STALE_MARGIN).  No assertion may
 * end this task before kthread_stop(): its stack would be freed under the
 * completer.
 */
#define STALE_PAD		256
#define STALE_PAD_FRAMES	(THREAD_SIZE * 3 / 8 / STALE_PAD)
#define STALE_MARGIN		(THREAD_SIZE / 4)

struct stale_cmp {
	struct lockdep_kunit_kthread completer;
	struct completion go;		/* the waiter returned */
	struct completion gate;		/* the late complete() is done */
	struct completion *c;		/* in the waiter's dead frame */
	struct task_struct *task;	/* the test task, which waited */
	unsigned int nr_acquired;	/* of @c when its wait timed out */
	bool timed_out;
	bool completed;			/* @c was completed late */
};

static noinline void stale_wait(struct stale_cmp *s)
{
	DECLARE_COMPLETION_ONSTACK(c);

	s->c = &c;
	s->timed_out = !wait_for_completion_timeout(&c, 1);
	s->nr_acquired = c.dep_map.state.nr_acquired;
}

/* Put @depth padded frames between the caller and stale_wait()'s frame. */
static noinline void stale_wait_deep(struct stale_cmp *s, unsigned int depth)
{
	char pad[STALE_PAD];

	memset(pad, 0, sizeof(pad));
	barrier_data(pad);
	if (depth)
		stale_wait_deep(s, depth - 1);
	else
		stale_wait(s);
	barrier_data(pad);	/* live across the call: no tail call */
}

/* Where the frames of the caller's callees begin */
static noinline unsigned long stack_mark(void)
{
	return (unsigned long)__builtin_frame_address(0);
}

static void stale_complete_fn(void *data)
{
	struct stale_cmp *s = data;
	int i;

	wait_for_completion(&s->go);
	/* Only while the test task is off its CPU, asleep on @gate */
	for (i = 0; s->c && i < 2000; i++) {
		if (wait_task_inactive(s->task, TASK_UNINTERRUPTIBLE)) {
			complete(s->c);
			s->completed = true;
			break;
		}
		usleep_range(500, 1000);
	}
	complete(&s->gate);
}

static void cmp_misuse_complete_after_return_quiet(struct kunit *test)
{
	struct cmp_ctx *ctx = test->priv;
	long misuse = crosslock_counter_read(CROSSLOCK_COUNTER_MISUSE);
	unsigned int waits = current->crosslock.nr_waits;
	unsigned long top, end, below = 0;
	struct stale_cmp *s;
	struct task_struct *t;

	if (IS_ENABLED(CONFIG_STACK_GROWSUP))
		kunit_skip(test, "the stack grows up");
	s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	init_completion(&s->go);
	init_completion(&s->gate);
	s->task = current;
	t = lockdep_kunit_run_kthread(&s->completer, stale_complete_fn, s,
				      "cmp_stale");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));

	stale_wait_deep(s, STALE_PAD_FRAMES);
	top = stack_mark();
	end = (unsigned long)(s->c + 1);
	if (end <= top)
		below = top - end;
	if (below < STALE_MARGIN)
		s->c = NULL;		/* too close to live frames: leave it */
	complete(&s->go);
	wait_for_completion(&s->gate);
	lockdep_kunit_stop_kthread(&s->completer);

	KUNIT_EXPECT_GE(test, below, STALE_MARGIN);
	KUNIT_EXPECT_TRUE(test, s->timed_out);
	KUNIT_EXPECT_TRUE(test, s->completed);
	KUNIT_EXPECT_EQ(test, s->nr_acquired, 0U);
	KUNIT_EXPECT_EQ(test, current->crosslock.nr_waits, waits);
	KUNIT_EXPECT_EQ(test, crosslock_counter_read(CROSSLOCK_COUNTER_MISUSE), misuse);
	lockdep_kunit_expect_quiet(test, &ctx->fx.cap);
}

/*
 * Learn (complete)@done -> M: the completer takes M after the wait began.
 * The two cases below use completions of their own classes: the
 * dependency between two completions that the first one learns outlives
 * the case (only M's class goes with it).
 */
static void learn_done_then_m(struct kunit *test, struct cmp_ctx *ctx,
			      struct completion *done)
{
	struct waiter w;

	start_waiter(test, &w, ctx, done, WAIT_PLAIN);
	lockdep_kunit_until_waiting(done, 1);
	lockdep_kunit_take_m(&ctx->fx);
	complete(done);
	stop_waiter(&w);
	reinit_completion(done);
}

/*
 * A wait that does not block still orders the waiter after the
 * complete() it consumed: had it come later, the wait would have blocked
 * until it did.  A kthread holds M and waits for "other"; "done" is
 * completed after that wait began, and this task then finds it done and
 * completes "other": (complete)other -> (complete)done.  With
 * (complete)done -> M (its completer takes M) and M -> (complete)other
 * (the kthread's wait), that closes a cycle: had "done" not been completed
 * yet, this task would wait for it, the kthread for this task, and the
 * completer of "done" for the kthread's M.
 */
static void cmp_wait_that_did_not_block_reported(struct kunit *test)
{
	struct cmp_ctx *ctx = test->priv;
	static const struct lockdep_kunit_report cycle = {
		.headline = LOCKDEP_KUNIT_CIRCULAR,
		.lines = { "(complete)&unblocked_other", "(complete)&unblocked_done",
			   "(cmp_test_M)" },
		.crossrelease = true,
	};
	struct completion unblocked_done, unblocked_other;
	struct waiter w;

	lockdep_kunit_expect_xr_report(test);
	init_completion(&unblocked_done);
	init_completion(&unblocked_other);

	learn_done_then_m(test, ctx, &unblocked_done);
	start_waiter(test, &w, ctx, &unblocked_other, WAIT_UNDER_M);
	lockdep_kunit_until_waiting(&unblocked_other, 1);
	complete(&unblocked_done);
	wait_for_completion(&unblocked_done);	/* done already: no sleep */
	complete(&unblocked_other);
	stop_waiter(&w);

	lockdep_kunit_expect_matches(test, &ctx->fx.cap, &cycle);
	lockdep_kunit_reset();
}

/*
 * The twin: "done" was completed before the kthread's wait for "other"
 * began, so this task's complete() of "other" never waited for it: the
 * two tasks could hand it back and forth without a deadlock.
 */
static void cmp_wait_for_older_complete_quiet(struct kunit *test)
{
	struct cmp_ctx *ctx = test->priv;
	struct completion older_done, older_other;
	struct waiter w;

	init_completion(&older_done);
	init_completion(&older_other);

	learn_done_then_m(test, ctx, &older_done);
	complete(&older_done);
	start_waiter(test, &w, ctx, &older_other, WAIT_UNDER_M);
	lockdep_kunit_until_waiting(&older_other, 1);
	wait_for_completion(&older_done);	/* done before "other" waited */
	complete(&older_other);
	stop_waiter(&w);

	lockdep_kunit_expect_quiet(test, &ctx->fx.cap);
}

static struct kunit_case cmp_test_cases[] = {
	KUNIT_CASE(cmp_wait_under_mutex_reported),
	KUNIT_CASE(cmp_untracked_quiet),
	KUNIT_CASE(cmp_work_completer_reported),
	KUNIT_CASE(cmp_mutex_before_wait_quiet),
	KUNIT_CASE(cmp_trylock_quiet),
	KUNIT_CASE(cmp_different_init_sites_quiet),
	KUNIT_CASE_PARAM(cmp_irq_completer_quiet, cmp_irq_gen_params),
	KUNIT_CASE(cmp_complete_all_reported),
	KUNIT_CASE(cmp_onstack_10000_quiet),
	KUNIT_CASE(cmp_timeout_wait_quiet),
	KUNIT_CASE(cmp_misuse_declare_completion_onstack),
	KUNIT_CASE(cmp_misuse_complete_after_return_quiet),
	KUNIT_CASE(cmp_wait_that_did_not_block_reported),
	KUNIT_CASE(cmp_wait_for_older_complete_quiet),
	{}
};

static struct kunit_suite cmp_test_suite = {
	.name = "crossrelease_completion",
	.init = cmp_test_init,
	.exit = cmp_test_exit,
	.test_cases = cmp_test_cases,
};

kunit_test_suite(cmp_test_suite);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit tests for completions as lockdep crosslocks");

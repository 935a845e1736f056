// SPDX-License-Identifier: GPL-2.0
/*
 * Deadlock scenarios for lockdep crossrelease, run one at a time on request,
 * with the kernel's ordinary API only: mutexes, completions, folio locks,
 * writeback, buffer locks, kthreads, kthread_workers, work items and timers.
 *
 *   echo completion_wait_under_mutex > /sys/kernel/debug/test_crossrelease/run
 *   cat /sys/kernel/debug/test_crossrelease/run        (the names)
 *   cat /sys/kernel/debug/test_crossrelease/features   (what is tracked)
 *
 * Each scenario has a quiet twin ("completion_wait_under_mutex_quiet"): the
 * same contexts and locks, ordered so that no deadlock is possible, on
 * classes of its own. The scenarios, and what each must show, are listed in
 * tools/testing/selftests/crossrelease/scenarios, which run_scenarios.sh
 * there (a kselftest) reads.
 *
 * A scenario never deadlocks: lockdep reports cycles that did not happen, so
 * each one first lets lockdep learn one half of the cycle in a run that
 * cannot hang, then plays the other half.  A cycle through a crosslock is
 * reported and lockdep stays on, so the scenarios run one after another in
 * one boot; "abba", a plain lockdep report, switches lockdep off and goes
 * last.  Write each name from a process of its own ("sh -c 'echo
 * completion_wait_under_mutex > run'").  "userret_quiet" takes two system
 * calls of one process: after the write, opening "next" plays its second
 * half (and reading it gives the scenario's name); see scenario_cmd in the
 * kselftest's ktap_helpers.sh.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/buffer_crossrelease.h>
#include <linux/buffer_head.h>
#include <linux/completion.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/folio_crossrelease.h>
#include <linux/gfp.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/pagemap.h>
#include <linux/string.h>
#include <linux/swait.h>
#include <linux/timer.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>

/* A scenario and its quiet twin use classes of their own. */
struct completion_scenario {
	struct mutex mutex;		/* held by A while it waits, taken by B */
	struct completion done;		/* waited for by A, completed by B */
};

static struct completion_scenario xr_completion_wait, xr_completion_wait_quiet;

/*
 * The folio-lock scenarios: mutex "A" and the lock of folio "B".  The folios
 * share one lockdep class, so only the mutex tells the scenarios apart;
 * each scenario and each quiet twin has its own.
 */
struct xr_page {
	struct mutex mutex;		/* A */
	struct folio *folio;		/* B, locked with folio_lock() */
	struct work_struct work;	/* context Z of "folio_unlock_from_work" */
	struct timer_list timer;	/* unlocks B in softirq, "folio_unlock_from_work" */
};

static struct xr_page xr_folio_abba, xr_folio_abba_quiet;
static struct xr_page xr_folio_wait, xr_folio_wait_quiet;
static struct xr_page xr_folio_work, xr_folio_work_quiet;
static struct xr_page xr_writeback, xr_writeback_quiet;

/* --- Helpers: a waiter kthread and a way to know it waits --- */

struct waiter {
	struct completion *c;
	struct mutex *held;	/* held while waiting, or NULL */
	struct task_struct *task;
};

static int waiter_fn(void *data)
{
	struct waiter *w = data;

	if (w->held)
		mutex_lock(w->held);
	wait_for_completion(w->c);
	if (w->held)
		mutex_unlock(w->held);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

static int start_waiter(struct waiter *w, struct completion *c,
			struct mutex *held)
{
	int i;

	w->c = c;
	w->held = held;
	w->task = kthread_run(waiter_fn, w, "xr_waiter");
	if (IS_ERR(w->task))
		return PTR_ERR(w->task);
	for (i = 0; i < 5000 && !swait_active(&c->wait); i++)
		usleep_range(200, 400);
	return 0;
}

static void stop_waiter(struct waiter *w)
{
	kthread_stop(w->task);
}

/* The completer is a kthread that exits afterwards: the report names it. */
static int take_mutex_and_complete(void *data)
{
	struct completion_scenario *s = data;

	mutex_lock(&s->mutex);
	mutex_unlock(&s->mutex);
	complete(&s->done);
	return 0;
}

/*
 * A wait under a mutex (the design document's example 3): A holds the mutex
 * and waits for the completion; B takes the mutex before it completes.
 * Learn "mutex -> completion" with a completer that needs nothing, then let
 * a kthread close the cycle.
 */
static int scenario_completion_wait(bool quiet)
{
	struct completion_scenario *s = quiet ? &xr_completion_wait_quiet :
						&xr_completion_wait;
	struct task_struct *completer;
	struct waiter w;
	int ret;

	reinit_completion(&s->done);
	ret = start_waiter(&w, &s->done, quiet ? NULL : &s->mutex);
	if (ret)
		return ret;
	complete(&s->done);
	stop_waiter(&w);

	reinit_completion(&s->done);
	ret = start_waiter(&w, &s->done, NULL);
	if (ret)
		return ret;
	completer = kthread_run(take_mutex_and_complete, s, "xr_completer");
	if (IS_ERR(completer)) {
		complete(&s->done);
		ret = PTR_ERR(completer);
	}
	stop_waiter(&w);
	return ret;
}

/* --- Folio-lock scenarios: a folio lock and a mutex --- */

/*
 * A context of a folio-lock scenario: a kthread that runs one step, then
 * idles until stopped, so that it never exits while its step is unfinished.
 */
struct xr_thread {
	void (*step)(struct xr_page *p);
	struct xr_page *p;
	struct task_struct *task;
	bool started;
};

static int xr_thread_fn(void *data)
{
	struct xr_thread *t = data;

	WRITE_ONCE(t->started, true);
	t->step(t->p);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

static int xr_thread_start(struct xr_thread *t, const char *name,
			   void (*step)(struct xr_page *p), struct xr_page *p)
{
	t->step = step;
	t->p = p;
	t->started = false;
	t->task = kthread_run(xr_thread_fn, t, "%s", name);
	return PTR_ERR_OR_ZERO(t->task);
}

/*
 * Wait until the thread has run its step.  kthread_stop() alone is not
 * enough: a kthread stopped before it first runs never calls its function.
 */
static void xr_thread_stop(struct xr_thread *t)
{
	while (!READ_ONCE(t->started))
		usleep_range(200, 400);
	kthread_stop(t->task);
}

/* Wait (bounded) until someone sleeps in folio_lock() on the folio. */
static void xr_wait_for_waiter(struct folio *folio)
{
	int i;

	for (i = 0; i < 5000 && !folio_test_waiters(folio); i++)
		usleep_range(200, 400);
}

/* Wait until X has locked the folio; nobody else contends for it yet. */
static void xr_wait_for_locked(struct folio *folio)
{
	while (!folio_test_locked(folio))
		usleep_range(200, 400);
}

static void step_lock_a_then_b(struct xr_page *p)
{
	mutex_lock(&p->mutex);
	folio_lock(p->folio);
	folio_unlock(p->folio);
	mutex_unlock(&p->mutex);
}

static void step_lock_b_then_a(struct xr_page *p)
{
	folio_lock(p->folio);
	mutex_lock(&p->mutex);
	mutex_unlock(&p->mutex);
	folio_unlock(p->folio);
}

/* Z: take A, then unlock B, which another context locked. */
static void step_take_a_unlock_b(struct xr_page *p)
{
	mutex_lock(&p->mutex);
	mutex_unlock(&p->mutex);
	folio_unlock(p->folio);
}

static void step_lock_b(struct xr_page *p)
{
	folio_lock(p->folio);
}

static int xr_page_begin(struct xr_page *p)
{
	p->folio = folio_alloc(GFP_KERNEL, 0);
	return p->folio ? 0 : -ENOMEM;
}

static void xr_page_end(struct xr_page *p)
{
	folio_put(p->folio);
	p->folio = NULL;
}

/*
 * Folio-lock example 1 of the design document, two kthreads:
 *
 *	X: mutex_lock(A)		Y: folio_lock(B)
 *	X: folio_lock(B)		Y: mutex_lock(A)	(deadlock)
 *
 * X runs to its end first ("A -> B"), then Y: its folio_unlock() commits
 * B, which depends on A taken since, and closes the cycle.  Quiet twin: Y
 * takes the locks in X's order, A then B.
 */
static int scenario_folio_abba(bool quiet)
{
	struct xr_page *p = quiet ? &xr_folio_abba_quiet : &xr_folio_abba;
	struct xr_thread x, y;
	int ret;

	ret = xr_page_begin(p);
	if (ret)
		return ret;
	ret = xr_thread_start(&x, "xr_folio_abba_x", step_lock_a_then_b, p);
	if (ret)
		goto out;
	xr_thread_stop(&x);
	ret = xr_thread_start(&y, "xr_folio_abba_y",
			      quiet ? step_lock_a_then_b : step_lock_b_then_a, p);
	if (ret)
		goto out;
	xr_thread_stop(&y);
out:
	xr_page_end(p);
	return ret;
}

/*
 * Folio-lock example 2 of the design document: X is the process that
 * writes the scenario's name, Y and Z are kthreads.
 *
 *	X: folio_lock(B)
 *	Y: mutex_lock(A), folio_lock(B)		(waits for X's B)
 *	Z: mutex_lock(A)			(deadlock)
 *	Z: mutex_unlock(A), folio_unlock(B)	(B of X)
 *
 * First X locks B, Y holds A and sleeps in folio_lock(B), and X itself
 * unlocks B ("A -> B").  Then X locks B again, and Z takes A and unlocks
 * X's B ("B -> A").  Quiet twin: Y waits for B before it takes A.
 */
static int scenario_folio_wait(bool quiet)
{
	struct xr_page *p = quiet ? &xr_folio_wait_quiet : &xr_folio_wait;
	struct xr_thread y, z;
	int ret;

	ret = xr_page_begin(p);
	if (ret)
		return ret;
	folio_lock(p->folio);
	ret = xr_thread_start(&y, "xr_folio_wait_y",
			      quiet ? step_lock_b_then_a : step_lock_a_then_b,
			      p);
	if (!ret)
		xr_wait_for_waiter(p->folio);
	folio_unlock(p->folio);
	if (ret)
		goto out;
	xr_thread_stop(&y);

	folio_lock(p->folio);
	ret = xr_thread_start(&z, "xr_folio_wait_z", step_take_a_unlock_b, p);
	if (ret) {
		folio_unlock(p->folio);
		goto out;
	}
	xr_thread_stop(&z);
out:
	xr_page_end(p);
	return ret;
}

/* X: start writeback of B, the way a file system's writepages does */
static void step_start_writeback(struct xr_page *p)
{
	folio_lock(p->folio);
	folio_start_writeback(p->folio);
	folio_unlock(p->folio);
}

/* Z: the I/O completion work: take A, then end writeback of B */
static void step_take_a_end_writeback(struct xr_page *p)
{
	mutex_lock(&p->mutex);
	mutex_unlock(&p->mutex);
	folio_end_writeback(p->folio);
}

/* Z, quiet twin: end writeback of B, then take A */
static void step_end_writeback_take_a(struct xr_page *p)
{
	folio_end_writeback(p->folio);
	mutex_lock(&p->mutex);
	mutex_unlock(&p->mutex);
}

/*
 * Waiting for writeback under a mutex that the end of writeback needs:
 *
 *	X (kthread):	folio_lock(B), folio_start_writeback(B), folio_unlock(B)
 *	Z (kthread):	mutex_lock(A), mutex_unlock(A), folio_end_writeback(B)
 *	Y (this task):	mutex_lock(A), wait_on_page_writeback(B)
 *
 * Y would wait for ever if Z were still to take A.  Y runs last, once B's
 * writeback has ended: the wait closes the cycle all the same.  Quiet
 * twin: Z takes A only after it has ended writeback.
 */
static int scenario_writeback(bool quiet)
{
	struct xr_page *p = quiet ? &xr_writeback_quiet : &xr_writeback;
	struct xr_thread x, z;
	int ret;

	ret = xr_page_begin(p);
	if (ret)
		return ret;
	ret = xr_thread_start(&x, "xr_wb_x", step_start_writeback, p);
	if (ret)
		goto out;
	xr_thread_stop(&x);
	ret = xr_thread_start(&z, "xr_wb_z", quiet ? step_end_writeback_take_a :
				  step_take_a_end_writeback, p);
	if (ret) {
		folio_end_writeback(p->folio);
		goto out;
	}
	xr_thread_stop(&z);

	mutex_lock(&p->mutex);
	wait_on_page_writeback(&p->folio->page);
	mutex_unlock(&p->mutex);
out:
	xr_page_end(p);
	return ret;
}

#ifdef CONFIG_BLOCK
/*
 * Buffer locks: a buffer head is locked under mutex A, while another, of
 * the same class, is locked by X and unlocked by Z after Z took A:
 *
 *	X (kthread):	lock_buffer(B2)
 *	Z (kthread):	mutex_lock(A), mutex_unlock(A), unlock_buffer(B2)
 *	Y (this task):	mutex_lock(A), lock_buffer(B1)
 *
 * Quiet twin: Z unlocks B2 before it takes A.
 */
struct xr_buffer {
	struct mutex mutex;			/* A */
	struct buffer_head *b1, *b2;
	struct task_struct *x, *z;
	struct completion locked, done;
	bool quiet;
};

static struct xr_buffer xr_bh, xr_bh_quiet;

static int buffer_x(void *data)
{
	struct xr_buffer *b = data;

	lock_buffer(b->b2);
	complete(&b->locked);
	return 0;
}

static void buffer_take_a(struct xr_buffer *b)
{
	mutex_lock(&b->mutex);
	mutex_unlock(&b->mutex);
}

static int buffer_z(void *data)
{
	struct xr_buffer *b = data;

	if (!b->quiet)
		buffer_take_a(b);
	unlock_buffer(b->b2);
	if (b->quiet)
		buffer_take_a(b);
	complete(&b->done);
	return 0;
}

/* Run @fn in a kthread to its end; the kthread exits by itself. */
static int buffer_run(int (*fn)(void *), struct xr_buffer *b,
		      struct completion *c, const char *name)
{
	struct task_struct *t;

	reinit_completion(c);
	t = kthread_run(fn, b, "%s", name);
	if (IS_ERR(t))
		return PTR_ERR(t);
	wait_for_completion(c);
	return 0;
}

static int scenario_buffer(bool quiet)
{
	struct xr_buffer *b = quiet ? &xr_bh_quiet : &xr_bh;
	int ret = -ENOMEM;

	b->quiet = quiet;
	b->b1 = alloc_buffer_head(GFP_KERNEL);
	b->b2 = alloc_buffer_head(GFP_KERNEL);
	if (!b->b1 || !b->b2)
		goto out;
	ret = buffer_run(buffer_x, b, &b->locked, "xr_bh_x");
	if (ret)
		goto out;
	ret = buffer_run(buffer_z, b, &b->done, "xr_bh_z");
	if (ret) {
		unlock_buffer(b->b2);
		goto out;
	}

	mutex_lock(&b->mutex);
	lock_buffer(b->b1);
	unlock_buffer(b->b1);
	mutex_unlock(&b->mutex);
out:
	if (b->b1)
		free_buffer_head(b->b1);
	if (b->b2)
		free_buffer_head(b->b2);
	return ret;
}
#else
struct xr_buffer {
	struct mutex mutex;
	struct completion locked, done;
};

static struct xr_buffer xr_bh, xr_bh_quiet;

static int scenario_buffer(bool quiet)
{
	return -EOPNOTSUPP;
}
#endif /* CONFIG_BLOCK */

static void folio_work_unlock_timer(struct timer_list *t)
{
	struct xr_page *p = from_timer(p, t, timer);

	folio_unlock(p->folio);
}

static void folio_work_z(struct work_struct *work)
{
	step_take_a_unlock_b(container_of(work, struct xr_page, work));
}

/*
 * The example of the LWN article on crossrelease: the cycle of example 2,
 * with other kinds of context.  X, which locks B, is a kthread, and B is
 * unlocked the way I/O completion unlocks pages: first from a timer
 * (softirq) that needs no lock, then by Z, a work item that takes A.
 *
 *	X (kthread):	folio_lock(B)
 *	Y (kthread):	mutex_lock(A), folio_lock(B)	(waits for X's B)
 *	Z (work item):	mutex_lock(A)			(deadlock)
 *			mutex_unlock(A), folio_unlock(B)
 *
 * Here the report is printed by a kworker, which goes on running.
 * Quiet twin: Y waits for B before it takes A.
 */
static int scenario_folio_work(bool quiet)
{
	struct xr_page *p = quiet ? &xr_folio_work_quiet : &xr_folio_work;
	struct xr_thread x, y;
	int ret;

	ret = xr_page_begin(p);
	if (ret)
		return ret;
	ret = xr_thread_start(&x, "xr_folio_work_x", step_lock_b, p);
	if (ret)
		goto out;
	xr_wait_for_locked(p->folio);
	ret = xr_thread_start(&y, "xr_folio_work_y",
			      quiet ? step_lock_b_then_a : step_lock_a_then_b,
			      p);
	if (!ret)
		xr_wait_for_waiter(p->folio);
	mod_timer(&p->timer, jiffies + 1);
	if (!ret)
		xr_thread_stop(&y);
	del_timer_sync(&p->timer);
	xr_thread_stop(&x);
	if (ret)
		goto out;

	ret = xr_thread_start(&x, "xr_folio_work_x", step_lock_b, p);
	if (ret)
		goto out;
	xr_wait_for_locked(p->folio);
	queue_work(system_wq, &p->work);
	flush_work(&p->work);
	xr_thread_stop(&x);
out:
	xr_page_end(p);
	return ret;
}

/*
 * A kthread_worker runs its items in order.  Item X takes mutex A, item
 * Y is queued behind it and flushed, which waits for both; then Y alone
 * is flushed under A: a deadlock whenever X is queued in front of Y.  The
 * quiet twin queues X and Y on two workers: Y never waits for X.
 */
struct kw_scenario {
	struct mutex mutex;		/* A */
	struct kthread_work x, y;
	/* kept until the module goes: their classes hold what was learnt */
	struct kthread_worker *wx, *wy;
};

static struct kw_scenario xr_kw_flush, xr_kw_flush_quiet;

static void kw_take_a(struct kthread_work *work)
{
	struct kw_scenario *k = container_of(work, struct kw_scenario, x);

	mutex_lock(&k->mutex);
	mutex_unlock(&k->mutex);
}

static void kw_nothing(struct kthread_work *work)
{
}

static int kw_workers(struct kw_scenario *k, bool quiet)
{
	if (!k->wx)
		k->wx = kthread_create_worker(0, quiet ? "xr_kw_x" : "xr_kw");
	if (IS_ERR(k->wx))
		return PTR_ERR(k->wx);
	if (!k->wy)
		k->wy = quiet ? kthread_create_worker(0, "xr_kw_y") : k->wx;
	return PTR_ERR_OR_ZERO(k->wy);
}

static void kw_workers_destroy(struct kw_scenario *k)
{
	if (!IS_ERR_OR_NULL(k->wy) && k->wy != k->wx)
		kthread_destroy_worker(k->wy);
	if (!IS_ERR_OR_NULL(k->wx))
		kthread_destroy_worker(k->wx);
}

static int scenario_kthread_flush(bool quiet)
{
	struct kw_scenario *k = quiet ? &xr_kw_flush_quiet : &xr_kw_flush;
	int ret = kw_workers(k, quiet);

	if (ret)
		return ret;
	kthread_init_work(&k->x, kw_take_a);
	kthread_init_work(&k->y, kw_nothing);
	kthread_queue_work(k->wx, &k->x);
	kthread_queue_work(k->wy, &k->y);
	kthread_flush_work(&k->y);
	kthread_flush_work(&k->x);

	mutex_lock(&k->mutex);
	kthread_queue_work(k->wy, &k->y);
	kthread_flush_work(&k->y);
	mutex_unlock(&k->mutex);
	return 0;
}

static DEFINE_MUTEX(xr_abba_a);
static DEFINE_MUTEX(xr_abba_b);
static DEFINE_MUTEX(xr_abba_quiet_a);
static DEFINE_MUTEX(xr_abba_quiet_b);

/* Plain ABBA, which stock lockdep catches: shows the tooling works. */
static int scenario_abba(bool quiet)
{
	struct mutex *a = quiet ? &xr_abba_quiet_a : &xr_abba_a;
	struct mutex *b = quiet ? &xr_abba_quiet_b : &xr_abba_b;

	mutex_lock(a);
	mutex_lock(b);
	mutex_unlock(b);
	mutex_unlock(a);
	if (quiet) {
		/* the same order again */
		mutex_lock(a);
		mutex_lock(b);
	} else {
		mutex_lock(b);
		mutex_lock(a);
	}
	mutex_unlock(a);
	mutex_unlock(b);
	return 0;
}

/*
 * Report and go on, with completions: after a crossrelease report the
 * dependency that closed the cycle is in lockdep's graph, so it hides no
 * later cycle.  A kthread waits for c1 holding b (b -> c1), the writer
 * takes a and completes c1 (c1 -> a), then takes a and b nested: a -> b
 * closes the cycle, the first report.  Then "go_on_then_implied_cycle": a
 * kthread waits for c2 holding b2, another mutex of b's class (holding b
 * itself would be the deadlock), the writer takes a and b again (b is
 * implied by a in its history, through a -> b) and completes c2: c2 -> a
 * closes c2 -> a -> b -> c2, a second report, closed by the release.
 * "go_on_then_abba": the writer takes b then a, a plain ABBA that lockdep
 * reports as without crossrelease (and switches itself off).
 */
struct go_on {
	struct mutex a, b;
	struct mutex b2;		/* of b's class */
	struct completion c1, c2;
};

static struct go_on xr_go_on_implied, xr_go_on_abba;

static void lock_a_then_b(struct go_on *g)
{
	mutex_lock(&g->a);
	mutex_lock(&g->b);
	mutex_unlock(&g->b);
	mutex_unlock(&g->a);
}

/* @held waits for @c; the writer takes what @take does, then completes @c */
static int wait_then_complete(struct completion *c, struct mutex *held,
			      void (*take)(struct go_on *), struct go_on *g)
{
	struct waiter w;
	int ret;

	reinit_completion(c);
	ret = start_waiter(&w, c, held);
	if (ret)
		return ret;
	take(g);
	complete(c);
	stop_waiter(&w);
	return 0;
}

static void take_a(struct go_on *g)
{
	mutex_lock(&g->a);
	mutex_unlock(&g->a);
}

static int scenario_go_on(bool abba)
{
	struct go_on *g = abba ? &xr_go_on_abba : &xr_go_on_implied;
	int ret;

	ret = wait_then_complete(&g->c1, &g->b, take_a, g);
	if (ret)
		return ret;
	lock_a_then_b(g);		/* the first report */
	if (!abba)
		return wait_then_complete(&g->c2, &g->b2, lock_a_then_b, g);
	mutex_lock(&g->b);
	mutex_lock(&g->a);		/* a plain ABBA */
	mutex_unlock(&g->a);
	mutex_unlock(&g->b);
	return 0;
}

/*
 * The user-return boundary: what a task acquired in one system call is not
 * on the path to what it releases in a later one.  "userret" plays in one
 * system call: lockdep learns "mutex -> completion" (a kthread waits for
 * the completion holding the mutex), a kthread waits for the completion
 * again, the writer takes and releases the mutex and completes it: the
 * commit adds "completion -> mutex" and closes the cycle.  "userret_quiet"
 * plays the same in two system calls of one task, the complete() in the
 * second: the return to user space in between (lockdep_sys_exit(), on
 * each architecture's way back to user mode) starts a new context
 * instance, so the mutex is not committed.  Without that hook it reports.
 * The second half runs in the open() of "next", which holds no lock: the
 * write() of the first half holds sb_writers when it takes the mutex, and
 * a second write() would commit sb_writers, a cycle of its own.
 */
struct userret {
	struct mutex mutex;		/* held by the first waiter, taken by the writer */
	struct completion done;		/* waited for twice, completed by the writer */
	struct waiter w;
	pid_t pid;		/* owes the second half, or 0 */
};

static struct userret xr_userret, xr_userret_quiet;

static int userret_first(struct userret *u)
{
	int ret;

	reinit_completion(&u->done);
	ret = start_waiter(&u->w, &u->done, &u->mutex);
	if (ret)
		return ret;
	complete(&u->done);
	stop_waiter(&u->w);

	reinit_completion(&u->done);
	ret = start_waiter(&u->w, &u->done, NULL);
	if (ret)
		return ret;
	mutex_lock(&u->mutex);
	mutex_unlock(&u->mutex);
	return 0;
}

static void userret_second(struct userret *u)
{
	complete(&u->done);
	stop_waiter(&u->w);
}

static int scenario_userret(bool quiet)
{
	struct userret *u = quiet ? &xr_userret_quiet : &xr_userret;
	int ret;

	if (u->pid)
		return -EBUSY;
	ret = userret_first(u);
	if (ret)
		return ret;
	if (quiet)
		u->pid = task_pid_nr(current);	/* back to user space */
	else
		userret_second(u);
	return 0;
}

struct scenario {
	const char *name;
	int (*run)(bool quiet);
	bool quiet;
};

static const struct scenario scenarios[] = {
	{ "abba",                              scenario_abba,             false },
	{ "abba_quiet",                        scenario_abba,             true },
	{ "folio_abba",                        scenario_folio_abba,       false },
	{ "folio_abba_quiet",                  scenario_folio_abba,       true },
	{ "folio_wait_under_mutex",            scenario_folio_wait,       false },
	{ "folio_wait_under_mutex_quiet",      scenario_folio_wait,       true },
	{ "completion_wait_under_mutex",       scenario_completion_wait,  false },
	{ "completion_wait_under_mutex_quiet", scenario_completion_wait,  true },
	{ "folio_unlock_from_work",            scenario_folio_work,       false },
	{ "folio_unlock_from_work_quiet",      scenario_folio_work,       true },
	{ "go_on_then_implied_cycle",          scenario_go_on,            false },
	{ "go_on_then_abba",                   scenario_go_on,            true },
	{ "writeback_wait_under_mutex",        scenario_writeback,        false },
	{ "writeback_wait_under_mutex_quiet",  scenario_writeback,        true },
	{ "buffer_lock_under_mutex",           scenario_buffer,           false },
	{ "buffer_lock_under_mutex_quiet",     scenario_buffer,           true },
	{ "kthread_worker_flush",              scenario_kthread_flush,    false },
	{ "kthread_worker_flush_quiet",        scenario_kthread_flush,    true },
	{ "userret",                           scenario_userret,          false },
	{ "userret_quiet",                     scenario_userret,          true },
};

static ssize_t run_write(struct file *file, const char __user *ubuf,
			 size_t len, loff_t *ppos)
{
	char name[48];
	int i, ret;

	if (len >= sizeof(name))
		return -EINVAL;
	if (copy_from_user(name, ubuf, len))
		return -EFAULT;
	name[len] = '\0';
	strim(name);

	for (i = 0; i < ARRAY_SIZE(scenarios); i++) {
		if (strcmp(name, scenarios[i].name))
			continue;
		pr_info("scenario %s: start\n", name);
		ret = scenarios[i].run(scenarios[i].quiet);
		if (!ret && xr_userret_quiet.pid)
			pr_info("scenario %s: continues in the next system call\n",
				name);
		else
			pr_info("scenario %s: end (%d)\n", name, ret);
		return ret ?: len;
	}
	return -ENOENT;
}

static ssize_t run_read(struct file *file, char __user *ubuf, size_t len,
			loff_t *ppos)
{
	char buf[1024];
	int i, n = 0;

	for (i = 0; i < ARRAY_SIZE(scenarios); i++)
		n += scnprintf(buf + n, sizeof(buf) - n, "%s\n",
			       scenarios[i].name);
	return simple_read_from_buffer(ubuf, len, ppos, buf, n);
}

static const struct file_operations run_fops = {
	.owner	= THIS_MODULE,
	.read	= run_read,
	.write	= run_write,
	.llseek	= default_llseek,
};

/*
 * Which kinds of crosslock this kernel tracks, "<kind> 0|1" per line, so
 * that a test can tell "not detected" from "not tracked".
 */
static int features_show(struct seq_file *m, void *unused)
{
	seq_printf(m, "completions %d\n",
		   IS_ENABLED(CONFIG_LOCKDEP_COMPLETIONS) && crosslock_enabled());
	seq_printf(m, "folio_lock %d\n", crosslock_folio_enabled());
	seq_printf(m, "writeback %d\n", crosslock_writeback_enabled());
	seq_printf(m, "buffer_lock %d\n", crosslock_buffer_enabled());
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(features);

/*
 * Opening "next" plays the next part of the scenario that the opening task
 * started in an earlier system call, if any; reading it gives its name.
 */
static int next_open(struct inode *inode, struct file *file)
{
	file->private_data = "";
	if (xr_userret_quiet.pid && xr_userret_quiet.pid == task_pid_nr(current)) {
		xr_userret_quiet.pid = 0;
		userret_second(&xr_userret_quiet);
		pr_info("scenario userret_quiet: end (0)\n");
		file->private_data = "userret_quiet\n";
	}
	return 0;
}

static ssize_t next_read(struct file *file, char __user *ubuf, size_t len,
			 loff_t *ppos)
{
	const char *name = file->private_data;

	return simple_read_from_buffer(ubuf, len, ppos, name, strlen(name));
}

static const struct file_operations next_fops = {
	.owner	= THIS_MODULE,
	.open	= next_open,
	.read	= next_read,
	.llseek	= default_llseek,
};

static struct dentry *xr_dir;

static int __init test_crossrelease_init(void)
{
	mutex_init(&xr_completion_wait.mutex);
	init_completion(&xr_completion_wait.done);
	mutex_init(&xr_completion_wait_quiet.mutex);
	init_completion(&xr_completion_wait_quiet.done);
	mutex_init(&xr_userret.mutex);
	init_completion(&xr_userret.done);
	mutex_init(&xr_go_on_implied.a);
	mutex_init(&xr_go_on_implied.b);
	mutex_init(&xr_go_on_implied.b2);
	lockdep_set_class_and_name(&xr_go_on_implied.b2,
				   xr_go_on_implied.b.dep_map.key,
				   xr_go_on_implied.b.dep_map.name);
	init_completion(&xr_go_on_implied.c1);
	init_completion(&xr_go_on_implied.c2);
	mutex_init(&xr_go_on_abba.a);
	mutex_init(&xr_go_on_abba.b);
	mutex_init(&xr_go_on_abba.b2);
	init_completion(&xr_go_on_abba.c1);
	init_completion(&xr_go_on_abba.c2);
	mutex_init(&xr_userret_quiet.mutex);
	init_completion(&xr_userret_quiet.done);
	mutex_init(&xr_kw_flush.mutex);
	mutex_init(&xr_kw_flush_quiet.mutex);

	/* one mutex_init() line per instance: a class per instance */
	mutex_init(&xr_folio_abba.mutex);
	mutex_init(&xr_folio_abba_quiet.mutex);
	mutex_init(&xr_folio_wait.mutex);
	mutex_init(&xr_folio_wait_quiet.mutex);
	mutex_init(&xr_folio_work.mutex);
	mutex_init(&xr_folio_work_quiet.mutex);
	mutex_init(&xr_writeback.mutex);
	mutex_init(&xr_writeback_quiet.mutex);
	mutex_init(&xr_bh.mutex);
	mutex_init(&xr_bh_quiet.mutex);
	init_completion(&xr_bh.locked);
	init_completion(&xr_bh.done);
	init_completion(&xr_bh_quiet.locked);
	init_completion(&xr_bh_quiet.done);
	INIT_WORK(&xr_folio_work.work, folio_work_z);
	INIT_WORK(&xr_folio_work_quiet.work, folio_work_z);
	timer_setup(&xr_folio_work.timer, folio_work_unlock_timer, 0);
	timer_setup(&xr_folio_work_quiet.timer, folio_work_unlock_timer, 0);

	xr_dir = debugfs_create_dir("test_crossrelease", NULL);
	debugfs_create_file("run", 0600, xr_dir, NULL, &run_fops);
	debugfs_create_file("features", 0444, xr_dir, NULL, &features_fops);
	debugfs_create_file("next", 0444, xr_dir, NULL, &next_fops);
	return 0;
}

static void __exit test_crossrelease_exit(void)
{
	debugfs_remove_recursive(xr_dir);
	if (xr_userret_quiet.pid)
		userret_second(&xr_userret_quiet);
	kw_workers_destroy(&xr_kw_flush);
	kw_workers_destroy(&xr_kw_flush_quiet);
}

module_init(test_crossrelease_init);
module_exit(test_crossrelease_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Deadlock scenarios for lockdep crossrelease");

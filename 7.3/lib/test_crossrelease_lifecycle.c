// SPDX-License-Identifier: GPL-2.0
/*
 * Lifecycle faults for lockdep crossrelease: crosslocks in flight while
 * the things they point to come and go.  Each run is named in debugfs
 * and prints one line with its figures:
 *
 *   echo "threads 10000" > /sys/kernel/debug/test_crossrelease_lifecycle/run
 *
 *   threads N   N kthreads, each waiting for a completion of its own
 *               (N crosslocks in flight at once), then completed one by
 *               one: time and memory
 *   exit N      N kthreads killed in a killable wait, half of them
 *               exiting with a folio locked that another task unlocks
 *   inflight S  S seconds of completions completed from timers (softirq)
 *               and folio locks handed from one kthread to another, on
 *               every CPU, meant to run while CPUs go off and on line
 *   unload N    N rounds of a softirq and a work item that take this
 *               module's locks and then commit a crosslock, so that this
 *               module's classes sit in per-CPU and kworker histories
 *               when it is unloaded; run it from a load/unload loop
 *   folio N     N folios, small and large, locked by one kthread,
 *               unlocked by another and freed, so that the next folio
 *               at that address starts with no owner
 *
 * None of these must give a lockdep report, a warning or a misuse count;
 * the caller (tools/testing/selftests/crossrelease/run_lifecycle.sh)
 * checks dmesg and /proc/lockdep_stats.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/gfp.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/pagemap.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/timer.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>

/* Wait until @cond, polled (evaluated again each time); false after ~10 s. */
#define lc_wait_until(cond)						\
({									\
	int __i;							\
									\
	for (__i = 0; __i < 10000 && !(cond); __i++)			\
		usleep_range(500, 1500);				\
	(cond);								\
})

static unsigned long lc_free_kib(void)
{
	return global_zone_page_state(NR_FREE_PAGES) << (PAGE_SHIFT - 10);
}

/* --- threads N: many crosslocks in flight at once --- */

struct lc_waiter {
	struct completion done;
	struct task_struct *task;
};

static atomic_t lc_waiting;
static atomic_t lc_running;

static int lc_waiter_fn(void *data)
{
	struct lc_waiter *w = data;

	atomic_inc(&lc_waiting);
	wait_for_completion(&w->done);
	atomic_dec(&lc_running);
	return 0;
}

static int lc_threads(unsigned long n)
{
	struct lc_waiter *w;
	unsigned long i, started = 0, free_before, free_during;
	ktime_t t0, t1, t2;
	int ret = 0;

	w = vcalloc(n, sizeof(*w));
	if (!w)
		return -ENOMEM;
	atomic_set(&lc_waiting, 0);
	atomic_set(&lc_running, 0);
	free_before = lc_free_kib();
	t0 = ktime_get();
	for (i = 0; i < n; i++) {
		init_completion(&w[i].done);
		atomic_inc(&lc_running);
		w[i].task = kthread_run(lc_waiter_fn, &w[i], "xr_lc_wait");
		if (IS_ERR(w[i].task)) {
			atomic_dec(&lc_running);
			ret = PTR_ERR(w[i].task);
			break;
		}
		started++;
		cond_resched();
	}
	if (!lc_wait_until(atomic_read(&lc_waiting) == started))
		ret = ret ?: -ETIMEDOUT;
	msleep(100);	/* the last ones reach their wait */
	free_during = lc_free_kib();
	t1 = ktime_get();
	for (i = 0; i < started; i++)
		complete(&w[i].done);
	/* no timeout: @w must outlive every thread */
	while (atomic_read(&lc_running))
		msleep(20);
	t2 = ktime_get();
	pr_info("threads: %lu in flight at once, started in %lld ms, completed in %lld ms, %lu KiB while in flight (%lu B per thread)\n",
		started, ktime_ms_delta(t1, t0), ktime_ms_delta(t2, t1),
		free_before - free_during,
		started ? (free_before - free_during) * 1024 / started : 0);
	vfree(w);
	return ret;
}

/* --- exit N: tasks killed while waiting, tasks exiting with a folio --- */

struct lc_exiter {
	struct completion never;	/* nobody completes it */
	struct completion ready;	/* the thread allowed SIGKILL */
	struct folio *folio;		/* locked by the thread, or NULL */
};

/*
 * The folio is handed over without a completion: a wait for one between
 * the lock and the unlock would make the unlock depend on it, and with
 * every unmapped folio in one class, lockdep would join the rounds into
 * a cycle (see "Known class-level reports" in crossrelease.rst).
 */
static int lc_exiter_fn(void *data)
{
	struct lc_exiter *e = data;

	if (e->folio) {
		folio_lock(e->folio);
		return 0;	/* exits owning the folio lock */
	}
	allow_signal(SIGKILL);
	complete(&e->ready);
	if (wait_for_completion_killable(&e->never))
		return -EINTR;
	return 0;
}

static int lc_exit_one(struct lc_exiter *e, bool with_folio)
{
	struct task_struct *t;

	init_completion(&e->never);
	init_completion(&e->ready);
	e->folio = NULL;
	if (with_folio) {
		e->folio = folio_alloc(GFP_KERNEL, 0);
		if (!e->folio)
			return -ENOMEM;
	}
	t = kthread_create(lc_exiter_fn, e, "xr_lc_exit");
	if (IS_ERR(t)) {
		if (e->folio)
			folio_put(e->folio);
		return PTR_ERR(t);
	}
	get_task_struct(t);	/* kthread_stop() after it exited by itself */
	wake_up_process(t);
	if (with_folio) {
		/* the owner exits first, then another task unlocks */
		lc_wait_until(READ_ONCE(t->exit_state));
		folio_unlock(e->folio);
		folio_put(e->folio);
	} else {
		/* let it reach its killable wait, then kill it */
		wait_for_completion(&e->ready);
		lc_wait_until(swait_active(&e->never.wait));
		send_sig(SIGKILL, t, 1);
	}
	kthread_stop(t);
	put_task_struct(t);
	return 0;
}

static int lc_exit(unsigned long n)
{
	struct lc_exiter *e;
	unsigned long i, done = 0;
	ktime_t t0 = ktime_get();
	int ret = 0;

	e = kmalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		return -ENOMEM;
	for (i = 0; i < n && !ret; i++) {
		ret = lc_exit_one(e, i & 1);
		done += !ret;
		if (fatal_signal_pending(current))
			ret = -EINTR;
	}
	kfree(e);
	pr_info("exit: %lu tasks exited (%lu killed in a wait, %lu owning a folio lock) in %lld ms\n",
		done, (done + 1) / 2, done / 2, ktime_ms_delta(ktime_get(), t0));
	return ret;
}

/* --- inflight S: crosslocks in flight on every CPU, for hotplug --- */

struct lc_pinger {
	struct completion done;
	struct timer_list timer;
	struct mutex mutex;		/* held while waiting for the timer */
	unsigned long rounds;
};

static void lc_ping_timer(struct timer_list *t)
{
	struct lc_pinger *p = timer_container_of(p, t, timer);

	complete(&p->done);		/* a commit in softirq context */
}

static int lc_pinger_fn(void *data)
{
	struct lc_pinger *p = data;

	while (!kthread_should_stop()) {
		reinit_completion(&p->done);
		mutex_lock(&p->mutex);
		mod_timer(&p->timer, jiffies + 1);
		wait_for_completion(&p->done);
		mutex_unlock(&p->mutex);
		p->rounds++;
	}
	timer_delete_sync(&p->timer);
	return 0;
}

/*
 * A folio locked by one kthread and unlocked by the other, in turns, the
 * turns taken through @held alone (see lc_exiter_fn() for why).
 */
struct lc_handoff {
	struct folio *folio;
	unsigned long rounds;
	bool held;
	bool stop;
};

static void lc_park(void)
{
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
}

static int lc_locker_fn(void *data)
{
	struct lc_handoff *h = data;

	while (!READ_ONCE(h->stop)) {
		folio_lock(h->folio);
		/* the unlocker sees the lock taken once it sees @held */
		smp_store_release(&h->held, true);
		/* pairs with the unlocker's release: the folio is unlocked */
		while (smp_load_acquire(&h->held) && !READ_ONCE(h->stop))
			usleep_range(50, 200);
	}
	lc_park();
	return 0;
}

static int lc_unlocker_fn(void *data)
{
	struct lc_handoff *h = data;

	while (!READ_ONCE(h->stop)) {
		/* pairs with the locker's release: the folio is locked */
		if (!smp_load_acquire(&h->held)) {
			usleep_range(50, 200);
			continue;
		}
		folio_unlock(h->folio);
		h->rounds++;
		/* the locker may lock again once it sees @held clear */
		smp_store_release(&h->held, false);
	}
	lc_park();
	return 0;
}

static int lc_inflight(unsigned long secs)
{
	unsigned int nr = 2 * num_online_cpus(), i;
	struct task_struct **tasks;
	struct lc_pinger *p;
	struct lc_handoff *h;
	unsigned long pings = 0, handoffs = 0;
	int ret = 0;

	p = kcalloc(nr, sizeof(*p), GFP_KERNEL);
	h = kcalloc(nr, sizeof(*h), GFP_KERNEL);
	tasks = kcalloc(3 * nr, sizeof(*tasks), GFP_KERNEL);
	if (!p || !h || !tasks) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < nr && !ret; i++) {
		init_completion(&p[i].done);
		mutex_init(&p[i].mutex);
		timer_setup(&p[i].timer, lc_ping_timer, 0);
		h[i].folio = folio_alloc(GFP_KERNEL, 0);
		if (!h[i].folio) {
			ret = -ENOMEM;
			break;
		}
		tasks[3 * i] = kthread_run(lc_pinger_fn, &p[i], "xr_lc_ping");
		tasks[3 * i + 1] = kthread_run(lc_locker_fn, &h[i], "xr_lc_lock");
		tasks[3 * i + 2] = kthread_run(lc_unlocker_fn, &h[i],
					       "xr_lc_unlock");
		if (IS_ERR(tasks[3 * i]) || IS_ERR(tasks[3 * i + 1]) ||
		    IS_ERR(tasks[3 * i + 2]))
			ret = -ENOMEM;
	}
	if (!ret)
		msleep_interruptible(secs * 1000);
	for (i = 0; i < nr; i++)
		WRITE_ONCE(h[i].stop, true);
	msleep(20);	/* both leave their loops; the lock may stay held */
	for (i = 0; i < nr; i++) {
		pings += p[i].rounds;
		handoffs += h[i].rounds;
		if (h[i].folio && folio_test_locked(h[i].folio))
			folio_unlock(h[i].folio);	/* its owner is alive */
	}
	for (i = 0; i < 3 * nr; i++)
		if (!IS_ERR_OR_NULL(tasks[i]))
			kthread_stop(tasks[i]);
	for (i = 0; i < nr; i++)
		if (h[i].folio)
			folio_put(h[i].folio);
	pr_info("inflight: %lu s on %u CPUs, %lu timer completions, %lu folio lock handoffs\n",
		secs, num_online_cpus(), pings, handoffs);
out:
	kfree(tasks);
	kfree(h);
	kfree(p);
	return ret;
}

/* --- unload N: this module's classes in other contexts' histories --- */

static DEFINE_SPINLOCK(lc_irq_lock);
static DEFINE_MUTEX(lc_work_mutex);
static struct completion lc_irq_done;
static struct completion lc_work_done;

static void lc_unload_timer_fn(struct timer_list *t)
{
	/* a spinlock is not written; the timer's map, of this module's class, is */
	spin_lock(&lc_irq_lock);
	spin_unlock(&lc_irq_lock);
	complete(&lc_irq_done);		/* a commit over earlier loads' entries */
}

static void lc_unload_work_fn(struct work_struct *work)
{
	mutex_lock(&lc_work_mutex);	/* into a kworker's history */
	mutex_unlock(&lc_work_mutex);
	complete(&lc_work_done);
}

static int lc_unload(unsigned long n)
{
	struct timer_list timer;
	struct work_struct work;
	unsigned long i, rounds = 0;
	int cpu;

	timer_setup_on_stack(&timer, lc_unload_timer_fn, 0);
	INIT_WORK_ONSTACK(&work, lc_unload_work_fn);
	for (i = 0; i < n; i++) {
		for_each_online_cpu(cpu) {
			init_completion(&lc_irq_done);
			timer.expires = jiffies + 1;
			add_timer_on(&timer, cpu);
			wait_for_completion(&lc_irq_done);
			timer_delete_sync(&timer);
			rounds++;
		}
		init_completion(&lc_work_done);
		queue_work(system_wq, &work);
		wait_for_completion(&lc_work_done);
		flush_work(&work);
	}
	destroy_work_on_stack(&work);
	timer_destroy_on_stack(&timer);
	pr_info("unload: %lu softirq commits, %lu work items\n", rounds, n);
	return 0;
}

/* --- folio N: folios freed after a cross-task lock, then reused --- */

static int lc_folio_locker(void *data)
{
	folio_lock(data);
	return 0;
}

static int lc_folio(unsigned long n)
{
	unsigned long i, done = 0;
	ktime_t t0 = ktime_get();
	struct task_struct *t;
	struct folio *folio;

	for (i = 0; i < n; i++) {
		unsigned int order = (i % 4 == 3) ? 2 : 0;

		folio = folio_alloc(GFP_KERNEL, order);
		if (!folio)
			return -ENOMEM;
		t = kthread_run(lc_folio_locker, folio, "xr_lc_folio");
		if (IS_ERR(t)) {
			folio_put(folio);
			return PTR_ERR(t);
		}
		/* handed over without a completion (see lc_exiter_fn()) */
		lc_wait_until(folio_test_locked(folio));
		folio_unlock(folio);
		folio_put(folio);	/* freed; its page_ext is reused */
		done++;
		if (fatal_signal_pending(current))
			return -EINTR;
	}
	pr_info("folio: %lu folios (a quarter of order 2) locked, unlocked by another task and freed in %lld ms\n",
		done, ktime_ms_delta(ktime_get(), t0));
	return 0;
}

struct lc_run {
	const char *name;
	int (*run)(unsigned long n);
	unsigned long def;
};

static const struct lc_run lc_runs[] = {
	{ "threads",	lc_threads,	10000 },
	{ "exit",	lc_exit,	1000 },
	{ "inflight",	lc_inflight,	10 },
	{ "unload",	lc_unload,	10 },
	{ "folio",	lc_folio,	1000 },
};

static ssize_t run_write(struct file *file, const char __user *ubuf,
			 size_t len, loff_t *ppos)
{
	char buf[48], name[16];
	unsigned long n;
	int i, nr, ret;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	nr = sscanf(buf, "%15s %lu", name, &n);
	if (nr < 1)
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(lc_runs); i++) {
		if (strcmp(name, lc_runs[i].name))
			continue;
		ret = lc_runs[i].run(nr == 2 ? n : lc_runs[i].def);
		return ret ?: len;
	}
	return -ENOENT;
}

static const struct file_operations run_fops = {
	.owner	= THIS_MODULE,
	.write	= run_write,
	.llseek	= default_llseek,
};

static struct dentry *lc_dir;

static int __init test_crossrelease_lifecycle_init(void)
{
	lc_dir = debugfs_create_dir("test_crossrelease_lifecycle", NULL);
	debugfs_create_file("run", 0200, lc_dir, NULL, &run_fops);
	return 0;
}

static void __exit test_crossrelease_lifecycle_exit(void)
{
	debugfs_remove_recursive(lc_dir);
}

module_init(test_crossrelease_lifecycle_init);
module_exit(test_crossrelease_lifecycle_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Lifecycle faults for lockdep crossrelease");

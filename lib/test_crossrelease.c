// SPDX-License-Identifier: GPL-2.0
/*
 * Deadlock scenarios for lockdep crossrelease, run one at a time on
 * request, with the kernel's ordinary API only.
 *
 *   echo seed3 > /sys/kernel/debug/test_crossrelease/run
 *
 * A scenario never deadlocks: lockdep reports cycles that did not happen,
 * so each one first lets lockdep learn one half of the cycle in a run that
 * cannot hang, then plays the other half.  Lockdep reports only once and
 * then turns itself off; "rearm" switches it back on 200 ms later.  Write
 * each name from a process of its own ("sh -c 'echo seed3 > run'").  Test
 * kernels only: re-arming after a report is not safe on a busy system.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/debug_locks.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/err.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/string.h>
#include <linux/swait.h>
#include <linux/uaccess.h>

/* A scenario and its quiet twin use classes of their own. */
struct seed3 {
	struct mutex mutex;		/* held by A while it waits, taken by B */
	struct completion done;		/* waited for by A, completed by B */
};

static struct seed3 xr_demo, xr_quiet;

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

/*
 * The completer is a kthread that exits afterwards: the report is printed
 * in its context and lockdep stops tracking it there, so no stale state
 * survives the "rearm".
 */
static int take_mutex_and_complete(void *data)
{
	struct seed3 *s = data;

	mutex_lock(&s->mutex);
	mutex_unlock(&s->mutex);
	complete(&s->done);
	return 0;
}

/*
 * Seed example 3: A holds the mutex and waits for the completion; B takes
 * the mutex before it completes.  Learn "mutex ->
 * completion" with a completer that needs nothing, then let a kthread
 * close the cycle.
 */
static int scenario_seed3(bool quiet)
{
	struct seed3 *s = quiet ? &xr_quiet : &xr_demo;
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

static DEFINE_MUTEX(xr_abba_a);
static DEFINE_MUTEX(xr_abba_b);

/* Plain ABBA, which stock lockdep catches: shows the tooling works. */
static int scenario_abba(bool quiet)
{
	mutex_lock(&xr_abba_a);
	mutex_lock(&xr_abba_b);
	mutex_unlock(&xr_abba_b);
	mutex_unlock(&xr_abba_a);
	if (quiet)
		return 0;
	mutex_lock(&xr_abba_b);
	mutex_lock(&xr_abba_a);
	mutex_unlock(&xr_abba_a);
	mutex_unlock(&xr_abba_b);
	return 0;
}

/*
 * Switch lockdep back on after an expected report, a moment later and from
 * a kthread that holds nothing: the writer of "rearm" (and anyone else in
 * the middle of a locked section) took its locks while lockdep was off
 * and must have dropped them before lockdep tracks releases again.  Run
 * each scenario from a process of its own, which exits with whatever
 * lockdep believes it still holds.
 */
static int rearm_fn(void *unused)
{
	msleep(200);
	debug_locks = 1;
	pr_info("lockdep re-armed\n");
	return 0;
}

static int scenario_rearm(bool unused)
{
	return PTR_ERR_OR_ZERO(kthread_run(rearm_fn, NULL, "xr_rearm"));
}

struct scenario {
	const char *name;
	int (*run)(bool quiet);
	bool quiet;
};

static const struct scenario scenarios[] = {
	{ "abba",		scenario_abba,	false },
	{ "abba_quiet",		scenario_abba,	true },
	{ "seed3",		scenario_seed3,	false },
	{ "seed3_quiet",	scenario_seed3,	true },
	{ "rearm",		scenario_rearm,	false },
};

static ssize_t run_write(struct file *file, const char __user *ubuf,
			 size_t len, loff_t *ppos)
{
	char name[32];
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
		pr_info("scenario %s: end (%d)\n", name, ret);
		return ret ?: len;
	}
	return -ENOENT;
}

static ssize_t run_read(struct file *file, char __user *ubuf, size_t len,
			loff_t *ppos)
{
	char buf[256];
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

static struct dentry *xr_dir;

static int __init test_crossrelease_init(void)
{
	mutex_init(&xr_demo.mutex);
	init_completion(&xr_demo.done);
	mutex_init(&xr_quiet.mutex);
	init_completion(&xr_quiet.done);
	xr_dir = debugfs_create_dir("test_crossrelease", NULL);
	debugfs_create_file("run", 0600, xr_dir, NULL, &run_fops);
	return 0;
}

static void __exit test_crossrelease_exit(void)
{
	debugfs_remove_recursive(xr_dir);
}

module_init(test_crossrelease_init);
module_exit(test_crossrelease_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Deadlock scenarios for lockdep crossrelease");

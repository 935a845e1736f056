// SPDX-License-Identifier: GPL-2.0
/*
 * Capture lockdep reports from KUnit tests.
 *
 * The printk ring buffer is read back with the kmsg_dump iterator, so no
 * tracing support is needed: a capture remembers the sequence number of
 * the next printk record and later searches every record printed since.
 */
#include <kunit/visibility.h>
#include <linux/async.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/console.h>
#include <linux/debug_locks.h>
#include <linux/hrtimer.h>
#include <linux/initrd.h>
#include <linux/kmsg_dump.h>
#include <linux/kthread.h>
#include <linux/limits.h>
#include <linux/lockdep.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/printk.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timer.h>

#include "lockdep_kunit.h"
#ifdef CONFIG_LOCKDEP_CROSSRELEASE
#include "lockdep_crossrelease.h"
#endif

#define LINE_SIZE 1024

/*
 * "lockdep_kunit.reports=0" skips the cases that expect a report, so that
 * they can run one per boot ("kunit.filter_glob=suite.case") and the rest
 * in a boot where lockdep never goes off.
 */
static bool reports = true;
module_param(reports, bool, 0444);
MODULE_PARM_DESC(reports, "run the cases that expect a lockdep report");

/*
 * "lockdep_kunit.rearm=0" leaves lockdep off after a report: in a boot that
 * runs a single case there is nothing left to check, and re-arming while
 * other tasks hold locks taken with lockdep off only adds noise ("bad
 * unlock balance" from those tasks).
 */
static bool rearm = true;
module_param(rearm, bool, 0444);
MODULE_PARM_DESC(rearm, "switch lockdep back on after an expected report");

/**
 * lockdep_kunit_rearms - does lockdep_kunit_reset() switch lockdep back on?
 *
 * Return: false if booted with "lockdep_kunit.rearm=0".
 */
bool lockdep_kunit_rearms(void)
{
	return rearm;
}
EXPORT_SYMBOL_IF_KUNIT(lockdep_kunit_rearms);

/**
 * lockdep_kunit_reports_enabled - may cases that expect a report run?
 *
 * Return: false if booted with "lockdep_kunit.reports=0".
 */
bool lockdep_kunit_reports_enabled(void)
{
	return reports;
}
EXPORT_SYMBOL_IF_KUNIT(lockdep_kunit_reports_enabled);

/* console loglevel before a report made it verbose (console_verbose()) */
static int saved_loglevel = -1;

/* Headlines of the reports lockdep prints (see kernel/locking/lockdep.c). */
static const char * const lockdep_headlines[] = {
	LOCKDEP_KUNIT_CIRCULAR,
	"possible recursive locking detected",
	"inconsistent lock state",
	"possible irq lock inversion dependency detected",
	"HARDIRQ-safe -> HARDIRQ-unsafe lock order detected",
	"SOFTIRQ-safe -> SOFTIRQ-unsafe lock order detected",
	"bad unlock balance detected",
	"bad contention detected",
	"held lock freed",
	"lock held when returning to user space",
	"suspicious RCU usage",
	"trying to register non-static key",
	"BUG: MAX_LOCKDEP",
};

/**
 * lockdep_kunit_capture_start - open a capture window at the log's end
 * @c: capture state
 */
void lockdep_kunit_capture_start(struct lockdep_capture *c)
{
	struct kmsg_dump_iter iter;

	kmsg_dump_rewind(&iter);
	c->start_seq = iter.next_seq;
	if (READ_ONCE(debug_locks))
		saved_loglevel = console_loglevel;
}
EXPORT_SYMBOL_IF_KUNIT(lockdep_kunit_capture_start);

/* Lines printed since capture start that contain one of @needles */
static unsigned int count_lines(struct lockdep_capture *c,
				const char * const *needles, size_t n,
				unsigned int max)
{
	struct kmsg_dump_iter iter;
	unsigned int found = 0;
	size_t len, i;
	char *line;

	line = kmalloc(LINE_SIZE, GFP_KERNEL);
	if (!line)
		return 0;

	kmsg_dump_rewind(&iter);
	if (iter.cur_seq < c->start_seq)
		iter.cur_seq = c->start_seq;
	while (found < max &&
	       kmsg_dump_get_line(&iter, false, line, LINE_SIZE - 1, &len)) {
		line[len] = '\0';
		for (i = 0; i < n; i++) {
			if (strstr(line, needles[i])) {
				found++;
				break;
			}
		}
	}
	kfree(line);
	return found;
}

static bool search(struct lockdep_capture *c, const char * const *needles,
		   size_t n)
{
	return count_lines(c, needles, n, 1);
}

/**
 * lockdep_kunit_count - count the log lines printed since capture start
 * @c: capture state
 * @needle: substring to look for in a single printk line
 *
 * Return: how many lines printed since lockdep_kunit_capture_start()
 * contain @needle, e.g. how many reports with a given headline.
 */
unsigned int lockdep_kunit_count(struct lockdep_capture *c, const char *needle)
{
	return count_lines(c, &needle, 1, UINT_MAX);
}
EXPORT_SYMBOL_IF_KUNIT(lockdep_kunit_count);

/**
 * lockdep_kunit_report_seen - search the log printed since capture start
 * @c: capture state
 * @needle: substring to look for in a single printk line
 *
 * Return: true if any line printed since lockdep_kunit_capture_start()
 * contains @needle.
 */
bool lockdep_kunit_report_seen(struct lockdep_capture *c, const char *needle)
{
	return search(c, &needle, 1);
}
EXPORT_SYMBOL_IF_KUNIT(lockdep_kunit_report_seen);

/**
 * lockdep_kunit_any_report - did lockdep print any report since start?
 * @c: capture state
 *
 * Return: true if a line printed since lockdep_kunit_capture_start() has
 * one of the headlines of lockdep's reports.
 */
bool lockdep_kunit_any_report(struct lockdep_capture *c)
{
	return search(c, lockdep_headlines, ARRAY_SIZE(lockdep_headlines));
}
EXPORT_SYMBOL_IF_KUNIT(lockdep_kunit_any_report);

#ifdef CONFIG_LOCKDEP_CROSSRELEASE
/**
 * lockdep_kunit_xr_goes_on - does lockdep stay on after a crossrelease report?
 *
 * Return: false if booted with "crossrelease.max_reports=0" or crossrelease
 * is off.
 */
bool lockdep_kunit_xr_goes_on(void)
{
	return crosslock_enabled() && crosslock_max_reports_get();
}

static void lockdep_kunit_xr_reset(void)
{
	crosslock_reports_reset();
}
#else
bool lockdep_kunit_xr_goes_on(void)
{
	return false;
}

static void lockdep_kunit_xr_reset(void) { }
#endif
EXPORT_SYMBOL_IF_KUNIT(lockdep_kunit_xr_goes_on);

/**
 * lockdep_kunit_quiesce - let boot-time async work finish
 *
 * Built-in suites run while the initramfs is still being unpacked by an
 * async worker (in a domain of its own, which async_synchronize_full()
 * does not wait for) and async probes may still run.  A lock such work
 * takes while lockdep is off after a report and releases after
 * lockdep_kunit_reset() re-armed it is reported as a "bad unlock
 * balance", which switches lockdep off again.  Called before a case
 * provokes a report that switches lockdep off, and again before re-arming.
 *
 * Context: process context, might sleep.
 */
void lockdep_kunit_quiesce(void)
{
	might_sleep();
	wait_for_initramfs();
	async_synchronize_full();
}
EXPORT_SYMBOL_IF_KUNIT(lockdep_kunit_quiesce);

/**
 * lockdep_kunit_reset - re-arm lockdep after an expected report
 *
 * A crossrelease report leaves lockdep on: then only the report budget
 * ("crossrelease.max_reports=") is renewed.  Any other report turns
 * lockdep off (debug_locks = 0).  While off, lock_release()
 * is not tracked, so the current task's held-lock stack is stale: clear it
 * and switch lockdep back on; also restore the console loglevel that the
 * report raised.  Must be called with no locks held.
 *
 * Other tasks are not tracked while lockdep is off either: a lock taken
 * during the report and released after re-arming would be reported as a
 * "bad unlock balance" (typically the serial console's port lock, taken
 * by another CPU printing while the report is written out).  So before
 * re-arming, flush the console.  Sleeping locks held by other tasks
 * across the window can still trip lockdep, which is why each case that
 * expects a report is best run in a boot of its own, with
 * kunit.filter_glob (see lockdep_kunit_expect_report()).
 *
 * Unlike lib/locking-selftest.c this does not call lockdep_reset(): that
 * also empties the lock chain hash, which is only safe before other CPUs
 * and tasks use lockdep (zapping a class later would unlink stale chain
 * entries from the emptied buckets).  Stale chains are harmless here: the
 * test's classes and chains go away with lockdep_unregister_key().
 *
 * Context: process context, might sleep.
 */
void lockdep_kunit_reset(void)
{
	unsigned long flags;

	might_sleep();
	if (READ_ONCE(debug_locks)) {
		/* a crossrelease report: lockdep went on, renew the budget */
		lockdep_kunit_xr_reset();
		return;
	}
	if (!rearm)
		return;
	WARN_ON_ONCE(lockdep_depth(current));
	/* boot-time work may hold locks taken while lockdep was off */
	lockdep_kunit_quiesce();
	if (!READ_ONCE(debug_locks)) {
		console_lock();		/* let the report reach the console */
		console_unlock();
	}
	raw_local_irq_save(flags);
	lockdep_init_task(current);
	debug_locks = 1;
	raw_local_irq_restore(flags);
	/* undo console_verbose() done by debug_locks_off() */
	if (saved_loglevel >= 0)
		console_loglevel = saved_loglevel;
}
EXPORT_SYMBOL_IF_KUNIT(lockdep_kunit_reset);

/**
 * lockdep_kunit_is_on - is lockdep still validating (no report so far)?
 *
 * Return: debug_locks.
 */
bool lockdep_kunit_is_on(void)
{
	return READ_ONCE(debug_locks);
}
EXPORT_SYMBOL_IF_KUNIT(lockdep_kunit_is_on);

/**
 * lockdep_kunit_until_waiting - wait until @nr tasks wait on a completion
 * @c: the completion
 * @nr: how many waiters
 *
 * A waiter on @c's queue has made its crosslock acquisition.  Gives up
 * after a second or two, so that a case never hangs here.
 */
void lockdep_kunit_until_waiting(struct completion *c, int nr)
{
	struct swait_queue *q;
	unsigned long flags;
	int i, n;

	for (i = 0; i < 5000; i++) {
		n = 0;
		raw_spin_lock_irqsave(&c->wait.lock, flags);
		list_for_each_entry(q, &c->wait.task_list, task_list)
			n++;
		raw_spin_unlock_irqrestore(&c->wait.lock, flags);
		if (n >= nr)
			return;
		usleep_range(200, 400);
	}
}
EXPORT_SYMBOL_IF_KUNIT(lockdep_kunit_until_waiting);

struct lockdep_kunit_irq {
	struct hrtimer		hrtimer;
	struct timer_list	timer;
	void			(*fn)(void *arg);
	void			*arg;
	bool			ran;
};

static void lockdep_kunit_irq_run(struct lockdep_kunit_irq *irq)
{
	irq->fn(irq->arg);
	WRITE_ONCE(irq->ran, true);
}

static enum hrtimer_restart lockdep_kunit_hrtimer_fn(struct hrtimer *t)
{
	lockdep_kunit_irq_run(container_of(t, struct lockdep_kunit_irq, hrtimer));
	return HRTIMER_NORESTART;
}

static void lockdep_kunit_timer_fn(struct timer_list *t)
{
	lockdep_kunit_irq_run(container_of(t, struct lockdep_kunit_irq, timer));
}

static bool lockdep_kunit_spin_until_ran(struct lockdep_kunit_irq *irq,
					 unsigned long wait)
{
	unsigned long timeout = jiffies + wait;

	while (!READ_ONCE(irq->ran) && time_before(jiffies, timeout))
		cpu_relax();
	return READ_ONCE(irq->ran);
}

/* A pinned hrtimer, in hard interrupt context even on PREEMPT_RT */
static bool lockdep_kunit_hardirq(struct lockdep_kunit_irq *irq)
{
	hrtimer_setup_on_stack(&irq->hrtimer, lockdep_kunit_hrtimer_fn,
			       CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
	preempt_disable();
	hrtimer_start(&irq->hrtimer, ms_to_ktime(1), HRTIMER_MODE_REL_PINNED_HARD);
	lockdep_kunit_spin_until_ran(irq, 5 * HZ);
	preempt_enable();
	hrtimer_cancel(&irq->hrtimer);
	destroy_hrtimer_on_stack(&irq->hrtimer);
	return READ_ONCE(irq->ran);
}

/*
 * A timer's softirq runs on interrupt exit, unless ksoftirqd is already
 * woken on this CPU: then it waits for ksoftirqd, which cannot run while
 * we spin.  Spin a quarter of a second at a time, and between tries let
 * ksoftirqd run (it may run the handler then, not on top of this task).
 */
static bool lockdep_kunit_softirq(struct lockdep_kunit_irq *irq)
{
	int tries;

	timer_setup_on_stack(&irq->timer, lockdep_kunit_timer_fn, 0);
	for (tries = 0; tries < 20 && !READ_ONCE(irq->ran); tries++) {
		preempt_disable();
		irq->timer.expires = jiffies + 1;
		add_timer_on(&irq->timer, smp_processor_id());
		lockdep_kunit_spin_until_ran(irq, HZ / 4);
		preempt_enable();
		timer_delete_sync(&irq->timer);
		if (!READ_ONCE(irq->ran))
			msleep(20);
	}
	timer_destroy_on_stack(&irq->timer);
	return READ_ONCE(irq->ran);
}

/**
 * lockdep_kunit_irq_on_this_task - run a function in an interrupt on this CPU
 * @hard: in hard interrupt context (an hrtimer), else in a softirq (a timer)
 * @fn:   the function, which must not sleep
 * @arg:  its argument
 *
 * Spins on this CPU with preemption disabled, so that the interrupt lands
 * on top of the calling task, in the middle of what it holds and did.
 * Runs @fn at most once.
 *
 * Return: true if @fn ran, false if it did not within about five seconds.
 */
bool lockdep_kunit_irq_on_this_task(bool hard, void (*fn)(void *arg), void *arg)
{
	struct lockdep_kunit_irq irq = { .fn = fn, .arg = arg };

	return hard ? lockdep_kunit_hardirq(&irq) : lockdep_kunit_softirq(&irq);
}
EXPORT_SYMBOL_IF_KUNIT(lockdep_kunit_irq_on_this_task);

/**
 * lockdep_kunit_fixture_init - set a case's fixture up
 * @f: the fixture, zeroed
 * @mutex_name: the name of @f->m's class, e.g. "xr_test_M"
 *
 * Registers @f->key_m, initialises @f->m in the class of that key, named
 * @mutex_name, and starts the capture @f->cap.  First thing in a suite's
 * init, before anything that may skip or fail the case: the suite's exit
 * runs anyway, and calls lockdep_kunit_fixture_exit().
 */
void lockdep_kunit_fixture_init(struct lockdep_kunit_fixture *f,
				const char *mutex_name)
{
	lockdep_register_key(&f->key_m);
	mutex_init(&f->m);
	lockdep_set_class_and_name(&f->m, &f->key_m, mutex_name);
	lockdep_kunit_capture_start(&f->cap);
}
EXPORT_SYMBOL_IF_KUNIT(lockdep_kunit_fixture_init);

/**
 * lockdep_kunit_fixture_exit - tear a case's fixture down
 * @f: the fixture, set up by lockdep_kunit_fixture_init()
 *
 * Destroys @f->m and unregisters its key, which drops the class and every
 * dependency the case made with it.
 *
 * Context: process context, might sleep.
 */
void lockdep_kunit_fixture_exit(struct lockdep_kunit_fixture *f)
{
	mutex_destroy(&f->m);
	lockdep_unregister_key(&f->key_m);
}
EXPORT_SYMBOL_IF_KUNIT(lockdep_kunit_fixture_exit);

/**
 * lockdep_kunit_idle_until_stopped - idle in a kthread until it is stopped
 *
 * Sleeps a jiffy at a time until kthread_stop(), and parks whenever
 * kthread_park() asks.  For a kthread whose work is done but that must
 * not exit yet (its exit would release what it holds, or kthread_stop()
 * is part of the case).
 *
 * Context: a kthread, might sleep.
 */
void lockdep_kunit_idle_until_stopped(void)
{
	while (!kthread_should_stop()) {
		if (kthread_should_park())
			kthread_parkme();
		schedule_timeout_interruptible(1);
	}
}
EXPORT_SYMBOL_IF_KUNIT(lockdep_kunit_idle_until_stopped);

static int lockdep_kunit_kthread_fn(void *data)
{
	struct lockdep_kunit_kthread *k = data;

	if (k->step)
		k->step(k->data);
	lockdep_kunit_idle_until_stopped();
	return 0;
}

/**
 * lockdep_kunit_run_kthread - start a kthread that runs a step, then idles
 * @k: the kthread's state, kept in place until lockdep_kunit_stop_kthread()
 * @step: what the kthread does first, or NULL
 * @data: the argument of @step
 * @name: the kthread's name (not a format)
 *
 * The kthread calls @step(@data), then lockdep_kunit_idle_until_stopped().
 * A kthread stopped before it first ran never runs @step.
 *
 * Return: the kthread, also in @k->task, or an ERR_PTR() if it could not
 * be created.
 */
struct task_struct *lockdep_kunit_run_kthread(struct lockdep_kunit_kthread *k,
					      void (*step)(void *data),
					      void *data, const char *name)
{
	k->step = step;
	k->data = data;
	k->task = kthread_run(lockdep_kunit_kthread_fn, k, "%s", name);
	return k->task;
}
EXPORT_SYMBOL_IF_KUNIT(lockdep_kunit_run_kthread);

/**
 * lockdep_kunit_stop_kthread - stop a kthread of lockdep_kunit_run_kthread()
 * @k: its state
 *
 * Waits for the kthread to exit: kthread_stop().
 *
 * Return: 0, or -EINTR if the kthread was stopped before it first ran.
 */
int lockdep_kunit_stop_kthread(struct lockdep_kunit_kthread *k)
{
	return kthread_stop(k->task);
}
EXPORT_SYMBOL_IF_KUNIT(lockdep_kunit_stop_kthread);

// SPDX-License-Identifier: GPL-2.0
/*
 * Lockdep crossrelease: reports.
 *
 * When a commit closes a cycle, lockdep prints its usual circular report;
 * the hooks below give it a header and a scenario that say which context
 * acquired the crosslock and what the releasing context took since.  A
 * cycle through a crosslock is then reported and lockdep goes on (see
 * "Report and go on" below).
 *
 * See Documentation/locking/crossrelease.rst.
 */
#include <linux/crossrelease.h>
#include <linux/init.h>
#include <linux/kallsyms.h>
#include <linux/percpu.h>
#include <linux/pid_namespace.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/string.h>

#include "lockdep_internals.h"
#include "lockdep_crossrelease.h"
#include "lockdep_crossrelease_internals.h"

/* The commit in progress on this CPU, for the report hooks. */
static DEFINE_PER_CPU(struct crosslock_snapshot *, xr_committing);

/*
 * Set when this CPU found a cycle it could not print (another report being
 * printed, or lockdep's selftests silencing it): the commit then leaves
 * the pair out of its cache, so that the next commit checks it again.
 */
static DEFINE_PER_CPU(bool, xr_cycle_unprinted);

/* A commit hands its snapshot to the report hooks while it adds a dependency. */
void crosslock_report_enter(struct crosslock_snapshot *c)
{
	this_cpu_write(xr_committing, c);
	this_cpu_write(xr_cycle_unprinted, false);
}

/* Returns true if the dependency closed a cycle that was not printed. */
bool crosslock_report_exit(void)
{
	this_cpu_write(xr_committing, NULL);
	return this_cpu_read(xr_cycle_unprinted);
}

/* ---------------------------------------------------------------------
 * Reports: lockdep's circular report, with a crosslock-aware header and
 * scenario when the cycle was closed by a commit.
 */
static const char *xr_ctx_name(unsigned int irq_context)
{
	if (irq_context & LOCK_CHAIN_HARDIRQ_CONTEXT)
		return "hardirq";
	if (irq_context & LOCK_CHAIN_SOFTIRQ_CONTEXT)
		return "softirq";
	if (current->flags & PF_WQ_WORKER)
		return "work item";
	return "process";
}

static void xr_print_stack(unsigned int class_idx, unsigned long ip)
{
	struct lock_trace *trace = crosslock_stack_lookup(class_idx, ip);

	if (trace)
		crosslock_print_trace(trace, 6);
	else
		pr_warn("      %pS\n", (void *)ip);
}

#define XR_NAME_LEN	(KSYM_NAME_LEN + 16)

/*
 * One report is printed at a time (the caller that turned debug_locks off,
 * or the holder of xr_cycle_busy), so one set of buffers is enough and
 * keeps them off the stack.
 */
static char xr_names[3][XR_NAME_LEN];

/* A class name as lockdep prints it: name, #version, /subclass. */
static const char *xr_class_name(struct lock_class *class, char *buf)
{
	const char *name = READ_ONCE(class->name);
	int n;

	if (!name) {
		snprintf(buf, XR_NAME_LEN, "%ps", class->key);
		return buf;
	}
	n = snprintf(buf, XR_NAME_LEN, "%s", name);
	if (class->name_version > 1)
		n += snprintf(buf + n, XR_NAME_LEN - n, "#%d", class->name_version);
	if (class->subclass)
		snprintf(buf + n, XR_NAME_LEN - n, "/%d", class->subclass);
	return buf;
}

/*
 * The acquirer's name.  Owned crosslocks keep only its pid (16 bytes per
 * folio is the budget), so look it up now, in the rare report path.
 */
static const char *xr_commit_comm(struct crosslock_snapshot *c)
{
	struct task_struct *t;

	if (c->comm[0])
		return c->comm;
	rcu_read_lock();
	t = find_task_by_pid_ns(c->pid, &init_pid_ns);
	strscpy(c->comm, t ? t->comm : "(exited)", CROSSLOCK_COMM_LEN);
	rcu_read_unlock();
	return c->comm;
}

bool crosslock_print_commit_header(struct held_lock *src, struct held_lock *tgt)
{
	struct crosslock_snapshot *c = this_cpu_read(xr_committing);
	struct task_struct *curr = current;
	char *name = xr_names[0];

	if (!c)
		return false;

	pr_warn("%s/%d is releasing crosslock (in %s context):\n",
		curr->comm, task_pid_nr(curr), xr_ctx_name(c->irq_context));
	pr_warn(" (%s)\n", xr_class_name(lock_classes + tgt->class_idx, name));
	pr_warn("\nwhich %s/%d acquired at:\n", xr_commit_comm(c), c->pid);
	xr_print_stack(tgt->class_idx, tgt->acquire_ip);
	if (c->entry_flags & CROSSLOCK_HIST_WAIT)
		pr_warn("\nbut since then, this context waited for crosslock:\n");
	else
		pr_warn("\nbut since then, this context acquired lock:\n");
	pr_warn(" (%s), at: %pS\n",
		xr_class_name(lock_classes + src->class_idx, name),
		(void *)src->acquire_ip);
	pr_warn("\nwith this stack (the first one seen at this call site):\n");
	xr_print_stack(src->class_idx, src->acquire_ip);
	pr_warn("\nand that lock already depends on the crosslock.\n\n");
	return true;
}

bool crosslock_print_commit_scenario(struct held_lock *src, struct held_lock *tgt,
				     struct lock_class *parent)
{
	struct crosslock_snapshot *c = this_cpu_read(xr_committing);
	char *xname = xr_names[0], *sname = xr_names[1], *pname = xr_names[2];

	if (!c)
		return false;

	xr_class_name(lock_classes + tgt->class_idx, xname);
	xr_class_name(lock_classes + src->class_idx, sname);
	xr_class_name(parent, pname);
	if (parent != lock_classes + src->class_idx)
		pr_warn("Chain exists of:\n  %s --> %s --> %s\n\n",
			sname, pname, xname);
	pr_warn(" Possible unsafe locking scenario by crosslock:\n\n");
	pr_warn("       %-24s%s\n", "ACQUIRER", "RELEASER");
	pr_warn("       %-24s%s\n", "--------", "--------");
	if (c->entry_flags & CROSSLOCK_HIST_WAIT) {
		/* crosslock -> crosslock: nobody holds anything */
		pr_warn("  acquire(%s);\n", xname);
		pr_warn("                               wait(%s);\n", sname);
		pr_warn("                               release(%s);\n", xname);
		pr_warn("\n where %s is released only after %s is.\n",
			sname, xname);
	} else {
		pr_warn("  lock(%s);\n", pname);
		pr_warn("  acquire(%s);\n", xname);
		pr_warn("                               lock(%s);\n", sname);
		pr_warn("                               release(%s);\n", xname);
	}
	pr_warn("\n *** DEADLOCK ***\n\n");
	return true;
}

/* ---------------------------------------------------------------------
 * Report and go on.  A cycle through a crosslock is printed, the
 * dependency that would close it is not added, and lockdep stays on, so
 * one doubtful crossrelease report does not blind lockdep for the rest of
 * the boot.  Each distinct cycle (by the pair of classes that closes it)
 * is printed once, and at most "crossrelease.max_reports=" of them per
 * boot; 0 gives lockdep's own behaviour: the first report switches
 * lockdep off.  Every other report (a cycle of typical locks only, an irq
 * inversion) still switches lockdep off.
 */
#define XR_REPORTS_MAX	64	/* distinct cycles remembered */
#define XR_CYCLE_LEN	48	/* entries of a printed path */

static unsigned int xr_max_reports = 16;

static int __init xr_max_reports_setup(char *str)
{
	unsigned int n;

	if (kstrtouint(str, 0, &n))
		return 0;
	xr_max_reports = min_t(unsigned int, n, XR_REPORTS_MAX);
	return 1;
}
__setup("crossrelease.max_reports=", xr_max_reports_setup);

/* The pairs (prev << 16 | next) that closed a printed cycle: graph lock */
static u32 xr_reported[XR_REPORTS_MAX];
static unsigned int xr_nr_reported;
/* Reports printed, against the budget: graph lock */
static unsigned int xr_nr_printed;

/*
 * The path being printed, copied under the graph lock so that the report
 * is printed without it: printing under it would stall every CPU that
 * adds a dependency meanwhile, and could deadlock against a CPU that
 * holds the printk CPU lock (dump_stack()) and waits for the graph lock.
 * One report at a time: a cycle found while another one is printed is
 * counted as suppressed.
 */
static struct lock_list xr_cycle[XR_CYCLE_LEN];
static atomic_t xr_cycle_busy = ATOMIC_INIT(0);

static bool xr_class_is_crosslock(unsigned int class_idx)
{
	return test_bit(class_idx, crosslock_classes);
}

/**
 * crosslock_cycle_goes_on - is a cycle lockdep found a crossrelease report?
 * @target: the end of the path found, back to the root through ->parent
 * @src:    the lock the new dependency leads to
 * @tgt:    the lock the new dependency leads from
 *
 * Called under the graph lock.  Every crossrelease dependency leads from a
 * crosslock, so a cycle without one is lockdep's own business.
 *
 * Return: true if the cycle goes through a crosslock dependency.
 */
bool crosslock_cycle_goes_on(struct lock_list *target, struct held_lock *src,
			     struct held_lock *tgt)
{
	struct lock_list *e;

	if (!crosslock_enabled() || !xr_max_reports)
		return false;
	if (xr_class_is_crosslock(src->class_idx) ||
	    xr_class_is_crosslock(tgt->class_idx))
		return true;
	for (e = target; e; e = e->parent) {
		if (xr_class_is_crosslock(e->class - lock_classes))
			return true;
	}
	return false;
}

static u32 xr_cycle_key(struct held_lock *src, struct held_lock *tgt)
{
	return (u32)tgt->class_idx << 16 | src->class_idx;
}

static bool xr_cycle_was_reported(u32 key)
{
	unsigned int i;

	for (i = 0; i < xr_nr_reported; i++) {
		if (xr_reported[i] == key)
			return true;
	}
	return false;
}

/* Forget the cycles closed through a freed class: its index is reused. */
void crosslock_cycle_forget_class(unsigned int class_idx)
{
	unsigned int i = 0;

	while (i < xr_nr_reported) {
		u32 key = xr_reported[i];

		if (key >> 16 == class_idx || (key & 0xffff) == class_idx)
			xr_reported[i] = xr_reported[--xr_nr_reported];
		else
			i++;
	}
}

/* Copy the path from @target back to its root, whose trace is @trace. */
static struct lock_list *xr_cycle_copy(struct lock_list *target,
				       struct lock_trace *trace)
{
	struct lock_list *e;
	unsigned int n = 0;

	for (e = target; e && n < XR_CYCLE_LEN; e = e->parent, n++) {
		xr_cycle[n] = *e;
		xr_cycle[n].parent = NULL;
		if (n)
			xr_cycle[n - 1].parent = &xr_cycle[n];
	}
	if (!e)		/* the root: the new dependency's own stack */
		xr_cycle[n - 1].trace = trace;
	return xr_cycle;
}

/**
 * crosslock_cycle_report - count a crossrelease cycle, maybe to be printed
 * @target: the end of the path found
 * @src:    the lock the new dependency leads to
 * @tgt:    the lock the new dependency leads from
 * @trace:  the new dependency's stack
 *
 * Called under the graph lock, after crosslock_cycle_goes_on().
 *
 * Return: a copy of the path to print once the graph lock is dropped, then
 * to hand back with crosslock_cycle_report_done(); NULL if the report is
 * suppressed (printed before, over the budget, or another report is being
 * printed).
 */
struct lock_list *crosslock_cycle_report(struct lock_list *target,
					 struct held_lock *src, struct held_lock *tgt,
					 struct lock_trace *trace)
{
	u32 key = xr_cycle_key(src, tgt);

	if (xr_cycle_was_reported(key) || xr_nr_printed >= xr_max_reports) {
		crosslock_counter_inc(CROSSLOCK_COUNTER_REPORTS_SUPPRESSED);
		return NULL;
	}
	if (debug_locks_silent || atomic_xchg(&xr_cycle_busy, 1)) {
		crosslock_counter_inc(CROSSLOCK_COUNTER_REPORTS_SUPPRESSED);
		this_cpu_write(xr_cycle_unprinted, true);
		return NULL;
	}
	if (xr_nr_reported < XR_REPORTS_MAX)
		xr_reported[xr_nr_reported++] = key;
	xr_nr_printed++;
	crosslock_counter_inc(CROSSLOCK_COUNTER_REPORTS_PRINTED);
	return xr_cycle_copy(target, trace);
}

void crosslock_cycle_report_done(void)
{
	pr_warn("crossrelease: dependency not added, lockdep stays on (report %u of at most %u)\n",
		READ_ONCE(xr_nr_printed), xr_max_reports);
	atomic_set_release(&xr_cycle_busy, 0);
}

/**
 * crosslock_reports_reset - renew the budget of crossrelease reports
 *
 * For test suites that expect more reports in one boot than the budget.
 * Cycles already printed stay known until one of their classes is freed.
 */
void crosslock_reports_reset(void)
{
	WRITE_ONCE(xr_nr_printed, 0);
}
EXPORT_SYMBOL_GPL(crosslock_reports_reset);

/**
 * crosslock_max_reports_get - the budget of crossrelease reports
 *
 * Return: "crossrelease.max_reports=" of this boot, or what
 * crosslock_max_reports_set() made it.
 */
unsigned int crosslock_max_reports_get(void)
{
	return xr_max_reports;
}
EXPORT_SYMBOL_GPL(crosslock_max_reports_get);

/**
 * crosslock_max_reports_set - change the budget of crossrelease reports
 * @max: the new budget, at least 1 (0, one-shot, is a boot-time choice)
 *
 * For test suites.
 *
 * Return: the previous budget.
 */
unsigned int crosslock_max_reports_set(unsigned int max)
{
	unsigned int old = xr_max_reports;

	if (old && max)
		WRITE_ONCE(xr_max_reports, min_t(unsigned int, max, XR_REPORTS_MAX));
	return old;
}
EXPORT_SYMBOL_GPL(crosslock_max_reports_set);

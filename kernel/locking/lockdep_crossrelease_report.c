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
#include <kunit/visibility.h>
#include <linux/crossrelease.h>
#include <linux/init.h>
#include <linux/kallsyms.h>
#include <linux/percpu.h>
#include <linux/pid_namespace.h>
#include <linux/sched/clock.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/string.h>

#include "lockdep_internals.h"
#include "lockdep_crossrelease.h"
#include "lockdep_crossrelease_internals.h"

/* The commit in progress on this CPU, for the report hooks. */
static DEFINE_PER_CPU(struct crosslock_snapshot *, xr_committing);

/* A commit hands its snapshot to the report hooks while it adds a dependency. */
void crosslock_report_enter(struct crosslock_snapshot *c)
{
	this_cpu_write(xr_committing, c);
}

void crosslock_report_exit(void)
{
	this_cpu_write(xr_committing, NULL);
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
#define XR_CYCLE_LEN	48	/* entries of a printed path */
#define XR_BRIEF_LEN	512	/* a cycle in one line */

/*
 * A cycle printed: the set of its classes, the same whichever of its
 * dependencies closed it, kept exactly (sorted indexes), so that no two
 * cycles are taken for one and the cycles through a freed class, and only
 * those, are forgotten.  A path longer than a report prints is known by
 * the classes of its printed part.
 */
struct xr_known_cycle {
	unsigned int	nr;
	u16		classes[XR_CYCLE_LEN];
};

/*
 * What the report being printed on this CPU needs, off the stack: the
 * path, copied under the graph lock so that it is printed without it,
 * and class names.  Per CPU, because reports found on two CPUs are
 * printed one after the other without the graph lock, or at the same
 * time if one waits too long (see crosslock_cycle_print_begin()).
 */
struct xr_report_bufs {
	struct xr_known_cycle	known;
	struct lock_list	cycle[XR_CYCLE_LEN];
	char			names[3][XR_NAME_LEN];
	char			brief[XR_BRIEF_LEN];
};

static DEFINE_PER_CPU(struct xr_report_bufs, xr_bufs);

/* A class name as lockdep prints it, in one of the report buffers */
static const char *xr_class_name(unsigned int class_idx, char *buf)
{
	return crosslock_class_name(class_idx, buf, XR_NAME_LEN);
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
	char *name = this_cpu_ptr(&xr_bufs)->names[0];

	if (!c)
		return false;

	pr_warn("%s/%d is releasing crosslock (in %s context):\n",
		curr->comm, task_pid_nr(curr), xr_ctx_name(c->irq_context));
	pr_warn(" (%s)\n", xr_class_name(tgt->class_idx, name));
	pr_warn("\nwhich %s/%d acquired at: %pS\n", xr_commit_comm(c), c->pid,
		(void *)tgt->acquire_ip);
	pr_warn("with this stack (the first one seen at this call site):\n");
	xr_print_stack(tgt->class_idx, tgt->acquire_ip);
	if (c->entry_flags & CROSSLOCK_HIST_WAIT)
		pr_warn("\nbut since then, this context waited for crosslock:\n");
	else
		pr_warn("\nbut since then, this context acquired lock:\n");
	pr_warn(" (%s), at: %pS\n",
		xr_class_name(src->class_idx, name),
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
	struct xr_report_bufs *b = this_cpu_ptr(&xr_bufs);
	char *xname = b->names[0], *sname = b->names[1], *pname = b->names[2];

	if (!c)
		return false;

	xr_class_name(tgt->class_idx, xname);
	xr_class_name(src->class_idx, sname);
	xr_class_name(crosslock_class_of(parent), pname);
	if (crosslock_class_of(parent) != src->class_idx)
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
 * dependency that closes it is added like any other, and lockdep stays on,
 * so one doubtful crossrelease report blinds lockdep to nothing: the graph
 * and the chain cache are what they would be without the report, and
 * every later cycle, through a crosslock or not, is still found.
 *
 * A cycle in the graph is found again whenever one of its dependencies is
 * checked again, so each distinct cycle (by the set of classes on it) is
 * printed once.  The first "crossrelease.max_reports=" cycles of a boot
 * are printed in full, later ones in one line each; 0 gives lockdep's own
 * behaviour: the first report switches lockdep off.  Every other report (a
 * cycle of typical locks only, an irq inversion) still switches lockdep
 * off.
 */
#define XR_CYCLES_KNOWN	256	/* distinct cycles remembered */
#define XR_REPORTS_MAX	XR_CYCLES_KNOWN
#define XR_PRINT_WAIT_NS	(2 * NSEC_PER_SEC)

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

/* Cycles printed, and reports printed in full: graph lock */
static struct xr_known_cycle xr_known[XR_CYCLES_KNOWN];
static unsigned int xr_nr_known;
static unsigned int xr_nr_printed;

/* Reports are printed one at a time, without the graph lock. */
static arch_spinlock_t xr_print_lock = __ARCH_SPIN_LOCK_UNLOCKED;
static DEFINE_PER_CPU(bool, xr_print_locked);

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
		if (xr_class_is_crosslock(crosslock_class_of(e->class)))
			return true;
	}
	return false;
}

/* Insert @idx into the sorted set @k, unless it is there already */
static void xr_cycle_add_class(struct xr_known_cycle *k, u16 idx)
{
	unsigned int i = k->nr;

	while (i && k->classes[i - 1] > idx)
		i--;
	if ((i && k->classes[i - 1] == idx) || k->nr == XR_CYCLE_LEN)
		return;
	memmove(&k->classes[i + 1], &k->classes[i],
		(k->nr - i) * sizeof(k->classes[0]));
	k->classes[i] = idx;
	k->nr++;
}

/* The classes of the cycle: the path from @target back to its root. */
static void xr_cycle_of(struct lock_list *target, struct xr_known_cycle *k)
{
	struct lock_list *e;
	unsigned int n = 0;

	k->nr = 0;
	for (e = target; e && n < XR_CYCLE_LEN; e = e->parent, n++)
		xr_cycle_add_class(k, crosslock_class_of(e->class));
}

static bool xr_cycle_same(const struct xr_known_cycle *a,
			  const struct xr_known_cycle *b)
{
	return a->nr == b->nr &&
	       !memcmp(a->classes, b->classes, a->nr * sizeof(a->classes[0]));
}

static bool xr_cycle_known(const struct xr_known_cycle *k)
{
	unsigned int i;

	for (i = 0; i < xr_nr_known; i++) {
		if (xr_cycle_same(&xr_known[i], k))
			return true;
	}
	return false;
}

static void xr_cycle_remember(const struct xr_known_cycle *k)
{
	if (xr_nr_known < XR_CYCLES_KNOWN) {
		xr_known[xr_nr_known++] = *k;
		return;
	}
	/* printed every time it is found again: noisy, never silent */
	pr_warn_once("crossrelease: more than %d distinct cycles, later ones may be printed more than once\n",
		     XR_CYCLES_KNOWN);
}

static bool xr_cycle_has_class(const struct xr_known_cycle *k, u16 idx)
{
	unsigned int i;

	for (i = 0; i < k->nr; i++) {
		if (k->classes[i] == idx)
			return true;
	}
	return false;
}

/* Forget the cycles through a freed class: its index will be reused. */
void crosslock_cycle_forget_class(unsigned int class_idx)
{
	unsigned int i = 0;

	while (i < xr_nr_known) {
		if (xr_cycle_has_class(&xr_known[i], class_idx))
			xr_known[i] = xr_known[--xr_nr_known];
		else
			i++;
	}
}

/* Copy the path from @target back to its root, whose trace is @trace. */
static struct lock_list *xr_cycle_copy(struct lock_list *target,
				       struct lock_trace *trace)
{
	struct lock_list *cycle = this_cpu_ptr(&xr_bufs)->cycle;
	struct lock_list *e;
	unsigned int n = 0;

	for (e = target; e && n < XR_CYCLE_LEN; e = e->parent, n++) {
		cycle[n] = *e;
		cycle[n].parent = NULL;
		if (n)
			cycle[n - 1].parent = &cycle[n];
	}
	if (!e)		/* the root: the new dependency's own stack */
		cycle[n - 1].trace = trace;
	return cycle;
}

/**
 * crosslock_cycle_report - decide how a crossrelease cycle is reported
 * @target: the end of the path found
 * @src:    the lock the new dependency leads to
 * @tgt:    the lock the new dependency leads from
 * @trace:  the new dependency's stack
 * @full:   set to true if the report is to be printed in full, false if
 *          in one line (the budget of full reports is spent)
 *
 * Called under the graph lock, after crosslock_cycle_goes_on().  Either
 * way the caller adds the dependency and lockdep goes on.
 *
 * Return: a copy of the path to print once the graph lock is dropped,
 * between crosslock_cycle_print_begin() and crosslock_cycle_print_end();
 * NULL if the cycle was printed before (or lockdep's selftests silence
 * reports).
 */
struct lock_list *crosslock_cycle_report(struct lock_list *target,
					 struct held_lock *src, struct held_lock *tgt,
					 struct lock_trace *trace, bool *full)
{
	struct xr_known_cycle *k = &this_cpu_ptr(&xr_bufs)->known;

	xr_cycle_of(target, k);
	if (debug_locks_silent || xr_cycle_known(k)) {
		crosslock_counter_inc(CROSSLOCK_COUNTER_REPORTS_SUPPRESSED);
		return NULL;
	}
	xr_cycle_remember(k);
	*full = xr_nr_printed < xr_max_reports;
	if (*full) {
		xr_nr_printed++;
		crosslock_counter_inc(CROSSLOCK_COUNTER_REPORTS_PRINTED);
	} else {
		crosslock_counter_inc(CROSSLOCK_COUNTER_REPORTS_BRIEF);
	}
	return xr_cycle_copy(target, trace);
}

/**
 * crosslock_cycle_print_begin - wait for the report another CPU is printing
 *
 * Called without the graph lock, interrupts disabled.  The wait is bounded:
 * a CPU that printed a report may need a lock this one holds to go on
 * printing (the console's), so after a while both are printed at once,
 * their lines mixed, rather than one lost.
 */
void crosslock_cycle_print_begin(void)
{
	u64 deadline = local_clock() + XR_PRINT_WAIT_NS;
	bool locked;

	while (!(locked = arch_spin_trylock(&xr_print_lock)) &&
	       local_clock() < deadline)
		cpu_relax();
	this_cpu_write(xr_print_locked, locked);
}

/*
 * "A -> B -> C -> A", in the order the dependencies go: from the root of
 * the copied path (its last entry) to its target, then back to the root.
 */
static const char *xr_cycle_line(struct xr_report_bufs *b,
				 struct lock_list *cycle)
{
	unsigned int n = 1, len = 0, idx;

	while (cycle[n - 1].parent)
		n++;
	while (n--) {
		idx = crosslock_class_of(cycle[n].class);
		len += scnprintf(b->brief + len, XR_BRIEF_LEN - len, "%s -> ",
				 xr_class_name(idx, b->names[0]));
	}
	while (cycle->parent)
		cycle = cycle->parent;
	idx = crosslock_class_of(cycle->class);
	scnprintf(b->brief + len, XR_BRIEF_LEN - len, "%s",
		  xr_class_name(idx, b->names[0]));
	return b->brief;
}

/**
 * crosslock_cycle_print_end - end the report of crosslock_cycle_report()
 * @cycle: the path it returned
 * @full:  the report was printed in full; otherwise print it in one line
 */
void crosslock_cycle_print_end(struct lock_list *cycle, bool full)
{
	if (full)
		pr_warn("crossrelease: dependency added, lockdep stays on (report %u of at most %u)\n",
			READ_ONCE(xr_nr_printed), xr_max_reports);
	else
		pr_warn("crossrelease: possible circular locking dependency, not printed in full (crossrelease.max_reports=%u spent): %s; lockdep stays on\n",
			xr_max_reports, xr_cycle_line(this_cpu_ptr(&xr_bufs), cycle));
	if (this_cpu_read(xr_print_locked))
		arch_spin_unlock(&xr_print_lock);
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
EXPORT_SYMBOL_IF_KUNIT(crosslock_reports_reset);

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
EXPORT_SYMBOL_IF_KUNIT(crosslock_max_reports_get);

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
EXPORT_SYMBOL_IF_KUNIT(crosslock_max_reports_set);

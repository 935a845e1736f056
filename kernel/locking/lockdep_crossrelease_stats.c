// SPDX-License-Identifier: GPL-2.0
/*
 * Lockdep crossrelease: statistics.
 *
 * One per-CPU counter per enum crosslock_counter_id, summed when read: a
 * folio unlock counts a commit, and a shared atomic would be the one cache
 * line every CPU writes.  lockdep_proc.c prints them in
 * /proc/lockdep_stats, with one name per counter; the KUnit suites read
 * them with crosslock_counter_read().
 */
#include <kunit/visibility.h>
#include <linux/crossrelease.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>
#include <linux/string.h>

#include "lockdep_crossrelease.h"

DEFINE_PER_CPU(unsigned long, crosslock_counters[CROSSLOCK_COUNTER_COUNT]);

/**
 * crosslock_counter_read - the sum of a statistics counter over all CPUs
 * @id: the counter
 *
 * Return: the sum, read without stopping the counting.
 */
unsigned long crosslock_counter_read(enum crosslock_counter_id id)
{
	unsigned long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu(crosslock_counters[id], cpu);
	return sum;
}
EXPORT_SYMBOL_IF_KUNIT(crosslock_counter_read);

static const char *const xr_counter_names[CROSSLOCK_COUNTER_COUNT] = {
	[CROSSLOCK_COUNTER_COMMITS]		= "crossrelease commits",
	[CROSSLOCK_COUNTER_DEPS_CHECKED]	= "crossrelease deps checked",
	[CROSSLOCK_COUNTER_DEPS_ADDED]		= "crossrelease deps added",
	[CROSSLOCK_COUNTER_DEPS_CACHED]	= "crossrelease deps cached",
	[CROSSLOCK_COUNTER_HIST_OVERFLOWS]	= "crossrelease hist overwritten",
	[CROSSLOCK_COUNTER_DEPS_UNCACHED]	= "crossrelease deps not cached",
	[CROSSLOCK_COUNTER_STACKS_SAVED]	= "crossrelease stacks saved",
	[CROSSLOCK_COUNTER_STACKS_DROPPED]	= "crossrelease stacks dropped",
	[CROSSLOCK_COUNTER_STALE_ENTRIES]	= "crossrelease stale entries",
	[CROSSLOCK_COUNTER_REPORTS_PRINTED]	= "crossrelease reports printed",
	[CROSSLOCK_COUNTER_REPORTS_SUPPRESSED]	= "crossrelease reports suppressed",
	[CROSSLOCK_COUNTER_REPORTS_BRIEF]	= "crossrelease reports in brief",
	[CROSSLOCK_COUNTER_MISUSE]		= "crossrelease misuse warnings",
	[CROSSLOCK_COUNTER_OPPORTUNISTIC]	= "crossrelease opportunistic releases",
	[CROSSLOCK_COUNTER_OWNER_STALE]	= "crossrelease owners replaced",
	[CROSSLOCK_COUNTER_UNTRACKED + CROSSLOCK_UNTRACKED_UNSEEN] =
		"crossrelease untracked, set unseen",
	[CROSSLOCK_COUNTER_UNTRACKED + CROSSLOCK_UNTRACKED_SPLIT] =
		"crossrelease untracked, split tails",
	[CROSSLOCK_COUNTER_UNTRACKED + CROSSLOCK_UNTRACKED_NO_STATE] =
		"crossrelease untracked, no state",
	[CROSSLOCK_COUNTER_HIST_IMPLIED]	= "crossrelease hist implied",
	[CROSSLOCK_COUNTER_HIST_REPEATED]	= "crossrelease hist repeated",
	[CROSSLOCK_COUNTER_CHAINS_CACHED]	= "crossrelease commits cached",
	[CROSSLOCK_COUNTER_WAITS_CACHED]	= "crossrelease waits cached",
	[CROSSLOCK_COUNTER_HIST_SPINNING]	= "crossrelease hist spinning",
};

void crosslock_show_stats(struct seq_file *m)
{
	int i;

	seq_printf(m, " %-31s%11s\n", "crossrelease tracking:",
		   crosslock_enabled() ? "on" : "off");
	seq_printf(m, " %-31s%11u\n", "crossrelease in flight:",
		   atomic_read(&crosslock_nr_in_flight));
	seq_printf(m, " %-31s%11u\n", "crossrelease max reports:",
		   crosslock_max_reports_get());
	/* " name:" and the value end in column 43, as lockdep's own lines */
	for (i = 0; i < CROSSLOCK_COUNTER_COUNT; i++)
		seq_printf(m, " %s:%*lu\n", xr_counter_names[i],
			   41 - (int)strlen(xr_counter_names[i]),
			   crosslock_counter_read(i));
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers for KUnit suites that expect (or forbid) lockdep reports.
 *
 * Usage:
 *	struct lockdep_capture c;
 *
 *	lockdep_kunit_capture_start(&c);
 *	... provoke a report ...
 *	KUNIT_EXPECT_TRUE(test, lockdep_kunit_report_seen(&c, "circular"));
 *	lockdep_kunit_reset();
 *
 * Each test case should use its own dynamically registered lock class
 * keys (lockdep_register_key()/lockdep_unregister_key()) so that the
 * classes and dependencies it creates leave the graph with the keys.
 */
#ifndef _LOCKDEP_KUNIT_H
#define _LOCKDEP_KUNIT_H

#include <linux/types.h>

struct completion;

struct lockdep_capture {
	u64 start_seq;		/* first printk record of the capture window */
};

void lockdep_kunit_capture_start(struct lockdep_capture *c);
bool lockdep_kunit_report_seen(struct lockdep_capture *c, const char *needle);
unsigned int lockdep_kunit_count(struct lockdep_capture *c, const char *needle);
bool lockdep_kunit_any_report(struct lockdep_capture *c);
void lockdep_kunit_quiesce(void);
void lockdep_kunit_reset(void);
bool lockdep_kunit_reports_enabled(void);
bool lockdep_kunit_rearms(void);

/*
 * First statement of a case that expects a report: skipped when booted
 * with lockdep_kunit.reports=0, because lockdep reports once per boot;
 * otherwise waits for boot-time async work (lockdep_kunit_quiesce()).
 */
#define lockdep_kunit_expect_report(test)				\
do {									\
	if (!lockdep_kunit_reports_enabled())				\
		kunit_skip(test, "expects a report: runs in its own boot"); \
	lockdep_kunit_quiesce();					\
} while (0)
bool lockdep_kunit_is_on(void);
void lockdep_kunit_until_waiting(struct completion *c, int nr);
bool lockdep_kunit_xr_goes_on(void);

/*
 * First statement of a case that expects a crossrelease report.  Lockdep
 * stays on after one, so the case runs with the others; but booted with
 * "crossrelease.max_reports=0" it is a report like any other.
 */
#define lockdep_kunit_expect_xr_report(test)				\
do {									\
	if (!lockdep_kunit_xr_goes_on())				\
		lockdep_kunit_expect_report(test);			\
} while (0)

/* Lockdep is still on after a crossrelease report, unless one-shot. */
#define lockdep_kunit_expect_went_on(test, cap)				\
do {									\
	struct kunit *__test = (test);					\
	bool __on = lockdep_kunit_xr_goes_on();				\
									\
	KUNIT_EXPECT_EQ(__test, lockdep_kunit_is_on(), __on);		\
	if (__on)							\
		KUNIT_EXPECT_TRUE(__test, lockdep_kunit_report_seen(cap, \
				  "dependency not added, lockdep stays on")); \
} while (0)

#endif /* _LOCKDEP_KUNIT_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers for KUnit suites that expect (or forbid) lockdep reports.
 *
 * Usage:
 *	struct my_ctx {
 *		struct lockdep_kunit_fixture fx;
 *		...
 *	};
 *
 *	init:	lockdep_kunit_fixture_init(&ctx->fx, "my_test_M");
 *		lockdep_kunit_skip_if_off(test);
 *	case:	lockdep_kunit_expect_report(test);
 *		... provoke a report ...
 *		lockdep_kunit_expect_matches(test, &ctx->fx.cap, &report);
 *		lockdep_kunit_reset();
 *	exit:	lockdep_kunit_fixture_exit(&ctx->fx);
 *
 * Each test case should use its own dynamically registered lock class
 * keys (lockdep_register_key()/lockdep_unregister_key()) so that the
 * classes and dependencies it creates leave the graph with the keys: the
 * fixture's mutex is in such a class.
 */
#ifndef _LOCKDEP_KUNIT_H
#define _LOCKDEP_KUNIT_H

#include <kunit/test.h>
#include <linux/crossrelease.h>
#include <linux/lockdep.h>
#include <linux/mutex.h>
#include <linux/string.h>
#include <linux/types.h>

struct completion;
struct task_struct;

/* The headline of lockdep's report of a cycle, crossrelease's included */
#define LOCKDEP_KUNIT_CIRCULAR	"possible circular locking dependency detected"

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
bool lockdep_kunit_irq_on_this_task(bool hard, void (*fn)(void *arg), void *arg);
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
				  "dependency added, lockdep stays on")); \
} while (0)

/**
 * lockdep_kunit_skip_if_off - skip the case if lockdep is off
 * @test: the case
 *
 * In a suite's init, after lockdep_kunit_fixture_init(): a case cannot
 * assert anything about lockdep once an earlier report switched it off.
 */
static inline void lockdep_kunit_skip_if_off(struct kunit *test)
{
	if (!lockdep_kunit_is_on())
		kunit_skip(test, "lockdep is off (earlier report?)");
}

/**
 * crossrelease_kunit_skip_if_off - skip the case unless crossrelease runs
 * @test: the case
 *
 * Last thing in a crossrelease suite's init, once everything its exit
 * tears down is set up: a case asserts nothing about crossrelease when
 * booted with "crossrelease=off", or once lockdep is off.
 */
static inline void crossrelease_kunit_skip_if_off(struct kunit *test)
{
	if (!crosslock_enabled())
		kunit_skip(test, "booted with crossrelease=off");
	lockdep_kunit_skip_if_off(test);
}

/**
 * struct lockdep_kunit_variant - one run of a case that KUNIT_CASE_PARAM()
 *	runs once per variant
 * @name: what the run is called in the results
 * @flag: what sets it apart from the case's other variants
 */
struct lockdep_kunit_variant {
	const char *name;
	bool flag;
};

/* The get_desc of KUNIT_ARRAY_PARAM() over an array of variants */
static inline void
lockdep_kunit_variant_desc(const struct lockdep_kunit_variant *v, char *desc)
{
	strscpy(desc, v->name, KUNIT_PARAM_DESC_SIZE);
}

/* The variant the running case was given */
static inline bool lockdep_kunit_variant_flag(struct kunit *test)
{
	const struct lockdep_kunit_variant *v = test->param_value;

	return v->flag;
}

/**
 * lockdep_kunit_expect_seen - expect a line of the log since capture start
 * @test: the case
 * @c: capture state
 * @needle: substring a single printk line must contain
 */
static inline void lockdep_kunit_expect_seen(struct kunit *test,
					     struct lockdep_capture *c,
					     const char *needle)
{
	KUNIT_EXPECT_TRUE_MSG(test, lockdep_kunit_report_seen(c, needle),
			      "report line with \"%s\" missing", needle);
}

#define LOCKDEP_KUNIT_REPORT_LINES	4

/**
 * struct lockdep_kunit_report - the report a case expects
 * @headline: the report's headline, e.g. %LOCKDEP_KUNIT_CIRCULAR, or NULL
 *	      for any of lockdep's headlines
 * @lines: more text the report must print, each in a single line (class
 *	   names, contexts); unused slots are NULL
 * @crossrelease: a crossrelease report, after which lockdep stays on and
 *		  says so (unless booted with "crossrelease.max_reports=0");
 *		  after any other report lockdep is off
 *
 * Declared by the case, as mm/kfence/kfence_test.c declares its
 * struct expect_report, and checked by lockdep_kunit_expect_matches().
 */
struct lockdep_kunit_report {
	const char *headline;
	const char *lines[LOCKDEP_KUNIT_REPORT_LINES];
	bool crossrelease;
};

/**
 * lockdep_kunit_expect_matches - expect a report since capture start
 * @test: the case
 * @c: capture state
 * @r: the report
 *
 * Expects @r's headline and each of its lines in the log printed since
 * lockdep_kunit_capture_start(), and lockdep on or off as @r says.  Does
 * not re-arm lockdep: the case calls lockdep_kunit_reset() when done.
 */
static inline void
lockdep_kunit_expect_matches(struct kunit *test, struct lockdep_capture *c,
			     const struct lockdep_kunit_report *r)
{
	int i;

	if (r->headline)
		lockdep_kunit_expect_seen(test, c, r->headline);
	else
		KUNIT_EXPECT_TRUE(test, lockdep_kunit_any_report(c));
	for (i = 0; i < LOCKDEP_KUNIT_REPORT_LINES; i++) {
		if (r->lines[i])
			lockdep_kunit_expect_seen(test, c, r->lines[i]);
	}
	if (r->crossrelease)
		lockdep_kunit_expect_went_on(test, c);
	else
		KUNIT_EXPECT_FALSE(test, lockdep_kunit_is_on());
}

/**
 * lockdep_kunit_expect_quiet - expect no report since capture start
 * @test: the case
 * @c: capture state
 *
 * Expects none of lockdep's report headlines in the log printed since
 * lockdep_kunit_capture_start(), and lockdep still on.
 */
static inline void lockdep_kunit_expect_quiet(struct kunit *test,
					      struct lockdep_capture *c)
{
	KUNIT_EXPECT_FALSE(test, lockdep_kunit_any_report(c));
	KUNIT_EXPECT_TRUE(test, lockdep_kunit_is_on());
}

/**
 * lockdep_kunit_expect_warned_once - expect a once-per-boot warning
 * @test: the case
 * @c: capture state
 * @text: substring of the warning
 *
 * A kind of warning is printed by the first case that causes it, so its
 * line is in this case's part of the log or further back: expect it in
 * the whole log, and no second copy in this case's part.
 */
static inline void lockdep_kunit_expect_warned_once(struct kunit *test,
						    struct lockdep_capture *c,
						    const char *text)
{
	struct lockdep_capture boot = { };	/* from the oldest record */

	KUNIT_EXPECT_LE(test, lockdep_kunit_count(c, text), 1U);
	KUNIT_EXPECT_TRUE_MSG(test, lockdep_kunit_report_seen(&boot, text),
			      "warning \"%s\" never printed", text);
}

/**
 * struct lockdep_kunit_fixture - the state every case of a suite begins with
 * @key_m: the class key of @m, registered for the case alone
 * @m: the mutex of the case's scenarios, in a class of its own
 * @cap: the capture of what the case printed
 *
 * A suite embeds it in its per-case state, sets it up first thing in its
 * init and tears it down last thing in its exit: unregistering the key
 * drops @m's class and every dependency the case made with it.
 */
struct lockdep_kunit_fixture {
	struct lock_class_key key_m;
	struct mutex m;			/* M, of the case's scenarios */
	struct lockdep_capture cap;
};

void lockdep_kunit_fixture_init(struct lockdep_kunit_fixture *f,
				const char *mutex_name);
void lockdep_kunit_fixture_exit(struct lockdep_kunit_fixture *f);

/**
 * lockdep_kunit_take_m - take the fixture's mutex and release it
 * @f: the fixture
 *
 * Always inlined, like the lock and unlock it stands for: lockdep records
 * an acquisition by its call site, and crossrelease tells repeats and
 * keeps stack traces by call site, so each caller must stay a call site
 * of its own.
 */
static __always_inline void
lockdep_kunit_take_m(struct lockdep_kunit_fixture *f)
{
	mutex_lock(&f->m);
	mutex_unlock(&f->m);
}

/**
 * struct lockdep_kunit_kthread - a kthread that runs a step, then idles
 * @step: what the kthread does first, or NULL
 * @data: the argument of @step
 * @task: the kthread, or an ERR_PTR() if it could not be created
 *
 * Started by lockdep_kunit_run_kthread(); must stay in place until
 * lockdep_kunit_stop_kthread().
 */
struct lockdep_kunit_kthread {
	void (*step)(void *data);
	void *data;
	struct task_struct *task;
};

struct task_struct *lockdep_kunit_run_kthread(struct lockdep_kunit_kthread *k,
					      void (*step)(void *data),
					      void *data, const char *name);
int lockdep_kunit_stop_kthread(struct lockdep_kunit_kthread *k);
void lockdep_kunit_idle_until_stopped(void);

#endif /* _LOCKDEP_KUNIT_H */

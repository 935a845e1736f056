#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Small KTAP helpers for the crossrelease kselftests (POSIX sh, busybox).

KSFT_PASS=0
KSFT_FAIL=1
KSFT_SKIP=4

ktap_n=0
ktap_failed=0

ktap_header() {
	echo "TAP version 13"
	echo "1..$1"
}

ktap_ok() {
	ktap_n=$((ktap_n + 1))
	echo "ok $ktap_n $1"
}

ktap_fail() {
	ktap_n=$((ktap_n + 1))
	ktap_failed=1
	echo "not ok $ktap_n $1"
}

ktap_skip_all() {
	echo "1..0 # SKIP $1"
	exit $KSFT_SKIP
}

ktap_finish() {
	[ $ktap_failed -eq 0 ] && exit $KSFT_PASS
	exit $KSFT_FAIL
}

# lockdep_stat LABEL: the value (first word) of the /proc/lockdep_stats
# line with that label, e.g. "debug_locks", "crossrelease commits".
# Without LABEL: every line as "label<tab>value<tab>max" (max: the "[max:
# N]" capacity of a table, or empty).
lockdep_stat() {
	awk -v k="${1:-}" '
	{	i = index($0, ":")
		if (!i)
			next
		l = substr($0, 1, i - 1)
		sub(/^ +/, "", l)
		r = substr($0, i + 1)
		split(r, w, " ")
		if (k != "") {
			if (l == k) {
				print w[1]
				exit
			}
			next
		}
		m = ""
		if (match(r, /\[max: *[0-9]+/))
			m = substr(r, RSTART + 5, RLENGTH - 5)
		sub(/^ +/, "", m)
		print l "\t" w[1] "\t" m
	}' /proc/lockdep_stats
}

# scenario_cmd NAME: the shell command that plays a scenario of the
# test_crossrelease module: NAME written to its "run" file; then, for a
# scenario played over several system calls of one process (userret_quiet),
# its "next" file opened (which plays the next part, in a system call that
# holds no lock) while reading it gives NAME.  Run it as a process of its
# own:  sh -c "$(scenario_cmd NAME)"
scenario_cmd() {
	d=/sys/kernel/debug/test_crossrelease
	echo "echo $1 > $d/run && while read -r p < $d/next && [ \"\$p\" = $1 ]; do :; done"
}

# Lockdep reports once per boot: a test that needs it on must find it on.
require_lockdep_on() {
	[ -r /proc/lockdep_stats ] || ktap_skip_all "no /proc/lockdep_stats (CONFIG_PROVE_LOCKING)"
	[ "$(lockdep_stat "crossrelease tracking")" = on ] ||
		ktap_skip_all "crossrelease tracking is off"
	[ "$(lockdep_stat debug_locks)" = 1 ] ||
		ktap_skip_all "lockdep already off (an earlier report)"
}

check_lockdep_on() {
	if [ "$(lockdep_stat debug_locks)" = 1 ]; then
		ktap_ok "$1"
	else
		ktap_fail "$1"
	fi
}

# The lockdep report headlines, all of which start with these words.
report_re='WARNING: possible|WARNING: inconsistent|WARNING: bad unlock'
report_re="$report_re|WARNING: held lock|BUG: MAX_LOCK|INFO: trying to register"
report_re="$report_re|WARNING: suspicious RCU|WARNING: lock held"
# Any warning or crash, lockdep's reports, KASAN's and WARN()'s included.
crash_re='WARNING:|BUG:|Oops:|general protection fault|Kernel panic'

check_no_report_since() {
	if dmesg | tail -n +"$(($1 + 1))" | grep -E "$report_re"; then
		ktap_fail "$2"
	else
		ktap_ok "$2"
	fi
}

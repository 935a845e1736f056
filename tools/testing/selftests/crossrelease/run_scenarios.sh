#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The deadlock scenarios of the test_crossrelease module, checked the way
# a person would check them.  A scenario that closes a cycle must leave
#   - a "WARNING: possible circular locking dependency detected" report
#     in dmesg that names the scenario's classes, and for a crosslock
#     "... is releasing crosslock";
#   - the dependency it learned first in /proc/lockdep: the class line
#     followed by " -> [addr] <class>".
# Its quiet twin (same contexts and locks, ordered so that no deadlock is
# possible, classes of its own) must leave no report, debug_locks 1 in
# /proc/lockdep_stats, and the dependency it did learn in /proc/lockdep.
#
# Lockdep reports only once per boot and then switches itself off, so
# one boot can hold every quiet scenario but only one that reports:
#   run_scenarios.sh               every quiet scenario; each scenario that
#                                  expects a report is listed as SKIP "runs
#                                  in a boot of its own", unless the kernel
#                                  command line has xr.scenario=NAME: then
#                                  only NAME runs.
#   run_scenarios.sh NAME...       the named scenarios, in order.
# The workbench's make test (scripts/test.sh) boots once more per listed
# scenario with xr.scenario=NAME.  Page locks are checked only if the
# module's "features" file says the kernel tracks them; a completion
# scenario without its report fails.  Output is KTAP, one subtest per
# scenario; exit 0 on pass, 1 on failure, 4 (KSFT_SKIP) if the kernel
# lacks lockdep or the module.

set -f	# class names such as "(PG_locked)*" are split, never globbed
cd "$(dirname "$0")" || exit 1
. ./ktap_helpers.sh

dbg=/sys/kernel/debug/test_crossrelease
circular="WARNING: possible circular locking dependency detected"

# name, expected outcome, feature needed, dependency "from" and "to"
# (a trailing '*' matches any class name that starts with the rest)
table() {
	cat <<-EOF
	abba          report lockdep     xr_abba_a                xr_abba_b
	abba_quiet    quiet  lockdep     xr_abba_quiet_a          xr_abba_quiet_b
	seed1         report pagelock    &xr_seed1.mutex          (PG_locked)*
	seed1_quiet   quiet  pagelock    &xr_seed1_quiet.mutex    (PG_locked)*
	seed2         report pagelock    &xr_seed2.mutex          (PG_locked)*
	seed2_quiet   quiet  pagelock    (PG_locked)*             &xr_seed2_quiet.mutex
	seed3         report completions &xr_demo.mutex           (complete)&xr_demo.done
	seed3_quiet   quiet  completions (complete)&xr_quiet.done &xr_quiet.mutex
	article       report pagelock    &xr_article.mutex        (PG_locked)*
	article_quiet quiet  pagelock    (PG_locked)*             &xr_article_quiet.mutex
	EOF
}

# Is there a class line "... : <from>" followed by " -> [...] <to>"?
has_edge() {
	awk -v from="$1" -v to="$2" '
	function is(name, want) {
		sub(/\/[0-9]+$/, "", name)	# subclass
		sub(/#[0-9]+$/, "", name)	# name version
		if (want ~ /\*$/)
			return index(name, substr(want, 1, length(want) - 1)) == 1
		return name == want
	}
	/^[^ ]/ {
		name = $0
		sub(/^.* [^ ]*: /, "", name)
		in_from = is(name, from)
		next
	}
	in_from && /^ -> / {
		name = $0
		sub(/^ -> \[[^]]*\] /, "", name)
		if (is(name, to))
			found = 1
	}
	END { exit !found }' /proc/lockdep
}

# Completions are required (see config): their checks never skip.  Page
# locks are checked only once the kernel tracks them.
feature() {
	[ "$1" != pagelock ] && return 0
	[ "$(awk -v k="$1" '$1 == k { print $2 }' $dbg/features)" = 1 ]
}

# sub-test helpers: "ok N <scenario>: <what was checked>"
t_n=0
t_failed=0
t_ok() { t_n=$((t_n + 1)); echo "    ok $t_n $name: $1"; }
t_fail() { t_n=$((t_n + 1)); t_failed=1; echo "    not ok $t_n $name: $1"; }
t_skip() { t_n=$((t_n + 1)); echo "    ok $t_n $name: $1 # SKIP $2"; }
t_check() { # <what> <command...>
	what=$1
	shift
	if "$@"; then t_ok "$what"; else t_fail "$what"; fi
}

report_has() { # <text>: in the kernel log since the scenario started
	dmesg | tail -n +"$((mark + 1))" | grep -qF -- "$1"
}

no_report() {
	found=$(dmesg | tail -n +"$((mark + 1))" | grep -E "$report_re")
	[ -z "$found" ] && return 0
	echo "$found" | sed 's/^/    # found: /'
	return 1
}

report_names() { report_has "$cls_from" && report_has "$cls_to"; }

lockdep_on() { [ "$(lockdep_stat debug_locks)" = 1 ]; }

# run_one <name> <report|quiet> <feature> <from> <to>
run_one() {
	name=$1 expect=$2 feat=$3 from=$4 to=$5
	t_n=0
	t_failed=0
	echo "    # Subtest: $name"
	if [ "$expect" = report ]; then
		echo "    1..6"
	else
		echo "    1..5"
	fi
	why=
	feature "$feat" || why="$feat not tracked by this kernel ($dbg/features)"
	if ! lockdep_on; then
		t_fail "lockdep on before the run (debug_locks 1 in /proc/lockdep_stats)"
		why="lockdep was off before the run"
	else
		t_ok "lockdep on before the run (debug_locks 1 in /proc/lockdep_stats)"
	fi
	mark=$(dmesg | wc -l)
	# a process of its own: it exits with whatever lockdep thinks it holds
	t_check "scenario ran to its end (echo $name > $dbg/run)" \
		sh -c "echo $name > $dbg/run"
	cls_from=${from%\*}
	cls_to=${to%\*}
	if [ "$expect" = report ]; then
		for what in "dmesg has '$circular'" \
			    "the report names $cls_from and $cls_to" \
			    "the report is closed by a release: 'is releasing crosslock'"; do
			if [ -n "$why" ]; then
				t_skip "$what" "$why"
				continue
			fi
			case $what in
			dmesg*)
				t_check "$what" report_has "$circular" ;;
			*names*)
				t_check "$what" report_names ;;
			*)
				if [ "$feat" = lockdep ]; then
					t_skip "$what" "a plain ABBA, no crosslock"
				else
					t_check "$what" report_has "is releasing crosslock"
				fi ;;
			esac
		done
	else
		t_check "no lockdep report in dmesg" no_report
		t_check "lockdep still on (debug_locks 1 in /proc/lockdep_stats)" lockdep_on
	fi
	what="/proc/lockdep has the dependency $from -> $to"
	if [ -n "$why" ]; then
		t_skip "$what" "$why"
	else
		t_check "$what" has_edge "$from" "$to"
	fi
	ktap_n=$((ktap_n + 1))
	if [ $t_failed = 0 ]; then
		echo "ok $ktap_n $name"
	else
		ktap_failed=1
		echo "not ok $ktap_n $name"
	fi
}

if [ ! -r /proc/lockdep ] || [ ! -r /proc/lockdep_stats ]; then
	ktap_skip_all "no /proc/lockdep (CONFIG_PROVE_LOCKING=y needed)"
fi
if [ ! -w $dbg/run ] && ! modprobe test_crossrelease 2>/dev/null; then
	ktap_skip_all "no test_crossrelease module (CONFIG_TEST_CROSSRELEASE=m)"
fi
if grep -q "crossrelease tracking: *off" /proc/lockdep_stats; then
	ktap_skip_all "crossrelease tracking is off (crossrelease=off)"
fi

only=$*
if [ -z "$only" ]; then
	for arg in $(cat /proc/cmdline); do
		case $arg in xr.scenario=*) only=${arg#xr.scenario=} ;; esac
	done
fi

if [ -n "$only" ]; then
	for s in $only; do
		table | grep -q "^$s " ||
			ktap_skip_all "unknown scenario '$s' (see table in $0)"
	done
	ktap_header "$(echo "$only" | wc -w)"
else
	ktap_header "$(table | wc -l)"
fi
echo "# tracked by this kernel: $(tr '\n' ' ' < $dbg/features)($dbg/features)"

if [ -n "$only" ]; then
	for s in $only; do
		# shellcheck disable=SC2046 # five words, never globbed (set -f)
		run_one $(table | grep "^$s ") < /dev/null
	done
else
	while read -r s expect rest; do
		if [ "$expect" = report ]; then
			ktap_n=$((ktap_n + 1))
			echo "ok $ktap_n $s # SKIP expects a lockdep report: runs in a boot of its own (xr.scenario=$s)"
		else
			# shellcheck disable=SC2086 # three words
			run_one "$s" "$expect" $rest < /dev/null
		fi
	done <<-EOF
	$(table)
	EOF
fi
ktap_finish

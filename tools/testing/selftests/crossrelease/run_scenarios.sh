#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The deadlock scenarios of the test_crossrelease module, checked the way
# a person would check them.  The scenarios, and what each must show, are
# listed in the file "scenarios" next to this script.  A scenario that
# closes a cycle through a crosslock must leave
#   - a "WARNING: possible circular locking dependency detected" report
#     in dmesg that names the scenario's classes and, "... is releasing
#     crosslock", the release that closed it;
#   - lockdep on: the report says "dependency added, lockdep stays
#     on" and debug_locks is still 1 in /proc/lockdep_stats;
#   - the dependency it learned first in /proc/lockdep: the class line
#     followed by " -> [addr] <class>".
# Its quiet twin (same contexts and locks, ordered so that no deadlock is
# possible, classes of its own) must leave no report, debug_locks 1, and
# the dependency it did learn in /proc/lockdep.
#
#   run_scenarios.sh          every scenario but those marked "alone", in
#                             the order of the file: crossrelease reports
#                             leave lockdep on, so one run checks them all
#   run_scenarios.sh NAME...  the named scenarios, in order; a scenario
#                             marked "alone" (a plain lockdep report, which
#                             switches lockdep off) runs only this way
#
# Folio locks, writeback and buffer locks are checked only if the module's
# "features" file says the kernel tracks them; a completion scenario
# without its report fails.
# Output is KTAP, one subtest per scenario; exit 0 on pass, 1 on failure,
# 4 (KSFT_SKIP) if the kernel lacks lockdep or the module.

set -f	# class names such as "(PG_locked)*" are split, never globbed
cd "$(dirname "$0")" || exit 1
. ./ktap_helpers.sh

dbg=/sys/kernel/debug/test_crossrelease
circular="WARNING: possible circular locking dependency detected"
went_on="dependency added, lockdep stays on"

# name, expected outcome, feature needed, dependency "from" and "to"
table() {
	grep -v -e '^#' -e '^[[:space:]]*$' scenarios | awk '{ print $1, $2, $3, $4, $5 }'
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

# Completions are required (see config) and plain lockdep is always there:
# their checks never skip.  The other kinds are checked only once the
# kernel tracks them.
feature() {
	case $1 in
	completions|lockdep) return 0 ;;
	esac
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

went_on() { report_has "$went_on" && lockdep_on; }

# run_one <name> <report|wait|quiet|alone> <feature> <from> <to>
run_one() {
	name=$1 expect=$2 feat=$3 from=$4 to=$5
	t_n=0
	t_failed=0
	echo "    # Subtest: $name"
	if [ "$expect" = quiet ]; then
		echo "    1..5"
	else
		echo "    1..7"
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
	t_check "scenario ran to its end (echo $name > $dbg/run; dmesg has 'scenario $name: end (0)')" \
		sh -c "$(scenario_cmd "$name") && dmesg | tail -n +$((mark + 1)) | grep -qF 'scenario $name: end (0)'"
	cls_from=${from%\*}
	cls_to=${to%\*}
	if [ "$expect" != quiet ]; then
		closed="by a release: 'is releasing crosslock'"
		[ "$expect" = wait ] && closed="by a wait: 'is trying to acquire lock'"
		for what in "dmesg has '$circular'" \
			    "the report names $cls_from and $cls_to" \
			    "the report is closed $closed" \
			    "lockdep went on: '$went_on', debug_locks 1"; do
			if [ -n "$why" ]; then
				t_skip "$what" "$why"
				continue
			fi
			case $what in
			dmesg*)
				t_check "$what" report_has "$circular" ;;
			*names*)
				t_check "$what" report_names ;;
			*closed*)
				if [ "$feat" = lockdep ]; then
					t_skip "$what" "a plain ABBA, no crosslock"
				elif [ "$expect" = wait ]; then
					t_check "$what" report_has "is trying to acquire lock"
				else
					t_check "$what" report_has "is releasing crosslock"
				fi ;;
			*)
				if [ "$expect" = alone ]; then
					t_skip "$what" "a plain lockdep report switches lockdep off"
				else
					t_check "$what" went_on
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
if [ "$(lockdep_stat "crossrelease tracking")" = off ]; then
	ktap_skip_all "crossrelease tracking is off (crossrelease=off)"
fi

only=$*
if [ -n "$only" ]; then
	for s in $only; do
		table | grep -q "^$s " ||
			ktap_skip_all "unknown scenario '$s' (see the file scenarios)"
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
		if [ "$expect" = alone ]; then
			ktap_n=$((ktap_n + 1))
			echo "ok $ktap_n $s # SKIP switches lockdep off: run_scenarios.sh $s"
		else
			# shellcheck disable=SC2086 # three words
			run_one "$s" "$expect" $rest < /dev/null
		fi
	done <<-EOF
	$(table)
	EOF
fi
ktap_finish

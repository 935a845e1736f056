#!/bin/sh
# The workbench's guest library, sourced by guest/*.sh (as /xr/lib.sh)
# and, for its report matchers, by the host's scripts (common.sh: xr_lib).
#
# The one protocol: every guest script prints one KTAP document ("KTAP
# version 1", the plan "1..N", "ok N name" or "not ok N name", a script
# it runs nested four spaces deeper as a subtest).  A figure is a KTAP
# diagnostic line right before the result it belongs to:
#     # KEY: VALUE [NAME=VALUE ...]
# KEY is text without ':', VALUE's first word is the figure, a list is
# comma-separated (e.g. "# fs_ms: 5950 n=5 chunks=1380,1270,1190,1130,1010").
# scripts/ktap.py reads the results and the figures.
#
# Built on the kselftests' ktap_helpers.sh, which stays self-contained for
# run_kselftest.sh: ktap_ok, ktap_fail, ktap_finish, lockdep_stat (the one
# /proc/lockdep_stats reader), report_re (lockdep's report headlines) and
# crash_re (any warning or crash).  Needs busybox ash or bash (local,
# pipefail).
XR_KSFT=${XR_KSFT:-/xr/kselftest/crossrelease}
. "$XR_KSFT/ktap_helpers.sh"

# The other matchers: WARN() splats and crashes, not lockdep's reports;
# hung tasks and RCU stalls; OOM kills; lockdep reports that print a
# dependency chain (make bugs reads the chain).
warn_re="WARNING: CPU|${crash_re#WARNING:|}"
hung_re='INFO: task .* blocked|INFO: rcu.* stall'
oom_re='Killed process'
chain_re='WARNING: (possible circular locking dependency|possible recursive locking|inconsistent lock state|possible irq lock inversion)'

# ktap_begin N: a KTAP document of N results
ktap_begin() {
	ktap_n=0
	ktap_failed=0
	echo "KTAP version 1"
	echo "1..$1"
}

# ktap_status STATUS NAME: the result of NAME from an exit status
# (0: ok, 4: ok # SKIP, else not ok)
ktap_status() {
	case $1 in
	0) ktap_ok "$2" ;;
	4) ktap_ok "$2 # SKIP" ;;
	*) ktap_fail "$2" ;;
	esac
}

# ktap_check NAME COMMAND...: ok if COMMAND succeeds (its output dropped)
ktap_check() {
	local name=$1
	shift
	"$@" > /dev/null 2>&1
	ktap_status $? "$name"
}

# ktap_nest NAME COMMAND...: COMMAND's KTAP document as subtest NAME, four
# spaces deeper; returns COMMAND's exit status (print the result after)
ktap_nest() {
	echo "    # Subtest: $1"
	shift
	(set -o pipefail; "$@" | sed 's/^/    /')
}

# figure KEY VALUE...: one figure
figure() {
	local key=$1
	shift
	echo "# $key: $*"
}

# stat_figures PREFIX [WORD...]: the /proc/lockdep_stats lines (those whose
# label holds one of the WORDs) as figures "PREFIX.<label>: <value>[
# max=<capacity>]".  It starts no process but lockdep_stat's awk: what the
# guest does counts in the lockdep tables that bench.sh reads after it.
stat_figures() {
	local p=$1 l v m w keep
	shift
	while IFS='	' read -r l v m; do
		keep=$((!$#))
		for w; do
			case $l in *"$w"*) keep=1 ;; esac
		done
		[ $keep = 0 ] || echo "# $p.$l: $v${m:+ max=$m}"
	done <<-EOF
	$(lockdep_stat 2>/dev/null)
	EOF
}

# boot_verdict REPORTS: the boot's figures (lockdep's tables and counters,
# the REPORTS found in dmesg) and the test "no report, lockdep on"
boot_verdict() {
	local dl

	stat_figures lockdep debug_locks crossrelease lock-classes \
		"direct dependencies" "dependency chains" "stack-trace entries"
	dl=$(lockdep_stat debug_locks)
	figure reports "$1"
	figure debug_locks "$dl"
	figure tracking "$(lockdep_stat "crossrelease tracking")"
	figure commits "$(lockdep_stat "crossrelease commits")"
	figure deps_added "$(lockdep_stat "crossrelease deps added")"
	figure misuse "$(lockdep_stat "crossrelease misuse warnings")"
	if [ "$1" = 0 ] && [ "$dl" = 1 ]; then
		ktap_ok "no report, lockdep on"
	else
		ktap_fail "no report, lockdep on"
	fi
}

# dmesg_mark: where the kernel log ends now; since MARK: the lines after
# it; count_since MARK ERE: how many of them match
dmesg_mark() { dmesg | wc -l; }
since() { dmesg | tail -n +"$(($1 + 1))"; }
count_since() { since "$1" | grep -cE "$2"; }

# kernel_arg VAR NAME DEFAULT: VAR set to the value of NAME= on the kernel
# command line, or to DEFAULT
kernel_arg() {
	local v=$3 a line
	read -r line < /proc/cmdline
	for a in $line; do
		case $a in "$2"=*) v=${a#*=} ;; esac
	done
	eval "$1=\$v"
}

#!/usr/bin/env bash
# make bench: boot three kernels, interleaved, ROUNDS times each, run
# guest/bench.sh in each boot and print one table of medians:
#   plain   lockdep without crossrelease (build/out-plain)
#   xr-off  the crossrelease kernel booted with crossrelease=off
#   xr-on   the crossrelease kernel, tracking on
# then each once more with "-icount shift=0" on one vCPU, where the guest
# clock counts instructions (labels icount-*; BENCH_ICOUNT=0: not).
# KUnit is switched off (kunit.enable=0) so all boot the same way.  The
# kernel build lock is held while measuring, so that no build on this
# machine competes with the measurements (BENCH_LOCK=0: don't).
#   bench.sh [all|kernel|run|table] [extra kernel args...]   (default: all)
# Env: ROUNDS (default 5).  Boots and table through scripts/runs.sh: raw
# guest logs in build/bench/raw/, the table in build/bench/table.md
# (scripts/bench-table.py).
set -euo pipefail
. "$(dirname "$0")/common.sh"
STEP=all
case ${1:-} in all|kernel|run|table) STEP=$1; shift ;; esac
ROUNDS=${ROUNDS:-5}
RUNS=$BUILD/bench
. "$ROOT/scripts/runs.sh"
# progress: the guest's results and figures, not its lockdep_stats lines
RUNS_SHOW='^ *(not )?ok |^# [a-z_0-9]+:'

kernel() {
	runs_kernel plain
	runs_kernel xr
}

boot() { # <label> <variant> [args...]
	local label=$1 v=$2; shift 2
	runs_boot "$label-$r" "$v" /xr/bench.sh kunit.enable=0 "$@" || true
	python3 "$ROOT/scripts/ktap.py" --figure=guest_ms "$RUNS/raw/$label-$r.log" > /dev/null ||
		die "bench: $label round $r did not finish, see $RUNS/raw/$label-$r.log"
	# the benchmarks are correct code: a lockdep report there is a false one
	python3 "$ROOT/scripts/ktap.py" "$RUNS/raw/$label-$r.log" > /dev/null ||
		warn "bench: $label round $r: a result is not ok (a lockdep report?), see $RUNS/raw/$label-$r.log"
}

run() {
	rm -f "$RUNS"/raw/*.log
	if [ "${BENCH_LOCK:-1}" = 1 ]; then
		exec 9>"$KLOCK"
		say "bench: waiting for $KLOCK (no kernel builds while measuring)"; flock 9
	fi
	for r in $(seq 1 "$ROUNDS"); do
		say "bench: round $r/$ROUNDS: plain"
		boot plain plain "$@"
		say "bench: round $r/$ROUNDS: xr-off (crossrelease=off)"
		boot xr-off xr crossrelease=off "$@"
		say "bench: round $r/$ROUNDS: xr-on"
		boot xr-on xr "$@"
	done
	[ "${BENCH_ICOUNT:-1}" = 1 ] || return 0
	# Instructions, not time: with "-icount shift=0" QEMU advances the
	# guest's clock by 1 ns per instruction executed, so on one vCPU the
	# ns/pair of the microbenchmarks count instructions, free of host load
	# and of how TCG translates a particular code layout.  Deterministic:
	# one boot each.
	local XR_QEMU_ARGS="-smp 1 -icount shift=0,sleep=on"
	export XR_QEMU_ARGS
	r=1
	say "bench: instruction counts (qemu $XR_QEMU_ARGS): plain, xr-off, xr-on"
	boot icount-plain plain "$@"
	boot icount-xr-off xr crossrelease=off "$@"
	boot icount-xr-on xr "$@"
}

table() {
	say "bench: table of medians over $ROUNDS rounds -> $RUNS/table.md"
	runs_table bench-table.py --rounds "$ROUNDS" \
		--vmlinux "plain=$BUILD/out-plain/vmlinux" --vmlinux "xr=$BUILD/out-xr/vmlinux"
}

case $STEP in
all)   kernel; run "$@"; table ;;
kernel) kernel ;;
run)   run "$@" ;;
table) table ;;
esac

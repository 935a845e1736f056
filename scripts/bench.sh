#!/usr/bin/env bash
# make bench: boot three kernels, interleaved, ROUNDS times each, run
# guest/bench.sh in each boot and print one table of medians:
#   plain   lockdep without crossrelease (build/out-plain)
#   xr-off  the crossrelease kernel booted with crossrelease=off
#   xr-on   the crossrelease kernel, tracking on
# then each once more with "-icount shift=0" on one vCPU, where the guest
# clock counts instructions (labels icount-*).
# KUnit is switched off (kunit.enable=0) so all boot the same way.  The
# kernel build lock is held throughout, so that no build on this machine
# competes with the measurements (BENCH_LOCK=0: don't).
#   bench.sh [extra kernel args...]     env: ROUNDS (default 5)
# Output: build/bench/table.md; raw guest logs in build/bench/raw/.
set -euo pipefail
. "$(dirname "$0")/common.sh"
ROUNDS=${ROUNDS:-5}
OUTD=$BUILD/bench
mkdir -p "$OUTD/raw"
rm -f "$OUTD"/raw/*.log
if [ "${BENCH_LOCK:-1}" = 1 ]; then
	exec 9>"$KLOCK"
	say "bench: waiting for $KLOCK (no kernel builds while measuring)"; flock 9
fi

boot() { # boot <label> <variant> [args...]
	local label=$1 v=$2 t0 t1; shift 2
	t0=$(date +%s%N)
	echo "BENCH host_load $(cut -d' ' -f1 /proc/loadavg)" > "$OUTD/raw/.load"
	XR_QEMU_ARGS="${QARGS:-}" bash "$ROOT/scripts/boot.sh" -q "$v" /xr/bench.sh kunit.enable=0 "$@" |
		grep '^BENCH ' | grep -v ' LOCKDEP ' || true
	t1=$(date +%s%N)
	cp "$BUILD/logs/$v-bench.sh.log" "$OUTD/raw/$label-$r.log"
	{ echo "BENCH host_ms $(( (t1 - t0) / 1000000 ))"; cat "$OUTD/raw/.load"; } >> "$OUTD/raw/$label-$r.log"
	grep -q '^BENCH guest_ms' "$OUTD/raw/$label-$r.log" || die "bench: $label round $r did not finish, see $OUTD/raw/$label-$r.log"
}

for r in $(seq 1 "$ROUNDS"); do
	say "bench: round $r/$ROUNDS: plain"
	boot plain plain "$@"
	say "bench: round $r/$ROUNDS: xr-off (crossrelease=off)"
	boot xr-off xr crossrelease=off "$@"
	say "bench: round $r/$ROUNDS: xr-on"
	boot xr-on xr "$@"
done

# Instructions, not time: with "-icount shift=0" QEMU advances the guest's
# clock by 1 ns per instruction executed, so on one vCPU the ns/pair of
# the microbenchmarks count instructions, free of host load and of how
# TCG translates a particular code layout.  Deterministic: one boot each.
QARGS="-smp 1 -icount shift=0,sleep=on"
r=1
say "bench: instruction counts (qemu $QARGS): plain, xr-off, xr-on"
boot icount-plain plain "$@"
boot icount-xr-off xr crossrelease=off "$@"
boot icount-xr-on xr "$@"
unset QARGS

say "bench: table of medians over $ROUNDS rounds -> $OUTD/table.md"
python3 "$ROOT/scripts/bench-table.py" --rounds "$ROUNDS" \
	--vmlinux "plain=$BUILD/out-plain/vmlinux" --vmlinux "xr=$BUILD/out-xr/vmlinux" \
	"$OUTD/raw" > "$OUTD/table.md"
cat "$OUTD/table.md"

#!/usr/bin/env bash
# Where crossrelease's instructions go: boot the plain and the xr kernel of
# make bench on one vCPU (-icount) with a QEMU plugin that counts the instructions of
# every kernel translation block (scripts/insns-plugin.c), run make bench's
# file-system workload alone, and tabulate per function what grew
# (scripts/insns.py) into build/insns/table.md.  Exact and deterministic,
# unlike a sampling profile, which lockdep's interrupts-off sections blur.
#   insns.sh [extra kernel args, e.g. xr.fsrounds=5 lockdep_writeback=off]
# Needs the kernels and initramfs of make bench (scripts/bench.sh kernel).
set -euo pipefail
. "$(dirname "$0")/common.sh"
OUT=$BUILD/insns
mkdir -p "$OUT"
say "insns: building the QEMU plugin -> $OUT/insns-plugin.so"
gcc -O2 -shared -fPIC -o "$OUT/insns-plugin.so" "$ROOT/scripts/insns-plugin.c"
# make bench's guest script with only the file-system rows left in
ARGS=(kunit.enable=0 xr.forks=0 xr.files=0 xr.reps=1 xr.ops=10 xr.fsrounds=10 "$@")
for v in plain xr; do
	say "insns: booting $v (${ARGS[*]})"
	INSNS_OUT=$OUT/$v.out XR_QEMU_ARGS="-smp 1 -icount shift=0,sleep=on -plugin $OUT/insns-plugin.so" \
		XR_LOG_NAME=insns-$v bash "$ROOT/scripts/boot.sh" -q "$v" /xr/bench.sh "${ARGS[@]}" |
		grep -E '^(not )?ok ' || true
	[ -s "$OUT/$v.out" ] || die "insns: the $v boot wrote no counts"
done
say "insns: per function -> $OUT/table.md"
python3 "$ROOT/scripts/insns.py" "$OUT/plain.out" "$OUTROOT/out-plain/vmlinux" \
	"$OUT/xr.out" "$OUTROOT/out-xr/vmlinux" > "$OUT/table.md"
cat "$OUT/table.md"

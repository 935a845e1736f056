#!/usr/bin/env bash
# Boot a variant in QEMU (TCG, no KVM) with the initramfs; ARCH=arm64 boots
# build/out-<variant>-arm64 on qemu-system-aarch64's "virt" machine.
#   boot.sh [-q] <variant> <run> [extra kernel args...]
#   run: demo | test | shell | /path/in/guest/script
#   -q: print only the guest's run output (from XR-BEGIN), full log kept
# Log: build/logs/<variant>[-arm64]-<run>.log (also build/logs/last.log).
# Optional environment: XR_TIMEOUT (s, default 900), XR_MEM (default 1G),
# XR_QEMU_ARGS (extra QEMU arguments, e.g. -drive ...), XR_LOG_NAME (log
# file name without .log, default <variant>-<run>).
set -euo pipefail
. "$(dirname "$0")/common.sh"
QUIET=0; [ "${1:-}" = -q ] && { QUIET=1; shift; }
V=${1:-xr}; RUN=${2:-demo}; shift $(( $# >= 2 ? 2 : $# ))
KERNEL=$OUTROOT/out-$V$ASUF/$KIMAGE
INITRD=$OUTROOT/initramfs-$V$ASUF.cpio
[ -f "$KERNEL" ] && [ -f "$INITRD" ] || die "build kernel and initramfs for $V first"
mkdir -p "$BUILD/logs"
LOG=$BUILD/logs/${XR_LOG_NAME:-$V$ASUF-$(basename "$RUN")}.log
TMO=${XR_TIMEOUT:-900}
MEM=${XR_MEM:-1G}
read -r -a QARGS <<<"${XR_QEMU_ARGS:-}"
# log_buf_len: the guest scripts slice dmesg by line count (guest/lib.sh,
# dmesg_mark), which holds only while the kernel log has not wrapped: the
# KUnit suites alone print more reports than the default buffer keeps.
APPEND="console=$CONSOLE panic=-1 log_buf_len=8M xr.run=$RUN $*"
say "boot[$V$ASUF]: ${QEMU[0]} TCG, 2 vCPUs, $MEM, timeout ${TMO}s, log $LOG"
[ ${#QARGS[@]} = 0 ] || say "boot[$V$ASUF]: qemu args: ${QARGS[*]}"
say "boot[$V$ASUF]: cmdline: $APPEND"
filter() { if [ $QUIET = 1 ]; then sed -u -n '/XR-BEGIN/,$p'; else cat; fi; }
# interactive only for the shell; otherwise never read the caller's stdin
if [ "$RUN" = shell ]; then exec 3<&0; else exec 3</dev/null; fi
timeout --foreground -k 10 "$TMO" "${QEMU[@]}" -smp 2 -m "$MEM" \
	-nographic -no-reboot -kernel "$KERNEL" -initrd "$INITRD" -append "$APPEND" ${QARGS[@]+"${QARGS[@]}"} \
	<&3 2>&1 | tr -d '\r' | tee "$LOG" | filter || true
ln -sf "$(basename "$LOG")" "$BUILD/logs/last.log"
grep -q "XR-END" "$LOG" || { warn "guest did not reach XR-END (timeout or crash), see $LOG"; exit 1; }
say "boot[$V$ASUF]: finished: $(grep -m1 XR-END "$LOG")"

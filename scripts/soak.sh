#!/usr/bin/env bash
# make soak: a false-positive hunt for crossrelease on a distro-class
# kernel.  Builds the "soak" variant (x86_64 defconfig + kvm_guest.config
# + configs/soak.config), an initramfs with stress-ng, fio, mkfs.xfs,
# mkfs.btrfs, cryptsetup and mdadm, boots it (QEMU TCG, 2 vCPUs, 2G, three
# virtio disks) running guest/soak.sh with crossrelease on, then once
# more with crossrelease=off as a control (shorter), and prints a table
# (scripts/soak-table.py, through scripts/runs.sh: raw logs in
# build/soak/raw/, the table in build/soak/table.md).  Fails if the "on"
# run had a report that is not of a real deadlock known to be in the base
# (bugs/*/ with STILL=yes), debug_locks != 1 or no commit.
#   soak.sh [all|deps|kernel|initramfs|run]     (default: all; kernel: the
#   kernel and its initramfs)
# Env: SOAK_SCALE (% of the guest's step durations, default 100),
#      SOAK_OFF_SCALE (control run, default 30), SOAK_ONLY (guest steps,
#      comma-separated), SOAK_MEM (default 2G), SOAK_TIMEOUT (s, 3600),
#      SOAK_RUNS ("on off"; e.g. "off" re-runs only the control, the table
#      then reads the other run's log as it is; "none": table only).
set -euo pipefail
. "$(dirname "$0")/common.sh"
xr_lib		# crash_re, hung_re, oom_re
V=soak
SD=$BUILD/soak
RUNS=$SD
. "$ROOT/scripts/runs.sh"
PKGS=(stress-ng fio xfsprogs btrfs-progs cryptsetup-bin mdadm dmsetup)
BINS=(stress-ng fio mkfs.xfs mkfs.btrfs btrfs cryptsetup mdadm dmsetup)
STEP=${1:-all}
mkdir -p "$SD"

deps() {
	local missing=() p
	for p in "${PKGS[@]}"; do
		[ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" = "install ok installed" ] || missing+=("$p")
	done
	if [ ${#missing[@]} = 0 ]; then say "soak: packages present (${PKGS[*]})"; return; fi
	[ "$(id -u)" = 0 ] && SUDO="" || SUDO=sudo
	say "soak: apt-get update; installing ${missing[*]}"
	$SUDO apt-get update -q
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
}

# the kernel and its initramfs, with the binaries the steps need
kernel() {
	local t0=$SECONDS
	XR_EXTRA_BINS="${BINS[*]}" runs_kernel $V
	say "soak: kernel and initramfs took $(( (SECONDS - t0) / 60 ))m$(( (SECONDS - t0) % 60 ))s"
}

initramfs() {
	XR_EXTRA_BINS="${BINS[*]}" bash "$ROOT/scripts/initramfs.sh" $V
}

# boot NAME SCALE [kernel args...]: fresh sparse disks, one QEMU boot
boot() {
	local name=$1 scale=$2 d drives="" t0=$SECONDS rc=0; shift 2
	for d in 0 1 2; do	# vda: ext4 base (loop files, swap file), vdb: xfs, vdc: btrfs
		rm -f "$SD/disk$d.img"; truncate -s "$([ $d = 0 ] && echo 4G || echo 2G)" "$SD/disk$d.img"
		drives+=" -drive file=$SD/disk$d.img,if=virtio,format=raw"
	done
	say "soak: boot '$name' (steps at $scale%) $*"
	XR_MEM=${SOAK_MEM:-2G} XR_TIMEOUT=${SOAK_TIMEOUT:-3600} XR_QEMU_ARGS="$drives" \
		runs_boot "$name" $V /xr/soak.sh soak.scale="$scale" \
		${SOAK_ONLY:+soak.only=$SOAK_ONLY} log_buf_len=8M watchdog_thresh=60 "$@" || rc=$?
	rm -f "$SD"/disk?.img
	say "soak: boot '$name' done in $(( (SECONDS - t0) / 60 ))m$(( (SECONDS - t0) % 60 ))s (rc=$rc)"
}

# Kernel console lines only ("[  time] ..."), not the guest's echoes.
KLINE='^\[ *[0-9]+\.[0-9]+\] .*'

# the first 60 lines of each report (from the line before its headline)
reports() {
	local n log
	: > "$SD/reports.txt"
	for n in "$@"; do
		log=$SD/raw/$n.log
		[ -f "$log" ] || continue
		{ grep -naE "$KLINE($crash_re)" "$log" || true; } | while IFS=: read -r ln head; do
			printf '==== run %s, log line %s: %s\n' "$n" "$ln" "$head"
			sed -n "$(( ln > 1 ? ln - 1 : 1 )),$(( ln + 58 ))p" "$log"
			echo
		done >> "$SD/reports.txt"
	done
	say "soak: $(grep -c '^==== run' "$SD/reports.txt" || true) report(s) written to $SD/reports.txt"
}

# the real deadlocks still in this base (make bugs' cases with STILL=yes):
# "case<TAB>EXPECT", for the table to tell their reports from false ones
known() {
	local c
	for c in "$ROOT"/bugs/*/; do
		c=$(basename "$c")
		bug_for_base "$c" || continue
		# shellcheck source=/dev/null
		( . "$ROOT/bugs/$c/info"; [ "${STILL:-}" != yes ] || printf '%s\t%s\n' "$c" "$EXPECT" )
	done > "$SD/known.tsv"
}

run() {
	local t0=$SECONDS
	local r
	for r in ${SOAK_RUNS:-on off}; do
		case $r in
		on)  boot on "${SOAK_SCALE:-100}" ;;
		off) boot off "${SOAK_OFF_SCALE:-30}" crossrelease=off ;;
		none) ;;
		*)   die "SOAK_RUNS: unknown run '$r' (on|off|none)" ;;
		esac
	done
	reports on off
	known
	say "soak: the boots took $(( (SECONDS - t0) / 60 ))m$(( (SECONDS - t0) % 60 ))s; logs $SD/raw/{on,off}.log"
	if runs_table soak-table.py --reports-re "$KLINE($crash_re)" --hung-re "$KLINE($hung_re)" \
		--oom-re "$KLINE$oom_re" --reports-txt "$SD/reports.txt" --known "$SD/known.tsv"; then
		say "soak: PASS"
	else
		die "soak: FAIL"
	fi
}

case $STEP in
all)       deps; kernel; run ;;
deps|kernel|initramfs|run) $STEP ;;
*)         die "unknown step '$STEP' (all|deps|kernel|initramfs|run)" ;;
esac

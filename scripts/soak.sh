#!/usr/bin/env bash
# make soak: a false-positive hunt for crossrelease on a distro-class
# kernel.  Builds the "soak" variant (x86_64 defconfig + kvm_guest.config
# + configs/soak.config), an initramfs with stress-ng, fio, mkfs.xfs,
# mkfs.btrfs, cryptsetup and mdadm, boots it (QEMU TCG, 2 vCPUs, 2G, three
# virtio disks) running guest/soak.sh with crossrelease on, then once
# more with crossrelease=off as a control (shorter), and prints a table.
# Fails if the "on" run had any report, debug_locks != 1 or no commit.
#   soak.sh [all|deps|kernel|initramfs|run]     (default: all)
# Env: SOAK_SCALE (% of the guest's step durations, default 100),
#      SOAK_OFF_SCALE (control run, default 30), SOAK_ONLY (guest steps,
#      comma-separated), SOAK_MEM (default 2G), SOAK_TIMEOUT (s, 3600),
#      SOAK_RUNS ("on off"; e.g. "off" re-runs only the control, the table
#      then reads the other run's log as it is; "none": table only).
set -euo pipefail
. "$(dirname "$0")/common.sh"
V=soak
SD=$BUILD/soak
LOGS=$BUILD/logs
PKGS=(stress-ng fio xfsprogs btrfs-progs cryptsetup-bin mdadm dmsetup)
BINS=(stress-ng fio mkfs.xfs mkfs.btrfs btrfs cryptsetup mdadm dmsetup)
STEP=${1:-all}
mkdir -p "$SD" "$LOGS"

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

kernel() {
	local t0=$SECONDS
	bash "$ROOT/scripts/build.sh" $V
	say "soak: kernel build took $(( (SECONDS - t0) / 60 ))m$(( (SECONDS - t0) % 60 ))s"
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
	XR_MEM=${SOAK_MEM:-2G} XR_TIMEOUT=${SOAK_TIMEOUT:-3600} XR_LOG_NAME=soak-$name XR_QEMU_ARGS="$drives" \
		bash "$ROOT/scripts/boot.sh" $V /xr/soak.sh soak.scale="$scale" \
		${SOAK_ONLY:+soak.only=$SOAK_ONLY} log_buf_len=8M watchdog_thresh=60 "$@" || rc=$?
	echo "$(( SECONDS - t0 )) $rc" > "$SD/$name.time"
	rm -f "$SD"/disk?.img
	say "soak: boot '$name' done in $(( (SECONDS - t0) / 60 ))m$(( (SECONDS - t0) % 60 ))s (rc=$rc)"
}

# Kernel console lines only ("[  time] ..."), not the guest's echoes.
HEAD_RE='^\[ *[0-9]+\.[0-9]+\] .*(WARNING:|BUG:|general protection fault|Oops:|Kernel panic)'
INFO_RE='^\[ *[0-9]+\.[0-9]+\] .*(INFO: task .* blocked|INFO: rcu.* stall)'
OOM_RE='^\[ *[0-9]+\.[0-9]+\] .*Killed process'
sstat() { sed -n "s/^SOAK-STAT $2=//p" "$LOGS/soak-$1.log" | tail -1; }

# one table row for run NAME; sets ROW_REPORTS etc.
row() {
	local n=$1 log=$LOGS/soak-$1.log t rc
	[ -f "$log" ] && [ -f "$SD/$n.time" ] || { printf '| %-4s | not run |\n' "$n"; ROW_END=no; return; }
	read -r t rc < "$SD/$n.time"
	ROW_REPORTS=$(grep -caE "$HEAD_RE" "$log" || true)
	ROW_DL=$(sstat "$n" debug_locks); ROW_COMMITS=$(sstat "$n" commits)
	ROW_END=$(grep -q "XR-END" "$log" && echo yes || echo "NO (rc=$rc)")
	printf '| %-4s | %5s | %7s | %11s | %10s | %10s | %6s | %10s | %9s | %s |\n' "$n" \
		"$(awk -v t="$t" 'BEGIN { printf "%.1f", t / 60 }')" "$ROW_REPORTS" "${ROW_DL:-?}" \
		"${ROW_COMMITS:-?}" "$(sstat "$n" deps_added)" "$(sstat "$n" misuse)" \
		"$(grep -caE "$INFO_RE" "$log" || true)" "$(grep -caE "$OOM_RE" "$log" || true)" "$ROW_END"
}

# the first 60 lines of each report (from the line before its headline)
reports() {
	local n log
	: > "$SD/reports.txt"
	for n in "$@"; do
		log=$LOGS/soak-$n.log
		[ -f "$log" ] || continue
		{ grep -naE "$HEAD_RE" "$log" || true; } | while IFS=: read -r ln head; do
			printf '==== run %s, log line %s: %s\n' "$n" "$ln" "$head"
			sed -n "$(( ln > 1 ? ln - 1 : 1 )),$(( ln + 58 ))p" "$log"
			echo
		done >> "$SD/reports.txt"
	done
	say "soak: $(grep -c '^==== run' "$SD/reports.txt" || true) report(s) written to $SD/reports.txt"
}

run() {
	local t0=$SECONDS fail=0
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
	local rep dl commits end
	{
		echo "| run  |   min | reports | debug_locks |    commits | deps added | misuse | hung/stall | OOM kills | XR-END |"
		echo "|------|------:|--------:|------------:|-----------:|-----------:|-------:|-----------:|----------:|--------|"
		row on; rep=$ROW_REPORTS dl=$ROW_DL commits=$ROW_COMMITS end=$ROW_END
		row off
	} > "$SD/table.md"
	cat "$SD/table.md"
	say "soak: the boots took $(( (SECONDS - t0) / 60 ))m$(( (SECONDS - t0) % 60 ))s; logs $LOGS/soak-{on,off}.log"
	[ "$end" = yes ] || { warn "soak: the crossrelease-on run did not reach XR-END"; fail=1; }
	[ "$rep" = 0 ] || { warn "soak: $rep report(s) with crossrelease on (see $SD/reports.txt)"; fail=1; }
	[ "$dl" = 1 ] || { warn "soak: debug_locks is '${dl:-?}' after the crossrelease-on run"; fail=1; }
	[ "${commits:-0}" -gt 0 ] 2>/dev/null || { warn "soak: no crosslock commit in the crossrelease-on run"; fail=1; }
	[ $fail = 0 ] && say "soak: PASS" || die "soak: FAIL"
}

case $STEP in
all)       deps; kernel; initramfs; run ;;
deps|kernel|initramfs|run) $STEP ;;
*)         die "unknown step '$STEP' (all|deps|kernel|initramfs|run)" ;;
esac

#!/bin/sh
# Guest side of "make bench" (scripts/bench.sh boots with
# xr.run=/xr/bench.sh).  Prints "BENCH <key> <value...>" lines:
#   boot_ms          /proc/uptime when this script starts (boot to shell)
#   forkexec_ms      fork+exec loop of a dynamic binary (mke2fs -V)
#   files_ms         create/write/read/delete loop on tmpfs
#                    (both: median of 5 chunks x 5)
#   task_struct_bytes, LOCKDEP <line of /proc/lockdep_stats>
#   fs_ms            xr_filework rounds on ext4 on a loop device (median
#                    of 5 chunks x 5)
#   <benchmark> <ns/op> ... from lib/bench_crossrelease.c
# Sizes can be changed on the kernel command line: xr.forks=, xr.files=,
# xr.reps=, xr.ops=, xr.fsrounds=.
read -r up0 _ < /proc/uptime
ms() { read -r u _ < /proc/uptime; echo $(( ${u%.*} * 1000 + 10 * 1${u#*.} - 1000 )); }
echo "BENCH boot_ms $(( ${up0%.*} * 1000 + 10 * 1${up0#*.} - 1000 ))"
t_start=$(ms)
echo 1 > /proc/sys/kernel/printk	# keep the serial console quiet

forks=60 files=30 reps=15 ops=10000 fsrounds=5
for arg in $(cat /proc/cmdline); do
	case $arg in
	xr.forks=*) forks=${arg#*=} ;;
	xr.files=*) files=${arg#*=} ;;
	xr.reps=*) reps=${arg#*=} ;;
	xr.ops=*) ops=${arg#*=} ;;
	xr.fsrounds=*) fsrounds=${arg#*=} ;;
	esac
done

echo "BENCH reps $reps"
echo "BENCH ops $ops"

# --- workload
forkexec() {
	i=0
	while [ $i -lt "$1" ]; do
		/usr/sbin/mke2fs -V 2>/dev/null
		i=$((i + 1))
	done
}
blk=$(head -c 3072 /dev/zero | tr '\0' x)
files() {	# $1 rounds of: 50 files written, read back, deleted
	i=0
	while [ $i -lt "$1" ]; do
		mkdir /tmp/xb
		j=0
		while [ $j -lt 50 ]; do
			echo "$blk" > /tmp/xb/f$j
			j=$((j + 1))
		done
		cat /tmp/xb/* > /dev/null
		rm -r /tmp/xb
		i=$((i + 1))
	done
}
# K chunks of each, alternating, so that a burst of host load (QEMU TCG
# on a shared machine) hits one chunk: total = median chunk x K.
median() { tr ' ' '\n' | grep . | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
forkexec 5; files 1	# warm the page cache and lockdep's classes
K=5 tfe= tfs=
for c in $(seq $K); do
	t0=$(ms); forkexec $((forks / K)); t1=$(ms); files $((files / K)); t2=$(ms)
	tfe="$tfe $((t1 - t0))"; tfs="$tfs $((t2 - t1))"
done
echo "BENCH forkexec_ms $(( $(echo "$tfe" | median) * K )) n=$((forks / K * K)) chunks=${tfe# }"
echo "BENCH files_ms $(( $(echo "$tfs" | median) * K )) n=$((files / K * K * 50)) chunks=${tfs# }"

# --- memory
echo "BENCH task_struct_bytes $(cat /sys/kernel/slab/task_struct/object_size 2>/dev/null || echo NA)"
echo "BENCH tasks $(ls -d /proc/[0-9]* | wc -l)"
if [ -r /proc/lockdep_stats ]; then
	sed 's/^/BENCH LOCKDEP /' /proc/lockdep_stats
fi
inflight() {
	sed -n 's/^ *crosslocks in flight: *\([0-9]*\)$/\1/p' /proc/lockdep_stats 2>/dev/null | grep . || echo NA
}

# --- file-system throughput: a round of xr_filework writes 4 files of
# 4 MiB, reads them back, maps, truncates and deletes them, then syncs, on
# ext4 on a loop device backed by tmpfs: the page cache, ext4's journal
# and the loop worker, where folio locks are taken and dropped by others.
fw=/xr/kselftest/crossrelease/xr_filework
fsround() { "$fw" files /tmp/xbm >/dev/null && sync; }
fsbench() {
	truncate -s 96M /tmp/xb.img && /usr/sbin/mke2fs -q -F -t ext4 /tmp/xb.img &&
	dev=$(losetup -f) && losetup "$dev" /tmp/xb.img &&
	mkdir -p /tmp/xbm && mount -t ext4 "$dev" /tmp/xbm && fsround || return 1
	tfw=
	for c in $(seq $K); do
		t0=$(ms); i=0
		while [ $i -lt $((fsrounds / K)) ]; do fsround || return 1; i=$((i + 1)); done
		tfw="$tfw $(($(ms) - t0))"
	done
	umount /tmp/xbm && losetup -d "$dev" && rm -f /tmp/xb.img
	echo "BENCH fs_ms $(( $(echo "$tfw" | median) * K )) n=$((fsrounds / K * K)) chunks=${tfw# }"
}
fsbench || echo "BENCH error fs workload failed"

# --- microbenchmarks
if ! modprobe bench_crossrelease reps="$reps" ops="$ops"; then
	echo "BENCH error no bench_crossrelease module"
	exit 1
fi
knob=/sys/kernel/debug/bench_crossrelease/run
bench() {	# bench <command> [<name>]: run one, print its result line
	echo "$1" > $knob || { echo "BENCH error $1 failed"; return 1; }
	r=$(cat $knob)
	[ -z "${2:-}" ] || r="$2 ${r#* }"
	echo "BENCH $r"
}
for d in 1 4 8; do bench "mutex $d"; done
for d in 1 4 8; do bench "spin $d"; done
bench folio
bench completion
for n in 0 1 10 100 1000; do
	echo "hold $n" > $knob || { echo "BENCH error hold $n failed"; continue; }
	echo "BENCH inflight_seen_$n $(inflight)"
	bench "mutex 1" "inflight_$n"
	echo release > $knob
done
# what the in-flight runs wrote and skipped (stats above predate them)
grep -E "commits|deps|not written|overwritten|stacks|reports|debug_locks" /proc/lockdep_stats 2>/dev/null |
	sed 's/^/BENCH LOCKDEP_END /' || true
echo "BENCH guest_ms $(( $(ms) - t_start ))"
rmmod bench_crossrelease

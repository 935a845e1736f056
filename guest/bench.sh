#!/bin/sh
# Guest side of "make bench" (scripts/bench.sh boots with
# xr.run=/xr/bench.sh).  A KTAP document of six results, each after its
# figures (guest/lib.sh):
#   boot to shell    boot_ms: /proc/uptime when this script starts
#   workload         forkexec_ms: fork+exec loop of a dynamic binary (mke2fs
#                    -V); files_ms: create/write/read/delete loop on tmpfs
#                    (both: median of 5 chunks x 5, n=, chunks=)
#   memory           task_struct_bytes, tasks, and every /proc/lockdep_stats
#                    line as "lockdep.<label>: <value>[ max=<capacity>]"
#   file-system throughput  fs_ms: xr_filework rounds on ext4 on a loop
#                    device (median of 5 chunks x 5, timed in microseconds
#                    by "xr_filework now": chunks_us=)
#   microbenchmarks  "<benchmark>: <ns/op> min= max= reps= ops=" from
#                    lib/bench_crossrelease.c, inflight_seen_<N>, the
#                    counters again as "lockdep_end.<label>", guest_ms
#   no lockdep report  all of the above is correct code: a report is a
#                    false one (its headlines as diagnostics).  The console
#                    is kept quiet, so this is where it shows.
# Sizes can be changed on the kernel command line: xr.forks=, xr.files=,
# xr.reps=, xr.ops=, xr.fsrounds=.
read -r up0 _ < /proc/uptime
ms() { read -r u _ < /proc/uptime; echo $(( ${u%.*} * 1000 + 10 * 1${u#*.} - 1000 )); }
. /xr/lib.sh
ktap_begin 6
mark=$(dmesg_mark)
figure boot_ms $(( ${up0%.*} * 1000 + 10 * 1${up0#*.} - 1000 ))
t_start=$(ms)
echo 1 > /proc/sys/kernel/printk	# keep the serial console quiet

kernel_arg forks xr.forks 60
kernel_arg files xr.files 30
kernel_arg reps xr.reps 15
kernel_arg ops xr.ops 10000
kernel_arg fsrounds xr.fsrounds 5

figure reps "$reps"
figure ops "$ops"
ktap_ok "boot to shell"

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
chunks() { chunks=; for x in $1; do chunks=${chunks:+$chunks,}$x; done; }	# "a b" -> a,b
chunks "$tfe"
figure forkexec_ms "$(( $(echo "$tfe" | median) * K )) n=$((forks / K * K)) chunks=$chunks"
chunks "$tfs"
figure files_ms "$(( $(echo "$tfs" | median) * K )) n=$((files / K * K * 50)) chunks=$chunks"
ktap_ok workload

# --- memory
figure task_struct_bytes "$(cat /sys/kernel/slab/task_struct/object_size 2>/dev/null || echo NA)"
figure tasks "$(ls -d /proc/[0-9]* | wc -l)"
stat_figures lockdep
ktap_ok memory
inflight() {
	v=$(lockdep_stat "crossrelease in flight" 2>/dev/null)
	echo "${v:-NA}"
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
		t0=$("$fw" now); i=0
		while [ $i -lt $((fsrounds / K)) ]; do fsround || return 1; i=$((i + 1)); done
		tfw="$tfw $(($("$fw" now) - t0))"
	done
	umount /tmp/xbm && losetup -d "$dev" && rm -f /tmp/xb.img
	chunks "$tfw"
	figure fs_ms "$(( $(echo "$tfw" | median) * K / 1000 )) n=$((fsrounds / K * K)) chunks_us=$chunks"
}
if fsbench; then
	ktap_ok "file-system throughput"
else
	ktap_fail "file-system throughput # the fs workload failed"
fi

# --- microbenchmarks
if ! modprobe bench_crossrelease reps="$reps" ops="$ops"; then
	ktap_fail "microbenchmarks # no bench_crossrelease module"
	exit 1
fi
knob=/sys/kernel/debug/bench_crossrelease/run
failed=
bench() {	# bench <command> [<name>]: run one, print its figure
	echo "$1" > $knob || { echo "# error: $1 failed"; failed=1; return 1; }
	r=$(cat $knob)	# <name> ns_per_op=<median> min= max= reps= ops=
	figure "${2:-${r%% *}}" "$(echo "${r#* }" | sed 's/^ns_per_op=//')"
}
for d in 1 4 8; do bench "mutex $d"; done
for d in 1 4 8; do bench "spin $d"; done
bench folio
bench completion
for n in 0 1 10 100 1000; do
	echo "hold $n" > $knob || { echo "# error: hold $n failed"; failed=1; continue; }
	figure inflight_seen_$n "$(inflight)"
	bench "mutex 1" "inflight_$n"
	echo release > $knob
done
# what the in-flight runs wrote and skipped (stats above predate them)
stat_figures lockdep_end commits deps hist overwritten stacks reports debug_locks
figure guest_ms "$(( $(ms) - t_start ))"
if [ -z "$failed" ]; then ktap_ok microbenchmarks; else ktap_fail microbenchmarks; fi
rmmod bench_crossrelease

since "$mark" | grep -E -A4 "$report_re" | sed 's/^/# /'
if [ "$(count_since "$mark" "$report_re")" = 0 ]; then
	ktap_ok "no lockdep report"
else
	ktap_fail "no lockdep report"
fi

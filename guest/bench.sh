#!/bin/sh
# Guest side of "make bench" (scripts/bench.sh boots with
# xr.run=/xr/bench.sh).  Prints "BENCH <key> <value...>" lines:
#   boot_ms          /proc/uptime when this script starts (boot to shell)
#   forkexec_ms      fork+exec loop of a dynamic binary (mke2fs -V)
#   files_ms         create/write/read/delete loop on tmpfs
#                    (both: median of 5 chunks x 5)
#   task_struct_bytes, LOCKDEP <line of /proc/lockdep_stats>
#   <benchmark> <ns/op> ... from lib/bench_crossrelease.c
# Sizes can be changed on the kernel command line: xr.forks=, xr.files=,
# xr.reps=, xr.ops=.
read -r up0 _ < /proc/uptime
ms() { read -r u _ < /proc/uptime; echo $(( ${u%.*} * 1000 + 10 * 1${u#*.} - 1000 )); }
echo "BENCH boot_ms $(( ${up0%.*} * 1000 + 10 * 1${up0#*.} - 1000 ))"
t_start=$(ms)
echo 1 > /proc/sys/kernel/printk	# keep the serial console quiet

forks=60 files=30 reps=15 ops=10000
for arg in $(cat /proc/cmdline); do
	case $arg in
	xr.forks=*) forks=${arg#*=} ;;
	xr.files=*) files=${arg#*=} ;;
	xr.reps=*) reps=${arg#*=} ;;
	xr.ops=*) ops=${arg#*=} ;;
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
echo "BENCH guest_ms $(( $(ms) - t_start ))"
rmmod bench_crossrelease

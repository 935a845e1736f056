#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Lifecycle faults while crosslocks are in flight must leave lockdep
# silent and the kernel running: many waiting kthreads at once, tasks
# killed in a wait or exiting with a folio locked, CPUs going off and on
# line, the module that owns the classes unloaded while they sit in other
# contexts' histories, folios freed, split and migrated.  The runs are in
# lib/test_crossrelease_lifecycle.c.  LIFECYCLE_SCALE=N (default 1)
# multiplies every count: 20 gives 10,000 threads.
# Output is KTAP; exit 0 on pass, 4 (KSFT_SKIP) if the kernel lacks what
# the test needs.

. ./ktap_helpers.sh

scale=${LIFECYCLE_SCALE:-1}
mod=test_crossrelease_lifecycle
run=/sys/kernel/debug/$mod/run
cpu1=/sys/devices/system/cpu/cpu1/online
thp=/tmp/xr-lifecycle.thp
filework=./xr_filework

# besides lockdep's reports, any warning, BUG (KASAN's too) or oops
report_re="$report_re|$crash_re"

require_lockdep_on
modprobe -q $mod 2>/dev/null
[ -w $run ] || ktap_skip_all "no $mod module (CONFIG_TEST_CROSSRELEASE_LIFECYCLE)"
ktap_header 8
misuse0=$(lockdep_stat "crossrelease misuse warnings")

# lifecycle NAME COUNT: one run of the module, its figures as diagnostics
lifecycle() {
	mark=$(dmesg | wc -l)
	if sh -c "echo '$1 $2' > $run"; then
		dmesg | tail -n +"$((mark + 1))" | sed -n "s/^.*$mod: /# /p"
		check_no_report_since "$mark" "lifecycle $1 $2: no report"
	else
		ktap_fail "lifecycle $1 $2: the run failed"
	fi
}

# CPU 1 off and on line until $1 exists; the number of rounds in $1.n
hotplug_loop() {
	n=0
	while [ ! -e "$1" ]; do
		echo 0 > $cpu1 && echo 1 > $cpu1 || break
		n=$((n + 1))
	done
	echo $n > "$1.n"
}

vmstat() {
	awk -v k="$1" '$1 == k { print $2 }' /proc/vmstat
}

lifecycle threads $((500 * scale))
lifecycle exit $((40 * scale))
lifecycle folio $((100 * scale))

# crosslocks in flight on every CPU while CPU 1 goes off and on line
if [ -w $cpu1 ]; then
	stop=/tmp/xr-lifecycle.stop
	rm -f $stop $stop.n
	hotplug_loop $stop &
	lifecycle inflight $((4 * scale))
	touch $stop
	wait
	echo "# cpu1 taken off and on line $(cat $stop.n) times meanwhile"
	rm -f $stop $stop.n
else
	lifecycle inflight $((2 * scale))
	echo "# no CPU hotplug: the crosslocks stayed on line CPUs"
fi

# the module unloaded with its classes in softirq and kworker histories
mark=$(dmesg | wc -l)
i=0
ok=1
while [ $i -lt $((3 * scale)) ]; do
	modprobe -q $mod && sh -c "echo 'unload 2' > $run" &&
		rmmod $mod || { ok=0; break; }
	i=$((i + 1))
done
modprobe -q $mod
echo "# $i loads and unloads of $mod, each with classes left in histories"
if [ $ok = 1 ]; then
	check_no_report_since "$mark" "lifecycle unload: $i loads, no report"
else
	ktap_fail "lifecycle unload: load $i failed"
fi

# large folios split and folios migrated while others are locked
mark=$(dmesg | wc -l)
if grep -q '\[always\]\|always' /sys/kernel/mm/transparent_hugepage/shmem_enabled 2>/dev/null &&
   [ -w /proc/sys/vm/compact_memory ]; then
	split0=$(vmstat thp_split_page)
	mig0=$(vmstat pgmigrate_success)
	[ -n "$split0" ] && [ -n "$mig0" ] || { split0=0; mig0=0; }
	mkdir -p $thp && mount -t tmpfs -o huge=always xr-thp $thp
	"$filework" files $thp > /dev/null &
	i=0
	while [ $i -lt $((4 * scale)) ]; do
		dd if=/dev/zero of=$thp/big bs=1M count=8 2>/dev/null
		truncate -s 1052672 $thp/big	# splits the huge folios
		echo 1 > /proc/sys/vm/compact_memory
		rm -f $thp/big
		i=$((i + 1))
	done
	wait
	umount $thp
	split=$(($(vmstat thp_split_page) - split0))
	echo "# $split huge folios split, $(($(vmstat pgmigrate_success) - mig0)) folios migrated"
	check_no_report_since "$mark" "lifecycle split and migrate: no report"
else
	ktap_ok "lifecycle split and migrate # SKIP no shmem THP or compaction"
fi

misuse=$(lockdep_stat "crossrelease misuse warnings")
if [ "$misuse" = "$misuse0" ]; then
	ktap_ok "no misuse warning"
else
	ktap_fail "misuse warnings went from $misuse0 to $misuse"
fi
check_lockdep_on "lockdep still on"
ktap_finish

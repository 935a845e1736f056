#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A real workload must leave lockdep silent with crossrelease on: the
# block layer (ext4 on a loop device backed by a file on tmpfs, with
# fallocate, sync and fstrim), workqueue flushes and kthread creation
# and teardown, which is where the 4.14 completions produced false
# reports; files created, written, read, mmapped, truncated and deleted
# on tmpfs and ext4, and page cache reclaimed under memory pressure,
# which is where folio locks are taken and dropped (xr_filework).
# test-ww_mutex, when built, runs too: its ABBA tests sequence distinct
# ww_mutexes with completions, and it nests 2046 ww_mutexes of a class.
# A huge page split at its second page leaves no folio unlock unrecorded:
# the page the split keeps locked has the head's record, the others are
# counted as split tails.
# Output is KTAP; exit 0 on pass, 4 (KSFT_SKIP) if the kernel lacks what
# the test needs.

. ./ktap_helpers.sh

# e2fsprogs' mke2fs (busybox's cannot make ext4)
mkfs=/usr/sbin/mke2fs
[ -x "$mkfs" ] || mkfs=/sbin/mke2fs
img=/tmp/xr-workload.img
mnt=/tmp/xr-workload.mnt
tmp=/tmp/xr-workload.tmpfs
filework=./xr_filework

require_lockdep_on
ktap_header 9
mark=$(dmesg | wc -l)

workload_ext4_on_loop() {
	truncate -s 64M "$img" &&
	"$mkfs" -q -F -t ext4 "$img" &&
	dev=$(losetup -f) && losetup "$dev" "$img" &&
	mkdir -p "$mnt" && mount -t ext4 "$dev" "$mnt" &&
	for i in 1 2 3 4; do
		dd if=/dev/zero of="$mnt/file$i" bs=64k count=64 2>/dev/null || return 1
	done &&
	fallocate -l 8M "$mnt/prealloc" &&
	sync &&
	cat "$mnt"/file* > /dev/null &&
	rm -f "$mnt"/file* "$mnt/prealloc" &&
	sync &&
	fstrim "$mnt" &&
	umount "$mnt" &&
	losetup -d "$dev" &&
	rm -f "$img"
}

workload_threads() {
	# every loop device setup and teardown creates and stops kthreads
	# and flushes workqueues; so do remounts and syncs
	i=0
	while [ $i -lt 3 ]; do
		truncate -s 16M "$img" && "$mkfs" -q -F -t ext4 "$img" &&
		dev=$(losetup -f) && losetup "$dev" "$img" &&
		mount -t ext4 "$dev" "$mnt" && sync &&
		mount -o remount,ro "$mnt" && umount "$mnt" &&
		losetup -d "$dev" || return 1
		i=$((i + 1))
	done
	rm -f "$img"
}

loop_mount() { # size
	truncate -s "$1" "$img" && "$mkfs" -q -F -t ext4 "$img" &&
	dev=$(losetup -f) && losetup "$dev" "$img" &&
	mkdir -p "$mnt" && mount -t ext4 "$dev" "$mnt"
}

loop_umount() {
	umount "$mnt" && losetup -d "$dev" && rm -f "$img"
}

workload_files() {
	mkdir -p "$tmp" && mount -t tmpfs xr-tmpfs "$tmp" &&
	"$filework" files "$tmp" && umount "$tmp" &&
	loop_mount 64M && "$filework" files "$mnt" && loop_umount
}

pgsteal() {
	awk '/^pgsteal_(kswapd|direct) / { n += $2 } END { print n + 0 }' /proc/vmstat
}

workload_pressure() {
	# fill ext4's page cache, then make the kernel reclaim it
	loop_mount 192M || return 1
	for i in 1 2 3; do
		dd if=/dev/zero of="$mnt/big$i" bs=1M count=48 2>/dev/null || return 1
	done
	sync && cat "$mnt"/big* > /dev/null || return 1
	before=$(pgsteal)
	"$filework" pressure 50 || return 1
	after=$(pgsteal)
	echo "# pages reclaimed: $((after - before))"
	[ "$after" -gt "$before" ] || { echo "# no page cache was reclaimed"; return 1; }
	cat "$mnt"/big* > /dev/null && rm -f "$mnt"/big* && loop_umount
}

untracked() {
	lockdep_stat "crossrelease untracked, $1"
}

workload_thp_split() {
	unseen=$(untracked "set unseen")
	tails=$(untracked "split tails")
	"$filework" thpsplit || return $?
	unseen=$(($(untracked "set unseen") - unseen))
	tails=$(($(untracked "split tails") - tails))
	echo "# unlocks without a record: $unseen unseen, $tails split tails"
	[ "$unseen" -eq 0 ] && [ "$tails" -ge 510 ]
}

workload_modules() {
	# module load and unload: kthreads, workqueues, debugfs, RCU barriers
	i=0
	while [ $i -lt 3 ]; do
		modprobe test_crossrelease && rmmod test_crossrelease || return 1
		i=$((i + 1))
	done
}

if ! modinfo test_crossrelease > /dev/null 2>&1; then
	ktap_ok "module load and unload # SKIP no test_crossrelease module"
elif workload_modules; then
	ktap_ok "module load and unload"
else
	ktap_fail "module load and unload"
fi
# the kernel's ww_mutex selftest: distinct ww_mutexes of one class, put
# in order with completions, and 2046 of them nested (test-ww_mutex's
# own pass/fail is its load; lockdep's verdict is checked at the end)
if ! modinfo test-ww_mutex > /dev/null 2>&1; then
	ktap_ok "ww_mutex selftest # SKIP no test-ww_mutex module"
elif modprobe test-ww_mutex && rmmod test-ww_mutex; then
	ktap_ok "ww_mutex selftest (test-ww_mutex)"
else
	ktap_fail "ww_mutex selftest (test-ww_mutex)"
fi
if workload_ext4_on_loop; then
	ktap_ok "ext4 on loop: write, fallocate, sync, read, delete, fstrim"
else
	ktap_fail "ext4 on loop: write, fallocate, sync, read, delete, fstrim"
fi
if workload_threads; then
	ktap_ok "loop setup/teardown, remount, sync (kthreads, flushes)"
else
	ktap_fail "loop setup/teardown, remount, sync (kthreads, flushes)"
fi
if [ ! -x "$filework" ]; then
	ktap_ok "files on tmpfs and ext4 # SKIP $filework not built"
	ktap_ok "memory pressure # SKIP $filework not built"
else
	if workload_files; then
		ktap_ok "files on tmpfs and ext4: create, write, read, mmap, truncate, delete"
	else
		ktap_fail "files on tmpfs and ext4: create, write, read, mmap, truncate, delete"
	fi
	if workload_pressure; then
		ktap_ok "memory pressure reclaims ext4 page cache"
	else
		ktap_fail "memory pressure reclaims ext4 page cache"
	fi
fi
if [ ! -x "$filework" ] || [ ! -e /sys/kernel/debug/split_huge_pages ]; then
	ktap_ok "huge page split # SKIP no xr_filework or no THP"
else
	workload_thp_split && rc=0 || rc=$?
	case $rc in
	0) ktap_ok "huge page split: every folio unlock recorded or a split tail" ;;
	4) ktap_ok "huge page split # SKIP no huge page made" ;;
	*) ktap_fail "huge page split: every folio unlock recorded or a split tail" ;;
	esac
fi
check_no_report_since "$mark" "no lockdep report during the workload"
check_lockdep_on "lockdep still on after the workload"
ktap_finish

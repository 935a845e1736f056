#!/bin/sh
# Guest side of make soak (xr.run=/xr/soak.sh, scripts/soak.sh): real
# workloads on a distro-class kernel, to hunt false reports of crossrelease.
# Disks: /dev/vda (ext4: base for loop files and the swap file), /dev/vdb
# (xfs), /dev/vdc (btrfs).  Each step runs in a process of its own under a
# time limit and prints what it does.  A KTAP document (guest/lib.sh): one
# result per step (ok if the step's exit status is 0; figures seconds, rc,
# reports: new report headlines in dmesg), then "no report, lockdep on"
# with the whole boot's figures: reports, debug_locks, tracking, commits,
# deps_added, misuse, and the lockdep_stats lines as "lockdep.<label>".
# Kernel args: soak.scale=N (% of the step durations, default 100),
# soak.only=step,step (default: all steps).
. /xr/lib.sh
kernel_arg SCALE soak.scale 100
kernel_arg ONLY soak.only ""
STEPS="ext4 xfs btrfs loopfs btrfs_sync dmcrypt raid1 mix migrate swap oom hotplug modules ipc"
BASE=/mnt/base
export DM_DISABLE_UDEV=1

say() { echo "soak: $*"; }
# seconds for a step part: N at 100%, at least 5
T() { t=$(( $1 * SCALE / 100 )); [ $t -lt 5 ] && t=5; echo $t; }
run() { say "\$ $*"; "$@"; r=$?; [ $r = 0 ] || say "   -> exit $r"; return $r; }
newloop() { # file size -> prints the loop device
	truncate -s "$2" "$1" && d=$(losetup -f) && losetup "$d" "$1" && echo "$d"
}
base() { # ext4 on vda, mounted on $BASE (made by the first step that needs it)
	grep -q " $BASE " /proc/mounts && return 0
	mkdir -p $BASE
	mount -t ext4 /dev/vda $BASE 2>/dev/null && return 0
	run mkfs.ext4 -q -F /dev/vda && run mount -t ext4 /dev/vda $BASE
}
fio_run() { # dir seconds
	say "fio on $1 for $2 s: randwrite 4k fsync=4 (psync, 2 jobs) + randrw 16k direct libaio qd8"
	fio --directory="$1" --runtime="$2" --time_based --size=32m --end_fsync=1 \
		--name=randwrite-fsync --rw=randwrite --bs=4k --fsync=4 --ioengine=psync --numjobs=2 \
		--name=randrw-direct --rw=randrw --bs=16k --direct=1 --ioengine=libaio --iodepth=8 \
		> /tmp/fio.out 2>&1
	r=$?
	grep -E '^ *(write|read): |err=|^fio:|error' /tmp/fio.out | sed 's/^ */  fio: /'
	say "fio on $1: exit $r"; rm -f "$1"/randw*; return $r
}
stress_fs() { # dir seconds [extra stress-ng args]
	d=$1; t=$2; shift 2
	say "stress-ng on $d for $t s: hdd(fsync) sync-file msync fallocate dir rename dentry mmap-file readahead flock iomix $*"
	stress-ng --temp-path "$d" --timeout "${t}s" --metrics-brief \
		--hdd 1 --hdd-bytes 32M --hdd-opts fsync,wr-rnd --sync-file 1 --sync-file-bytes 16M \
		--msync 1 --msync-bytes 8M --fallocate 1 --fallocate-bytes 16M \
		--dir 1 --rename 1 --dentry 1 --mmap 1 --mmap-file --mmap-bytes 16M \
		--readahead 1 --readahead-bytes 16M --flock 1 --iomix 1 --iomix-bytes 16M "$@" 2>&1
	say "stress-ng on $d: exit $?"; return 0
}
fs_on() { # mkfs-type dev mnt seconds
	mkdir -p "$3"
	case $1 in
	ext4)  run mkfs.ext4 -q -F "$2" ;;
	xfs)   run mkfs.xfs -q -f "$2" ;;
	btrfs) run mkfs.btrfs -q -f "$2" ;;
	esac || return 1
	run mount -t "$1" "$2" "$3" || return 1
	fio_run "$3" "$(( $4 * 2 / 3 ))"
	stress_fs "$3" "$4"
	run sync; df -h "$3" | tail -1
	run umount "$3"
}

step_ext4()  { base || return 1; fio_run $BASE "$(T 40)"; stress_fs $BASE "$(T 60)"; }
step_xfs()   { fs_on xfs /dev/vdb /mnt/xfs "$(T 60)"; }
step_btrfs() { fs_on btrfs /dev/vdc /mnt/btrfs "$(T 60)"; }

step_loopfs() { # ext4 and xfs on loop devices backed by files on $BASE
	base || return 1
	for fs in ext4 xfs; do
		dev=$(newloop $BASE/$fs.img 384M) || return 1
		say "$fs on $dev ($BASE/$fs.img)"
		fs_on $fs "$dev" /mnt/loop-$fs "$(T 30)"
		run losetup -d "$dev"; rm -f $BASE/$fs.img
	done
}

step_btrfs_sync() { # btrfs on a loop device, fdatasync + sync
	base || return 1
	dev=$(newloop $BASE/btrfs.img 512M) || return 1
	m=/mnt/loop-btrfs; mkdir -p $m
	run mkfs.btrfs -q -f "$dev" && run mount -t btrfs "$dev" $m || return 1
	t=$(T 90)
	say "btrfs on $dev: stress-ng hdd(fdatasync) + sync-file, and hdd(O_SYNC) + io(sync) for $t s, sync(1) every second"
	stress-ng --temp-path $m --timeout "${t}s" --metrics-brief --hdd 2 --hdd-bytes 32M \
		--hdd-opts fdatasync,wr-rnd --sync-file 1 --sync-file-bytes 16M > /tmp/s1.out 2>&1 &
	a=$!
	stress-ng --temp-path $m --timeout "${t}s" --metrics-brief --hdd 1 --hdd-bytes 16M \
		--hdd-opts sync,wr-seq --io 1 > /tmp/s2.out 2>&1 &
	b=$!
	n=0; while kill -0 $a 2>/dev/null || kill -0 $b 2>/dev/null; do sync; n=$((n + 1)); sleep 1; done
	wait $a; say "stress-ng hdd(fdatasync): exit $?"; cat /tmp/s1.out
	wait $b; say "stress-ng hdd(O_SYNC): exit $?"; cat /tmp/s2.out
	say "btrfs on $dev: $n syncs"
	run umount $m; run losetup -d "$dev"; rm -f $BASE/btrfs.img
}

step_dmcrypt() { # dm-crypt (plain, aes-xts-plain64) on a loop device, ext4 on top
	base || return 1
	mkdir -p /run/cryptsetup
	dev=$(newloop $BASE/crypt.img 256M) || return 1
	head -c 64 /dev/urandom > /tmp/crypt.key
	if ! run cryptsetup open --type plain --cipher aes-xts-plain64 --key-size 512 \
		--key-file /tmp/crypt.key "$dev" soakcrypt; then
		say "cryptsetup failed; dmsetup with a crypt table instead"
		key=$(od -An -tx1 -v /tmp/crypt.key | tr -d ' \n')
		run dmsetup create soakcrypt --table "0 $(blockdev --getsz "$dev") crypt aes-xts-plain64 $key 0 $dev 0" || return 1
	fi
	dmsetup table soakcrypt | sed 's/ [0-9a-f]\{64,\} / <key> /'
	fs_on ext4 /dev/mapper/soakcrypt /mnt/crypt "$(T 45)"
	run dmsetup remove soakcrypt; run losetup -d "$dev"; rm -f $BASE/crypt.img
}

md_idle() {
	i=0; while [ $i -lt 180 ] && [ "$(cat /sys/block/md0/md/sync_action)" != idle ]; do sleep 1; i=$((i + 1)); done
	say "md0: sync_action $(cat /sys/block/md0/md/sync_action) after ${i}s"
}
step_raid1() { # md raid1 on two loop devices, ext4 on top; a disk failed and re-added under load
	base || return 1
	mkdir -p /run/mdadm /mnt/md
	d1=$(newloop $BASE/md1.img 256M) && d2=$(newloop $BASE/md2.img 256M) || return 1
	run mdadm --create /dev/md0 --run --level=1 --raid-devices=2 --metadata=1.2 "$d1" "$d2" || return 1
	cat /proc/mdstat
	run mkfs.ext4 -q -F /dev/md0 && run mount -t ext4 /dev/md0 /mnt/md || return 1
	t=$(T 45)
	echo 50000 > /proc/sys/dev/raid/speed_limit_min
	stress_fs /mnt/md "$t" > /tmp/md-stress.out 2>&1 &
	s=$!
	fio_run /mnt/md "$(T 30)" > /tmp/md-fio.out 2>&1 &
	f=$!
	sleep "$(T 15)"
	say "md0: failing $d2 under load"
	run mdadm /dev/md0 --fail "$d2"
	i=0; until mdadm /dev/md0 --remove "$d2"; do
		i=$((i + 1)); [ $i -lt 20 ] || { say "mdadm --remove $d2 failed"; break; }; sleep 1
	done
	run mdadm /dev/md0 --add "$d2"
	cat /proc/mdstat
	wait $f; cat /tmp/md-fio.out
	wait $s; cat /tmp/md-stress.out
	md_idle
	echo check > /sys/block/md0/md/sync_action && say "md0: check started"
	md_idle
	say "md0: mismatch_cnt $(cat /sys/block/md0/md/mismatch_cnt)"
	run umount /mnt/md; run mdadm --stop /dev/md0
	run losetup -d "$d1"; run losetup -d "$d2"; rm -f $BASE/md?.img
}

step_mix() { # ext4, xfs and btrfs at once, with sync and drop_caches loops
	base || return 1
	mkdir -p /mnt/xfs /mnt/btrfs
	mount -t xfs /dev/vdb /mnt/xfs 2>/dev/null || { run mkfs.xfs -q -f /dev/vdb && run mount -t xfs /dev/vdb /mnt/xfs; } || return 1
	mount -t btrfs /dev/vdc /mnt/btrfs 2>/dev/null || { run mkfs.btrfs -q -f /dev/vdc && run mount -t btrfs /dev/vdc /mnt/btrfs; } || return 1
	t=$(T 90)
	say "ext4, xfs, btrfs at once for $t s; sync every 2 s, drop_caches every 5 s"
	for m in $BASE /mnt/xfs /mnt/btrfs; do
		stress-ng --temp-path $m --timeout "${t}s" --metrics-brief --hdd 1 --hdd-bytes 16M \
			--hdd-opts fsync --mmap 1 --mmap-file --mmap-bytes 8M --dir 1 \
			> /tmp/mix${m##*/}.out 2>&1 &
	done
	n=0; end=$(( $(date +%s) + t ))
	while [ "$(date +%s)" -lt $end ]; do
		sleep 2; sync; n=$((n + 1))
		[ $((n % 3)) = 0 ] && echo 3 > /proc/sys/vm/drop_caches
	done
	wait
	for m in $BASE /mnt/xfs /mnt/btrfs; do say "stress-ng on $m:"; cat /tmp/mix${m##*/}.out; done
	say "mix: $n syncs, $((n / 3)) drop_caches"
	run umount /mnt/xfs; run umount /mnt/btrfs
}

meminfo() { awk '/^(MemFree|SwapTotal|SwapFree):/ { printf "%s %d MiB  ", $1, $2 / 1024 } END { print "" }' /proc/meminfo; }
step_migrate() { # compaction migrates and THP splits mapped file folios while stress-ng faults on them
	base || return 1
	[ -w /proc/sys/vm/compact_memory ] || { say "no compaction: skipped"; return 0; }
	m0=$(awk '$1 == "pgmigrate_success" { print $2 }' /proc/vmstat)
	stress-ng --temp-path $BASE --timeout "$(T 60)s" --metrics-brief \
		--mmap 2 --mmap-file --mmap-bytes 32M --mmapfork 1 2>&1 &
	p=$!
	i=0
	split=/sys/kernel/debug/split_huge_pages
	while kill -0 $p 2>/dev/null; do
		echo 1 > /proc/sys/vm/compact_memory; i=$((i + 1))
		# every huge page of the system split while it may be locked
		[ -w $split ] && echo 1 > $split
		sleep 1
	done
	wait $p
	say "migrate: $i compactions and THP splits, $(( $(awk '$1 == "pgmigrate_success" { print $2 }' /proc/vmstat) - m0 )) folios migrated, thp_split_page $(awk '$1 == "thp_split_page" { print $2 }' /proc/vmstat)"
}
step_swap() { # swap file on ext4, anonymous memory beyond RAM, page cache writeback
	base || return 1
	run dd if=/dev/zero of=$BASE/swapfile bs=1M count=1024 2>/dev/null
	chmod 600 $BASE/swapfile
	run mkswap $BASE/swapfile >/dev/null && run swapon $BASE/swapfile || return 1
	meminfo
	kb=$(awk '/^MemTotal:/ { print int($2 * 0.55) }' /proc/meminfo)
	t=$(T 90)
	say "stress-ng --vm 2 x ${kb} KiB (1.1 x RAM, prefaulted) + hdd on ext4 for $t s"
	stress-ng --timeout "${t}s" --metrics-brief --vm 2 --vm-bytes "${kb}K" --vm-keep --vm-populate \
		--hdd 1 --hdd-bytes 64M --temp-path $BASE 2>&1
	kb=$(awk '/^MemTotal:/ { print int($2 * 0.33) }' /proc/meminfo)
	say "3 x dd bs=${kb}K count=2 (1.0 x RAM, each buffer written twice; at most $(T 120) s)"
	for i in 1 2 3; do timeout -s KILL "$(T 120)" dd if=/dev/zero of=/dev/null bs=${kb}K count=2 2>/dev/null & done
	wait
	meminfo
	grep -E '^(pswpin|pswpout|pgsteal_kswapd|pgsteal_direct|oom_kill) ' /proc/vmstat | tr '\n' ' '; echo
	run swapoff $BASE/swapfile; rm -f $BASE/swapfile
}

step_oom() { # memcg OOM kills under a 64M limit, then a global OOM kill
	cg=/sys/fs/cgroup
	grep -q " $cg cgroup2 " /proc/mounts || run mount -t cgroup2 none $cg || return 1
	echo +memory > $cg/cgroup.subtree_control
	mkdir -p $cg/soak && echo 64M > $cg/soak/memory.max || return 1
	echo 0 > $cg/soak/memory.swap.max 2>/dev/null
	for i in 1 2 3; do
		sh -c "echo \$\$ > $cg/soak/cgroup.procs; exec dd if=/dev/zero of=/dev/null bs=200M count=1" 2>/dev/null
		say "memcg hog $i (dd bs=200M in 64M): exit $?"
	done
	say "stress-ng --vm 2 x 96M in the 64M memcg for $(T 20) s"
	sh -c "echo \$\$ > $cg/soak/cgroup.procs; exec stress-ng --timeout $(T 20)s --vm 2 --vm-bytes 96M --vm-keep --oomable --metrics-brief" 2>&1
	say "memcg: $(tr '\n' ' ' < $cg/soak/memory.events)"
	rmdir $cg/soak
	kb=$(awk '/^MemTotal:/ { print int($2 * 0.5) }' /proc/meminfo)
	k0=$(awk '/^oom_kill / { print $2 }' /proc/vmstat)
	say "global OOM: 3 x dd bs=${kb}K count=2 (1.5 x RAM, no swap)"
	pids=
	for i in 1 2 3; do
		timeout -s KILL "$(T 120)" dd if=/dev/zero of=/dev/null bs=${kb}K count=2 2>/dev/null & pids="$pids $!"
	done
	i=0; for p in $pids; do i=$((i + 1)); wait $p; say "dd $i: exit $?"; done
	say "global OOM kills: $(( $(awk '/^oom_kill / { print $2 }' /proc/vmstat) - k0 ))"
}

step_hotplug() { # cpu1 offline/online under fork + cpu load
	c=/sys/devices/system/cpu/cpu1/online
	[ -w $c ] || { say "no $c: skipped"; return 0; }
	n=$(( 30 * SCALE / 100 )); [ $n -lt 3 ] && n=3
	stress-ng --timeout 600s --cpu 1 --fork 1 --metrics-brief > /tmp/hp.out 2>&1 &
	s=$!
	ok=0; i=0; t0=$(date +%s)
	while [ $i -lt $n ]; do
		i=$((i + 1))
		echo 0 > $c && echo 1 > $c && ok=$((ok + 1)) || say "cycle $i failed"
	done
	say "cpu1 offline/online: $ok of $n cycles in $(( $(date +%s) - t0 )) s, cpu1 online=$(cat $c)"
	kill -INT $s 2>/dev/null; wait; cat /tmp/hp.out
}

step_modules() { # load/unload modules, each used a little while loaded
	r=$(( 3 * SCALE / 100 )); [ $r -lt 1 ] && r=1
	i=0
	while [ $i -lt $r ]; do
		i=$((i + 1)); say "modules: round $i of $r"
		run modprobe test_crossrelease && say "test_crossrelease features: $(cat /sys/kernel/debug/test_crossrelease/features 2>/dev/null | tr '\n' ' ')" &&
			run rmmod test_crossrelease
		run modprobe bench_crossrelease && run rmmod bench_crossrelease
		run modprobe null_blk nr_devices=1 &&
			run dd if=/dev/zero of=/dev/nullb0 bs=64k count=512 2>/dev/null &&
			run dd if=/dev/nullb0 of=/dev/null bs=64k count=512 2>/dev/null && run rmmod null_blk
		if run modprobe brd rd_nr=1 rd_size=32768; then
			mkdir -p /mnt/ram
			run mkfs.ext4 -q -F /dev/ram0 && run mount -t ext4 /dev/ram0 /mnt/ram &&
				run dd if=/dev/zero of=/mnt/ram/f bs=64k count=256 2>/dev/null && sync && run umount /mnt/ram
			run rmmod brd
		fi
		if run modprobe scsi_debug dev_size_mb=32; then
			sd=; j=0
			while [ -z "$sd" ] && [ $j -lt 20 ]; do
				sd=$(ls /sys/bus/pseudo/drivers/scsi_debug/adapter*/host*/target*/*/block 2>/dev/null | head -1)
				[ -n "$sd" ] || { sleep 1; j=$((j + 1)); }
			done
			[ -n "$sd" ] && run dd if=/dev/zero of=/dev/$sd bs=64k count=256 2>/dev/null &&
				run dd if=/dev/$sd of=/dev/null bs=64k 2>/dev/null
			run rmmod scsi_debug
		fi
		run modprobe minix && run rmmod minix
		if run modprobe dm_zero; then
			run dmsetup create soakzero --table "0 65536 zero" &&
				run dd if=/dev/mapper/soakzero of=/dev/null bs=64k 2>/dev/null && run dmsetup remove soakzero
			run rmmod dm_zero
		fi
		# the dma-buf selftests: a module, or KUnit suites on newer kernels
		[ $i = 1 ] && for m in dmabuf_selftests dmabuf_kunit; do
			grep -q "/$m\.ko" "/lib/modules/$(uname -r)/modules.dep" &&
				run modprobe $m && run rmmod $m
		done
	done
	lsmod
}

step_ipc() { stress-ng --timeout "$(T 60)s" --metrics-brief --fork 2 --sem 1 --pipe 1 --msg 1 \
	--futex 1 --mq 1 --clone 1 2>&1; }

# one step, in a process of its own (soak.sh step NAME)
if [ "${1:-}" = step ]; then "step_$2"; exit $?; fi

mkdir -p /mnt /run
chosen=
for s in $STEPS; do
	case ",${ONLY:-$s}," in *",$s,"*) chosen="$chosen $s" ;; esac
done
ktap_begin $(( $(echo $chosen | wc -w) + 1 ))
say "scale ${SCALE}%, steps: ${ONLY:-all}; $(grep -c ^processor /proc/cpuinfo) CPUs, $(awk '/MemTotal/ { print int($2 / 1024) }' /proc/meminfo) MiB"
stat_figures lockdep "crossrelease tracking" debug_locks
summary=/tmp/soak.steps
: > $summary
for s in $chosen; do
	before=$(dmesg | grep -cE "$crash_re")
	lim=$(( $(T 400) + 300 ))
	say "==== step $s: start (limit $lim s) at $(cut -d' ' -f1 /proc/uptime) s"
	t0=$(date +%s)
	timeout -s KILL $lim sh /xr/soak.sh step $s < /dev/null
	rc=$?
	dt=$(( $(date +%s) - t0 ))
	new=$(( $(dmesg | grep -cE "$crash_re") - before ))
	if [ $rc = 137 ]; then
		say "step $s: time limit hit; blocked tasks:"; echo w > /proc/sysrq-trigger
		killall -9 stress-ng fio dd 2>/dev/null
	fi
	say "==== step $s: rc=$rc in $dt s, new reports in dmesg: $new, debug_locks $(lockdep_stat debug_locks)"
	printf '%-12s %5s s  rc=%-4s reports=%s\n' $s $dt $rc $new >> $summary
	figure seconds "$dt"
	figure rc "$rc"
	figure reports "$new"
	ktap_status "$rc" "$s"
done
grep -q " $BASE " /proc/mounts && umount $BASE

echo "==== soak summary"
cat $summary
dmesg > /tmp/dmesg.txt
n=$(grep -cE "$crash_re" /tmp/dmesg.txt)
say "report headlines in dmesg: $n"
grep -E "$crash_re" /tmp/dmesg.txt | sed 's/^\[ *[0-9.]*\] /  headline: /'
say "OOM kills in dmesg: $(grep -c "$oom_re" /tmp/dmesg.txt)"
say "INFO lines (hung tasks, RCU stalls) in dmesg: $(grep -cE "$hung_re" /tmp/dmesg.txt)"
grep -E "$hung_re" /tmp/dmesg.txt | sed 's/^\[ *[0-9.]*\] /  info: /' | head -20
boot_verdict "$n"
exit 0

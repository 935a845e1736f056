#!/bin/sh
# Guest side of "make torture" (scripts/torture.sh), in the torture
# kernel (KASAN, debug objects, lockdep's selftests, the torture modules).
# A KTAP document (guest/lib.sh), one result per item, each after its
# figure "figures: <the table's text>" (and "summary: <lockdep's selftest
# summary>" for the selftests); the kselftests nested in the kselftests
# item.  WARN/BUG counts warnings and crashes (warn_re); lockdep's own
# reports are counted separately (report_re).
#   torture.sh selftests     lockdep's boot-time selftest summary only
#   torture.sh all [MIN]     everything, MIN minutes per locktorture type
#   torture.sh tables        a workload after lockdep's tables filled up
MODE=${1:-all}
MIN=${2:-2}
KS=/xr/kselftest/crossrelease
cd $KS 2>/dev/null || cd /
. /xr/lib.sh

row() { # item figures ok|FAIL
	figure figures "$2"
	if [ "$3" = ok ]; then ktap_ok "$1"; else ktap_fail "$1"; fi
}
secs() { cut -d. -f1 /proc/uptime; }

# figures common to every row: reports, WARN/BUG, debug_locks, commits
tail_figs() { # mark commits-before
	echo "lockdep reports $(count_since "$1" "$report_re"), WARN/BUG $(count_since "$1" "$warn_re"), debug_locks $(lockdep_stat debug_locks), commits $(($(lockdep_stat "crossrelease commits") - $2))"
}
verdict() { # mark
	[ "$(count_since "$1" "$report_re")" = 0 ] &&
		[ "$(count_since "$1" "$warn_re")" = 0 ] &&
		[ "$(lockdep_stat debug_locks)" = 1 ] && echo ok || echo FAIL
}

selftests() {
	sum=$(dmesg | grep -E 'testcases passed|unexpected failures|expected testcase failures|unexpected successes' |
	      sed -e 's/^\[[^]]*\] *//' -e 's/ *|$//' -e 's/  */ /g' | paste -sd ';' -)
	st=FAIL
	dmesg | grep -q 'Good, all .* testcases passed' && st=ok
	figure summary "${sum:-no summary}"
	row "lockdep selftests (DEBUG_LOCKING_API_SELFTESTS)" "${sum:-no summary}; crossrelease $([ "$(lockdep_stat "crossrelease tracking")" = on ] && echo on || echo off)" $st
}

ww_mutex() {
	m=$(dmesg_mark) t=$(secs) c=$(lockdep_stat "crossrelease commits")
	if modprobe test-ww_mutex; then st=ok; else st=FAIL; fi
	rmmod test-ww_mutex 2>/dev/null
	[ "$(verdict "$m")" = ok ] || st=FAIL
	row "WW_MUTEX_SELFTEST (test-ww_mutex)" "$(($(secs) - t)) s, $(tail_figs "$m" "$c")" $st
}

# a background workload that takes folio locks and completions
bg_start() {
	mkdir -p /tmp/xr-bg && mount -t tmpfs xr-bg /tmp/xr-bg
	rm -f /tmp/xr-bg.stop
	( while [ ! -e /tmp/xr-bg.stop ]; do ./xr_filework files /tmp/xr-bg > /dev/null || break; sync; done ) &
	bg=$!
}
bg_stop() {
	touch /tmp/xr-bg.stop
	wait $bg
	umount /tmp/xr-bg
}

# torture MODULE TYPE SECONDS [module args]: load, run, unload, check
torture() {
	mod=$1 type=$2 s=$3; shift 3
	m=$(dmesg_mark) c=$(lockdep_stat "crossrelease commits")
	st=ok
	modprobe $mod torture_type=$type stat_interval=0 "$@" || st=FAIL
	sleep $s
	rmmod $mod || st=FAIL
	since "$m" | grep -q "End of test: SUCCESS" || st=FAIL
	[ "$(verdict "$m")" = ok ] || st=FAIL
	ops=$(since "$m" | grep -oE '(Writes|Reads): *Total: *[0-9]+|Reader Pipe: *[0-9 ]+' | sed 's/  */ /g' | paste -sd ',' - | cut -c1-80)
	row "$mod $type" "$((s / 60)) min $((s % 60)) s, ${ops:-no counts}, $(tail_figs "$m" "$c")" $st
}

threads() {
	m=$(dmesg_mark) c=$(lockdep_stat "crossrelease commits")
	# threads-max is sized from memory, and KASAN doubles stacks
	[ "$(cat /proc/sys/kernel/threads-max)" -ge 12000 ] || echo 12000 > /proc/sys/kernel/threads-max
	modprobe test_crossrelease_lifecycle
	st=ok
	sh -c 'echo "threads 10000" > /sys/kernel/debug/test_crossrelease_lifecycle/run' || st=FAIL
	fig=$(since "$m" | sed -n 's/^.*lifecycle: threads: //p' | tail -1)
	[ "$(verdict "$m")" = ok ] || st=FAIL
	row "10,000 threads with a crosslock in flight" "${fig:-no figures}; $(tail_figs "$m" "$c")" $st
}

kselftests() {
	m=$(dmesg_mark) c=$(lockdep_stat "crossrelease commits")
	t=$(secs)
	# scale 5: 2,500 threads, 200 exits, 20 s of hotplug, 15 unloads
	name="kselftests (scenarios, workload, dma-buf, lifecycle x5)"
	ktap_nest "$name" sh -c 'LIFECYCLE_SCALE=5 sh /xr/test.sh | tee /tmp/kselftests.out'
	nok=$(grep -c '^ *not ok' /tmp/kselftests.out)
	row "$name" "$(($(secs) - t)) s, $(grep -c '^ *ok' /tmp/kselftests.out) ok, $nok not ok (KTAP above); WARN/BUG $(count_since "$m" "$warn_re"), commits $(($(lockdep_stat "crossrelease commits") - c))" \
		"$([ "$(count_since "$m" "$warn_re")" = 0 ] && [ "$nok" = 0 ] && echo ok || echo FAIL)"
}

final() {
	row "whole boot" "WARN/BUG $(dmesg | grep -cE "$warn_re"), KASAN $(dmesg | grep -c 'BUG: KASAN'), debug objects $(dmesg | grep -c 'ODEBUG:'), debug_locks $(lockdep_stat debug_locks), commits $(lockdep_stat "crossrelease commits"), misuse $(lockdep_stat "crossrelease misuse warnings"), stale entries $(lockdep_stat "crossrelease stale entries")" \
		"$([ "$(dmesg | grep -cE "$warn_re|ODEBUG:")" = 0 ] && [ "$(lockdep_stat debug_locks)" = 1 ] && echo ok || echo FAIL)"
}

# lockdep's tables (or crossrelease's caches) are small in this kernel: a
# workload fills them; lockdep says so once and the workload goes on
tables() {
	t=$(secs)
	st=ok
	bg_start
	mkdir -p /tmp/xr-ext4 && truncate -s 64M /tmp/xr-ext4.img &&
		/usr/sbin/mke2fs -q -F -t ext4 /tmp/xr-ext4.img && dev=$(losetup -f) &&
		losetup "$dev" /tmp/xr-ext4.img && mount -t ext4 "$dev" /tmp/xr-ext4 || st=FAIL
	i=0
	while [ $i -lt 20 ] && [ $st = ok ]; do
		./xr_filework files /tmp/xr-ext4 > /dev/null || st=FAIL
		modprobe test_crossrelease && rmmod test_crossrelease
		sync
		i=$((i + 1))
	done
	umount /tmp/xr-ext4 && losetup -d "$dev" || st=FAIL
	bg_stop
	full=$(dmesg | grep -cE 'too low!|tables full|cache full')
	off=$(dmesg | grep -c 'turning off the locking correctness validator')
	other=$(dmesg | grep -E "$warn_re" | grep -vc 'too low!')
	row "workload after the tables filled" "$(($(secs) - t)) s, $i rounds, table-full messages $full ($(dmesg | grep -E 'too low!|cache full' | sed -e 's/^\[[^]]*\] *//' | sort -u | paste -sd ';' -)), validator-off messages $off, other WARN/BUG $other, debug_locks $(lockdep_stat debug_locks), deps not cached $(lockdep_stat "crossrelease deps not cached"), stacks dropped $(lockdep_stat "crossrelease stacks dropped")" \
		"$([ $st = ok ] && [ "$full" -ge 1 ] && [ "$off" -le 1 ] && [ "$other" = 0 ] && echo ok || echo FAIL)"
}

case $MODE in
selftests)
	ktap_begin 1
	selftests ;;
ww)
	ktap_begin 1
	ww_mutex ;;
tables)
	ktap_begin 1
	tables ;;
all)
	ktap_begin 10
	selftests
	ww_mutex
	kselftests
	threads
	bg_start
	for type in mutex_lock rwsem_lock spin_lock rtmutex_lock; do
		torture locktorture $type $((MIN * 60))
	done
	torture rcutorture rcu $((MIN * 30))
	bg_stop
	final ;;
esac
exit 0

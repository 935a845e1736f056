#!/bin/bash
# Guest side of make xfstests (scripts/xfstests.sh), run by /sbin/xr-init
# from the host's 9p share /xr (the job in /xr/job.env: FS, TESTS, GROUP,
# EXCLUDE, V).  kvm-xfstests' layout: /dev/vdb the test device (made
# here), /dev/vdc the scratch device, /dev/vdd-vdf with vdc the scratch
# pool for btrfs; for ext4 and xfs, /dev/vdd is dm-log-writes' log
# device.  xfstests' results go to /xr/results (RESULT_BASE, on the
# host as they are written; KEEP_DMESG=yes keeps each test's dmesg).  A
# KTAP document (guest/lib.sh): "./check" (figures ran, failed, notrun,
# check_rc, seconds) and "no report, lockdep on" (the boot's figures:
# reports, debug_locks, tracking, commits, deps_added, misuse).
XR_KSFT=/xr . /xr/lib.sh
. /xr/job.env
export DM_DISABLE_UDEV=1
say() { echo "xfstests: $*"; }
# dmsetup without udev makes /dev/mapper/NAME a device node; udev makes it
# a link to ../dm-N, which xfstests follows to the name the kernel knows
# the device by (/sys/fs/xfs/dm-N/...).  A wrapper ahead in PATH (the
# root image is a snapshot) turns the nodes into such links.
cat > /usr/local/sbin/dmsetup <<'WRAP'
#!/bin/sh
/usr/sbin/dmsetup "$@"
rc=$?
for d in /sys/block/dm-*/dm/name; do
	[ -f "$d" ] || continue
	l=/dev/mapper/$(cat "$d")
	n=${d#/sys/block/}; n=${n%%/*}
	[ -L "$l" ] || { rm -f "$l"; ln -s "../$n" "$l"; }
done
exit $rc
WRAP
chmod 755 /usr/local/sbin/dmsetup
cd /opt/xfstests || exit 1
case $FS in
ext4)  mkfs="mkfs.ext4 -q -F" ;;
xfs)   mkfs="mkfs.xfs -q -f" ;;
btrfs) mkfs="mkfs.btrfs -q -f" ;;
*)     say "FS=$FS: not ext4, xfs or btrfs"; exit 1 ;;
esac
mkdir -p /mnt/test /mnt/scratch /xr/results
# the kernel's configuration, for _require_kernel_config (the host's copy)
[ -f /xr/config ] && cp /xr/config "/boot/config-$(uname -r)"
say "$mkfs /dev/vdb (test device)"
$mkfs /dev/vdb || exit 1
{
	echo "export FSTYP=$FS"
	echo "export TEST_DEV=/dev/vdb TEST_DIR=/mnt/test SCRATCH_MNT=/mnt/scratch"
	if [ "$FS" = btrfs ]; then
		echo "export SCRATCH_DEV_POOL='/dev/vdc /dev/vdd /dev/vde /dev/vdf'"
	else
		echo "export SCRATCH_DEV=/dev/vdc LOGWRITES_DEV=/dev/vdd"
	fi
	echo "export RESULT_BASE=/xr/results KEEP_DMESG=yes"
} > local.config
sed 's/^/xfstests: local.config: /' local.config

args=(-R xunit)
[ -n "$GROUP" ] && args+=(-g "$GROUP")
[ -n "$EXCLUDE" ] && args+=(-e "$EXCLUDE")
# shellcheck disable=SC2206
[ -n "$TESTS" ] && args+=($TESTS)
[ -n "$GROUP$TESTS" ] || args+=(-g quick)
ktap_begin 2
say "V=$V, $(grep -c ^processor /proc/cpuinfo) CPUs, $(awk '/MemTotal/ { print int($2 / 1024) }' /proc/meminfo) MiB, cmdline: $(cat /proc/cmdline)"
stat_figures lockdep "crossrelease tracking" debug_locks
say "./check ${args[*]}"
t0=$(date +%s)
./check "${args[@]}" < /dev/null 2>&1
rc=$?
dt=$(( $(date +%s) - t0 ))
log=/xr/results/check.log
figure ran "$(sed -n 's/^Ran: //p' $log | tail -1 | wc -w)"
figure failed "$(sed -n 's/^Failures: //p' $log | tail -1 | wc -w)"
figure notrun "$(sed -n 's/^Not run: //p' $log | tail -1 | wc -w)"
figure check_rc "$rc"
figure seconds "$dt"
ktap_status "$rc" "./check"

dmesg > /tmp/dmesg.txt
n=$(grep -cE "$report_re" /tmp/dmesg.txt)
say "lockdep report headlines in dmesg: $n"
grep -E "$crash_re" /tmp/dmesg.txt | sed 's/^\[ *[0-9.]*\] /  headline: /'
boot_verdict "$n"
ktap_finish

#!/bin/sh
# Guest side of scripts/profile.sh: where the file-system throughput row
# of "make bench" spends its time.  Runs xr.fsrounds= rounds of xr_filework
# on ext4 on a loop device (as guest/bench.sh does) under
# "perf record -a -g -e cpu-clock".  A KTAP document of one result
# (guest/lib.sh): the hottest kernel symbols, self time, as diagnostics,
# then the figures rounds, uptime and the crossrelease and lockdep share.
. /xr/lib.sh
ktap_begin 1
kernel_arg rounds xr.fsrounds 20
command -v perf >/dev/null || { ktap_fail "profile # no perf in the initramfs"; exit 1; }
echo 1 > /proc/sys/kernel/printk
echo -1 > /proc/sys/kernel/perf_event_paranoid
echo 0 > /proc/sys/kernel/kptr_restrict
fw=/xr/kselftest/crossrelease/xr_filework
truncate -s 96M /tmp/xb.img && /usr/sbin/mke2fs -q -F -t ext4 /tmp/xb.img
dev=$(losetup -f) && losetup "$dev" /tmp/xb.img
mkdir -p /tmp/xbm && mount -t ext4 "$dev" /tmp/xbm
cat > /tmp/rounds.sh <<EOR
i=0
while [ \$i -lt $rounds ]; do $fw files /tmp/xbm >/dev/null && sync; i=\$((i + 1)); done
EOR
read -r u0 _ < /proc/uptime
perf record -q -a -g -e cpu-clock -F 999 -o /tmp/perf.data sh /tmp/rounds.sh 2>&1 | tail -2 | sed 's/^/# /'
read -r u1 _ < /proc/uptime
report() { perf report -i /tmp/perf.data --stdio --no-children --sort sym -g none "$@" 2>/dev/null; }
report | grep '^# Samples'
report --percent-limit 0.7 | grep -v '^#' | grep . | sed 's/^/# /'
# self time by file of the symbol: engine, lockdep, everything else
report | grep '%' | grep -v '^#' > /tmp/syms
share() { grep -E "$1" /tmp/syms | awk '{s += $1} END {printf "%.1f%%", s}'; }
figure rounds "$rounds"
figure uptime "$u0 -> $u1"
figure "share crossrelease (xr_*, crosslock_*, crosslock_folio*)" "$(share '\] (xr_|__xr_|crosslock_|crosslock_folio|lockdep_xr|crosslock_acquire|crosslock_release|folio_swap_owner|folio_lock_class|aops_class)')"
figure "share lockdep (lock_acquire, __lock_acquire, lock_release, ...)" "$(share '\] (lock_acquire|__lock_acquire|lock_release|__lock_release|lock_is_held_type|mark_lock|check_prev|validate_chain|lookup_chain|hlock_class|__bfs|check_noncircular|lockdep_|debug_lockdep|find_held_lock|match_held_lock|lock_acquired|lock_contended|add_chain|mark_usage|mark_held_locks|check_flags|lockdep_hardirqs)')"
umount /tmp/xbm && losetup -d "$dev"
ktap_ok profile

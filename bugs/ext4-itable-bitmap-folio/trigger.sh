#!/bin/sh
# ext4 with 1 KiB blocks (no journal, no flex_bg): group 0's inode bitmap
# (block 4) and its first inode-table blocks (5-7, inodes 1-24) share one
# 4 KiB block-device folio.
# Creator: creating a file after drop_caches, __ext4_get_inode_loc() finds
# the new inode's table buffer not uptodate, locks it, and looks up the
# inode bitmap with sb_getblk(); when the bitmap is not in this CPU's
# buffer-head LRU, __find_get_block_slow() locks the folio.  The bug patch
# (ext4.repro_delay_ms) sleeps in that window and empties the LRUs.
# Syncer: fsync() of the block device writes the folio back with
# WB_SYNC_ALL: __block_write_full_folio() locks the folio, then every mapped
# buffer in it (sync(2) does the same in its second pass, when its first
# left the folio dirty).
# MODE=report (make bugs): fsync after each round, never during one: both
# orders happen, no deadlock.  MODE=hang: fsync in a loop during the
# rounds: the creator waits for the folio, fsync for the table buffer, for
# ever (hung-task reports after 10 s).
set -e
echo 10 > /proc/sys/kernel/hung_task_timeout_secs
truncate -s 64M /tmp/ext4.img
/usr/sbin/mke2fs -q -t ext4 -b 1024 -I 128 -O ^has_journal,^flex_bg,^resize_inode -F /tmp/ext4.img 2>/dev/null
mkdir -p /mnt/e
dev=$(losetup -f) && losetup "$dev" /tmp/ext4.img
mount -t ext4 "$dev" /mnt/e
delay=/sys/module/ext4/parameters/repro_delay_ms
[ ! -w $delay ] || echo "${DELAY:-50}" > $delay
syncer=
[ "${MODE:-report}" = hang ] && { ( while :; do ./fsync_dev "$dev"; done ) & syncer=$!; }
i=0
while [ $i -lt "${ROUNDS:-20}" ]; do
	echo 3 > /proc/sys/vm/drop_caches
	for f in a b c d e f g h; do : > /mnt/e/$f$i; done
	rm -f /mnt/e/*$i
	[ -n "$syncer" ] || ./fsync_dev "$dev"
	i=$((i + 1))
done
[ -z "$syncer" ] || kill $syncer
[ ! -w $delay ] || echo 0 > $delay
umount /mnt/e
losetup -d "$dev"

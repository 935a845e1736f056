#!/bin/sh
# ext4 without the large_file feature: the writeback that puts i_disksize
# past 2 GiB sets it and makes its handle synchronous.  In one fsync(),
# ext4_writepages() locks two pages with its handle held (jbd2_handle,
# then the folio lock), maps the first, and the buggy code stops the
# synchronous handle - a wait for the journal commit, jbd2_handle taken
# for write - before it unlocks the second page, which commits
# "folio lock -> jbd2_handle".  One process, no race; repeated because
# jbd2 annotates the commit wait only while kjournald2 has not yet made
# the transaction the committing one.
set -e
truncate -s 128M /tmp/ext4.img
/usr/sbin/mke2fs -q -t ext4 -b 4096 -F /tmp/ext4.img
mkdir -p /mnt/ext4
for i in 1 2 3; do
	/usr/sbin/tune2fs -O ^large_file /tmp/ext4.img >/dev/null 2>&1
	mount -t ext4 -o loop /tmp/ext4.img /mnt/ext4
	sync
	./ext4_largefile /mnt/ext4/f
	umount /mnt/ext4
done

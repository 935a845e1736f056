#!/bin/sh
# Quota enable starts a transaction and takes qgroup_ioctl_lock with the
# handle held ("btrfs_trans_num_extwriters -> qgroup_ioctl_lock"), and
# queues the qgroup rescan worker.  Quota disable, while the worker is
# scanning, waits for the rescan completion; the buggy one holds
# qgroup_ioctl_lock while it waits.  The worker starts a transaction
# after the wait began and then completes the waiter, which commits
# "completion -> btrfs_trans_num_writers".  One process; the helper
# only waits for the worker to be past its start.
set -e
truncate -s 1G /tmp/btrfs.img
mkfs.btrfs -q -f /tmp/btrfs.img >/dev/null 2>&1
mkdir -p /mnt/btrfs
mount -t btrfs -o loop,max_inline=0 /tmp/btrfs.img /mnt/btrfs
./btrfs_qgroup /mnt/btrfs 4000
umount /mnt/btrfs

#!/bin/sh
# A compressed file, read whole (the first read of each frame: folio X
# locked, then ni_lock in ntfs_read_folio()), then one folio of a cached
# frame dropped and read again: ni_readpage_cmpr() locks the frame's other
# folios, cached now, under ni_lock.  mkntfs -C marks the volume
# compressed and ntfscp's file inherits it (6.1.192's ntfs3 cannot create
# files on a fresh mkntfs volume).
set -e
truncate -s 64M /tmp/ntfs.img
mkntfs -q -F -Q -C /tmp/ntfs.img
dd if=/dev/urandom of=/tmp/data bs=64k count=4 2>/dev/null
ntfscp -q -f /tmp/ntfs.img /tmp/data c
mkdir -p /mnt/ntfs
mount -t ntfs3 -o loop /tmp/ntfs.img /mnt/ntfs
getfattr -e hex -n system.ntfs_attrib /mnt/ntfs/c
./ntfs3_frame /mnt/ntfs/c
umount /mnt/ntfs

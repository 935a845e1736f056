#!/bin/sh
# One cold read of a compressed file: filemap locks folio X and calls
# ntfs_read_folio(), which takes ni_lock and locks the frame's other
# folios (ni_readpage_cmpr()); X is unlocked after ni_lock was taken.
# mkntfs -C marks the volume compressed, and ntfscp's file inherits it
# (6.1.192's ntfs3 cannot create files on a fresh mkntfs volume).
set -e
truncate -s 64M /tmp/ntfs.img
mkntfs -q -F -Q -C /tmp/ntfs.img
dd if=/dev/urandom of=/tmp/data bs=64k count=4 2>/dev/null
ntfscp -q -f /tmp/ntfs.img /tmp/data c
mkdir -p /mnt/ntfs
mount -t ntfs3 -o loop /tmp/ntfs.img /mnt/ntfs
getfattr -e hex -n system.ntfs_attrib /mnt/ntfs/c
dd if=/mnt/ntfs/c of=/dev/null bs=4k 2>/dev/null || echo "read failed (the data is not really compressed)"
umount /mnt/ntfs

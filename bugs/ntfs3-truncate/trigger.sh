#!/bin/sh
# Read a small (resident) file: ntfs_read_folio() takes ni_lock under the
# folio lock.  Then truncate it to a size inside its first page: the buggy
# ntfs_truncate() locks that folio under ni_lock.  No race.  (6.1.192's
# ntfs3 cannot create a file on a fresh mkntfs volume, "no free space to
# extend mft": ntfscp puts the file there.)
set -e
truncate -s 64M /tmp/ntfs.img
mkntfs -q -F -Q /tmp/ntfs.img
echo hello-ntfs3-resident-data > /tmp/small
ntfscp -q -f /tmp/ntfs.img /tmp/small f
mkdir -p /mnt/ntfs
mount -t ntfs3 -o loop /tmp/ntfs.img /mnt/ntfs
cat /mnt/ntfs/f
truncate -s 5 /mnt/ntfs/f
umount /mnt/ntfs

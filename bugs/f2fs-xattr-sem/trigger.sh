#!/bin/sh
# Create a file in an inline-dentry directory (its inode page locked, then
# the ACL lookup takes the directory's i_xattr_sem) and set an xattr on the
# directory (i_xattr_sem, then the inode page).  One process, no race.
set -e
truncate -s 128M /tmp/f2fs.img
mkfs.f2fs -q -f /tmp/f2fs.img
mkdir -p /mnt/f2fs
mount -t f2fs -o loop /tmp/f2fs.img /mnt/f2fs
mkdir /mnt/f2fs/d
setfattr -n user.a -v 1 /mnt/f2fs/d
touch /mnt/f2fs/d/f
setfattr -n user.b -v 2 /mnt/f2fs/d
touch /mnt/f2fs/d/g
umount /mnt/f2fs

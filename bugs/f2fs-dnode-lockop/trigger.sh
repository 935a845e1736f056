#!/bin/sh
# Creating a file takes cp_rwsem (f2fs_lock_op()) and then locks the
# directory's inode page (a node page).  Writing new data back:
# f2fs_do_write_data_page() gets the file's inode page (its dnode)
# locked and, in the buggy code, then takes cp_rwsem; unlocking the
# inode page commits "folio lock -> cp_rwsem" (once per page written).
# One process, no race.  noinline_data: a file converted from inline
# data would lock its data page and then take cp_rwsem, which with the
# root directory's dentry pages (locked under cp_rwsem, same a_ops)
# makes a cycle of data-page classes on the fixed kernel too.
set -e
truncate -s 128M /tmp/f2fs.img
mkfs.f2fs -q -f /tmp/f2fs.img
mkdir -p /mnt/f2fs
mount -t f2fs -o loop,noinline_data /tmp/f2fs.img /mnt/f2fs
dd if=/dev/zero of=/mnt/f2fs/f bs=4k count=16 2>/dev/null
sync
umount /mnt/f2fs

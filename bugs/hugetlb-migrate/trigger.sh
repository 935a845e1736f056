#!/bin/sh
# Punch a hole inside a mapped huge page (i_mmap_rwsem, then the folio
# lock), then soft-offline it: migration holds the folio lock, and the
# buggy unmap_and_move_huge_page() takes i_mmap_rwsem again under it.
set -e
mkdir -p /mnt/huge
mount -t hugetlbfs none /mnt/huge
./hugetlb_migrate /mnt/huge/f
umount /mnt/huge

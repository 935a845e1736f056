#!/bin/sh
# A private COW of a huge page shared with a child, with the pool empty:
# hugetlb_fault() takes the fault mutex, then the page-cache folio's lock;
# hugetlb_wp() fails to allocate, drops the mutex, unmaps the child and
# takes the mutex again, still holding the folio lock.
set -e
mkdir -p /mnt/huge
mount -t hugetlbfs none /mnt/huge
grep -E 'HugePages_(Total|Free)' /proc/meminfo
./hugetlb_cow /mnt/huge/g
umount /mnt/huge

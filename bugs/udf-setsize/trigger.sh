#!/bin/sh
# A buffered write maps blocks under the folio lock (udf_get_block() takes
# i_data_sem); a shrinking truncate then, in the buggy udf_setsize(),
# locks the partial folio at the new end under i_data_sem.  No race.
set -e
truncate -s 64M /tmp/udf.img
mkudffs --media-type=hd --blocksize=4096 /tmp/udf.img >/dev/null
mkdir -p /mnt/udf
mount -t udf -o loop /tmp/udf.img /mnt/udf
dd if=/dev/zero of=/mnt/udf/f bs=4k count=4 2>/dev/null
sync
truncate -s 5000 /mnt/udf/f
umount /mnt/udf

// SPDX-License-Identifier: GPL-2.0
/*
 * make bugs: ntfs3-compressed.  Usage: ntfs3_frame FILE (compressed, at
 * least one 64 KiB frame).  Reads the file (the frame's folios are cached),
 * drops one folio of the first frame and reads it again: ntfs_read_folio()
 * takes ni_lock with that folio locked, and ni_readpage_cmpr() locks the
 * frame's other, cached folios under ni_lock.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char buf[4096];
	off_t off;
	int fd;

	fd = open(argc > 1 ? argv[1] : "/mnt/ntfs/c", O_RDONLY);
	if (fd < 0) {
		perror("open");
		return 1;
	}
	for (off = 0; pread(fd, buf, sizeof(buf), off) > 0; off += sizeof(buf))
		;
	if (posix_fadvise(fd, 5 * 4096, 4096, POSIX_FADV_DONTNEED))
		perror("posix_fadvise");
	if (pread(fd, buf, sizeof(buf), 5 * 4096) != sizeof(buf))
		perror("pread");
	printf("ntfs3_frame: read %lld bytes, then page 5 again\n", (long long)off);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * fsync_dev DEV: fsync() a block device, the one writeback pass with
 * WB_SYNC_ALL (sync(2) first writes with WB_SYNC_NONE, which only
 * trylocks the buffers of a folio and leaves it clean for the second).
 */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: fsync_dev DEV\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || fsync(fd)) {
		perror(argv[1]);
		return 1;
	}
	return close(fd) ? 1 : 0;
}

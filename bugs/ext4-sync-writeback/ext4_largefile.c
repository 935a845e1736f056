// SPDX-License-Identifier: GPL-2.0
/*
 * make bugs: ext4-sync-writeback.  Usage: ext4_largefile FILE-ON-EXT4
 *
 * On an ext4 without the large_file feature, the first writeback that
 * puts i_disksize past 2 GiB sets the feature and makes its handle
 * synchronous.  Two pages are made dirty there: page A over a hole
 * (delayed allocation) and page B over an unwritten extent.  In the
 * writeback, ext4_writepages() locks A and B under its handle, maps
 * and submits A only (B's buffer is of another kind, so B stays
 * locked), and the i_disksize update sets large_file.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/falloc.h>

#define BASE	(2LL << 30)	/* 2 GiB */
#define PAGE	4096

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "/mnt/ext4/f";
	static char buf[2 * PAGE];
	int fd;

	fd = open(path, O_CREAT | O_TRUNC | O_RDWR, 0644);
	if (fd < 0) {
		perror("open");
		return 1;
	}
	/* page B: an unwritten extent past 2 GiB, i_size unchanged */
	if (fallocate(fd, FALLOC_FL_KEEP_SIZE, BASE + PAGE, PAGE)) {
		perror("fallocate");
		return 1;
	}
	/* page A: delayed allocation; page B: dirty over the unwritten block */
	memset(buf, 'x', sizeof(buf));
	if (pwrite(fd, buf, sizeof(buf), BASE) != (ssize_t)sizeof(buf)) {
		perror("pwrite");
		return 1;
	}
	/*
	 * ext4_writepages(): jbd2_handle held while A and B are locked;
	 * the synchronous handle is stopped (commit waited for) with B
	 * still locked (buggy), then B is unlocked.
	 */
	if (fsync(fd)) {
		perror("fsync");
		return 1;
	}
	close(fd);
	if (unlink(path))
		perror("unlink");
	printf("ext4_largefile: done\n");
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * make bugs: btrfs-qgroup-disable.  Usage: btrfs_qgroup MOUNTPOINT [NFILES]
 *
 * Fills the file system with NFILES small files (one data extent each
 * when mounted with max_inline=0), enables quotas, which starts the
 * qgroup rescan worker, waits until the worker is scanning its first
 * extent tree leaf, and disables quotas while it still runs.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include <linux/btrfs.h>

static int quota_ctl(int fd, __u64 cmd)
{
	struct btrfs_ioctl_quota_ctl_args args;

	memset(&args, 0, sizeof(args));
	args.cmd = cmd;
	return ioctl(fd, BTRFS_IOC_QUOTA_CTL, &args);
}

int main(int argc, char **argv)
{
	const char *mnt = argc > 1 ? argv[1] : "/mnt/btrfs";
	int nfiles = argc > 2 ? atoi(argv[2]) : 4000;
	struct btrfs_ioctl_quota_rescan_args rs;
	struct timespec t0, t;
	static char buf[4096];
	char path[4096];
	int dfd, fd, i;

	dfd = open(mnt, O_RDONLY | O_DIRECTORY);
	if (dfd < 0) {
		perror(mnt);
		return 1;
	}
	memset(buf, 'q', sizeof(buf));
	for (i = 0; i < nfiles; i++) {
		snprintf(path, sizeof(path), "%s/f%05d", mnt, i);
		fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
		if (fd < 0 || write(fd, buf, sizeof(buf)) != sizeof(buf)) {
			perror(path);
			return 1;
		}
		close(fd);
	}
	/* the rescan reads the commit root: get the extents in there */
	if (syncfs(dfd)) {
		perror("syncfs");
		return 1;
	}

	/*
	 * btrfs_quota_enable(): starts a transaction, then takes
	 * qgroup_ioctl_lock with the handle held; queues the rescan worker.
	 */
	if (quota_ctl(dfd, BTRFS_QUOTA_CTL_ENABLE)) {
		perror("BTRFS_QUOTA_CTL_ENABLE");
		return 1;
	}

	/* wait until the worker has started on the extent tree, not longer */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		memset(&rs, 0, sizeof(rs));
		if (ioctl(dfd, BTRFS_IOC_QUOTA_RESCAN_STATUS, &rs)) {
			perror("BTRFS_IOC_QUOTA_RESCAN_STATUS");
			return 1;
		}
		if (!rs.flags) {
			fprintf(stderr, "btrfs_qgroup: rescan over before the disable, "
				"use more files\n");
			break;
		}
		if (rs.progress > 0)
			break;
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec > 60) {
			fprintf(stderr, "btrfs_qgroup: rescan did not start\n");
			break;
		}
		usleep(100);
	}

	/*
	 * btrfs_quota_disable(): the buggy one waits for the rescan worker
	 * while holding qgroup_ioctl_lock; the worker starts a transaction
	 * again before it completes the waiters.
	 */
	if (quota_ctl(dfd, BTRFS_QUOTA_CTL_DISABLE)) {
		perror("BTRFS_QUOTA_CTL_DISABLE");
		return 1;
	}
	close(dfd);
	printf("btrfs_qgroup: done (%d files, progress %llu at the disable)\n",
	       nfiles, (unsigned long long)rs.progress);
	return 0;
}

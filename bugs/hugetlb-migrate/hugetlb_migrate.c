// SPDX-License-Identifier: GPL-2.0
/* make bugs: hugetlb-migrate.  Usage: hugetlb_migrate FILE-ON-HUGETLBFS */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MADV_SOFT_OFFLINE
#define MADV_SOFT_OFFLINE 101
#endif
#define HPAGE (2UL << 20)

int main(int argc, char **argv)
{
	char *p;
	int fd;

	fd = open(argc > 1 ? argv[1] : "/mnt/huge/f", O_CREAT | O_RDWR, 0600);
	if (fd < 0 || ftruncate(fd, HPAGE)) {
		perror("open/ftruncate");
		return 1;
	}
	p = mmap(NULL, HPAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	p[0] = 1;
	/* i_mmap_rwsem for write, then the partial folio's lock */
	if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 4096, 4096))
		perror("fallocate");
	/* migration: the folio lock, then i_mmap_rwsem for read (buggy) */
	if (madvise(p, HPAGE, MADV_SOFT_OFFLINE))
		perror("madvise(MADV_SOFT_OFFLINE)");
	printf("hugetlb_migrate: done\n");
	return 0;
}

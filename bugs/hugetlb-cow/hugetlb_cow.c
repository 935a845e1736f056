// SPDX-License-Identifier: GPL-2.0
/*
 * make bugs: hugetlb-cow.  Usage: hugetlb_cow FILE-ON-HUGETLBFS, with a
 * pool of two huge pages (hugepages=2).  The page cache takes one, the
 * private mapping's COW the other; after fork() the parent's second write
 * needs a third, outside its reserve, and the child's mapping is unmapped.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define HPAGE (2UL << 20)

int main(int argc, char **argv)
{
	int fd, pipefd[2];
	pid_t child;
	char *p, c;

	fd = open(argc > 1 ? argv[1] : "/mnt/huge/g", O_CREAT | O_RDWR, 0600);
	if (fd < 0 || fallocate(fd, 0, 0, HPAGE)) {	/* the page-cache folio */
		perror("open/fallocate");
		return 1;
	}
	p = mmap(NULL, HPAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	p[0] = 1;		/* COW from the page cache, from the reserve */
	if (pipe(pipefd))
		return 1;
	child = fork();
	if (child == 0) {	/* shares the private copy, waits */
		close(pipefd[1]);
		if (read(pipefd[0], &c, 1) < 0)
			return 1;
		_exit(0);
	}
	p[0] = 2;		/* COW outside the reserve: the pool is empty */
	printf("hugetlb_cow: second write done\n");
	close(pipefd[1]);
	waitpid(child, NULL, 0);
	return 0;
}

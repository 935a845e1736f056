// SPDX-License-Identifier: GPL-2.0
/*
 * File and memory work for the crossrelease workload test: what busybox
 * cannot do from a shell script.
 *
 *   xr_filework files DIR      create, write, read, mmap, truncate and
 *                              delete files in DIR (folio locks on the
 *                              write, read, fault and truncate paths)
 *   xr_filework pressure PCT   allocate and touch all of MemFree and PCT%
 *                              of what else is available, so that the
 *                              kernel reclaims page cache whatever the
 *                              size of the machine
 *   xr_filework now            print CLOCK_MONOTONIC in microseconds, for
 *                              timings finer than /proc/uptime's 10 ms
 *   xr_filework thpsplit       make an anonymous huge page and have the
 *                              kernel split it at its second page
 *                              (debugfs split_huge_pages): the split keeps
 *                              that page locked and unlocks the others
 *
 * Exits 0 on success, 1 with a message on stderr otherwise, 4 if the
 * kernel made no huge page.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define FILE_SIZE	(4L << 20)
#define HUGE_SIZE	(2UL << 20)
#define SPLIT_FILE	"/sys/kernel/debug/split_huge_pages"
#define NR_FILES	4

static int fail(const char *what, const char *path)
{
	fprintf(stderr, "xr_filework: %s %s: %s\n", what, path, strerror(errno));
	return 1;
}

static int fill(int fd, const char *path, char c)
{
	static char buf[64 << 10];
	long done;

	memset(buf, c, sizeof(buf));
	for (done = 0; done < FILE_SIZE; done += sizeof(buf))
		if (write(fd, buf, sizeof(buf)) != sizeof(buf))
			return fail("write", path);
	return 0;
}

static int check_read(int fd, const char *path, char c)
{
	static char buf[64 << 10];
	ssize_t n;

	if (lseek(fd, 0, SEEK_SET) < 0)
		return fail("lseek", path);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		if (buf[0] != c || buf[n - 1] != c) {
			errno = EIO;
			return fail("read back", path);
		}
	return n < 0 ? fail("read", path) : 0;
}

/* Write through a shared mapping: page faults and dirty folio writeback. */
static int map_and_touch(int fd, const char *path)
{
	char *p = mmap(NULL, FILE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
		       fd, 0);
	long i;

	if (p == MAP_FAILED)
		return fail("mmap", path);
	for (i = 0; i < FILE_SIZE; i += 4096)
		p[i] = 'm';
	if (msync(p, FILE_SIZE, MS_SYNC))
		return fail("msync", path);
	return munmap(p, FILE_SIZE) ? fail("munmap", path) : 0;
}

static int one_file(const char *dir, int i)
{
	char path[256];
	int fd, ret;

	snprintf(path, sizeof(path), "%s/xr_file%d", dir, i);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return fail("create", path);
	ret = fill(fd, path, 'a' + i) ||
	      (fsync(fd) ? fail("fsync", path) : 0) ||
	      check_read(fd, path, 'a' + i) ||
	      map_and_touch(fd, path) ||
	      (ftruncate(fd, FILE_SIZE / 2 + 123) ? fail("truncate", path) : 0) ||
	      (ftruncate(fd, 0) ? fail("truncate", path) : 0);
	close(fd);
	if (unlink(path) && !ret)
		ret = fail("unlink", path);
	return ret;
}

static int files(const char *dir)
{
	int i;

	for (i = 0; i < NR_FILES; i++)
		if (one_file(dir, i))
			return 1;
	return 0;
}

static long meminfo_kb(const char *field)
{
	char line[128], name[64];
	long kb = -1, v;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63[^:]: %ld kB", name, &v) == 2 &&
		    !strcmp(name, field)) {
			kb = v;
			break;
		}
	fclose(f);
	return kb;
}

static int pressure(int pct)
{
	long avail = meminfo_kb("MemAvailable"), free = meminfo_kb("MemFree");
	long kb, len, i;
	char *p;

	if (avail <= 0 || free <= 0 || pct <= 0 || pct > 95) {
		errno = EINVAL;
		return fail("pressure", "MemAvailable/MemFree");
	}
	/* past MemFree, into what only reclaim can give */
	kb = free + (avail > free ? (avail - free) / 100 * pct : 0);
	len = kb * 1024;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return fail("mmap", "anonymous");
	for (i = 0; i < len; i += 4096)
		p[i] = 1;
	printf("# touched %ld MiB: %ld MiB free, %ld MiB available\n",
	       len >> 20, free >> 10, avail >> 10);
	return munmap(p, len) ? fail("munmap", "anonymous") : 0;
}

/* AnonHugePages of this process, in kB */
static long anon_huge_kb(void)
{
	char line[128];
	long kb = -1;
	FILE *f = fopen("/proc/self/smaps_rollup", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "AnonHugePages: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

static int thp_split(void)
{
	char *p, *huge;
	FILE *f;

	p = mmap(NULL, 2 * HUGE_SIZE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return fail("mmap", "anonymous");
	huge = (char *)(((unsigned long)p + HUGE_SIZE - 1) & ~(HUGE_SIZE - 1));
	if (madvise(huge, HUGE_SIZE, MADV_HUGEPAGE))
		return fail("madvise", "MADV_HUGEPAGE");
	memset(huge, 1, HUGE_SIZE);
	if (anon_huge_kb() <= 0) {
		printf("# no huge page was made\n");
		return 4;
	}
	f = fopen(SPLIT_FILE, "w");
	if (!f)
		return fail("open", SPLIT_FILE);
	fprintf(f, "%d,%#lx,%#lx", getpid(), (unsigned long)huge + 4096,
		(unsigned long)huge + HUGE_SIZE);
	if (fclose(f))
		return fail("write", SPLIT_FILE);
	if (anon_huge_kb() != 0) {
		errno = EAGAIN;
		return fail("split", SPLIT_FILE);
	}
	return munmap(p, 2 * HUGE_SIZE) ? fail("munmap", "anonymous") : 0;
}

static int now(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts))
		return fail("clock_gettime", "CLOCK_MONOTONIC");
	printf("%lld\n", (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "now"))
		return now();
	if (argc == 3 && !strcmp(argv[1], "files"))
		return files(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "pressure"))
		return pressure(atoi(argv[2]));
	if (argc == 2 && !strcmp(argv[1], "thpsplit"))
		return thp_split();
	fprintf(stderr, "usage: %s files DIR | pressure PERCENT | now | thpsplit\n",
		argv[0]);
	return 2;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * ucat: the reference solution of the lab 3 exercise (for instructors;
 * the student's skeleton is labs/exercises/ucat/ucat.c).
 *
 * Copies FILE to standard output with preadv2(..., RWF_UNCACHED), so that
 * the data it reads does not stay in the page cache; where the kernel or
 * the file system refuses the flag (EOPNOTSUPP: tmpfs, or a kernel without
 * it) it says so once and goes on with plain reads.  The file's residency
 * (cachestat(2)) before and after goes to standard error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pclab/uncached.h>	/* RWF_UNCACHED: the kernel's RWF_DONTCACHE */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "pclab/cachestat.h"
#include "pclab/size.h"

static const char *file;

static __attribute__((noreturn)) void fail(const char *what)
{
	fprintf(stderr, "ucat: %s: %s: %s\n", file, what, strerror(errno));
	exit(1);
}

/*
 * "ucat: residency WHEN: N of M pages cached": the file's pages in the
 * page cache, and how many pages the file has.  A report the grader can
 * read, and the student can compare with pclab-rw -S.
 */
static void report_residency(int fd, const char *when)
{
	struct pclab_cachestat cs;
	struct stat st;
	long page = sysconf(_SC_PAGESIZE);

	if (fstat(fd, &st))
		fail("fstat");
	/* len 0: to the end of the file, whatever its size is now */
	if (pclab_cachestat(fd, 0, 0, &cs))
		fail("cachestat");
	fprintf(stderr, "ucat: residency %s: %llu of %llu pages cached\n", when,
		(unsigned long long)cs.nr_cache,
		(unsigned long long)((st.st_size + page - 1) / page));
}

/* All of buf to standard output: a pipe may take less than asked. */
static void write_all(const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(STDOUT_FILENO, buf, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			fail("write to standard output");
		}
		buf += n;
		len -= n;
	}
}

static void copy_out(int fd, char *buf, size_t block)
{
	int flags = RWF_UNCACHED;
	off_t off = 0;

	for (;;) {
		struct iovec iov = { .iov_base = buf, .iov_len = block };
		/* explicit offsets: the file position plays no part */
		ssize_t n = preadv2(fd, &iov, 1, off, flags);

		if (n < 0 && errno == EOPNOTSUPP && flags) {
			/*
			 * Refused before any I/O (docs/semantics.md, rule 2),
			 * so the same read can simply be issued again.  Said
			 * once: the rest of the file is read the same way.
			 */
			fprintf(stderr, "ucat: %s: RWF_UNCACHED is not supported here (%s): "
				"falling back to plain reads\n", file, strerror(errno));
			flags = 0;
			continue;
		}
		if (n < 0) {
			if (errno == EINTR)
				continue;
			fail("read");
		}
		if (n == 0)
			return;
		write_all(buf, n);
		off += n;
	}
}

int main(int argc, char **argv)
{
	long long block = 1 << 20;
	char *buf;
	int opt, fd;

	while ((opt = getopt(argc, argv, "b:")) != -1) {
		/* 1 MiB calls by default: readahead gets a large window */
		if (opt != 'b' || !pclab_parse_size(optarg, &block) || block < 1 ||
		    block > (1 << 30)) {
			fprintf(stderr, "Usage: ucat [-b SIZE] FILE   (SIZE: bytes per read, 1 to 1G)\n");
			return 2;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "Usage: ucat [-b SIZE] FILE   (SIZE: bytes per read, 1 to 1G)\n");
		return 2;
	}
	file = argv[optind];
	fd = open(file, O_RDONLY);
	if (fd < 0)
		fail("open");
	buf = malloc(block);
	if (!buf)
		fail("malloc");

	report_residency(fd, "before");
	copy_out(fd, buf, block);
	report_residency(fd, "after");
	free(buf);
	close(fd);
	return 0;
}

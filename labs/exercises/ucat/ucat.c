// SPDX-License-Identifier: GPL-2.0
/*
 * ucat: print a file without leaving it in the page cache.
 * The lab 3 exercise: labs/exercises/README.md says what to write and how
 * it is graded (make grade-ucat).  Fill in the three TODOs; everything
 * else is given.
 *
 *   ucat [-b SIZE] FILE
 *
 * What ucat must do:
 *   - print "ucat: residency before: N of M pages cached" on standard
 *     error: N, FILE's pages in the page cache (cachestat(2), through
 *     pclab_cachestat() of include/pclab/cachestat.h, len 0 = to the end
 *     of the file), M, the pages FILE has (its size rounded up to pages);
 *   - copy FILE to standard output with preadv2(..., RWF_UNCACHED), SIZE
 *     bytes per call (default 1 MiB);
 *   - where preadv2 fails with EOPNOTSUPP (tmpfs; a kernel without the
 *     flag), print ONE line on standard error that contains the words
 *     "falling back to plain reads", and read the rest without the flag;
 *   - print "ucat: residency after: N of M pages cached" the same way;
 *   - exit 0, or 1 with a message on standard error if anything fails.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pclab/uncached.h>	/* RWF_UNCACHED: the kernel's RWF_DONTCACHE */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>	/* preadv2() */
#include <unistd.h>

#include "pclab/cachestat.h"	/* pclab_cachestat() */
#include "pclab/size.h"		/* pclab_parse_size() */

static const char *file;

/*
 * TODO 1: the residency report, WHEN being "before" or "after":
 * "ucat: residency WHEN: N of M pages cached" on standard error.
 * Return 0, or -1 if cachestat or fstat failed (errno set).
 */
static int report_residency(int fd, const char *when)
{
	(void)fd;
	(void)when;
	fprintf(stderr, "ucat: TODO 1: report_residency() is not implemented\n");
	errno = ENOSYS;
	return -1;
}

/*
 * TODO 2: copy the file to standard output, BLOCK bytes per preadv2()
 * call with RWF_UNCACHED, into BUF.  Mind short writes to standard
 * output (a pipe takes what fits) and EINTR.
 *
 * TODO 3: the fallback.  If preadv2() fails with EOPNOTSUPP, the flag
 * was refused before any I/O (docs/semantics.md, rule 2): print one line
 * on standard error saying so, with the words "falling back to plain
 * reads", and go on without the flag.
 *
 * Return 0 at the end of the file, or -1 on an error (errno set).
 */
static int copy_out(int fd, char *buf, size_t block)
{
	(void)fd;
	(void)buf;
	(void)block;
	fprintf(stderr, "ucat: TODO 2: copy_out() is not implemented\n");
	errno = ENOSYS;
	return -1;
}

/* Given: the command line, opening FILE, the buffer, the order of the steps. */
int main(int argc, char **argv)
{
	long long block = 1 << 20;
	char *buf;
	int opt, fd, status = 0;

	while ((opt = getopt(argc, argv, "b:")) != -1) {
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
	if (fd < 0) {
		fprintf(stderr, "ucat: %s: %s\n", file, strerror(errno));
		return 1;
	}
	buf = malloc(block);
	if (!buf) {
		fprintf(stderr, "ucat: malloc: %s\n", strerror(errno));
		return 1;
	}
	if (report_residency(fd, "before") || copy_out(fd, buf, block) ||
	    report_residency(fd, "after")) {
		fprintf(stderr, "ucat: %s: %s\n", file, strerror(errno));
		status = 1;
	}
	free(buf);
	close(fd);
	return status;
}

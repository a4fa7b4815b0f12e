// SPDX-License-Identifier: GPL-2.0
/*
 * ucp: copy a file without leaving either copy in the page cache, and
 * durably.  The lab 4 exercise: labs/exercises/README.md says what to
 * write and how it is graded (make grade-ucp).  Fill in the TODOs;
 * everything else is given.
 *
 *   ucp [-b SIZE] SRC DST
 *
 * What ucp must do:
 *   - copy SRC to DST (created, or truncated if it exists) with
 *     preadv2(..., RWF_UNCACHED) and pwritev2(..., RWF_UNCACHED), SIZE
 *     bytes per call (default 1 MiB);
 *   - exit 0 only once the copy is durable: DST's data and size, and its
 *     name in its directory, on the disk, past the disk's volatile write
 *     cache (labs/lab4/README.md, "Background"; docs/semantics.md, rule 5
 *     and 10).  Choose between fsync() at the end and RWF_DSYNC on every
 *     write, and write down why in the comment of TODO 3;
 *   - exit 1 with a message on standard error if anything fails, including
 *     the calls that make the copy durable.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>	/* dirname() */
#include <pclab/uncached.h>	/* RWF_UNCACHED: the kernel's RWF_DONTCACHE */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>	/* preadv2(), pwritev2() */
#include <unistd.h>

#include "pclab/size.h"	/* pclab_parse_size() */

/*
 * TODO 1: copy IN to OUT, BLOCK bytes per call through BUF: uncached
 * reads, uncached writes.  A write may be short: write the rest.  Retry
 * on EINTR.  (tmpfs refuses the flag with EOPNOTSUPP: the grader does not
 * test it, but a friendly tool says so once and goes on without it.)
 * Return 0, or -1 on an error (errno set).
 */
static int copy_uncached(int in, int out, char *buf, size_t block)
{
	(void)in;
	(void)out;
	(void)buf;
	(void)block;
	fprintf(stderr, "ucp: TODO 1: copy_uncached() is not implemented\n");
	errno = ENOSYS;
	return -1;
}

/*
 * TODO 2: make the copy durable: DST's data and metadata, then the
 * directory entry (open DST's directory, dirname() of a copy of DST, with
 * O_RDONLY | O_DIRECTORY, and ...).  Return 0, or -1 (errno set).
 *
 * TODO 3: why this way and not the other (fsync at the end, or RWF_DSYNC
 * on every write)?  Your reasoning, in this comment:
 */
static int make_durable(int out, const char *dst)
{
	(void)out;
	(void)dst;
	fprintf(stderr, "ucp: TODO 2: make_durable() is not implemented\n");
	errno = ENOSYS;
	return -1;
}

/* Given: the command line, opening the files, the buffer, the steps. */
int main(int argc, char **argv)
{
	long long block = 1 << 20;
	const char *src, *dst;
	struct stat st;
	int opt, in, out, status = 0;
	char *buf;

	while ((opt = getopt(argc, argv, "b:")) != -1) {
		if (opt != 'b' || !pclab_parse_size(optarg, &block) || block < 1 ||
		    block > (1 << 30)) {
			fprintf(stderr, "Usage: ucp [-b SIZE] SRC DST   (SIZE: bytes per call, 1 to 1G)\n");
			return 2;
		}
	}
	if (optind != argc - 2) {
		fprintf(stderr, "Usage: ucp [-b SIZE] SRC DST   (SIZE: bytes per call, 1 to 1G)\n");
		return 2;
	}
	src = argv[optind];
	dst = argv[optind + 1];
	in = open(src, O_RDONLY);
	if (in < 0 || fstat(in, &st)) {
		fprintf(stderr, "ucp: %s: %s\n", src, strerror(errno));
		return 1;
	}
	/* O_TRUNC: an old DST's cached folios go, the copy's are new */
	out = open(dst, O_WRONLY | O_CREAT | O_TRUNC, st.st_mode & 0777);
	if (out < 0) {
		fprintf(stderr, "ucp: %s: %s\n", dst, strerror(errno));
		return 1;
	}
	buf = malloc(block);
	if (!buf) {
		fprintf(stderr, "ucp: malloc: %s\n", strerror(errno));
		return 1;
	}
	if (copy_uncached(in, out, buf, block) || make_durable(out, dst)) {
		fprintf(stderr, "ucp: %s -> %s: %s\n", src, dst, strerror(errno));
		status = 1;
	}
	close(out);
	close(in);
	free(buf);
	return status;
}

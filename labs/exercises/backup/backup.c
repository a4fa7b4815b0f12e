// SPDX-License-Identifier: GPL-2.0
/*
 * backup: copy a data set many times larger than memory beside a service
 * whose hot working set must stay in the page cache.  Lab 7's capstone:
 * labs/lab7/README.md is the handout, labs/exercises/README.md says how it
 * is graded (make grade-backup).  Fill in the TODOs; everything else is
 * given.
 *
 *   backup [-f] [-b SIZE] SRCDIR DSTDIR
 *
 * What backup must do:
 *   - copy every regular file directly in SRCDIR (not those of its
 *     subdirectories; anything that is not a regular file is skipped) into
 *     DSTDIR, which exists, under the same name: created, or truncated if
 *     it exists, with the source's permission bits;
 *   - read and write with preadv2(..., RWF_UNCACHED) and
 *     pwritev2(..., RWF_UNCACHED), SIZE bytes per call (default 1 MiB), so
 *     that neither the data set nor its copy stays in the page cache and
 *     the service's hot set is left alone;
 *   - exit 0 only once every copy is durable: each file's data and size
 *     (fsync() the file when its copy is done), then the new names in
 *     DSTDIR (fsync() DSTDIR once, at the end);
 *   - where a file system refuses the flag with EOPNOTSUPP (tmpfs does,
 *     docs/semantics.md rule 2): without -f, stop with exit status 1 and a
 *     line on standard error that names the file and says "RWF_UNCACHED is
 *     not supported"; with -f, say "falling back to plain reads" (or
 *     writes) on standard error, once per file, and go on without the flag;
 *   - exit 1 with a message on standard error if anything else fails,
 *     including the calls that make the copy durable;
 *   - at the end, print one line on standard output (given):
 *     "backup: N files, B bytes in S s, R MB/s" (MB: 10^6 bytes).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pclab/uncached.h>	/* RWF_UNCACHED: the kernel's RWF_DONTCACHE */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>	/* preadv2(), pwritev2() */
#include <unistd.h>

#include "pclab/clock.h"	/* pclab_now() */
#include "pclab/size.h"	/* pclab_parse_size() */

#define USAGE "Usage: backup [-f] [-b SIZE] SRCDIR DSTDIR   (SIZE: bytes per call, 1 to 1G)\n"

struct job {
	int fallback;		/* -f: plain reads and writes where the flag is refused */
	char *buf;		/* the buffer of every call, block bytes */
	size_t block;
	long long bytes;	/* copied so far */
	int files;
};

/* Given: "backup: NAME: WHAT: <errno's text>" on standard error, exit 1. */
static __attribute__((noreturn)) void fail(const char *name, const char *what)
{
	fprintf(stderr, "backup: %s: %s: %s\n", name, what, strerror(errno));
	exit(1);
}

/*
 * TODO 1: copy the file NAME of the directory SRC (an open directory, whose
 * path is srcdir, for messages) into the directory DST (dstdir): open both
 * files (openat() takes the directory's descriptor), then copy with
 * uncached reads and uncached writes of job->block bytes through job->buf.
 * A write may be short: write the rest.  Retry on EINTR.  EOPNOTSUPP: see
 * the top comment (the flag is refused before any I/O, so the same call
 * can simply be made again without it).  Add what you copied to
 * job->bytes, and count the file in job->files.  On a failure, fail()
 * says so and exits.
 *
 * TODO 2: make the copy durable before you return: its data, size and
 * blocks.
 */
static void copy_file(struct job *job, int src, const char *srcdir, int dst, const char *dstdir,
		      const char *name, mode_t mode)
{
	(void)job;
	(void)src;
	(void)srcdir;
	(void)dst;
	(void)dstdir;
	(void)name;
	(void)mode;
	fprintf(stderr, "backup: TODO 1: copy_file() is not implemented\n");
	exit(1);
}

/*
 * TODO 2, continued: make the new names in DSTDIR durable: DST is DSTDIR,
 * open with O_RDONLY | O_DIRECTORY.
 *
 * TODO 3: why fsync() each file as soon as it is copied, rather than one
 * syncfs() or sync() at the end, or RWF_DSYNC on every write?  Your
 * reasoning, in this comment (labs/lab4/README.md, "Background";
 * docs/semantics.md, rules 5 and 10):
 */
static void sync_directory(int dst, const char *dstdir)
{
	(void)dst;
	(void)dstdir;
	fprintf(stderr, "backup: TODO 2: sync_directory() is not implemented\n");
	exit(1);
}

/* Given: the command line, the walk through SRCDIR, the summary. */
int main(int argc, char **argv)
{
	struct job job = { .block = 1 << 20 };
	const char *srcdir, *dstdir;
	long long block = 1 << 20;
	struct dirent *e;
	double start;
	int opt, dst;
	DIR *src;

	while ((opt = getopt(argc, argv, "fb:")) != -1) {
		if (opt == 'f') {
			job.fallback = 1;
		} else if (opt != 'b' || !pclab_parse_size(optarg, &block) || block < 1 ||
			   block > (1 << 30)) {
			fputs(USAGE, stderr);
			return 2;
		}
	}
	if (optind != argc - 2) {
		fputs(USAGE, stderr);
		return 2;
	}
	srcdir = argv[optind];
	dstdir = argv[optind + 1];
	job.block = block;
	job.buf = malloc(job.block);
	if (!job.buf)
		fail("backup", "malloc");
	src = opendir(srcdir);
	if (!src)
		fail(srcdir, "open");
	dst = open(dstdir, O_RDONLY | O_DIRECTORY);
	if (dst < 0)
		fail(dstdir, "open");

	start = pclab_now();
	for (errno = 0; (e = readdir(src)); errno = 0) {
		struct stat st;

		if (fstatat(dirfd(src), e->d_name, &st, AT_SYMLINK_NOFOLLOW))
			fail(e->d_name, "stat");
		if (S_ISREG(st.st_mode))
			copy_file(&job, dirfd(src), srcdir, dst, dstdir, e->d_name, st.st_mode);
	}
	if (errno)
		fail(srcdir, "read the directory");
	sync_directory(dst, dstdir);
	close(dst);
	closedir(src);
	free(job.buf);

	double secs = pclab_now() - start;

	printf("backup: %d files, %lld bytes in %.1f s, %.1f MB/s\n", job.files, job.bytes, secs,
	       secs > 0 ? job.bytes / 1e6 / secs : 0.0);
	return 0;
}

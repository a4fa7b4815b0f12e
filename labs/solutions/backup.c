// SPDX-License-Identifier: GPL-2.0
/*
 * backup: the reference solution of lab 7's capstone exercise (for
 * instructors; the student's skeleton is labs/exercises/backup/backup.c,
 * whose top comment is the specification).
 *
 *   backup [-f] [-b SIZE] SRCDIR DSTDIR
 *
 * Copies every regular file of SRCDIR (one level) into DSTDIR with
 * RWF_UNCACHED reads and writes, so that a data set many times larger than
 * memory passes through the page cache without pushing anybody else's data
 * out of it, and exits 0 only once every copy is durable.
 *
 * Why fsync() each file as soon as it is copied, then DSTDIR once:
 * an uncached write has already asked the flusher to write its range back
 * when it returns (docs/semantics.md, rule 5), so by the end of a file most
 * of it is on its way to the disk; fsync() waits for the rest, commits the
 * file's size and blocks (ext4's journal, xfs's log), flushes the disk's
 * volatile cache, and drops the written folios of its range.  A writeback
 * error is reported there, for that file (rule 10), while the program still
 * knows which file it was.  One fsync() of DSTDIR at the end makes all the new
 * names durable at once: they are entries of the same directory.
 * RWF_DSYNC on every write would wait for each call's I/O and commit and
 * flush once per call: the same guarantee for every MiB, which a backup
 * does not need, since nobody may rely on it before it has exited 0.  One
 * syncfs() at the end would be durable too, but its error names no file.
 *
 * Why fail where the flag is refused, unless -f: a backup that silently
 * falls back to plain reads and writes floods the cache it was written to
 * spare (lab 5); whether that is acceptable is the operator's decision.
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
#include <sys/uio.h>
#include <unistd.h>

#include "pclab/clock.h"
#include "pclab/size.h"

#define USAGE "Usage: backup [-f] [-b SIZE] SRCDIR DSTDIR   (SIZE: bytes per call, 1 to 1G)\n"

struct job {
	int fallback;		/* -f: plain reads and writes where the flag is refused */
	char *buf;
	size_t block;
	long long bytes;	/* copied so far */
	int files;
};

static __attribute__((noreturn)) void fail(const char *name, const char *what)
{
	fprintf(stderr, "backup: %s: %s: %s\n", name, what, strerror(errno));
	exit(1);
}

/*
 * One call, uncached while *flags says so.  The flag is refused with
 * EOPNOTSUPP before any I/O (docs/semantics.md, rule 2), so after the
 * refusal the call is simply issued again, plain, if -f allows it.
 */
static ssize_t rw(const struct job *job, int writing, int fd, const char *name, int *flags,
		  char *buf, size_t len, off_t off)
{
	for (;;) {
		struct iovec iov = { .iov_base = buf, .iov_len = len };
		ssize_t n = writing ? pwritev2(fd, &iov, 1, off, *flags)
				  : preadv2(fd, &iov, 1, off, *flags);

		if (n >= 0)
			return n;
		if (errno == EINTR)
			continue;
		if (errno != EOPNOTSUPP || !*flags)
			fail(name, writing ? "write" : "read");
		if (!job->fallback) {
			fprintf(stderr, "backup: %s: RWF_UNCACHED is not supported here (%s); "
				"-f copies with plain reads and writes instead\n", name, strerror(errno));
			exit(1);
		}
		fprintf(stderr, "backup: %s: RWF_UNCACHED is not supported here: "
			"falling back to plain %s\n", name, writing ? "writes" : "reads");
		*flags = 0;
	}
}

/* NAME of SRC (a directory) into DST, durably: data, size and blocks */
static void copy_file(struct job *job, int src, const char *srcdir, int dst, const char *dstdir,
		      const char *name, mode_t mode)
{
	int rflags = RWF_UNCACHED, wflags = RWF_UNCACHED;
	char from[PATH_MAX], to[PATH_MAX];
	off_t off = 0;
	int in, out;

	snprintf(from, sizeof(from), "%s/%s", srcdir, name);
	snprintf(to, sizeof(to), "%s/%s", dstdir, name);
	in = openat(src, name, O_RDONLY);
	if (in < 0)
		fail(from, "open");
	/* O_TRUNC: an old copy's cached folios go, the new ones are marked */
	out = openat(dst, name, O_WRONLY | O_CREAT | O_TRUNC, mode & 07777);
	if (out < 0)
		fail(to, "open");
	for (;;) {
		ssize_t n = rw(job, 0, in, from, &rflags, job->buf, job->block, off);

		if (n == 0)
			break;
		/* a write may be short: the rest goes in the next call */
		for (ssize_t done = 0, w; done < n; done += w) {
			w = rw(job, 1, out, to, &wflags, job->buf + done, n - done, off + done);
			if (w == 0) {
				errno = EIO;	/* no progress: never loop on it */
				fail(to, "write");
			}
		}
		off += n;
	}
	if (fsync(out))
		fail(to, "fsync");
	if (close(out))
		fail(to, "close");
	close(in);
	job->bytes += off;
	job->files++;
}

/* the new names: DSTDIR's entries, on the disk */
static void sync_directory(int dst, const char *dstdir)
{
	if (fsync(dst))
		fail(dstdir, "fsync of the directory");
}

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

// SPDX-License-Identifier: GPL-2.0
/*
 * ucp: the reference solution of the lab 4 exercise (for instructors; the
 * student's skeleton is labs/exercises/ucp/ucp.c).
 *
 * Copies SRC to DST with RWF_UNCACHED reads and writes, so that neither
 * file stays in the page cache, and exits 0 only once the copy is durable:
 * DST's data and size (fsync of DST) and its name in its directory (fsync
 * of the directory) are on the disk, past its volatile write cache.
 *
 * Why one fsync at the end, not RWF_DSYNC on every write: an uncached
 * write has already asked the flusher to write its range back when it
 * returns (docs/semantics.md, rule 5), so the data streams to the disk
 * while the copy goes on; one fsync then waits for the last of it and
 * commits the metadata (ext4's journal, xfs's log) once, with one or two
 * cache flushes.
 * RWF_DSYNC would wait for each call's I/O and commit and flush once per
 * call: the same guarantee per call, which a copy does not need, since
 * nobody may rely on DST before ucp has exited 0.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <pclab/uncached.h>	/* RWF_UNCACHED: the kernel's RWF_DONTCACHE */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "pclab/size.h"

static __attribute__((noreturn)) void fail(const char *name, const char *what)
{
	fprintf(stderr, "ucp: %s: %s: %s\n", name, what, strerror(errno));
	exit(1);
}

/*
 * One uncached call, or a plain one from the first EOPNOTSUPP on (tmpfs,
 * or a kernel without the flag), said once per file.  The flag is refused
 * before any I/O (docs/semantics.md, rule 2), so the call is simply
 * issued again.
 */
static ssize_t rw(int writing, int fd, const char *name, int *flags, char *buf, size_t len,
		  off_t off)
{
	for (;;) {
		struct iovec iov = { .iov_base = buf, .iov_len = len };
		ssize_t n = writing ? pwritev2(fd, &iov, 1, off, *flags)
				  : preadv2(fd, &iov, 1, off, *flags);

		if (n >= 0)
			return n;
		if (errno == EOPNOTSUPP && *flags) {
			fprintf(stderr, "ucp: %s: RWF_UNCACHED is not supported here (%s): "
				"falling back to plain %s\n", name, strerror(errno),
				writing ? "writes" : "reads");
			*flags = 0;
		} else if (errno != EINTR) {
			fail(name, writing ? "write" : "read");
		}
	}
}

/* fsync of DST's directory: its new entry, DST's name, on the disk */
static void sync_directory(const char *dst)
{
	char *copy = strdup(dst);
	const char *dir;
	int fd;

	if (!copy)
		fail(dst, "strdup");
	dir = dirname(copy);	/* "." for a bare name */
	fd = open(dir, O_RDONLY | O_DIRECTORY);
	if (fd < 0 || fsync(fd))
		fail(dir, "fsync of the directory");
	close(fd);
	free(copy);
}

int main(int argc, char **argv)
{
	int rflags = RWF_UNCACHED, wflags = RWF_UNCACHED;
	long long block = 1 << 20;
	const char *src, *dst;
	struct stat st;
	off_t off = 0;
	int opt, in, out;
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
	if (in < 0 || fstat(in, &st))
		fail(src, "open");
	/*
	 * O_TRUNC: an existing DST loses its old folios, so the copy's own
	 * are new and marked, and leave the cache after their writeback.
	 */
	out = open(dst, O_WRONLY | O_CREAT | O_TRUNC, st.st_mode & 0777);
	if (out < 0)
		fail(dst, "open");
	buf = malloc(block);
	if (!buf)
		fail("ucp", "malloc");

	for (;;) {
		ssize_t n = rw(0, in, src, &rflags, buf, block, off);

		if (n == 0)
			break;
		/* a write may be short: the rest goes in the next call */
		for (ssize_t done = 0, w; done < n; done += w) {
			w = rw(1, out, dst, &wflags, buf + done, n - done, off + done);
			if (w == 0) {
				errno = EIO;	/* no progress: never loop on it */
				fail(dst, "write");
			}
		}
		off += n;
	}

	/*
	 * Writeback errors of the uncached writes are reported here (rule
	 * 10), and the data, size and blocks become durable: exit 0 only
	 * after it succeeded.
	 */
	if (fsync(out))
		fail(dst, "fsync");
	if (close(out))
		fail(dst, "close");
	sync_directory(dst);
	close(in);
	free(buf);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * pclab-rw: read or write a file in fixed-size preadv2/pwritev2 calls,
 * buffered or with RWF_UNCACHED, so that shell scripts, traces and labs can
 * drive uncached I/O.  See pclab-rw(1).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "pclab/cachestat.h"
#include "tool.h"

static void usage(FILE *out, int status)
{
	fprintf(out,
		"Usage: pclab-rw [options] FILE\n"
		"Read FILE (or write it) in fixed-size calls.\n\n"
		"  -w, --write         write instead of read (creates FILE)\n"
		"  -U, --uncached      pass RWF_UNCACHED to every call\n"
		"  -s, --size SIZE     bytes to write, or to read (default: the file size)\n"
		"  -b, --block SIZE    bytes per call (default 1M)\n"
		"  -o, --offset SIZE   start at this offset (default 0)\n"
		"  -f, --fsync         fsync the file at the end\n"
		"  -S, --stat          no I/O: print the page-cache state of the range\n"
		"                      (cachestat(2) pages: cached dirty writeback evicted\n"
		"                      recently_evicted)\n"
		"  -h, --help          this help\n\n"
		"SIZE takes a K, M or G suffix (powers of 1024).\n");
	exit(status);
}

/*
 * The page-cache state of [offset, offset + len) (len 0: to the end) as
 * "cached dirty writeback evicted recently_evicted", in pages.
 */
static int print_cachestat(int fd, long long offset, long long len, const char *file)
{
	struct pclab_cachestat cs;

	if (pclab_cachestat(fd, offset, len, &cs))
		die(file, errno == ENOSYS ? "this kernel has no cachestat(2)" : strerror(errno));
	printf("%llu %llu %llu %llu %llu\n", (unsigned long long)cs.nr_cache,
	       (unsigned long long)cs.nr_dirty, (unsigned long long)cs.nr_writeback,
	       (unsigned long long)cs.nr_evicted, (unsigned long long)cs.nr_recently_evicted);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "write", no_argument, NULL, 'w' },
		{ "uncached", no_argument, NULL, 'U' },
		{ "size", required_argument, NULL, 's' },
		{ "block", required_argument, NULL, 'b' },
		{ "offset", required_argument, NULL, 'o' },
		{ "fsync", no_argument, NULL, 'f' },
		{ "stat", no_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	long long size = -1, block = 1 << 20, offset = 0, done = 0;
	int write_mode = 0, do_fsync = 0, stat_only = 0, flags = 0, opt, fd;
	char *buf;

	while ((opt = getopt_long(argc, argv, "wUs:b:o:fSh", opts, NULL)) != -1) {
		switch (opt) {
		case 'w': write_mode = 1; break;
		case 'U': flags |= RWF_UNCACHED; break;
		case 's': size = parse_size(optarg, "--size"); break;
		case 'b': block = parse_size(optarg, "--block"); break;
		case 'o': offset = parse_size(optarg, "--offset"); break;
		case 'f': do_fsync = 1; break;
		case 'S': stat_only = 1; break;
		case 'h': usage(stdout, 0); break;
		default: usage(stderr, 2);
		}
	}
	if (optind != argc - 1)
		usage(stderr, 2);
	if (block < 1 || block > (1 << 30))
		die("--block", "give 1 byte to 1G");
	if (write_mode && size < 0)
		die("--write", "needs --size");

	if (stat_only && write_mode)
		die("--stat", "does no I/O; leave out --write");

	fd = open(argv[optind], write_mode ? O_WRONLY | O_CREAT : O_RDONLY, 0644);
	if (fd < 0)
		die(argv[optind], strerror(errno));
	if (stat_only)
		return print_cachestat(fd, offset, size < 0 ? 0 : size, argv[optind]);
	if (size < 0) {
		struct stat st;

		if (fstat(fd, &st))
			die(argv[optind], strerror(errno));
		size = st.st_size > offset ? st.st_size - offset : 0;
	}
	buf = malloc(block);
	if (!buf)
		die("malloc", strerror(errno));
	memset(buf, 0x5a, block);

	while (done < size) {
		size_t len = size - done < block ? size - done : block;
		struct iovec iov = { buf, len };
		ssize_t n = write_mode ? pwritev2(fd, &iov, 1, offset + done, flags)
				       : preadv2(fd, &iov, 1, offset + done, flags);

		if (n < 0) {
			if (errno == EOPNOTSUPP && (flags & RWF_UNCACHED))
				die(argv[optind], "RWF_UNCACHED is not supported here "
				    "(a pclab kernel, on ext4 or xfs?)");
			die(argv[optind], strerror(errno));
		}
		if (n == 0)
			break;
		done += n;
	}
	if (do_fsync && fsync(fd))
		die("fsync", strerror(errno));
	close(fd);
	free(buf);
	return 0;
}

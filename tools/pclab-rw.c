// SPDX-License-Identifier: GPL-2.0
/*
 * pclab-rw: read or write a file in fixed-size preadv2/pwritev2 calls,
 * buffered or with RWF_UNCACHED, so that shell scripts, traces and labs can
 * drive uncached I/O; with --stat, the page-cache state of a range of it in
 * named columns, like fincore(1).  See pclab-rw(1).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include "pclab/uncached.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "pclab/cachestat.h"
#include "pclab/cli.h"
#include "pclab/table.h"
#include "tool.h"

/* The columns of --stat: cachestat(2)'s counts, in pages, by name. */
static const struct column {
	const char *name;
	size_t offset;		/* of the count in struct pclab_cachestat */
} columns[] = {
	{ "cached", offsetof(struct pclab_cachestat, nr_cache) },
	{ "dirty", offsetof(struct pclab_cachestat, nr_dirty) },
	{ "writeback", offsetof(struct pclab_cachestat, nr_writeback) },
	{ "evicted", offsetof(struct pclab_cachestat, nr_evicted) },
	{ "recently_evicted", offsetof(struct pclab_cachestat, nr_recently_evicted) },
};
#define NR_COLUMNS (int)(sizeof(columns) / sizeof(columns[0]))

static void usage(void)
{
	printf("Usage: pclab-rw [options] FILE\n"
	       "       pclab-rw -S [-O LIST] [-n] [-J] [-o OFFSET] [-s SIZE] FILE\n"
	       "       pclab-rw -M [-o OFFSET] [-s SIZE] FILE\n"
	       "       pclab-rw -I [-U] [-b SIZE] [-o OFFSET] [-s SIZE] FILE\n"
	       "Read FILE (or write it) in fixed-size calls, buffered or with RWF_UNCACHED;\n"
	       "with -S, print how much of a range of it is in the page cache instead.\n\n"
	       "  -w, --write         write instead of read (creates FILE; needs --size)\n"
	       "  -U, --uncached      pass RWF_UNCACHED to every call\n"
	       "  -s, --size SIZE     bytes to write, or to read (default: to the end of FILE)\n"
	       "  -b, --block SIZE    bytes per call, 1 to 1G (default 1M)\n"
	       "  -o, --offset SIZE   start at this offset (default 0)\n"
	       "  -f, --fsync         fsync the file at the end\n"
	       "  -S, --stat          no I/O: the page-cache state of the range, in pages\n"
	       "                      (cachestat(2)), a header line and a line of values\n"
	       "  -O, --output LIST   the columns of -S, comma-separated (default: all):\n"
	       "                      cached,dirty,writeback,evicted,recently_evicted\n"
	       "  -n, --noheadings    -S without the header line\n"
	       "  -J, --json          -S as one JSON object\n"
	       "  -M, --map           no I/O calls: map the range, fault every page in, say\n"
	       "                      \"mapped N pages\" and hold the mapping until SIGTERM or\n"
	       "                      SIGINT (a second user of pages an uncached read meets)\n"
	       "  -I, --into-map      read into a shared mapping of the range being read, so\n"
	       "                      each call's copy faults in the pages it has just read\n"
	       "                      (with -U: the page fault claims them; see rwf_uncached(2))\n"
	       "  -h, --help          this help\n"
	       "  -V, --version       print the version\n\n"
	       "SIZE takes a K, M or G suffix (powers of 1024).  One bare value for a\n"
	       "script: pclab-rw -S -O cached -n FILE.\n");
	exit(0);
}

/*
 * The --output LIST, names in any case, into out[] (indexes into
 * columns[]); returns how many.  A column named twice is refused: JSON
 * keys are unique.
 */
static int parse_output(const char *list, int out[NR_COLUMNS])
{
	const char *p = list;
	bool named[NR_COLUMNS] = { false };
	int n = 0;

	for (;;) {
		size_t len = strcspn(p, ",");
		int c = 0;

		while (c < NR_COLUMNS && (strlen(columns[c].name) != len ||
					  strncasecmp(p, columns[c].name, len)))
			c++;
		if (c == NR_COLUMNS)
			pclab_usage_error("--output: '%.*s' is not a column (cached, dirty, writeback, "
					  "evicted, recently_evicted)", (int)(len > 60 ? 60 : len), p);
		if (named[c])
			pclab_usage_error("--output: '%s' is named twice", columns[c].name);
		named[c] = true;
		out[n++] = c;
		if (!p[len])
			return n;
		p += len + 1;
	}
}

/*
 * The page-cache state of [offset, offset + len) (len 0: to the end): the
 * chosen columns as a table whose values line up under their names, or
 * as JSON, with lib/'s table writer.
 */
static void print_cachestat(int fd, long long offset, long long len, const char *file,
			    const int *out, int nout, bool headings, bool json)
{
	struct pclab_value v[NR_COLUMNS];
	struct pclab_table t;
	struct pclab_cachestat cs;
	char text[NR_COLUMNS][24];
	int width[NR_COLUMNS];

	if (pclab_cachestat(fd, offset, len, &cs))
		die(file, errno == ENOSYS ? "this kernel has no cachestat(2)" : strerror(errno));
	pclab_table_init(&t, v, NR_COLUMNS);
	for (int i = 0; i < nout; i++)
		pclab_add_uint(&t, columns[out[i]].name,
			       *(const uint64_t *)((const char *)&cs + columns[out[i]].offset));
	/* lab 4 reads these keys: tests/fixtures/schema lists those */
	if (json) {
		pclab_table_json_object(stdout, &t);
		return;
	}
	for (int i = 0; i < t.n; i++) {
		int w = snprintf(text[i], sizeof(text[i]), "%" PRIu64, t.v[i].u);
		int name = (int)strlen(t.v[i].name);

		width[i] = headings && name > w ? name : w;
	}
	for (int i = 0; headings && i < t.n; i++)
		printf("%*s%s", width[i], t.v[i].name, i + 1 < t.n ? " " : "\n");
	for (int i = 0; i < t.n; i++)
		printf("%*s%s", width[i], text[i], i + 1 < t.n ? " " : "\n");
}

/*
 * --into-map: the range [offset, offset + size) of the file (fd, open for
 * reading and writing) mapped shared, the buffer the reads copy into: each
 * call reads part of the range into the mapping of that same part.  The
 * copy faults each page of the mapping, which finds the folio the call has
 * just brought in: with RWF_UNCACHED, a fault claims the marked folio
 * before the call's drop (docs/semantics.md, rule 7), the one way to show
 * the claim without a race (tests/guest/uncached.c, fault_claims).
 */
static unsigned char *map_for_reads(int fd, long long offset, long long size, const struct stat *st,
				    const char *path)
{
	unsigned char *p;
	char why[96];

	if (size == 0)
		die(path, "--into-map: nothing to read (an empty range)");
	if (offset > st->st_size || size > st->st_size - offset) {
		snprintf(why, sizeof(why), "--into-map: the range ends past the end of the file (%lld bytes)",
			 (long long)st->st_size);
		die(path, why);
	}
	p = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, offset);
	if (p == MAP_FAILED)
		die(path, strerror(errno));
	return p;
}

/*
 * --map: the range mapped shared and read-only, every page touched, held
 * until SIGTERM or SIGINT.  The signals are blocked from the start and
 * taken with sigwait(), so one that comes early is not lost and ends the
 * program with status 0 either way.  The range lies within the file (st):
 * touching a page past its end would kill the program with SIGBUS.
 */
static void hold_mapped(int fd, long long offset, long long size, const struct stat *st,
			const char *path)
{
	long page = sysconf(_SC_PAGESIZE);
	const unsigned char *p;
	sigset_t stop;
	char why[96];
	int sig;

	sigemptyset(&stop);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGINT);
	sigprocmask(SIG_BLOCK, &stop, NULL);
	if (size == 0)
		die(path, "--map: nothing to map (an empty range)");
	if (offset > st->st_size || size > st->st_size - offset) {
		snprintf(why, sizeof(why), "--map: the range ends past the end of the file (%lld bytes)",
			 (long long)st->st_size);
		die(path, why);
	}
	p = mmap(NULL, (size_t)size, PROT_READ, MAP_SHARED, fd, offset);
	if (p == MAP_FAILED)
		die(path, strerror(errno));
	for (long long i = 0; i < size; i += page)
		(void)*(const volatile unsigned char *)(p + i);	/* fault it in */
	printf("mapped %lld pages\n", (size + page - 1) / page);
	fflush(stdout);
	sigwait(&stop, &sig);
	munmap((void *)p, (size_t)size);
}

int main(int argc, char **argv)
{
	static const char shortopts[] = "wUs:b:o:fSO:nJMIhV";
	static const struct option opts[] = {
		{ "write", no_argument, NULL, 'w' },
		{ "uncached", no_argument, NULL, 'U' },
		{ "size", required_argument, NULL, 's' },
		{ "block", required_argument, NULL, 'b' },
		{ "offset", required_argument, NULL, 'o' },
		{ "fsync", no_argument, NULL, 'f' },
		{ "stat", no_argument, NULL, 'S' },
		{ "output", required_argument, NULL, 'O' },
		{ "noheadings", no_argument, NULL, 'n' },
		{ "json", no_argument, NULL, 'J' },
		{ "map", no_argument, NULL, 'M' },
		{ "into-map", no_argument, NULL, 'I' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	long long size = -1, block = 1 << 20, offset = 0, done = 0;
	int write_mode = 0, do_fsync = 0, stat_only = 0, map_only = 0, into_map = 0, flags = 0, opt, fd;
	int out[NR_COLUMNS], nout = 0;
	bool headings = true, json = false, stat_format = false;
	struct stat st;
	char err[160];
	unsigned char *buf;

	opterr = 0;	/* pclab_getopt_error() says what was wrong, in one line */
	while ((opt = getopt_long(argc, argv, shortopts, opts, NULL)) != -1) {
		switch (opt) {
		case 'w': write_mode = 1; break;
		case 'U': flags |= RWF_UNCACHED; break;
		case 's': size = parse_size(optarg, "--size"); break;
		case 'b': block = parse_size(optarg, "--block"); break;
		case 'o': offset = parse_size(optarg, "--offset"); break;
		case 'f': do_fsync = 1; break;
		case 'S': stat_only = 1; break;
		case 'O': nout = parse_output(optarg, out); stat_format = true; break;
		case 'n': headings = false; stat_format = true; break;
		case 'J': json = true; stat_format = true; break;
		case 'M': map_only = 1; break;
		case 'I': into_map = 1; break;
		case 'h': usage(); break;
		case 'V': pclab_print_version(); return 0;
		default:
			pclab_getopt_error(err, sizeof(err), argv, shortopts);
			pclab_usage_error("%s", err);
		}
	}
	if (optind == argc)
		pclab_usage_error("no FILE given");
	if (optind < argc - 1)
		pclab_usage_error("one FILE only: '%.60s' is one too many", argv[optind + 1]);
	if (block < 1 || block > (1 << 30))
		pclab_usage_error("--block: give 1 byte to 1G");
	if (stat_only && write_mode)
		pclab_usage_error("--stat does no I/O; leave out --write");
	if (map_only && (write_mode || stat_only || flags || do_fsync))
		pclab_usage_error("--map goes alone with --offset and --size");
	if (map_only && offset % sysconf(_SC_PAGESIZE))
		pclab_usage_error("--map: the offset must be a multiple of the page size");
	if (into_map && (write_mode || stat_only || map_only))
		pclab_usage_error("--into-map reads: leave out --write, --stat and --map");
	if (into_map && offset % sysconf(_SC_PAGESIZE))
		pclab_usage_error("--into-map: the offset must be a multiple of the page size");
	if (write_mode && size < 0)
		pclab_usage_error("--write needs --size");
	if (stat_format && !stat_only)
		pclab_usage_error("--output, --noheadings and --json go with --stat");
	/* cachestat(2)'s length 0 is "to the end": what leaving --size out says */
	if (stat_only && size == 0)
		pclab_usage_error("--stat: --size 0 is an empty range; leave --size out for the "
				  "rest of the file");
	if (!nout)	/* no --output: every column, in order */
		for (; nout < NR_COLUMNS; nout++)
			out[nout] = nout;

	/* a shared mapping to copy into must be writable, so the file too */
	fd = open_regular(argv[optind], write_mode ? O_WRONLY | O_CREAT : into_map ? O_RDWR : O_RDONLY,
			  &st);
	if (stat_only) {
		print_cachestat(fd, offset, size < 0 ? 0 : size, argv[optind], out, nout, headings,
				json);
		return 0;
	}
	if (size < 0)
		size = st.st_size > offset ? st.st_size - offset : 0;
	if (map_only) {
		hold_mapped(fd, offset, size, &st, argv[optind]);
		return 0;
	}
	if (into_map) {
		buf = map_for_reads(fd, offset, size, &st, argv[optind]);
	} else {
		buf = malloc(block);
		if (!buf)
			die("malloc", strerror(errno));
		memset(buf, 0x5a, block);
	}

	while (done < size) {
		size_t len = size - done < block ? size - done : block;
		struct iovec iov = { into_map ? buf + done : buf, len };
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
	if (into_map)
		munmap(buf, (size_t)size);
	else
		free(buf);
	close(fd);
	return 0;
}

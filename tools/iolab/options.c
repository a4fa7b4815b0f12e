// SPDX-License-Identifier: GPL-2.0
/* iolab's command line; see iolab.h and iolab(1). */
#define _GNU_SOURCE
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "iolab.h"
#include "pclab/cli.h"
#include "pclab/size.h"

const char *const iolab_mode_names[IOLAB_NR_MODES] = {
	"buffered", "direct", "uncached", "fadvise",
	"uring-buffered", "uring-uncached", "uring-direct", "mmap",
};

void iolab_usage(void)
{
	printf(
		"Usage: iolab [options] FILE\n"
		"Read (or write) FILE and report throughput, latency, CPU and page-cache use.\n\n"
		"  -m, --mode MODE     buffered (default), direct, uncached, fadvise, mmap,\n"
		"                      uring-buffered, uring-uncached, uring-direct\n"
		"  -w, --write         write instead of read\n"
		"  -r, --random        random block offsets instead of sequential\n"
		"  -b, --bs SIZE       bytes per I/O (default 64K)\n"
		"  -s, --size SIZE     data set size (default: the file's size; needed to write)\n"
		"  -t, --time SECONDS  stop after this long (default: one pass over the data)\n"
		"  -q, --qd N          queue depth for uring modes (default 4)\n"
		"  -R, --rate N        at most N I/Os per second (default: as fast as possible)\n"
		"  -H, --hits          count page-cache hits (cachestat(2) before each read)\n"
		"  -S, --fsync         fsync after each write (its latency counts in the write's)\n"
		"  -l, --log FILE      write one CSV line per interval to FILE\n"
		"  -i, --interval SECONDS  log and progress interval, 0.1 to 60 (default 1)\n"
		"  -j, --json          summary as one JSON object\n"
		"  -h, --help          this help\n"
		"  -V, --version       print the version\n\n"
		"SIZE takes a K, M or G suffix (powers of 1024).\n");
}

static enum iolab_parse_result bad(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return IOLAB_USAGE;
}

/* A finite number > 0 */
static bool positive(const char *arg, double *v)
{
	char *end;

	*v = strtod(arg, &end);
	return end != arg && !*end && isfinite(*v) && *v > 0;
}

enum iolab_parse_result iolab_parse(int argc, char **argv, struct iolab_options *o,
				    char *err, size_t errlen)
{
	static const struct option opts[] = {
		{ "mode", required_argument, NULL, 'm' }, { "write", no_argument, NULL, 'w' },
		{ "random", no_argument, NULL, 'r' }, { "bs", required_argument, NULL, 'b' },
		{ "size", required_argument, NULL, 's' }, { "time", required_argument, NULL, 't' },
		{ "qd", required_argument, NULL, 'q' }, { "rate", required_argument, NULL, 'R' },
		{ "hits", no_argument, NULL, 'H' }, { "fsync", no_argument, NULL, 'S' },
		{ "log", required_argument, NULL, 'l' },
		{ "interval", required_argument, NULL, 'i' },
		{ "json", no_argument, NULL, 'j' }, { "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	static const char shortopts[] = "m:wrb:s:t:q:R:HSl:i:jhV";
	double qd;
	int c, m;

	*o = (struct iolab_options){ .bs = 64 << 10, .size = -1, .qd = 4,
				     .interval = 1 };
	optind = 0;	/* glibc: start afresh, also for a second command line */
	opterr = 0;	/* quiet: err says what was wrong */
	while ((c = getopt_long(argc, argv, shortopts, opts, NULL)) != -1) {
		switch (c) {
		case 'm':
			for (m = 0; m < IOLAB_NR_MODES; m++)
				if (!strcmp(optarg, iolab_mode_names[m]))
					break;
			if (m == IOLAB_NR_MODES)
				return bad(err, errlen, "--mode: '%.60s' is not a mode", optarg);
			o->mode = m;
			break;
		case 'w': o->write = true; break;
		case 'r': o->random = true; break;
		case 'b':
			if (!pclab_parse_size(optarg, &o->bs) || o->bs < 512 || o->bs > (64 << 20))
				return bad(err, errlen, "--bs: '%.60s': give 512 bytes to 64M", optarg);
			break;
		case 's':
			if (!pclab_parse_size(optarg, &o->size) || o->size == 0)
				return bad(err, errlen, "--size: '%.60s' is not a size above 0 "
					   "(a whole number with an optional K, M or G, below 8 EiB)",
					   optarg);
			break;
		case 't':
			if (!positive(optarg, &o->seconds))
				return bad(err, errlen, "--time: give a number of seconds above 0");
			break;
		case 'q':
			if (!positive(optarg, &qd) || qd != (int)qd || qd > 256)
				return bad(err, errlen, "--qd: give a whole number from 1 to 256");
			o->qd = (int)qd;
			break;
		case 'R':
			/* below that, the wait for the next I/O outlasts any run */
			if (!positive(optarg, &o->rate) || o->rate < 0.01)
				return bad(err, errlen, "--rate: '%.60s': give I/Os per second, at "
					   "least 0.01", optarg);
			break;
		case 'H': o->hits = true; break;
		case 'S': o->fsync_each = true; break;
		case 'l': o->log = optarg; break;
		case 'i':
			/* finer than that, the counters' tick granularity shows */
			if (!positive(optarg, &o->interval) || o->interval < 0.1 ||
			    o->interval > 60)
				return bad(err, errlen, "--interval: '%.60s': give 0.1 to 60 seconds",
					   optarg);
			break;
		case 'j': o->json = true; break;
		case 'h': return IOLAB_HELP;
		case 'V': return IOLAB_VERSION;
		default:
			pclab_getopt_error(err, errlen, argv, shortopts);
			return IOLAB_USAGE;
		}
	}
	if (optind == argc)
		return bad(err, errlen, "no FILE given");
	if (optind < argc - 1)
		return bad(err, errlen, "one FILE only: '%.60s' is one too many", argv[optind + 1]);
	o->file = argv[optind];
	if (o->mode == MMAP && o->write)
		return bad(err, errlen, "--mode mmap: only reads");
	if (o->hits && (o->write || iolab_uring(o) || iolab_direct(o) || o->mode == MMAP))
		return bad(err, errlen, "--hits: counts hits of preadv2 reads: buffered, "
			   "uncached or fadvise mode, without --write");
	if (o->fsync_each && (!o->write || iolab_uring(o) || o->mode == FADVISE))
		return bad(err, errlen, "--fsync: fsync after each write of --write in the "
			   "buffered, uncached or direct mode");
	if (o->write && o->size < 0)
		return bad(err, errlen, "--size: give the data set size to write");
	return IOLAB_RUN;
}

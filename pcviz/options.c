// SPDX-License-Identifier: GPL-2.0
/* pcviz's command line. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"
#include "pclab/cli.h"

const char pcv_usage[] =
	"Usage: pcviz [options] FILE|DIR...\n"
	"       pcviz --replay TRACE.DAT [options]\n"
	"       pcviz --compare A.DAT B.DAT [options]\n"
	"       pcviz --synthetic [options]\n"
	"Shows, live, which pages of the files are in the page cache, the system's\n"
	"page-cache and reclaim counters, and page-cache trace events.\n"
	"A directory stands for the regular files in it, now and as they come.\n"
	"\n"
	"  -b, --batch          one line per interval on stdout (the default when\n"
	"                       stdout is not a terminal); CSV with a header line\n"
	"  -j, --json           batch lines as JSON objects (implies --batch)\n"
	"  -i, --interval SECS  refresh interval (default 0.5, 0.01 to 3600)\n"
	"  -c, --count N        stop after N intervals (default: run until q or a signal)\n"
	"  -r, --replay FILE    replay a trace.dat recorded with trace-cmd (host build)\n"
	"  -C, --compare        replay two traces side by side, A and B, on one time\n"
	"                       axis (the operands, or two --replay)\n"
	"  -s, --speed X        replay speed, 1 is real time (default 1)\n"
	"      --synthetic      a made-up workload instead of files (demos, tests)\n"
	"  -e, --events LIST    the events to trace: all (default), or names from\n"
	"                       add,delete,evict,refault,lru_insert,lru_activate,\n"
	"                       dirty,writeback,kswapd_wake,kswapd_waker,\n"
	"                       direct_reclaim,reclaim,db_mark,db_serve,db_claim,\n"
	"                       db_end,db_call,wb_start,wb_end (commas between)\n"
	"      --no-events      no tracing: no tracefs instance, no events panel\n"
	"      --mincore        residency from mincore(2), sampled, instead of cachestat(2)\n"
	"      --buffer-kb N    trace buffer per CPU in KiB (default 4096)\n"
	"      --max-files N    watch up to N files (default " PCV_STR(PCV_FILES) ", at most "
	PCV_STR(PCV_MAX_FILES) ")\n"
	"      --ascii          ASCII characters only (serial consoles)\n"
	"  -h, --help           this help\n"
	"  -V, --version        print the version\n"
	"\n"
	"Keys in the live view: ? or h lists them.  Environment: NO_COLOR turns\n"
	"colours off.  See pcviz(1) and docs/pcviz.md.\n";

static int bad(char *err, size_t len, const char *fmt, const char *arg)
{
	snprintf(err, len, fmt, arg);
	return -1;
}

/*
 * "all" or kind names separated by commas, of any length, into a mask;
 * -1 with a message naming what is wrong.
 */
static int kinds(const char *list, unsigned *mask, char *err, size_t len)
{
	char *copy, *save = NULL;
	int status = 0;

	if (!strcmp(list, "all")) {
		*mask = (1u << PCV_EV_NKINDS) - 1;
		return 0;
	}
	copy = strdup(list);
	if (!copy)
		return bad(err, len, "%s", "--events: out of memory");
	*mask = 0;
	for (char *name = strtok_r(copy, ",", &save); name && !status;
	     name = strtok_r(NULL, ",", &save)) {
		int k = 0;

		while (k < PCV_EV_NKINDS && strcmp(name, pcv_kind_name[k]))
			k++;
		if (k == PCV_EV_NKINDS)
			status = bad(err, len, "--events: '%.64s' is not an event name",
				     name);
		else
			*mask |= 1u << k;
	}
	free(copy);
	if (!status && !*mask)
		status = bad(err, len, "--events '%.64s': no event names in it", list);
	return status;
}

static int number(const char *arg, double min, double max, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || *end || !isfinite(v) || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

int pcv_parse_options(int argc, char **argv, struct pcv_options *o, char *err, size_t len)
{
	enum { OPT_SYNTHETIC = 256, OPT_NO_EVENTS, OPT_MINCORE, OPT_BUFFER_KB, OPT_ASCII,
	       OPT_MAX_FILES };
	static const struct option longopts[] = {
		{ "batch", no_argument, NULL, 'b' },
		{ "json", no_argument, NULL, 'j' },
		{ "interval", required_argument, NULL, 'i' },
		{ "count", required_argument, NULL, 'c' },
		{ "replay", required_argument, NULL, 'r' },
		{ "speed", required_argument, NULL, 's' },
		{ "compare", no_argument, NULL, 'C' },
		{ "synthetic", no_argument, NULL, OPT_SYNTHETIC },
		{ "no-events", no_argument, NULL, OPT_NO_EVENTS },
		{ "mincore", no_argument, NULL, OPT_MINCORE },
		{ "buffer-kb", required_argument, NULL, OPT_BUFFER_KB },
		{ "ascii", no_argument, NULL, OPT_ASCII },
		{ "max-files", required_argument, NULL, OPT_MAX_FILES },
		{ "events", required_argument, NULL, 'e' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	static const char shortopts[] = "bji:c:r:s:Ce:hV";
	double v;
	int c;

	memset(o, 0, sizeof(*o));
	o->interval = 0.5;
	o->speed = 1;
	o->buffer_kb = 4096;
	o->max_files = PCV_FILES;
	o->events = (1u << PCV_EV_NKINDS) - 1;
	optind = 0;
	opterr = 0;	/* quiet: err says what was wrong */
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (c) {
		case 'b':
			o->batch = true;
			break;
		case 'j':
			o->json = o->batch = true;
			break;
		case 'i':
			if (number(optarg, 0.01, 3600, &o->interval))
				return bad(err, len, "--interval %s: not a number of seconds from 0.01 to 3600", optarg);
			break;
		case 'c':
			if (number(optarg, 1, 1e9, &v) || v != (long)v)
				return bad(err, len, "--count %s: not a whole number of intervals "
					   "from 1 to 1000000000", optarg);
			o->count = (long)v;
			break;
		case 'r':
			if (o->nreplay == PCV_RUNS)
				return bad(err, len, "--replay %s: at most two traces, one compared "
					   "with the other", optarg);
			o->replay[o->nreplay++] = optarg;
			break;
		case 'C':
			o->compare = true;
			break;
		case 's':
			if (number(optarg, 0.01, 10000, &o->speed))
				return bad(err, len, "--speed %s: not a speed from 0.01 to 10000", optarg);
			break;
		case OPT_SYNTHETIC:
			o->synthetic = true;
			break;
		case OPT_NO_EVENTS:
			o->events = 0;
			break;
		case 'e':
			if (kinds(optarg, &o->events, err, len))
				return -1;
			break;
		case OPT_MINCORE:
			o->mincore = true;
			break;
		case OPT_BUFFER_KB:
			if (number(optarg, 64, 1 << 20, &v) || v != (long)v)
				return bad(err, len, "--buffer-kb %s: not a size in KiB from 64 to 1048576", optarg);
			o->buffer_kb = (long)v;
			break;
		case OPT_ASCII:
			o->ascii = true;
			break;
		case OPT_MAX_FILES:
			if (number(optarg, 1, PCV_MAX_FILES, &v) || v != (long)v)
				return bad(err, len, "--max-files %s: not a whole number from 1 to "
					   PCV_STR(PCV_MAX_FILES), optarg);
			o->max_files = (int)v;
			break;
		case 'h':
			return 1;
		case 'V':
			return 2;
		default:
			pclab_getopt_error(err, len, argv, shortopts);
			return -1;
		}
	}
	o->paths = argv + optind;
	o->npaths = argc - optind;
	/* --compare A B: the operands are the traces */
	for (; o->compare && o->npaths; o->paths++, o->npaths--) {
		if (o->nreplay == PCV_RUNS)
			return bad(err, len, "%s: --compare compares two traces, not more", o->paths[0]);
		o->replay[o->nreplay++] = o->paths[0];
	}
	if (o->compare && o->nreplay < PCV_RUNS)
		return bad(err, len, "--compare needs two trace.dat files, A and B (%s given): "
			   "live files cannot be compared", o->nreplay ? "one" : "none");
	if (o->nreplay && o->synthetic)
		return bad(err, len, "%s and --synthetic exclude each other",
			   o->compare ? "--compare" : "--replay");
	if ((o->nreplay || o->synthetic) && o->npaths)
		return bad(err, len, "%s: no files with --replay or --synthetic", o->paths[0]);
	if (!o->nreplay && !o->synthetic && !o->npaths)
		return bad(err, len, "%s", "no FILE or DIR to watch");
	return 0;
}

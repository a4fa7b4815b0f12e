/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iolab's parts that need no kernel: option parsing, the latency histogram,
 * PSI parsing and the sums of counters.  Kept apart from the I/O loop so that the host's unit
 * tests (tools/iolab/tests/iolab-unit.c) can exercise them.  /proc/meminfo and
 * /proc/vmstat are lib/'s (pclab/sysstat.h).
 */
#ifndef IOLAB_H
#define IOLAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum iolab_mode {
	BUFFERED, DIRECT, UNCACHED, FADVISE,
	URING_BUFFERED, URING_UNCACHED, URING_DIRECT, MMAP,
	IOLAB_NR_MODES
};
extern const char *const iolab_mode_names[IOLAB_NR_MODES];

struct iolab_options {
	enum iolab_mode mode;
	bool write, random, json, hits, fsync_each;
	long long bs, size;
	double seconds, rate, interval;
	int qd;
	const char *file, *log;
};

enum iolab_parse_result { IOLAB_RUN, IOLAB_HELP, IOLAB_VERSION, IOLAB_USAGE };

/*
 * Fills *o from the command line.  On IOLAB_USAGE (an unknown option, a
 * bad value, no file or two), err holds one line for the user, "what: why".
 */
enum iolab_parse_result iolab_parse(int argc, char **argv, struct iolab_options *o,
				    char *err, size_t errlen);
/* the usage, on stdout (--help) */
void iolab_usage(void);

static inline bool iolab_direct(const struct iolab_options *o)
{
	return o->mode == DIRECT || o->mode == URING_DIRECT;
}

static inline bool iolab_uncached(const struct iolab_options *o)
{
	return o->mode == UNCACHED || o->mode == URING_UNCACHED;
}

static inline bool iolab_uring(const struct iolab_options *o)
{
	return o->mode >= URING_BUFFERED && o->mode <= URING_DIRECT;
}

/*
 * Latency histogram: 8 buckets per power of two of nanoseconds, so a
 * percentile is within 12.5% of the true value and costs no sorting.
 */
#define HIST_BUCKETS (64 * 8)
struct hist {
	unsigned long count[HIST_BUCKETS];
	unsigned long total;
};

void hist_add(struct hist *h, uint64_t ns);
/* The lower bound of the bucket holding the p-th percentile; 0 if empty */
uint64_t hist_percentile(const struct hist *h, double p);

/*
 * The "some" line's total (microseconds stalled) of a /proc/pressure file;
 * -1 if absent (a kernel without CONFIG_PSI).
 */
long long psi_some_total(FILE *f);

/*
 * The sum of n counters' changes over the run (/proc/vmstat), -1 if any
 * is -1: the kernel lacks that counter, so the sum would understate.
 */
long long counters_sum(const long long *delta, int n);

#endif

// SPDX-License-Identifier: GPL-2.0
/* iolab's latency histogram, memory pressure (PSI) and counter sums; see iolab.h. */
#include <string.h>

#include "iolab.h"

static int bucket(uint64_t ns)
{
	int log = 63 - __builtin_clzll(ns | 1);
	int sub = log >= 3 ? (int)((ns >> (log - 3)) & 7) : 0;

	return log * 8 + sub;
}

static uint64_t bucket_ns(int b)
{
	int log = b / 8, sub = b % 8;

	return log >= 3 ? ((8ull + sub) << (log - 3)) : (1ull << log);
}

void hist_add(struct hist *h, uint64_t ns)
{
	h->count[bucket(ns)]++;
	h->total++;
}

uint64_t hist_percentile(const struct hist *h, double p)
{
	unsigned long want = (unsigned long)(p / 100.0 * h->total), seen = 0;

	if (!h->total)
		return 0;
	if (want >= h->total)	/* p100 is the largest sample, not past it */
		want = h->total - 1;

	for (int b = 0; b < HIST_BUCKETS; b++) {
		seen += h->count[b];
		if (seen > want)
			return bucket_ns(b);
	}
	return 0;
}

long long psi_some_total(FILE *f)
{
	char line[256];
	long long v;

	while (fgets(line, sizeof(line), f)) {
		const char *total = strstr(line, " total=");

		if (!strncmp(line, "some ", 5) && total && sscanf(total, " total=%lld", &v) == 1)
			return v;
	}
	return -1;
}

long long counters_sum(const long long *delta, int n)
{
	long long sum = 0;

	for (int i = 0; i < n; i++) {
		if (delta[i] < 0)
			return -1;
		sum += delta[i];
	}
	return sum;
}

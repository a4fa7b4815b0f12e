// SPDX-License-Identifier: GPL-2.0
/*
 * tsc-khz: print the rate of this machine's TSC in kHz.  Under TCG the
 * guest's TSC runs at the host's rate, and run-vm hands it to the guest
 * kernel (tsc_early_khz=): a guest calibrating its TSC against the emulated
 * PIT fails when the host is busy, and without ACPI it has no other
 * reference, so it falls back to a jiffies clock and every latency it
 * measures is a multiple of 4 ms.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <x86intrin.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(void)
{
	double khz[5];

	/* the median of five 20 ms samples: a preempted sample is an outlier */
	for (int i = 0; i < 5; i++) {
		double t0 = now(), t1;
		unsigned long long c0 = __rdtsc(), c1;

		while (now() - t0 < 0.02)
			;
		c1 = __rdtsc();
		t1 = now();
		khz[i] = (c1 - c0) / (t1 - t0) / 1000;
	}
	qsort(khz, 5, sizeof(khz[0]), cmp);
	printf("%.0f\n", khz[2]);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/* The monotonic clock; see pclab/clock.h. */
#include "pclab/clock.h"

double pclab_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct timespec pclab_timespec(double seconds)
{
	struct timespec ts = { 0, 0 };

	if (seconds > 0) {
		ts.tv_sec = (time_t)seconds;
		ts.tv_nsec = (long)((seconds - (double)ts.tv_sec) * 1e9);
	}
	return ts;
}

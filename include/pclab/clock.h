/* SPDX-License-Identifier: GPL-2.0 */
/* The monotonic clock, as seconds in a double: what rates and timeouts need. */
#ifndef PCLAB_CLOCK_H
#define PCLAB_CLOCK_H

#include <time.h>

/* Seconds on CLOCK_MONOTONIC: never steps back, unlike the wall clock. */
double pclab_now(void);

/* seconds as a timespec, for nanosleep() and clock_nanosleep(); 0 if negative */
struct timespec pclab_timespec(double seconds);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * TAP output for pclab's C tests, kselftest style: a plan, one line per
 * check, skips with a reason, and an exit status that says whether all
 * checks passed.
 */
#ifndef PCLAB_TAP_H
#define PCLAB_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static int tap_count;
static int tap_failures;

static inline void tap_plan(int n)
{
	printf("1..%d\n", n);
	fflush(stdout);
}

static inline void tap_diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

/* Records one check; returns cond so callers can stop on a failure. */
static inline int tap_ok(int cond, const char *fmt, ...)
{
	va_list ap;

	tap_count++;
	if (!cond)
		tap_failures++;
	printf("%s %d - ", cond ? "ok" : "not ok", tap_count);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	return cond;
}

static inline void tap_skip(const char *reason, const char *fmt, ...)
{
	va_list ap;

	tap_count++;
	printf("ok %d - ", tap_count);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf(" # SKIP %s\n", reason);
	fflush(stdout);
}

/* Prints the plan if none was given up front, and exits. */
static inline int tap_done(int planned)
{
	if (!planned)
		printf("1..%d\n", tap_count);
	fflush(stdout);
	exit(tap_failures ? EXIT_FAILURE : EXIT_SUCCESS);
}

#endif

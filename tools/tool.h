/* SPDX-License-Identifier: GPL-2.0 */
/* What pclab's tools share: error exit and size arguments. */
#ifndef PCLAB_TOOL_H
#define PCLAB_TOOL_H

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

/* "tool: what: why" on stderr, exit status 1 */
static inline __attribute__((noreturn)) void die(const char *what, const char *why)
{
	fprintf(stderr, "%s: %s: %s\n", program_invocation_short_name, what, why);
	exit(1);
}

/*
 * A byte count with an optional K, M or G suffix (powers of 1024) into *v;
 * false if ARG is not one: garbage, a sign, or more than fits in *v once
 * the suffix is applied.  The one size parser of pclab's tools.
 */
static inline bool size_arg(const char *arg, long long *v)
{
	int shift = 0;
	char *end;

	if (*arg < '0' || *arg > '9')
		return false;
	errno = 0;
	*v = strtoll(arg, &end, 10);
	if (errno)
		return false;
	switch (*end) {
	case 'G': case 'g': shift = 30; end++; break;
	case 'M': case 'm': shift = 20; end++; break;
	case 'K': case 'k': shift = 10; end++; break;
	}
	if (*end || *v > LLONG_MAX >> shift)
		return false;
	*v <<= shift;
	return true;
}

/* size_arg(), or die naming WHAT and the text it was given */
static inline long long parse_size(const char *arg, const char *what)
{
	char why[160];
	long long v;

	if (!size_arg(arg, &v)) {
		snprintf(why, sizeof(why), "'%.60s' is not a size (a whole number with an optional "
			 "K, M or G, below 8 EiB)", arg);
		die(what, why);
	}
	return v;
}

#endif

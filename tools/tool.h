/* SPDX-License-Identifier: GPL-2.0 */
/* What pclab's tools share: error exit and size arguments. */
#ifndef PCLAB_TOOL_H
#define PCLAB_TOOL_H

#include <errno.h>
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
 * false if ARG is not one.
 */
static inline bool size_arg(const char *arg, long long *v)
{
	char *end;

	errno = 0;
	*v = strtoll(arg, &end, 10);
	if (errno || end == arg || *v < 0)
		return false;
	switch (*end) {
	case 'G': case 'g':
		*v <<= 10;
		/* fall through */
	case 'M': case 'm':
		*v <<= 10;
		/* fall through */
	case 'K': case 'k':
		*v <<= 10;
		end++;
		break;
	}
	return !*end && *v >= 0;
}

/* size_arg(), or die naming WHAT */
static inline long long parse_size(const char *arg, const char *what)
{
	long long v;

	if (!size_arg(arg, &v))
		die(what, "not a size (a number with an optional K, M or G)");
	return v;
}

#endif

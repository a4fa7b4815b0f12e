/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What pclab's tools share: the exit of a failure at run time, and size
 * arguments (lib/'s parser).  Usage errors exit 2 through lib/'s
 * pclab_usage_error() (pclab/cli.h), failures at run time 1 through die().
 */
#ifndef PCLAB_TOOL_H
#define PCLAB_TOOL_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "pclab/cli.h"
#include "pclab/size.h"

/* "tool: what: why" on stderr, exit status 1: a failure at run time */
static inline __attribute__((noreturn)) void die(const char *what, const char *why)
{
	fprintf(stderr, "%s: %s: %s\n", program_invocation_short_name, what, why);
	exit(1);
}

/* pclab_parse_size(), or a usage error naming WHAT and the text it was given */
static inline long long parse_size(const char *arg, const char *what)
{
	long long v;

	if (!pclab_parse_size(arg, &v))
		pclab_usage_error("%s: '%.60s' is not a size (a whole number with an optional "
				  "K, M or G, below 8 EiB)", what, arg);
	return v;
}

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/* What pclab's tools share: error exit and size arguments (lib/'s parser). */
#ifndef PCLAB_TOOL_H
#define PCLAB_TOOL_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "pclab/size.h"

/* "tool: what: why" on stderr, exit status 1 */
static inline __attribute__((noreturn)) void die(const char *what, const char *why)
{
	fprintf(stderr, "%s: %s: %s\n", program_invocation_short_name, what, why);
	exit(1);
}

/* pclab_parse_size(), or die naming WHAT and the text it was given */
static inline long long parse_size(const char *arg, const char *what)
{
	char why[160];
	long long v;

	if (!pclab_parse_size(arg, &v)) {
		snprintf(why, sizeof(why), "'%.60s' is not a size (a whole number with an optional "
			 "K, M or G, below 8 EiB)", arg);
		die(what, why);
	}
	return v;
}

#endif

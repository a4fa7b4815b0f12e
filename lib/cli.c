// SPDX-License-Identifier: GPL-2.0
/* The command-line convention; see pclab/cli.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pclab/cli.h"

void pclab_usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", program_invocation_short_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s --help'.\n", program_invocation_short_name);
	exit(PCLAB_EXIT_USAGE);
}

void pclab_getopt_error(char *err, size_t len, char *const argv[], const char *shortopts)
{
	/*
	 * The word getopt_long() stopped at: it has stepped past it, except
	 * inside a cluster of short options ("-wz"), where only optopt tells.
	 */
	const char *word = optind > 0 ? argv[optind - 1] : "";
	/* a long-only option's value is not a character (pcviz's are 256 and up) */
	int known = optopt >= 256 || (optopt > 0 && optopt != ':' && strchr(shortopts, optopt));
	int name_len = (int)strcspn(word, "=");

	if (!known && optopt)
		snprintf(err, len, "unknown option '-%c'", optopt);
	else if (!known)
		/* glibc says "ambiguous" for a prefix of two options; either way, not one it knows */
		snprintf(err, len, "unknown option '%.*s'", name_len, word);
	else if (strncmp(word, "--", 2))
		snprintf(err, len, "option '-%c' needs a value", optopt);
	else if (word[name_len])
		snprintf(err, len, "option '%.*s' takes no value", name_len, word);
	else
		snprintf(err, len, "option '%s' needs a value", word);
}

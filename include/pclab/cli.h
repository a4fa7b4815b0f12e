/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The command-line convention of pclab's programs, util-linux's: --help
 * prints the usage on stdout and exits 0; -V, --version prints the version
 * and exits 0; a usage error (an unknown option, a bad value, a missing or
 * extra argument) prints one line and "Try 'PROG --help'." on stderr and
 * exits 2; a failure at run time exits 1.  tests/host/cli.sh checks every
 * program against it, and against its man page.
 */
#ifndef PCLAB_CLI_H
#define PCLAB_CLI_H

#include <stddef.h>

#define PCLAB_EXIT_USAGE 2

/* "PROG: message" and "Try 'PROG --help'." on stderr, exit status 2 */
__attribute__((noreturn, format(printf, 1, 2))) void pclab_usage_error(const char *fmt, ...);

/*
 * Why getopt_long() returned '?', for a parser that set opterr to 0 (so
 * that getopt said nothing, and unit tests stay quiet): "unknown option
 * '--name'", "option '-x' needs a value" or "option '--name' takes no
 * value", into err.  Reads optopt and optind as getopt_long() left them;
 * shortopts is the string given to it.
 */
void pclab_getopt_error(char *err, size_t len, char *const argv[], const char *shortopts);

/*
 * "PROG (pclab) VERSION" on stdout.  In lib/version.c, which the Makefile
 * compiles with the version (scripts/version) and links only into the
 * programs, outside libpclab.a: a new version relinks them, nothing else.
 */
void pclab_print_version(void);

#endif

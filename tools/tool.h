/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What pclab's tools share: the exit of a failure at run time, size
 * arguments (lib/'s parser), and opening the file they work on.  Usage
 * errors exit 2 through lib/'s pclab_usage_error() (pclab/cli.h), failures
 * at run time 1 through die().
 */
#ifndef PCLAB_TOOL_H
#define PCLAB_TOOL_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pclab/cli.h"
#include "pclab/pseudofs.h"
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

/*
 * open(2) of PATH with FLAGS (and mode 0644 for O_CREAT), *st its fstat,
 * or die: anything but a regular file is refused.  A FIFO would block the
 * open, or each read, until a writer came; a directory, a device or a
 * socket has no size for the I/O to end at.  So the open never waits
 * (O_NONBLOCK, cleared again for the I/O), and a write-only open of a FIFO
 * with no reader (ENXIO) or of a directory (EISDIR) is the same refusal.
 * A file of /proc or /sys is regular but has no page cache: cachestat(2)
 * of it says zeros, and the I/O measures no cache either; refused too.
 */
static inline int open_regular(const char *path, int flags, struct stat *st)
{
	int fd = open(path, flags | O_NONBLOCK | O_CLOEXEC, 0644);
	const char *fs;
	char why[80];

	if (fd < 0 && (errno == ENXIO || errno == EISDIR))
		die(path, "not a regular file");
	if (fd < 0 || fstat(fd, st))
		die(path, strerror(errno));
	if (!S_ISREG(st->st_mode))
		die(path, "not a regular file");
	fs = pclab_pseudo_fs(fd);
	if (fs) {
		snprintf(why, sizeof(why), "on a pseudo-filesystem (%s): it has no page cache", fs);
		die(path, why);
	}
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK))
		die(path, strerror(errno));
	return fd;
}

#endif

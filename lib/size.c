// SPDX-License-Identifier: GPL-2.0
/* Byte counts given on a command line; see pclab/size.h. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>

#include "pclab/size.h"

bool pclab_parse_size(const char *arg, long long *v)
{
	int shift = 0;
	char *end;

	/* strtoll alone would take leading space, a sign and 0x */
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

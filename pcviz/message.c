// SPDX-License-Identifier: GPL-2.0
/* Error messages about paths: the reason always fits. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "message.h"

void pcv_path_error(char *err, size_t len, const char *path, const char *fmt, ...)
{
	char reason[256];
	size_t plen = strlen(path), rlen, keep;
	const char *tail;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	rlen = strlen(reason);
	if (plen + 2 + rlen < len) {
		snprintf(err, len, "%s: %s", path, reason);
		return;
	}
	/* "..." + the end of the path + ": " + the reason + NUL */
	keep = len > rlen + 6 ? len - rlen - 6 : 0;
	tail = path + plen - (keep < plen ? keep : plen);
	while (*tail && (*tail & 0xc0) == 0x80)
		tail++;	/* not in the middle of a UTF-8 character */
	if (keep)
		snprintf(err, len, "...%s: %s", tail, reason);
	else
		snprintf(err, len, "%s", reason);
}

/* SPDX-License-Identifier: GPL-2.0 */
/* Error messages about paths, for the err buffers of the sources. */
#ifndef PCVIZ_MESSAGE_H
#define PCVIZ_MESSAGE_H

#include <stddef.h>

/*
 * Writes "PATH: REASON" (REASON from fmt) into err.  When that does not fit,
 * the start of the path gives way ("...ATH: REASON"): the reason is the part
 * that matters, and it is never cut unless it alone is longer than err.
 */
void pcv_path_error(char *err, size_t len, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif

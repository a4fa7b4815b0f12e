/* SPDX-License-Identifier: GPL-2.0 */
/* A trace.dat's structure, checked before libtracecmd reads it (tracedat.c). */
#ifndef PCVIZ_TRACEDAT_H
#define PCVIZ_TRACEDAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Is the file open at fd a trace.dat whose sizes libtracecmd may trust?
 * 0 and the page size its header says (4 KiB to 64 KiB) in *page_size,
 * or -1 with the reason in why.
 */
int pcv_tracedat_check(int fd, uint32_t *page_size, char *why, size_t len);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/* Residency of an open file: cachestat(2) per cell, or sampled mincore(2). */
#ifndef PCVIZ_RESIDENCY_H
#define PCVIZ_RESIDENCY_H

#include "model.h"

/* Pages sampled per cell by the mincore fallback (bounded work). */
#define PCV_MINCORE_SAMPLES 8

/* cachestat(2) of pages [first, first + n) (n 0: to the end); -1 and errno on error */
int pcv_cachestat(int fd, unsigned page_size, uint64_t first, uint64_t n, struct pcv_res *r);

/*
 * Refreshes f's cells and total from fd.  With use_mincore, or when the
 * kernel has no cachestat, the cells come from mincore(2) on at most
 * PCV_MINCORE_SAMPLES pages each, scaled, and *used_mincore is set.
 * mincore_tells says whether mincore reports this file's pages truthfully:
 * since Linux 5.2 it reports every page resident to whoever neither owns
 * the file nor may write it; then the refresh fails with EPERM instead.
 * cachestat fails with EPERM for such a caller too, on kernels that have
 * the rule.  Returns 0, or -1 with errno.
 */
int pcv_residency_refresh(struct pcv_file *f, int fd, bool use_mincore, bool mincore_tells,
			  bool *used_mincore);

#endif

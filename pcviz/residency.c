// SPDX-License-Identifier: GPL-2.0
/* Residency of an open file: cachestat(2) per cell, or sampled mincore(2). */
#define _GNU_SOURCE
#include <errno.h>
#include <sys/mman.h>

#include "pclab/cachestat.h"
#include "residency.h"

int pcv_cachestat(int fd, unsigned page_size, uint64_t first, uint64_t n, struct pcv_res *r)
{
	struct pclab_cachestat cs;

	if (pclab_cachestat(fd, first * page_size, n * page_size, &cs))
		return -1;
	r->pages = n;
	r->cached = cs.nr_cache;
	r->dirty = cs.nr_dirty;
	r->writeback = cs.nr_writeback;
	r->evicted = cs.nr_evicted;
	r->recently_evicted = cs.nr_recently_evicted;
	return 0;
}

/*
 * mincore(2) of up to max pages spread over pages [first, first + n) of
 * the file mapped at map, scaled to the range: bounded work for any size.
 */
static int mincore_range(char *map, unsigned page_size, uint64_t first, uint64_t n, uint64_t max,
			 struct pcv_res *r)
{
	uint64_t step = n > max ? n / max : 1;
	uint64_t samples = 0, hits = 0;

	for (uint64_t p = first; p < first + n && samples < max; p += step) {
		unsigned char vec;

		if (mincore(map + p * page_size, page_size, &vec))
			return -1;
		hits += vec & 1;
		samples++;
	}
	r->pages = n;
	r->cached = samples ? hits * n / samples : 0;
	return 0;
}

static int mincore_refresh(struct pcv_file *f, int fd, struct pcv_res *total)
{
	char *map;
	int status = 0;

	if (!f->pages)
		return 0;
	map = mmap(NULL, f->pages * f->page_size, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		return -1;
	for (unsigned i = 0; i < f->ncells && !status; i++) {
		struct pcv_res r = { 0 };
		uint64_t start, n = pcv_cell_range(f, i, &start);

		status = mincore_range(map, f->page_size, start, n, PCV_MINCORE_SAMPLES, &r);
		pcv_cell_set(&f->cells[i], &r);
	}
	/* the total is sampled the same way, more densely */
	if (!status)
		status = mincore_range(map, f->page_size, 0, f->pages, 64 * PCV_MINCORE_SAMPLES,
				       total);
	munmap(map, f->pages * f->page_size);
	return status;
}

int pcv_residency_refresh(struct pcv_file *f, int fd, bool use_mincore, bool mincore_tells,
			  bool *used_mincore)
{
	struct pcv_res total = { 0 };

	if (!use_mincore && pcv_cachestat(fd, f->page_size, 0, 0, &total)) {
		if (errno != ENOSYS)
			return -1;
		use_mincore = true;
	}
	*used_mincore = use_mincore;
	if (use_mincore && !mincore_tells) {
		errno = EPERM;
		return -1;
	}
	if (use_mincore) {
		if (mincore_refresh(f, fd, &total))
			return -1;
	} else {
		for (unsigned i = 0; i < f->ncells; i++) {
			struct pcv_res r = { 0 };
			uint64_t start, n = pcv_cell_range(f, i, &start);

			if (n && pcv_cachestat(fd, f->page_size, start, n, &r))
				return -1;
			r.pages = n;
			pcv_cell_set(&f->cells[i], &r);
		}
	}
	total.pages = f->pages;
	f->total = total;
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The model's cells and layout: a file's map as cells of pages scaled to
 * the window, their residency, and the page bitmap replay and synthetic
 * sources keep it from.
 */
#include <stdlib.h>
#include <string.h>

#include "cells.h"
#include "model.h"

unsigned pcv_file_layout(struct pcv_file *f, unsigned ncells, unsigned zoom, uint64_t *pan)
{
	uint64_t span, per, first = *pan;
	unsigned used;

	if (ncells > PCV_MAX_CELLS)
		ncells = PCV_MAX_CELLS;
	if (!f->pages || !ncells) {
		f->ncells = 0;
		*pan = 0;
		return 0;
	}
	span = zoom >= 63 ? 1 : f->pages >> zoom;
	if (!span)
		span = 1;
	if (first > f->pages - span)
		first = f->pages - span;
	per = (span + ncells - 1) / ncells;
	used = (unsigned)((span + per - 1) / per);
	if (used > f->cap) {
		struct pcv_cell *c = realloc(f->cells, used * sizeof(*c));

		if (!c) {
			f->ncells = 0;
			return 0;
		}
		f->cells = c;
		f->cap = used;
	}
	if (used != f->ncells || per != f->per_cell || first != f->first) {
		/* a new layout: nothing to compare with, so nothing "changed" */
		for (unsigned i = 0; i < used; i++) {
			memset(&f->cells[i], 0, sizeof(f->cells[i]));
			f->cells[i].r.pages = UINT64_MAX;
		}
	}
	f->ncells = used;
	f->per_cell = per;
	f->first = first;
	*pan = first;
	return used;
}

uint64_t pcv_cell_range(const struct pcv_file *f, unsigned i, uint64_t *start)
{
	uint64_t s = f->first + (uint64_t)i * f->per_cell;

	*start = s;
	if (s >= f->pages)
		return 0;
	return f->pages - s < f->per_cell ? f->pages - s : f->per_cell;
}

void pcv_cell_set(struct pcv_cell *c, const struct pcv_res *r)
{
	c->changed = c->r.pages != UINT64_MAX &&
		     (c->r.cached != r->cached || c->r.dirty != r->dirty ||
		      c->r.writeback != r->writeback);
	c->r = *r;
}

void pcv_res_add(struct pcv_res *sum, const struct pcv_res *r)
{
	sum->pages += r->pages;
	sum->cached += r->cached;
	sum->dirty += r->dirty;
	sum->writeback += r->writeback;
	sum->evicted += r->evicted;
	sum->recently_evicted += r->recently_evicted;
}

int pcv_file_track_pages(struct pcv_file *f)
{
	free(f->bitmap);
	f->bitmap = calloc((f->pages + 63) / 64 + 1, sizeof(uint64_t));
	return f->bitmap ? 0 : -1;
}

static uint64_t count_bits(const uint64_t *map, uint64_t start, uint64_t n)
{
	uint64_t count = 0, end = start + n;

	while (start < end) {
		uint64_t word = map[start / 64] >> (start % 64);
		uint64_t take = 64 - start % 64;

		if (take > end - start) {
			take = end - start;
			word &= (1ull << take) - 1;
		}
		count += (uint64_t)__builtin_popcountll(word);
		start += take;
	}
	return count;
}

void pcv_file_from_bitmap(struct pcv_file *f)
{
	for (unsigned i = 0; i < f->ncells; i++) {
		struct pcv_res r = { 0 };
		uint64_t start;

		r.pages = pcv_cell_range(f, i, &start);
		if (f->bitmap)
			r.cached = count_bits(f->bitmap, start, r.pages);
		for (uint64_t p = start; f->wstate && p < start + r.pages && p < f->wpages; p++) {
			r.dirty += f->wstate[p] == PCV_W_DIRTY;
			r.writeback += f->wstate[p] == PCV_W_WRITEBACK;
		}
		pcv_cell_set(&f->cells[i], &r);
	}
	f->total.pages = f->pages;
	f->total.dirty = f->wcount[PCV_W_DIRTY];
	f->total.writeback = f->wcount[PCV_W_WRITEBACK];
}

/* A word at a time: a hostile trace's event may claim millions of pages */
void pcv_file_set_cached(struct pcv_file *f, uint64_t index, uint64_t n, bool cached)
{
	uint64_t end;

	if (!f->bitmap || index >= f->pages)
		return;
	end = n > f->pages - index ? f->pages : index + n;
	for (uint64_t p = index; p < end;) {
		uint64_t take = 64 - p % 64 < end - p ? 64 - p % 64 : end - p;
		uint64_t mask = (take == 64 ? ~0ull : (1ull << take) - 1) << (p % 64);
		uint64_t *word = &f->bitmap[p / 64];
		uint64_t flip = cached ? mask & ~*word : mask & *word;
		uint64_t changed = (uint64_t)__builtin_popcountll(flip);

		*word ^= flip;
		if (cached)
			f->total.cached += changed;
		else
			f->total.cached -= changed;
		p += take;
	}
}

/* SPDX-License-Identifier: GPL-2.0 */
/* The model's cells and layout, and the page bitmap (cells.c). */
#ifndef PCVIZ_CELLS_H
#define PCVIZ_CELLS_H

#include <stdbool.h>
#include <stdint.h>

struct pcv_cell;
struct pcv_file;
struct pcv_res;

/*
 * Lays out a file's map: ncells cells over the pages of the current zoom
 * level (the whole file at zoom 0, half at zoom 1, ...) starting at
 * page pan.  Clamps pan.  Returns the number of cells used.
 */
unsigned pcv_file_layout(struct pcv_file *f, unsigned ncells, unsigned zoom, uint64_t *pan);
/* The pages cell i covers: [*start, *start + return value). */
uint64_t pcv_cell_range(const struct pcv_file *f, unsigned i, uint64_t *start);
/* Stores one cell's residency, marking it changed when it differs. */
void pcv_cell_set(struct pcv_cell *c, const struct pcv_res *r);
/* Adds r's pages, state by state, to sum (a file's total, the model's). */
void pcv_res_add(struct pcv_res *sum, const struct pcv_res *r);
/* Keeps a bit per page (replay, synthetic); returns -1 without memory. */
int pcv_file_track_pages(struct pcv_file *f);
/* Residency of the cells from the page bitmap (dirty and writeback from the write state). */
void pcv_file_from_bitmap(struct pcv_file *f);
/*
 * Marks pages [index, index + n) cached or not in the page bitmap, for the
 * dispatcher's reconstruction from events; keeps the file's total.
 */
void pcv_file_set_cached(struct pcv_file *f, uint64_t index, uint64_t n, bool cached);

#endif

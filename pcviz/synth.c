// SPDX-License-Identifier: GPL-2.0
/*
 * The synthetic source: a made-up file of 16384 pages (64 MiB of 4 KiB
 * pages) read over and over in three phases, deterministic (its clock
 * advances by the interval, not by real time), for demos and the tests of
 * the views and the batch output:
 *   0. a buffered read fills the cache, 4-page folios, each put on an LRU;
 *   1. kswapd reclaims the file's pages from its start;
 *   2. an uncached read marks, reads and drops every folio: the map stays empty.
 */
#include <stdio.h>
#include <stdlib.h>

#include "source.h"

#define SYN_PAGES 16384ull
#define SYN_RATE 8192.0	/* pages per second */
#define SYN_FOLIO 4
#define SYN_DEV ((8u << 20) | 16u)
#define SYN_INO 12

struct synth {
	double t;
	uint64_t cursor;	/* next page of the current phase */
	int phase;
	uint64_t pfn;
	uint64_t ticks;		/* kswapd's CPU */
};

static void emit(struct pcv_model *m, double t, enum pcv_kind kind, uint64_t index, uint64_t pfn)
{
	struct pcv_event ev = {
		.ts = t, .kind = kind, .dev = SYN_DEV, .ino = SYN_INO,
		.index = index, .nr_pages = SYN_FOLIO, .pfn = pfn,
	};

	if (kind == PCV_EV_DB_END)
		ev.arg[1] = PCV_DB_DROPPED;
	pcv_model_event(m, &ev);
}

static void step(struct synth *y, struct pcv_model *m, uint64_t pages)
{
	struct pcv_system *s = &m->sys;
	uint64_t end = y->cursor + pages > SYN_PAGES ? SYN_PAGES : y->cursor + pages;
	struct pcv_event call = { .ts = y->t, .kind = PCV_EV_DB_CALL, .dev = SYN_DEV, .ino = SYN_INO };
	uint64_t kib = m->page_size / 1024;	/* a page's, as /proc/vmstat counts pgpgin */

	if (y->phase == 1 && y->cursor == 0) {
		struct pcv_event wake = { .ts = y->t, .kind = PCV_EV_KSWAPD_WAKE };

		pcv_model_event(m, &wake);
	}
	for (uint64_t p = y->cursor; p < end; p += SYN_FOLIO) {
		uint64_t pfn = 0x10000 + y->pfn++ % 65536;

		switch (y->phase) {
		case 0:
			emit(m, y->t, PCV_EV_ADD, p, pfn);
			emit(m, y->t, PCV_EV_LRU_INSERT, p, pfn);
			s->vm[PCV_VM_PGPGIN] += SYN_FOLIO * kib;
			break;
		case 1:
			emit(m, y->t, PCV_EV_DELETE, p, 0);
			s->vm[PCV_VM_PGSCAN_KSWAPD] += SYN_FOLIO;
			s->vm[PCV_VM_PGSTEAL_KSWAPD] += SYN_FOLIO;
			break;
		default:
			emit(m, y->t, PCV_EV_DB_MARK, p, pfn);
			emit(m, y->t, PCV_EV_ADD, p, pfn);
			emit(m, y->t, PCV_EV_DB_END, p, pfn);
			emit(m, y->t, PCV_EV_DELETE, p, pfn);
			s->vm[PCV_VM_PGPGIN] += SYN_FOLIO * kib;
			s->vm[PCV_VM_DB_MARKED] += SYN_FOLIO;
			s->vm[PCV_VM_DB_READ] += SYN_FOLIO;
			call.arg[1]++;
			call.arg[3]++;
			break;
		}
	}
	if (y->phase == 1) {
		struct pcv_event reclaim = {
			.ts = y->t, .kind = PCV_EV_RECLAIM, .index = end - y->cursor, .nr_pages = end - y->cursor,
		};

		pcv_model_event(m, &reclaim);
		y->ticks += 10;
	}
	if (y->phase == 2) {
		call.index = y->cursor * m->page_size;	/* bytes, as the kernel's event has them */
		call.nr_pages = (end - y->cursor) * m->page_size;
		pcv_model_event(m, &call);
	}
	y->cursor = end;
	if (y->cursor == SYN_PAGES) {
		y->cursor = 0;
		y->phase = (y->phase + 1) % 3;
	}
}

static int synth_refresh(struct pcv_source *src, struct pcv_model *m, double dt)
{
	struct synth *y = src->priv;
	struct pcv_system *s = &m->sys;
	struct pcv_file *f = &m->files[0];
	uint64_t pages = (uint64_t)(SYN_RATE * dt + 0.5);
	uint64_t kib = m->page_size / 1024;	/* a page's, as /proc/meminfo counts */

	y->t += dt;
	if (dt > 0)
		step(y, m, pages < SYN_FOLIO ? SYN_FOLIO : pages - pages % SYN_FOLIO);
	pcv_file_from_bitmap(f);
	s->cached = 100000 + f->total.cached * kib;
	s->active_file = 40000;
	s->inactive_file = 60000 + f->total.cached * kib;
	s->known = true;
	/* the file's uncached pages are free (150000 KiB with none cached, at 4 KiB a page) */
	s->mem_free = 84464 + (SYN_PAGES - f->total.cached) * kib;
	s->dirty = 0;
	s->writeback = 0;
	s->kswapd_ticks = (long long)y->ticks;
	s->ticks_per_s = 100;
	s->mglru = 1;
	m->refresh_us = 0;
	pcv_model_tick(m, y->t);
	return 0;
}

static void synth_close(struct pcv_source *s, struct pcv_model *m)
{
	(void)m;
	free(s->priv);
}

int pcv_synth_open(struct pcv_source *s, struct pcv_model *m, const struct pcv_options *o,
		   char *err, size_t len)
{
	struct synth *y = calloc(1, sizeof(*y));
	int fi;

	(void)o;
	fi = y ? pcv_model_add_file(m, "synthetic/file", SYN_DEV, SYN_INO,
				    SYN_PAGES * m->page_size) : -1;
	if (fi < 0 || pcv_file_track_pages(&m->files[fi])) {
		free(y);
		snprintf(err, len, "out of memory");
		return -1;
	}
	for (int v = 0; v < PCV_VM_N; v++)
		m->sys.vm_valid[v] = true;
	m->reconstruct = true;
	m->events_on = true;
	snprintf(m->events_why, sizeof(m->events_why), "synthetic");
	snprintf(m->res_source, sizeof(m->res_source), "synthetic");
	s->name = "synthetic";
	s->sample = synth_refresh;
	s->close = synth_close;
	s->priv = y;
	return 0;
}

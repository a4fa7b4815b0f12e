// SPDX-License-Identifier: GPL-2.0
/*
 * The replay source: a trace.dat recorded with trace-cmd (in the guest),
 * read with libtracecmd on the host.  The events are loaded once; the
 * replay clock moves through them, and residency is reconstructed from the
 * add, delete, drop-behind mark and drop events.  Files are known by device
 * and inode (a trace has no names), sized by the highest page seen.
 *
 * The guest's static build has no libtracecmd: PCVIZ_REPLAY is not defined
 * and --replay says so.
 */
#include <stdio.h>
#include <stdlib.h>

#include "source.h"

#ifdef PCVIZ_REPLAY
#include <trace-cmd.h>

#include "decode.h"

struct replay {
	struct pcv_event *ev;
	size_t n, cap, pos;
	double clock;
	uint64_t lost;
	struct pcv_decoder dec;
};

static int collect(struct tracecmd_input *h, struct tep_record *rec, int cpu, void *ctx)
{
	struct replay *r = ctx;
	struct pcv_event ev;

	(void)h;
	(void)cpu;
	if (rec->missed_events)
		r->lost += rec->missed_events > 0 ? (uint64_t)rec->missed_events : 1;
	if (!pcv_decode(&r->dec, rec, &ev))
		return 0;
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 4096;
		struct pcv_event *more = realloc(r->ev, cap * sizeof(*more));

		if (!more)
			return -1;
		r->ev = more;
		r->cap = cap;
	}
	r->ev[r->n++] = ev;
	return 0;
}

/* The files the events name, each sized by the highest page it touched. */
static int find_files(struct replay *r, struct pcv_model *m)
{
	uint64_t end[PCV_MAX_FILES] = { 0 };

	for (size_t i = 0; i < r->n; i++) {
		const struct pcv_event *e = &r->ev[i];
		char name[64];
		int fi;

		if (!e->dev || !e->ino || e->kind == PCV_EV_DB_CALL)
			continue;
		fi = pcv_model_find_file(m, e->dev, e->ino);
		if (fi < 0) {
			snprintf(name, sizeof(name), "dev %u:%u ino %llu", e->dev >> 20, e->dev & 0xfffff,
				 (unsigned long long)e->ino);
			fi = pcv_model_add_file(m, name, e->dev, e->ino, 0);
			if (fi < 0)
				continue;
		}
		if (e->index + e->nr_pages > end[fi])
			end[fi] = e->index + e->nr_pages;
	}
	for (int i = 0; i < m->nfiles; i++) {
		m->files[i].size = end[i] * 4096;
		m->files[i].pages = end[i];
		if (pcv_file_track_pages(&m->files[i]))
			return -1;
	}
	return 0;
}

static int replay_refresh(struct pcv_source *s, struct pcv_model *m, double dt)
{
	struct replay *r = s->priv;

	r->clock += dt;
	while (r->pos < r->n && r->ev[r->pos].ts <= r->clock)
		pcv_model_event(m, &r->ev[r->pos++]);
	for (int i = 0; i < m->nfiles; i++)
		pcv_file_from_bitmap(&m->files[i]);
	m->lost = r->lost;
	pcv_model_tick(m, r->clock);
	return r->pos == r->n;
}

static void replay_close(struct pcv_source *s, struct pcv_model *m)
{
	struct replay *r = s->priv;

	(void)m;
	free(r->ev);
	free(r);
}

int pcv_replay_open(struct pcv_source *s, struct pcv_model *m, const struct pcv_options *o,
		    char *err, size_t len)
{
	struct tracecmd_input *h = tracecmd_open(o->replay, 0);
	struct replay *r;

	if (!h) {
		snprintf(err, len, "%s: cannot open it as a trace-cmd trace.dat", o->replay);
		return -1;
	}
	r = calloc(1, sizeof(*r));
	if (!r || !pcv_decoder_init(&r->dec, tracecmd_get_tep(h))) {
		snprintf(err, len, "%s: %s", o->replay,
			 r ? "the trace has none of the page-cache events pcviz shows" : "out of memory");
		tracecmd_close(h);
		free(r);
		return -1;
	}
	if (tracecmd_iterate_events(h, NULL, 0, collect, r) < 0 || find_files(r, m)) {
		snprintf(err, len, "%s: could not read the events", o->replay);
		tracecmd_close(h);
		free(r->ev);
		free(r);
		return -1;
	}
	tracecmd_close(h);
	/* the replay clock starts just before the first event */
	r->clock = r->n ? r->ev[0].ts - 1e-9 : 0;
	m->reconstruct = true;
	m->events_on = true;
	snprintf(m->events_why, sizeof(m->events_why), "replay of %s (%zu events)", o->replay, r->n);
	snprintf(m->res_source, sizeof(m->res_source), "replay");
	s->name = "replay";
	s->sample = replay_refresh;
	s->close = replay_close;
	s->priv = r;
	return 0;
}

#else

int pcv_replay_open(struct pcv_source *s, struct pcv_model *m, const struct pcv_options *o,
		    char *err, size_t len)
{
	(void)s;
	(void)m;
	snprintf(err, len,
		 "%s: --replay works in the host build only (this static build has no libtracecmd)",
		 o->replay);
	return -1;
}

#endif

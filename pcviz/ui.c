// SPDX-License-Identifier: GPL-2.0
/*
 * The live views (ncurses).  Each frame: lay out the selected file's map to
 * the window, refresh the model from the source, draw.  Views: overview
 * (map, system, events), map (with the file list), system, events, write
 * timeline, eviction (who evicted whom), cgroups (memory cgroups' counters).
 */
#define _GNU_SOURCE
#include <curses.h>
#include <langinfo.h>
#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup.h"
#include "pclab/clock.h"
#include "ui.h"
#include "words.h"

#define MIN_COLS 60
#define MIN_LINES 16

enum { VIEW_OVERVIEW, VIEW_MAP, VIEW_SYSTEM, VIEW_EVENTS, VIEW_TIMELINE, VIEW_EVICTION,
       VIEW_CGROUPS, NVIEWS };
static const char *const view_name[NVIEWS] = { "overview", "map", "system", "events", "timeline",
					       "eviction", "cgroups" };
enum { SORT_NAME, SORT_CACHED, SORT_SIZE, NSORTS };
static const char *const sort_name[NSORTS] = { "name", "cached", "size" };
enum { C_CACHED = 1, C_DIRTY, C_WRITEBACK, C_TITLE, C_ALERT };

/* A run shown: its source and model, and what of it the views select */
struct run {
	struct pcv_source *src;
	struct pcv_model *m;
	const char *name;	/* when runs are compared: the trace, beside the label */
	int sel;
	uint64_t pan;
	bool ended;
};

struct ui {
	struct run runs[PCV_RUNS];
	int nruns;		/* two: compared side by side, a column each */
	const struct pcv_options *o;
	int view, sort;
	bool paused, help, quit, ended, color, unicode;
	int steps;		/* single steps asked for while paused */
	unsigned zoom;
	double speed;
	long refreshes;
	struct pcv_cgroups *cgroups;	/* cgroup IDs to paths, live only */
};

/* Prints at (y, x), cut to w columns, with attributes a. */
static void put(int y, int x, int w, attr_t a, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	if (w <= 0 || y < 0 || y >= LINES)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	attron(a);
	mvaddnstr(y, x, buf, w);
	attroff(a);
}

static attr_t colour(const struct ui *u, short pair)
{
	return u->color ? COLOR_PAIR(pair) : A_NORMAL;
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0;
}

/* Human size of a number of KiB */
static const char *kib(uint64_t k, char *buf, size_t len)
{
	if (k >= 10 * 1024 * 1024)
		snprintf(buf, len, "%llu GiB", (unsigned long long)(k >> 20));
	else if (k >= 10 * 1024)
		snprintf(buf, len, "%llu MiB", (unsigned long long)(k >> 10));
	else
		snprintf(buf, len, "%llu KiB", (unsigned long long)k);
	return buf;
}

/* A count or rate in at most 5 characters: 999, 12.3k, 1234k, 12.3M */
static const char *human(double v, char *buf, size_t len)
{
	if (v < 1000)
		snprintf(buf, len, "%5.0f", v);
	else if (v < 99950)
		snprintf(buf, len, "%4.1fk", v / 1e3);
	else if (v < 9999500)
		snprintf(buf, len, "%4.0fk", v / 1e3);
	else
		snprintf(buf, len, "%4.1fM", v / 1e6);
	return buf;
}

/* --- keys ------------------------------------------------------------------ */

static void key_quit(struct ui *u) { u->quit = true; }
static void key_pause(struct ui *u) { u->paused = !u->paused; }
static void key_next_view(struct ui *u) { u->view = (u->view + 1) % NVIEWS; }
static void key_overview(struct ui *u) { u->view = VIEW_OVERVIEW; }
static void key_map(struct ui *u) { u->view = VIEW_MAP; }
static void key_system(struct ui *u) { u->view = VIEW_SYSTEM; }
static void key_events(struct ui *u) { u->view = VIEW_EVENTS; }
static void key_timeline(struct ui *u) { u->view = VIEW_TIMELINE; }
static void key_eviction(struct ui *u) { u->view = VIEW_EVICTION; }
static void key_cgroups(struct ui *u) { u->view = VIEW_CGROUPS; }
static void key_help(struct ui *u) { u->help = true; }
static void key_reset(struct ui *u)
{
	for (int i = 0; i < u->nruns; i++)
		pcv_model_reset_counts(u->runs[i].m);
}

static void key_sort(struct ui *u) { u->sort = (u->sort + 1) % NSORTS; }
static void key_step(struct ui *u) { u->paused = true; u->steps++; }
static void key_faster(struct ui *u) { u->speed = u->speed * 2 > 1024 ? 1024 : u->speed * 2; }
static void key_slower(struct ui *u) { u->speed = u->speed < 1.0 / 32 ? 1.0 / 64 : u->speed / 2; }

static void key_zoom_in(struct ui *u)
{
	if (u->zoom < 40)
		u->zoom++;
}

static void key_zoom_out(struct ui *u)
{
	if (u->zoom)
		u->zoom--;
}

static uint64_t pan_step(const struct ui *u, const struct run *r)
{
	const struct pcv_file *f = &r->m->files[r->sel];
	uint64_t span = u->zoom >= 63 ? 1 : f->pages >> u->zoom;

	return span / 4 ? span / 4 : 1;
}

static void key_left(struct ui *u)
{
	for (int i = 0; i < u->nruns; i++) {
		struct run *r = &u->runs[i];
		uint64_t s = pan_step(u, r);

		r->pan = r->pan > s ? r->pan - s : 0;
	}
}

static void key_right(struct ui *u)
{
	for (int i = 0; i < u->nruns; i++)
		u->runs[i].pan += pan_step(u, &u->runs[i]);	/* pcv_file_layout clamps */
}

static int sort_key(const struct ui *u, const struct run *r, int a, int b)
{
	const struct pcv_file *x = &r->m->files[a], *y = &r->m->files[b];

	switch (u->sort) {
	case SORT_CACHED:
		if (x->total.cached != y->total.cached)
			return x->total.cached > y->total.cached ? -1 : 1;
		break;
	case SORT_SIZE:
		if (x->size != y->size)
			return x->size > y->size ? -1 : 1;
		break;
	default:
		break;
	}
	return strcmp(x->path, y->path);
}

/* A run's files in the current sort order. */
static int sorted(const struct ui *u, const struct run *r, int *order)
{
	int n = r->m->nfiles;

	for (int i = 0; i < n; i++) {
		int j = i;

		while (j > 0 && sort_key(u, r, order[j - 1], i) > 0) {
			order[j] = order[j - 1];
			j--;
		}
		order[j] = i;
	}
	return n;
}

/* In every run: each has its files, selected in its own order */
static void select_file(struct ui *u, int delta)
{
	for (int i = 0; i < u->nruns; i++) {
		struct run *r = &u->runs[i];
		int order[PCV_MAX_FILES], n = sorted(u, r, order), pos = 0;

		if (!n)
			continue;
		while (pos < n && order[pos] != r->sel)
			pos++;
		r->sel = order[(pos + delta + n) % n];
		r->pan = 0;
	}
}

static void key_next_file(struct ui *u) { select_file(u, 1); }
static void key_prev_file(struct ui *u) { select_file(u, -1); }

static const struct key {
	int ch, alt;
	const char *label, *help;
	void (*fn)(struct ui *u);
} keys[] = {
	{ 'q', 'Q', "q", "quit", key_quit },
	{ ' ', 'p', "space p", "pause or resume", key_pause },
	{ '\t', 'v', "tab v", "next view (overview, map, ..., cgroups)", key_next_view },
	{ '1', 0, "1", "overview: map, system and events", key_overview },
	{ '2', 0, "2", "the map, with the list of files", key_map },
	{ '3', 0, "3", "the system panel", key_system },
	{ '4', 0, "4", "the events panel, with a long log", key_events },
	{ '5', 0, "5", "the write timeline of each file's pages", key_timeline },
	{ '6', 0, "6", "who evicted whom: reclaimers of each file's pages", key_eviction },
	{ '7', 0, "7", "memory cgroups: file cache, refaults, PSI", key_cgroups },
	{ '+', '=', "+", "zoom the map in", key_zoom_in },
	{ '-', '_', "-", "zoom the map out", key_zoom_out },
	{ KEY_LEFT, '[', "<- [", "pan the zoomed map left", key_left },
	{ KEY_RIGHT, ']', "-> ]", "pan the zoomed map right", key_right },
	{ 'n', KEY_DOWN, "n down", "next file", key_next_file },
	{ 'N', KEY_UP, "N up", "previous file", key_prev_file },
	{ 's', 0, "s", "sort files by name, cached pages, size", key_sort },
	{ 'r', 0, "r", "reset the event counters", key_reset },
	{ '.', 0, ".", "step one interval (pauses)", key_step },
	{ '>', 0, ">", "replay faster", key_faster },
	{ '<', 0, "<", "replay slower", key_slower },
	{ '?', 'h', "? h", "this help (any key closes it)", key_help },
};

static void handle_key(struct ui *u, int ch)
{
	if (u->help) {
		u->help = false;
		return;
	}
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (ch == keys[i].ch || (keys[i].alt && ch == keys[i].alt)) {
			keys[i].fn(u);
			return;
		}
}

/* --- drawing ---------------------------------------------------------------- */

static const char *glyph(const struct ui *u, const struct pcv_res *r, attr_t *a)
{
	static const char *const uni[] = { "\u00b7", "\u2591", "\u2592", "\u2593", "\u2588" };
	static const char *const ascii[] = { ".", ":", "+", "*", "#" };
	int level;

	*a = A_NORMAL;
	if (!r->pages)
		return " ";
	if (r->writeback) {
		*a = colour(u, C_WRITEBACK) | A_BOLD;
		return "W";
	}
	if (r->dirty) {
		*a = colour(u, C_DIRTY) | A_BOLD;
		return "D";
	}
	level = !r->cached ? 0 : r->cached * 4 <= r->pages ? 1 : r->cached * 2 <= r->pages ? 2 :
		r->cached < r->pages ? 3 : 4;
	if (level)
		*a = colour(u, C_CACHED);
	return u->unicode ? uni[level] : ascii[level];
}

/* Pages the laid-out cells cover */
static uint64_t covered(const struct pcv_file *f)
{
	uint64_t start;

	return f->ncells ? (uint64_t)(f->ncells - 1) * f->per_cell +
				   pcv_cell_range(f, f->ncells - 1, &start)
			 : 0;
}

static void draw_map(struct ui *u, const struct run *r, int y, int x, int h, int w)
{
	struct pcv_model *m = r->m;
	struct pcv_file *f = &m->files[r->sel];
	const struct pcv_res *t = &f->total;
	char sz[32];

	put(y, x, w, colour(u, C_TITLE) | A_BOLD, "Residency  %s  (file %d/%d%s, %s)  zoom x%llu",
	    f->path, r->sel + 1, m->nfiles, m->unwatched ? ", more not watched" : "",
	    kib(f->size / 1024, sz, sizeof(sz)), 1ull << u->zoom);
	if (f->unknown) {
		/* no numbers, no map: nothing pcviz could show would be true */
		put(y + 1, x, w, colour(u, C_ALERT) | A_BOLD, "residency unknown: %s", f->why);
		return;
	}
	put(y + 1, x, w, A_NORMAL,
	    "cached %llu/%llu pages (%.1f%%)  dirty %llu  writeback %llu  evicted %llu  "
	    "recently evicted %llu",
	    (unsigned long long)t->cached, (unsigned long long)f->pages, pct(t->cached, f->pages),
	    (unsigned long long)t->dirty, (unsigned long long)t->writeback,
	    (unsigned long long)t->evicted, (unsigned long long)t->recently_evicted);
	for (unsigned i = 0; i < f->ncells; i++) {
		int row = (int)i / w, col = (int)i % w;
		attr_t a;
		const char *g = glyph(u, &f->cells[i].r, &a);

		if (row >= h - 3)
			break;
		if (f->cells[i].changed)
			a |= A_REVERSE;
		attron(a);
		mvaddstr(y + 2 + row, x + col, g);
		attroff(a);
	}
	if (f->state != PCV_FILE_OK)
		put(y + h - 1, x, w, colour(u, C_ALERT) | A_BOLD, "%s", f->note);
	else if (!strcmp(m->res_source, "mincore"))
		put(y + h - 1, x, w, colour(u, C_ALERT) | A_BOLD,
		    "mincore, sampled: no dirty or writeback pages");
	else
		put(y + h - 1, x, w, A_DIM,
		    "%s: pages %llu-%llu, %llu/cell: %s none %s%s%s%s all cached, D dirty, "
		    "W writeback, reverse: changed",
		    m->res_source, (unsigned long long)f->first,
		    (unsigned long long)(f->first + covered(f) - 1),
		    (unsigned long long)f->per_cell, u->unicode ? "\u00b7" : ".",
		    u->unicode ? "\u2591" : ":", u->unicode ? "\u2592" : "+",
		    u->unicode ? "\u2593" : "*", u->unicode ? "\u2588" : "#");
}

static void draw_files(struct ui *u, const struct run *r, int y, int x, int h, int w)
{
	int order[PCV_MAX_FILES], n = sorted(u, r, order);
	char unwatched[160], cached[32];

	pcv_unwatched_words(r->m, unwatched, sizeof(unwatched));
	put(y, x, w, colour(u, C_TITLE) | A_BOLD, "Files (sorted by %s; n/N select, s sort)  %s",
	    sort_name[u->sort], unwatched);
	for (int i = 0; i < n && i < h - 1; i++) {
		const struct pcv_file *f = &r->m->files[order[i]];

		if (f->unknown)
			snprintf(cached, sizeof(cached), "%s", "unknown");
		else
			snprintf(cached, sizeof(cached), "%6.1f%%", pct(f->total.cached, f->pages));
		put(y + 1 + i, x, w, order[i] == r->sel ? A_REVERSE : A_NORMAL,
		    "%c %-40s %10llu pages %7s cached, events: %llu add %llu delete %llu mark %s",
		    order[i] == r->sel ? '>' : ' ', f->path, (unsigned long long)f->pages, cached,
		    (unsigned long long)f->events[PCV_EV_ADD],
		    (unsigned long long)f->events[PCV_EV_DELETE],
		    (unsigned long long)f->events[PCV_EV_DB_MARK], f->unknown ? f->why : f->note);
	}
}

static void rate_line(const struct run *r, int y, int x, int w, const char *label, int a, int b,
		      const char *unit)
{
	const struct pcv_system *s = &r->m->sys;

	if (!s->vm_valid[a])
		put(y, x, w, A_DIM, "%-20s not in this kernel", label);
	else if (b < 0)
		put(y, x, w, A_NORMAL, "%-20s %9.0f %s", label, s->vm_rate[a], unit);
	else
		put(y, x, w, A_NORMAL, "%-20s %9.0f %9.0f %s", label, s->vm_rate[a], s->vm_rate[b], unit);
}

static void draw_system(struct ui *u, const struct run *r, int y, int x, int h, int w)
{
	const struct pcv_system *s = &r->m->sys;
	char a[32], b[32];
	int row = y;

	put(row++, x, w, colour(u, C_TITLE) | A_BOLD, "System");
	if (!s->known) {
		put(row, x, w, A_DIM, "no system counters in a replay: a trace.dat has none");
		return;
	}
	put(row++, x, w, A_NORMAL, "%-13s%9s  %-9s%9s", "MemFree", kib(s->mem_free, a, sizeof(a)),
	    "Cached", kib(s->cached, b, sizeof(b)));
	put(row++, x, w, A_NORMAL, "%-13s%9s  %-9s%9s", "Active(file)",
	    kib(s->active_file, a, sizeof(a)), "Inactive", kib(s->inactive_file, b, sizeof(b)));
	put(row++, x, w, A_NORMAL, "%-13s%9s  %-9s%9s", "Dirty", kib(s->dirty, a, sizeof(a)),
	    "Writeback", kib(s->writeback, b, sizeof(b)));
	if (s->kswapd_ticks >= 0)
		put(row++, x, w, A_NORMAL, "kswapd CPU %5.1f%%   MGLRU %s", s->kswapd_cpu,
		    s->mglru > 0 ? "on" : s->mglru == 0 ? "off" : "unknown");
	else
		put(row++, x, w, A_NORMAL, "kswapd CPU unknown   MGLRU %s",
		    s->mglru > 0 ? "on" : s->mglru == 0 ? "off" : "unknown");
	put(row++, x, w, A_DIM, "%-20s %9s %9s", "pages per second", "kswapd", "direct");
	rate_line(r, row++, x, w, "pages scanned", PCV_VM_PGSCAN_KSWAPD, PCV_VM_PGSCAN_DIRECT, "");
	rate_line(r, row++, x, w, "pages reclaimed", PCV_VM_PGSTEAL_KSWAPD, PCV_VM_PGSTEAL_DIRECT, "");
	if (row < y + h)
		rate_line(r, row++, x, w, "refaults (file)", PCV_VM_REFAULT_FILE, -1, "");
	if (row < y + h)
		rate_line(r, row++, x, w, "KiB paged in/out", PCV_VM_PGPGIN, PCV_VM_PGPGOUT, "");
	if (row < y + h)
		rate_line(r, row++, x, w, "drop-behind marked", PCV_VM_DB_MARKED, -1, "");
	if (row < y + h)
		rate_line(r, row++, x, w, "dropped read/write", PCV_VM_DB_READ, PCV_VM_DB_WRITE, "");
	if (row < y + h)
		rate_line(r, row++, x, w, "kept claimed/mapped", PCV_VM_DB_CLAIMED, PCV_VM_DB_MAPPED, "");
}

static void draw_events(struct ui *u, const struct run *r, int y, int x, int h, int w)
{
	const struct pcv_model *m = r->m;
	int half = (PCV_EV_NKINDS + 1) / 2, colw = w / 2, row;
	char count[16], rate[16], pages[16], lost[32];

	snprintf(lost, sizeof(lost), "  LOST %llu", (unsigned long long)m->lost);
	put(y, x, w - (int)strlen(lost), colour(u, C_TITLE) | A_BOLD, "Events  %s", m->events_why);
	put(y, x + w - (int)strlen(lost), (int)strlen(lost),
	    m->lost ? colour(u, C_ALERT) | A_BOLD : A_BOLD, "%s", lost);
	if (!m->events_on) {
		put(y + 1, x, w, colour(u, C_ALERT), "no events panel: %s", m->events_why);
		return;
	}
	for (int k = 0; k < PCV_EV_NKINDS; k++) {
		int r = k % half, c = k / half;

		if (1 + r >= h)
			continue;
		human((double)m->ev_count[k], count, sizeof(count));
		if (colw >= 40)
			put(y + 1 + r, x + c * colw, colw - 1, A_NORMAL, "%-14s%s %s/s %s pages",
			    pcv_kind_name[k], count, human(m->ev_rate[k], rate, sizeof(rate)),
			    human((double)m->ev_pages[k], pages, sizeof(pages)));
		else if (colw >= 28)
			put(y + 1 + r, x + c * colw, colw - 1, A_NORMAL, "%-14s%s %s/s", pcv_kind_name[k],
			    count, human(m->ev_rate[k], rate, sizeof(rate)));
		else
			put(y + 1 + r, x + c * colw, colw - 1, A_NORMAL, "%-14s%s", pcv_kind_name[k], count);
	}
	row = y + 1 + half;
	if (m->folio_pauses && row < y + h) {
		char folios[PCV_CALL_N][16];

		for (int c = 0; c < PCV_CALL_N; c++)
			human((double)m->db_call[c], folios[c], sizeof(folios[c]));
		put(row++, x, w, colour(u, C_ALERT),
		    "per-folio counts are a sample: off %llu times beside uncached reads; "
		    "the calls met %s marked, %s served, %s dropped, %s kept folios",
		    (unsigned long long)m->folio_pauses, folios[PCV_CALL_MARKED],
		    folios[PCV_CALL_SERVED], folios[PCV_CALL_DROPPED], folios[PCV_CALL_KEPT]);
	}
	if (row < y + h)
		put(row++, x, w, A_DIM, "latest (unattributed LRU events: %llu)",
		    (unsigned long long)m->unattributed);
	for (unsigned i = 0; row < y + h; i++, row++) {
		const struct pcv_event *ev = pcv_model_recent(m, i);
		char words[160];

		if (!ev)
			break;
		pcv_event_words(m, ev, words, sizeof(words));
		put(row, x, w, A_NORMAL, "%10.3f %s", ev->ts, words);
	}
}

/* The write states as the timeline draws them: glyph, colour, words of the legend */
static const struct {
	const char *glyph, *words;
	short pair;
} wglyph[PCV_W_N] = {
	[PCV_W_DIRTY] = { "D", "dirty", C_DIRTY },
	[PCV_W_WRITEBACK] = { "W", "under writeback", C_WRITEBACK },
	[PCV_W_CLEAN] = { "C", "clean", C_CACHED },
	[PCV_W_DROPPED] = { "X", "dropped", C_ALERT },
	[PCV_W_KEPT] = { "K", "kept", C_TITLE },
};

/* One file's strips: a line of numbers, then a row per write state, newest interval right */
static int draw_strips(struct ui *u, const struct run *r, const struct pcv_file *f, bool sel,
		       int y, int x, int rows, int w)
{
	const struct pcv_model *m = r->m;
	int sw = w - 10, row = 0;
	char line[256], kept[128] = "";
	size_t used = 0;

	for (int k = 0; k < PCV_DB_NRESULT && used < sizeof(kept); k++)
		if (f->wkept[k])
			used += (size_t)snprintf(kept + used, sizeof(kept) - used, "%s%s %llu",
						 used ? ", " : " (", pcv_db_result[k],
						 (unsigned long long)f->wkept[k]);
	if (used && used < sizeof(kept) - 1)
		snprintf(kept + used, sizeof(kept) - used, ")");
	used = 0;
	for (int s = PCV_W_DIRTY; s < PCV_W_N && used < sizeof(line); s++)
		used += (size_t)snprintf(line + used, sizeof(line) - used, "  %s %llu/%llu",
					 pcv_wstate_name[s], (unsigned long long)f->wcount[s],
					 (unsigned long long)f->wto[s]);
	put(y + row++, x, w, sel ? A_REVERSE : A_BOLD, "%c %s%s%s", sel ? '>' : ' ', f->path,
	    f->wstate ? line : "  no write seen", kept);
	for (int s = PCV_W_DIRTY; s < PCV_W_N && f->wstate && row < rows; s++, row++) {
		put(y + row, x, 10, colour(u, wglyph[s].pair), "%9s", pcv_wstate_name[s]);
		for (int c = 0; c < sw; c++) {
			uint64_t i = (uint64_t)(sw - 1 - c);
			bool known = i < m->ticks && i < PCV_WHIST;
			attr_t a = pcv_file_wmask(m, f, i) & 1u << s ?
				   colour(u, wglyph[s].pair) | A_BOLD : A_DIM;

			put(y + row, x + 10 + c, 1, a, "%s", !known ? " " :
			    pcv_file_wmask(m, f, i) & 1u << s ? wglyph[s].glyph : ".");
		}
	}
	return row;
}

static void draw_timeline(struct ui *u, const struct run *r, int y, int x, int h, int w)
{
	int order[PCV_MAX_FILES], n = sorted(u, r, order), pos = 0, row = 1;
	double secs = r->src->realtime ? u->o->interval : u->o->interval * u->speed;
	char legend[256];
	size_t used = 0;

	put(y, x, w, colour(u, C_TITLE) | A_BOLD,
	    "Write timeline  (pages now/went into each state; n/N select)");
	while (pos < n && order[pos] != r->sel)
		pos++;
	for (int i = pos; i < n && row < h - 1; i++)
		row += draw_strips(u, r, &r->m->files[order[i]], i == pos, y + row, x, h - 1 - row, w);
	for (int s = PCV_W_DIRTY; s < PCV_W_N && used < sizeof(legend); s++)
		used += (size_t)snprintf(legend + used, sizeof(legend) - used, "%s %s, ",
					 wglyph[s].glyph, wglyph[s].words);
	put(y + h - 1, x, w, A_DIM, "%s. none; a column %.3gs, newest right", legend, secs);
}

/*
 * A cgroup by its path when pcviz runs live and finds it, else by ID (a
 * replay's cgroups are another machine's): "/system.slice/x", "cgroup 1234".
 */
static const char *cgroup_words(const struct ui *u, const struct run *r, uint64_t id, char *buf,
				size_t len)
{
	const char *path = r->src->realtime && u->cgroups ?
			   pcv_cgroup_path(u->cgroups, id, (unsigned long)u->refreshes) : NULL;

	if (path)
		snprintf(buf, len, "%s", path);
	else
		snprintf(buf, len, "cgroup %llu", (unsigned long long)id);
	return buf;
}

/* Who woke kswapd for the file's kswapd evictions: a row per waker, others, unknown */
static int draw_wakers(struct ui *u, const struct run *r, const struct pcv_file *f, int y, int x,
		       int rows, int w)
{
	int row = 0;
	char cg[128];

	if (!f->evict_kswapd || rows <= 0)
		return 0;
	put(y + row++, x, w, A_DIM, "    %-40s %-16s %9s", "kswapd woken by (cgroup)", "task", "pages");
	for (int i = 0; i < f->nwakers && row < rows; i++) {
		const struct pcv_waker *k = &f->wakers[i];

		/* 0: the waker's cgroup is unknown (a replay, or the task was gone) */
		if (k->cgroup)
			cgroup_words(u, r, k->cgroup, cg, sizeof(cg));
		else
			snprintf(cg, sizeof(cg), "?");
		put(y + row++, x, w, A_NORMAL, "    %-40s %-16s %9llu", cg,
		    k->comm[0] ? k->comm : "?", (unsigned long long)k->pages);
	}
	if (f->woken_others && row < rows)
		put(y + row++, x, w, A_NORMAL, "    %-40s %-16s %9llu", "others", "",
		    (unsigned long long)f->woken_others);
	if (f->woken_unknown && row < rows)
		put(y + row++, x, w, A_NORMAL, "    %-40s %-16s %9llu", "unknown (no waker seen)", "",
		    (unsigned long long)f->woken_unknown);
	return row;
}

/* One file's block of the eviction view: its numbers, kswapd's wakers, its direct reclaimers */
static int draw_evictions(struct ui *u, const struct run *r, const struct pcv_file *f, bool sel,
			  int y, int x, int rows, int w)
{
	int row = 0;
	char cg[128], target[140];

	put(y + row++, x, w, sel ? A_REVERSE : A_BOLD, "%c %s", sel ? '>' : ' ', f->path);
	if (row >= rows)
		return row;
	if (!f->evict_kswapd && !f->evict_direct && !f->refaults) {
		put(y + row++, x, w, A_DIM, "    no eviction or refault seen");
		return row;
	}
	put(y + row++, x, w, A_NORMAL,
	    "    evicted %llu: kswapd %llu, direct reclaim %llu   refaulted %llu (activated %llu, "
	    "eviction not seen %llu)   gone mean %.3fs max %.3fs",
	    (unsigned long long)(f->evict_kswapd + f->evict_direct),
	    (unsigned long long)f->evict_kswapd, (unsigned long long)f->evict_direct,
	    (unsigned long long)f->refaults, (unsigned long long)f->refault_activated,
	    (unsigned long long)f->refault_unseen, pcv_file_gone_mean(f), f->gone_max);
	row += draw_wakers(u, r, f, y + row, x, rows - row, w);
	if (f->nreclaimers && row < rows)
		put(y + row++, x, w, A_DIM, "    %-40s %-16s %9s", "direct reclaim by (cgroup)", "task",
		    "pages");
	for (int i = 0; i < f->nreclaimers && row < rows; i++) {
		const struct pcv_reclaimer *c = &f->reclaimers[i];

		target[0] = 0;
		if (c->target != PCV_CGROUP_ROOT) {
			char t[128];

			/* memcg limit reclaim: the limit of this memcg was hit */
			snprintf(target, sizeof(target), "  for memcg %s",
				 cgroup_words(u, r, c->target, t, sizeof(t)));
		}
		put(y + row++, x, w, A_NORMAL, "    %-40s %-16s %9llu%s",
		    cgroup_words(u, r, c->cgroup, cg, sizeof(cg)), c->comm[0] ? c->comm : "?",
		    (unsigned long long)c->pages, target);
	}
	if (f->evict_others && row < rows)
		put(y + row++, x, w, A_NORMAL, "    %-40s %-16s %9llu", "others", "",
		    (unsigned long long)f->evict_others);
	return row;
}

static void draw_eviction(struct ui *u, const struct run *r, int y, int x, int h, int w)
{
	int order[PCV_MAX_FILES], n = sorted(u, r, order), pos = 0, row = 1;

	put(y, x, w, colour(u, C_TITLE) | A_BOLD,
	    "Who evicted whom  (pages of each file; n/N select)  %s", r->m->events_why);
	while (pos < n && order[pos] != r->sel)
		pos++;
	for (int i = pos; i < n && row < h - 1; i++)
		row += draw_evictions(u, r, &r->m->files[order[i]], i == pos, y + row, x,
				      h - 1 - row, w);
	put(y + h - 1, x, w, A_DIM,
	    "kswapd's evictions charged to its latest waker (a guess); %s",
	    r->src->realtime ? "task names from /proc" : "task names from the trace's saved cmdlines");
}

/* Bytes in MiB, as the cgroups view shows sizes: "-" when the kernel has no such key */
static const char *mib(const struct pcv_memcg *g, int k, char *buf, size_t len)
{
	if (g->valid[k])
		snprintf(buf, len, "%.1f", (double)g->stat[k] / (1 << 20));
	else
		snprintf(buf, len, "-");
	return buf;
}

static const char *per_s(const struct pcv_memcg *g, int k, char *buf, size_t len)
{
	if (g->valid[k])
		return human(g->rate[k], buf, len);
	snprintf(buf, len, "%5s", "-");
	return buf;
}

/* Rows the charges of the watched files take: a title, and a row per cgroup, others, unknown */
static int charge_rows(const struct pcv_model *m)
{
	int n = 1;

	for (int i = 0; i < m->nfiles && m->charges_known; i++) {
		const struct pcv_file *f = &m->files[i];

		for (int c = 0; c < f->ncharges; c++)
			n += f->charges[c].pages > 0;
		n += (f->charged_others > 0) + (pcv_file_charge_unknown(f) > 0);
	}
	return n;
}

/* A row: the file (its name's end), a cgroup in words, pages and MiB */
static void charge_row(int y, int x, int w, const struct pcv_file *f, const char *who,
		       uint64_t pages)
{
	size_t len = strlen(f->path);

	put(y, x, w, A_NORMAL, "  %-30s %-36s %9llu %8.1f", len > 30 ? f->path + len - 30 : f->path,
	    who, (unsigned long long)pages, (double)pages * f->page_size / (1 << 20));
}

/*
 * The watched files' cached pages by the memory cgroup charged for them,
 * below the cgroup table, in rows [y, y + h).
 */
static void draw_charges(struct ui *u, const struct run *r, int y, int x, int h, int w)
{
	const struct pcv_model *m = r->m;
	int row = y;

	if (!m->charges_known) {
		put(row, x, w, A_DIM, "watched files by cgroup charged: %s",
		    r->src->realtime ? "needs the add events and /proc/kpagecgroup (root)" :
				       "live only, a trace does not tell");
		return;
	}
	put(row++, x, w, colour(u, C_TITLE) | A_BOLD,
	    "Watched files' cached pages by the cgroup charged for them  (pages, MiB)");
	for (int i = 0; i < m->nfiles && row < y + h; i++) {
		const struct pcv_file *f = &m->files[i];
		uint64_t unknown = pcv_file_charge_unknown(f);
		char cg[128];

		for (int c = 0; c < f->ncharges && row < y + h; c++)
			if (f->charges[c].pages)
				charge_row(row++, x, w, f,
					   cgroup_words(u, r, f->charges[c].cgroup, cg, sizeof(cg)),
					   f->charges[c].pages);
		if (f->charged_others && row < y + h)
			charge_row(row++, x, w, f, "other cgroups", f->charged_others);
		if (unknown && row < y + h)
			charge_row(row++, x, w, f, "(cgroup not known)", unknown);
	}
}

/* A line per memory cgroup, in the order of the walk (a parent before its children) */
static void draw_cgroups(struct ui *u, const struct run *r, int y, int x, int h, int w)
{
	const struct pcv_memcgs *c = &r->m->memcgs;
	/* the files' charges below the table, in at most half the rows */
	int below = charge_rows(r->m) < (h - 2) / 2 ? charge_rows(r->m) : (h - 2) / 2;
	int row = y;

	if (below > 0) {
		draw_charges(u, r, y + h - below, x, below, w);
		h -= below;
	}

	put(row++, x, w, colour(u, C_TITLE) | A_BOLD,
	    "Memory cgroups  (file cache MiB; per second: refaults, activations, pages stolen)");
	if (!c->known) {
		put(row, x, w, A_DIM, "no cgroup counters in a %s: pcviz reads them live, a trace has none",
		    r->src->name);
		return;
	}
	if (!c->n) {
		put(row, x, w, A_DIM, "no cgroup counters: %s", c->why);
		return;
	}
	put(row++, x, w, A_DIM, "%-28s %7s %7s %8s %7s %7s %5s %5s %5s %6s %6s %6s %5s %5s", "cgroup",
	    "file", "active", "inactive", "dirty", "wback", "refs", "acts", "steal", "high", "max",
	    "oom", "some", "full");
	for (int i = 0; i < c->n && row < y + h - 1; i++) {
		const struct pcv_memcg *g = &c->cg[i];
		static const int sizes[] = { PCV_MCG_FILE, PCV_MCG_ACTIVE_FILE, PCV_MCG_INACTIVE_FILE,
					     PCV_MCG_FILE_DIRTY, PCV_MCG_FILE_WRITEBACK };
		static const int rates[] = { PCV_MCG_REFAULT, PCV_MCG_ACTIVATE, PCV_MCG_PGSTEAL };
		char sz[5][24], rt[3][16], ev[3][24], psi[2][16], path[32];
		/* the path's end when it is too long: the leaf names the cgroup */
		size_t len = strlen(g->path);

		if (len > 28)
			snprintf(path, sizeof(path), "...%s", g->path + len - 25);
		else
			snprintf(path, sizeof(path), "%s", g->path);

		for (int k = 0; k < 5; k++)
			mib(g, sizes[k], sz[k], sizeof(sz[k]));
		for (int k = 0; k < 3; k++)
			per_s(g, rates[k], rt[k], sizeof(rt[k]));
		for (int k = 0; k < 3; k++) {
			if (g->events_valid)
				snprintf(ev[k], sizeof(ev[k]), "%llu",
					 (unsigned long long)g->events[PCV_MCG_EV_HIGH + k]);
			else
				snprintf(ev[k], sizeof(ev[k]), "-");
		}
		for (int k = 0; k < 2; k++) {
			if (g->psi_valid)
				snprintf(psi[k], sizeof(psi[k]), "%.1f", k ? g->psi_full : g->psi_some);
			else
				snprintf(psi[k], sizeof(psi[k]), "-");
		}
		put(row++, x, w, A_NORMAL, "%-28s %7s %7s %8s %7s %7s %5s %5s %5s %6s %6s %6s %5s %5s",
		    path, sz[0], sz[1], sz[2], sz[3], sz[4], rt[0], rt[1], rt[2], ev[0], ev[1], ev[2],
		    psi[0], psi[1]);
	}
	put(y + h - 1, x, w, A_DIM,
	    "%ld more not read (%d at most); memory.events high/max/oom since creation; PSI some/full "
	    "avg10 %%", c->more, PCV_MEMCGS);
}

static void draw_help(void)
{
	int n = (int)(sizeof(keys) / sizeof(keys[0])), h = n + 4, w = 60;
	int y = (LINES - h) / 2 > 0 ? (LINES - h) / 2 : 0, x = (COLS - w) / 2;

	for (int r = 0; r < h && y + r < LINES; r++)
		put(y + r, x, w, A_REVERSE, "%*s", w, "");
	put(y + 1, x + 2, w - 4, A_REVERSE | A_BOLD, "pcviz keys (any key closes this help)");
	for (int i = 0; i < n; i++)
		put(y + 3 + i, x + 2, w - 4, A_REVERSE, "%-9s %s", keys[i].label, keys[i].help);
}

/*
 * Run i's column: the whole screen below the title bar, or, when runs are
 * compared, a column each, below a line with the run's label and trace.
 */
static void column(const struct ui *u, int i, int *y, int *x, int *h, int *w)
{
	int colw = COLS / u->nruns;

	*x = i * colw;
	*w = i == u->nruns - 1 ? COLS - *x : colw - 1;
	*y = u->nruns > 1 ? 2 : 1;
	*h = LINES - *y;
}

/* The bottom panels of the overview, and the file list of the map view, in h rows */
static int overview_bottom(int h) { return h / 2 > 16 ? 16 : h / 2; }

static int list_rows(const struct run *r, int h)
{
	return r->m->nfiles + 1 < h / 3 ? r->m->nfiles + 1 : h / 3;
}

/* Rows of a run's map in a column of h rows, in the current view (0: no map) */
static int map_rows(const struct ui *u, const struct run *r, int h)
{
	if (u->view == VIEW_OVERVIEW)
		return h - overview_bottom(h);
	if (u->view == VIEW_MAP)
		return h - list_rows(r, h);
	return 0;
}

static void draw_column(struct ui *u, int i)
{
	struct run *r = &u->runs[i];
	int y, x, h, w, rows, bottom, sysw;

	column(u, i, &y, &x, &h, &w);
	if (u->nruns > 1) {
		/* the trace's name, its end when it is too long: "A  .../lab3/x.dat  [END]" */
		size_t len = strlen(r->name), room = w > 20 ? (size_t)w - 12 : 8;
		bool cut = len > room;

		put(y - 1, x, w, colour(u, C_TITLE) | A_BOLD | A_UNDERLINE, "%s  %s%s%s", r->m->run,
		    cut ? "..." : "", r->name + (cut ? len - room + 3 : 0),
		    r->ended && !u->ended ? "  [END]" : "");
	}
	rows = map_rows(u, r, h);
	switch (u->view) {
	case VIEW_OVERVIEW:
		bottom = h - rows;
		draw_map(u, r, y, x, rows, w);
		if (u->nruns > 1) {
			/* a replay has no system counters: the events get the width */
			draw_events(u, r, y + rows, x, bottom, w);
			break;
		}
		sysw = w >= 88 ? 44 : w / 2;
		draw_system(u, r, y + rows, x, bottom, sysw - 1);
		draw_events(u, r, y + rows, x + sysw, bottom, w - sysw);
		break;
	case VIEW_MAP:
		draw_map(u, r, y, x, rows, w);
		draw_files(u, r, y + rows, x, h - rows, w);
		break;
	case VIEW_SYSTEM:
		draw_system(u, r, y, x, h, w);
		break;
	case VIEW_TIMELINE:
		draw_timeline(u, r, y, x, h, w);
		break;
	case VIEW_EVICTION:
		draw_eviction(u, r, y, x, h, w);
		break;
	case VIEW_CGROUPS:
		draw_cgroups(u, r, y, x, h, w);
		break;
	default:
		draw_events(u, r, y, x, h, w);
		break;
	}
}

static void draw(struct ui *u)
{
	const struct run *r = &u->runs[0];
	char clock[48];

	erase();
	if (COLS < MIN_COLS || LINES < MIN_LINES) {
		put(0, 0, COLS, A_BOLD, "terminal too small: %dx%d", COLS, LINES);
		put(1, 0, COLS, A_NORMAL, "pcviz needs %dx%d", MIN_COLS, MIN_LINES);
		put(2, 0, COLS, A_NORMAL, "q quits");
		refresh();
		return;
	}
	/* runs compared share one clock: trace seconds since each one's first event */
	if (r->src->realtime)
		snprintf(clock, sizeof(clock), "every %.2gs", u->o->interval);
	else
		snprintf(clock, sizeof(clock), "t=%.2fs speed x%g", r->m->now - r->m->t0, u->speed);
	put(0, 0, COLS, colour(u, C_TITLE) | A_REVERSE, "%-*s", COLS, "");
	put(0, 0, COLS, colour(u, C_TITLE) | A_REVERSE, " pcviz  %s  %s  view: %s  %s%s? help  q quit",
	    u->nruns > 1 ? "compare" : r->src->name, clock, view_name[u->view],
	    u->paused ? "[PAUSED]  " : "", u->ended ? "[END OF TRACE]  " : "");
	for (int i = 0; i < u->nruns; i++)
		draw_column(u, i);
	if (u->help)
		draw_help();
	refresh();
}

/* Cells available to a run's map in the current view. */
static unsigned map_cells(const struct ui *u, int i)
{
	int y, x, h, w, rows;

	if (COLS < MIN_COLS || LINES < MIN_LINES)
		return 0;
	column(u, i, &y, &x, &h, &w);
	rows = map_rows(u, &u->runs[i], h) - 3;	/* title, totals, legend */
	return rows > 0 ? (unsigned)(rows * w) : 0;
}

static void update(struct ui *u, double dt)
{
	u->ended = true;
	for (int i = 0; i < u->nruns; i++) {
		struct run *r = &u->runs[i];
		unsigned cells = map_cells(u, i);

		for (int f = 0; f < r->m->nfiles; f++) {
			uint64_t pan = r->pan;

			pcv_file_layout(&r->m->files[f], f == r->sel ? cells : 0, u->zoom, &pan);
			if (f == r->sel)
				r->pan = pan;
		}
		if (r->src->sample(r->src, r->m, dt))
			r->ended = true;
		u->ended &= r->ended;
	}
	u->refreshes++;
}

int pcv_ui_run(struct pcv_source *s, struct pcv_model *m, int nruns,
	       const struct pcv_options *o, volatile sig_atomic_t *stop)
{
	static struct pcv_cgroups cgroups;
	struct ui u = { .nruns = nruns, .o = o, .speed = o->speed, .cgroups = &cgroups };
	const char *no_color = getenv("NO_COLOR");
	double next, drained;
	SCREEN *screen;

	if (nruns < 1 || nruns > PCV_RUNS)
		return 2;
	for (int i = 0; i < nruns; i++)
		u.runs[i] = (struct run){ .src = &s[i], .m = &m[i],
					  .name = i < o->nreplay ? o->replay[i] : NULL };
	pcv_cgroups_init(&cgroups, "/sys/fs/cgroup");
	setlocale(LC_ALL, "");
	u.unicode = !o->ascii && !strcmp(nl_langinfo(CODESET), "UTF-8");
	/* newterm returns NULL where initscr would exit */
	screen = newterm(NULL, stdout, stdin);
	if (!screen) {
		fprintf(stderr, "pcviz: cannot use this terminal; try --batch\n");
		return 2;
	}
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	curs_set(0);
	u.color = has_colors() && !(no_color && *no_color);
	if (u.color) {
		start_color();
		use_default_colors();
		init_pair(C_CACHED, COLOR_GREEN, -1);
		init_pair(C_DIRTY, COLOR_YELLOW, -1);
		init_pair(C_WRITEBACK, COLOR_MAGENTA, -1);
		init_pair(C_TITLE, COLOR_CYAN, -1);
		init_pair(C_ALERT, COLOR_RED, -1);
	}
	update(&u, 0);
	next = pclab_now() + o->interval;
	drained = pclab_now();
	while (!u.quit && !*stop && !(o->count && u.refreshes > o->count)) {
		double now = pclab_now();
		int ch, wait;

		if (now >= next || u.steps) {
			if (u.steps || (!u.paused && !u.ended))
				update(&u, s[0].realtime ? 0 : o->interval * u.speed);
			u.steps = 0;
			next = now >= next ? now + o->interval : next;
		}
		draw(&u);
		/* wake at least every 100 ms to read events, so none are lost */
		wait = (int)((next - pclab_now()) * 1000);
		timeout(wait < 0 ? 0 : wait > 100 ? 100 : wait);
		ch = getch();
		if (ch != ERR && ch != KEY_RESIZE)
			handle_key(&u, ch);
		if (!u.paused && pclab_now() - drained >= 0.1) {
			for (int i = 0; i < nruns; i++)
				if (s[i].drain)
					s[i].drain(&s[i], &m[i]);
			drained = pclab_now();
		}
	}
	endwin();
	delscreen(screen);
	return 0;
}

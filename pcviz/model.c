// SPDX-License-Identifier: GPL-2.0
/* pcviz's model: residency cells, counters and rates, event aggregation. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "model.h"
#include "pclab/sysstat.h"

const char *const pcv_kind_name[PCV_EV_NKINDS] = {
	[PCV_EV_ADD] = "add",
	[PCV_EV_DELETE] = "delete",
	[PCV_EV_EVICT] = "evict",
	[PCV_EV_REFAULT] = "refault",
	[PCV_EV_LRU_INSERT] = "lru_insert",
	[PCV_EV_LRU_ACTIVATE] = "lru_activate",
	[PCV_EV_DIRTY] = "dirty",
	[PCV_EV_WRITEBACK] = "writeback",
	[PCV_EV_KSWAPD_WAKE] = "kswapd_wake",
	[PCV_EV_KSWAPD_WAKER] = "kswapd_waker",
	[PCV_EV_DIRECT_RECLAIM] = "direct_reclaim",
	[PCV_EV_RECLAIM] = "reclaim",
	[PCV_EV_DB_MARK] = "db_mark",
	[PCV_EV_DB_SERVE] = "db_serve",
	[PCV_EV_DB_CLAIM] = "db_claim",
	[PCV_EV_DB_END] = "db_end",
	[PCV_EV_DB_CALL] = "db_call",
	[PCV_EV_WB_START] = "wb_start",
	[PCV_EV_WB_END] = "wb_end",
};

const char *const pcv_wstate_name[PCV_W_N] = {
	[PCV_W_NONE] = "none", [PCV_W_DIRTY] = "dirty", [PCV_W_WRITEBACK] = "writeback",
	[PCV_W_CLEAN] = "clean", [PCV_W_DROPPED] = "dropped", [PCV_W_KEPT] = "kept",
};

const char *const pcv_vm_name[PCV_VM_N] = {
	[PCV_VM_PGSCAN_KSWAPD] = "pgscan_kswapd",
	[PCV_VM_PGSCAN_DIRECT] = "pgscan_direct",
	[PCV_VM_PGSTEAL_KSWAPD] = "pgsteal_kswapd",
	[PCV_VM_PGSTEAL_DIRECT] = "pgsteal_direct",
	[PCV_VM_REFAULT_FILE] = "workingset_refault_file",
	[PCV_VM_PGPGIN] = "pgpgin",
	[PCV_VM_PGPGOUT] = "pgpgout",
	[PCV_VM_DB_MARKED] = "dropbehind_marked",
	[PCV_VM_DB_READ] = "dropbehind_read",
	[PCV_VM_DB_WRITE] = "dropbehind_write",
	[PCV_VM_DB_CLAIMED] = "dropbehind_kept_claimed",
	[PCV_VM_DB_MAPPED] = "dropbehind_kept_mapped",
	[PCV_VM_DB_BUSY] = "dropbehind_kept_busy",
};

/* As memory.stat and memory.events name them (Documentation/admin-guide/cgroup-v2.rst) */
const char *const pcv_mcg_name[PCV_MCG_N] = {
	[PCV_MCG_FILE] = "file",
	[PCV_MCG_ACTIVE_FILE] = "active_file",
	[PCV_MCG_INACTIVE_FILE] = "inactive_file",
	[PCV_MCG_FILE_DIRTY] = "file_dirty",
	[PCV_MCG_FILE_WRITEBACK] = "file_writeback",
	[PCV_MCG_REFAULT] = "workingset_refault_file",
	[PCV_MCG_ACTIVATE] = "workingset_activate_file",
	[PCV_MCG_PGSCAN] = "pgscan",
	[PCV_MCG_PGSTEAL] = "pgsteal",
};
const char *const pcv_mcg_event_name[PCV_MCG_EV_N] = { "low", "high", "max", "oom" };

const char *const pcv_db_when[PCV_DB_NWHEN] = {
	"read", "writeback", "irq-writeback", "fsync", "close",
};
const char *const pcv_db_result[PCV_DB_NRESULT] = {
	"dropped", "gone", "claimed", "mapped", "dirty", "writeback", "locked", "busy", "tail", "irq",
};
const char *const pcv_call_count[PCV_CALL_N] = { "marked", "served", "dropped", "kept" };

uint32_t pcv_kdev(uint64_t st_dev)
{
	return (uint32_t)(major(st_dev) << 20 | minor(st_dev));
}

void pcv_model_init(struct pcv_model *m)
{
	memset(m, 0, sizeof(*m));
	m->sys.mglru = -1;
	m->sys.kswapd_ticks = -1;
	m->sys.kswapd_prev_ticks = -1;
	m->sys.ticks_per_s = 100;
	m->max_files = PCV_FILES;
	snprintf(m->res_source, sizeof(m->res_source), "cachestat");
}

void pcv_model_free(struct pcv_model *m)
{
	for (int i = 0; i < m->nfiles; i++) {
		free(m->files[i].path);
		free(m->files[i].cells);
		free(m->files[i].bitmap);
		free(m->files[i].wstate);
		free(m->files[i].evicted_at);
	}
	free(m->pfn);
	free(m->uncharged);
	m->nfiles = 0;
	m->pfn = NULL;
	m->uncharged = NULL;
	m->nuncharged = 0;
}

int pcv_model_add_file(struct pcv_model *m, const char *path, uint32_t dev, uint64_t ino,
		       uint64_t size)
{
	struct pcv_file *f;

	if (m->nfiles >= m->max_files || m->nfiles >= PCV_MAX_FILES)
		return -1;
	f = &m->files[m->nfiles];
	memset(f, 0, sizeof(*f));
	f->path = strdup(path);
	if (!f->path)
		return -1;
	f->dev = dev;
	f->ino = ino;
	f->size = size;
	f->pages = (size + 4095) / 4096;
	f->per_cell = 1;
	return m->nfiles++;
}

int pcv_model_find_file(const struct pcv_model *m, uint32_t dev, uint64_t ino)
{
	for (int i = 0; i < m->nfiles; i++)
		if (m->files[i].ino == ino && (!dev || m->files[i].dev == dev))
			return i;
	return -1;
}

int pcv_file_rename(struct pcv_file *f, const char *path)
{
	char *copy = strdup(path);

	if (!copy)
		return -1;
	snprintf(f->note, sizeof(f->note), "renamed from %.80s", f->path);
	free(f->path);
	f->path = copy;
	return 0;
}

void pcv_file_set_size(struct pcv_file *f, uint64_t size)
{
	if (size == f->size)
		return;
	f->state = size < f->size ? PCV_FILE_TRUNCATED : PCV_FILE_GREW;
	snprintf(f->note, sizeof(f->note), "%s from %llu to %llu bytes while watched",
		 size < f->size ? "truncated" : "grew", (unsigned long long)f->size,
		 (unsigned long long)size);
	f->size = size;
	f->pages = (size + 4095) / 4096;
}

const char *pcv_file_state_name(const struct pcv_file *f)
{
	static const char *const name[] = {
		[PCV_FILE_OK] = "ok", [PCV_FILE_DELETED] = "deleted",
		[PCV_FILE_TRUNCATED] = "truncated", [PCV_FILE_GREW] = "grew",
	};

	return f->unknown ? "unknown" : name[f->state];
}

bool pcv_model_any_unknown(const struct pcv_model *m)
{
	for (int i = 0; i < m->nfiles; i++)
		if (m->files[i].unknown)
			return true;
	return false;
}

void pcv_unwatched_words(const struct pcv_model *m, char *buf, size_t len)
{
	if (!m->unwatched)
		snprintf(buf, len, "%s", "");
	else if (m->max_files < PCV_MAX_FILES)
		snprintf(buf, len, "%ld files not watched: pcviz watches %d files "
			 "(--max-files N raises it, up to %d)", m->unwatched, m->max_files,
			 PCV_MAX_FILES);
	else
		snprintf(buf, len, "%ld files not watched: pcviz watches %d files at most",
			 m->unwatched, PCV_MAX_FILES);
}

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

/*
 * Moves the pages of [index, index + n) whose state is in the mask from to
 * state to, counting; the file's first write event allocates the states.
 */
static void wmove(struct pcv_file *f, uint64_t index, uint64_t n, unsigned from,
		  enum pcv_wstate to)
{
	uint64_t limit = f->grows || f->pages > PCV_WMAX_PAGES ? PCV_WMAX_PAGES : f->pages;
	uint64_t reach, want, end;

	if (index >= limit || !n)
		return;
	reach = n < limit - index ? index + n : limit;
	/* the file's pages at once; past them (growing) doubling, as appends come one by one */
	want = f->pages < limit ? f->pages : limit;
	if (reach > want && reach > f->wpages) {
		want = f->wpages < limit / 2 ? 2 * f->wpages : limit;
		want = reach > want ? reach : want;
	}
	if (f->wpages < want) {
		uint8_t *more = realloc(f->wstate, want);

		if (!more)
			return;
		memset(more + f->wpages, PCV_W_NONE, want - f->wpages);
		f->wstate = more;
		f->wlo = f->wpages ? f->wlo : index;
		f->wpages = want;
	}
	end = n > f->wpages - index ? f->wpages : index + n;
	for (uint64_t p = index; p < end; p++) {
		enum pcv_wstate was = f->wstate[p];

		if (!(from & 1u << was) || was == to)
			continue;
		f->wstate[p] = (uint8_t)to;
		f->wcount[was]--;
		f->wcount[to]++;
		f->wto[to]++;
		f->wseen |= (uint8_t)(1u << to);
	}
	if (to != PCV_W_NONE && end > index) {
		f->wlo = index < f->wlo ? index : f->wlo;
		f->whi = end > f->whi ? end : f->whi;
	}
}

#define W_ANY ((1u << PCV_W_N) - 1)
#define W_BUT(s) (W_ANY & ~(1u << (s)))

/* An event of the write path: the pages' write state (see enum pcv_wstate). */
static void write_event(struct pcv_file *f, const struct pcv_event *ev)
{
	uint64_t pages = ev->nr_pages ? ev->nr_pages : 1;
	unsigned from;

	switch (ev->kind) {
	case PCV_EV_DIRTY:
		wmove(f, ev->index, 1, W_BUT(PCV_W_DIRTY), PCV_W_DIRTY);
		break;
	case PCV_EV_DB_MARK:
	case PCV_EV_DB_SERVE:
		if (ev->arg[0])	/* an uncached write: the folio is dirtied */
			wmove(f, ev->index, pages, W_BUT(PCV_W_DIRTY), PCV_W_DIRTY);
		break;
	case PCV_EV_WB_START:
		wmove(f, f->wlo, f->whi - f->wlo, 1u << PCV_W_DIRTY, PCV_W_WRITEBACK);
		break;
	case PCV_EV_WB_END:
		wmove(f, f->wlo, f->whi - f->wlo, 1u << PCV_W_WRITEBACK, PCV_W_CLEAN);
		break;
	case PCV_EV_DB_END:
		if (ev->arg[0] == PCV_DB_READ || ev->arg[1] >= PCV_DB_NRESULT ||
		    ev->arg[1] == PCV_DB_WRITEBACK)
			break;
		/*
		 * after its writeback: clean, then dropped, kept, or dirty again;
		 * at the last close (the end of the file a writer kept) it was
		 * written back already, or is dirty still: no writeback ends here
		 */
		from = 1u << PCV_W_CLEAN;
		if (ev->arg[0] == PCV_DB_CLOSE)
			from = W_ANY;
		else
			wmove(f, ev->index, pages, W_BUT(PCV_W_CLEAN), PCV_W_CLEAN);
		if (ev->arg[1] == PCV_DB_DIRTY) {
			wmove(f, ev->index, pages, from, PCV_W_DIRTY);
		} else if (ev->arg[1] == PCV_DB_DROPPED || ev->arg[1] == PCV_DB_GONE) {
			wmove(f, ev->index, pages, from, PCV_W_DROPPED);
		} else {
			uint64_t before = f->wto[PCV_W_KEPT];

			wmove(f, ev->index, pages, from, PCV_W_KEPT);
			f->wkept[ev->arg[1]] += f->wto[PCV_W_KEPT] - before;
		}
		break;
	default:
		break;
	}
}

uint64_t pcv_file_woken_known(const struct pcv_file *f)
{
	return f->evict_kswapd - f->woken_unknown;
}

double pcv_file_gone_mean(const struct pcv_file *f)
{
	return f->gone_n ? f->gone_sum / (double)f->gone_n : 0;
}

/*
 * The pages of [index, index + n) that can be timed, the eviction times
 * allocated for them (lazily, as the write states are); 0 if none can.
 */
static uint64_t timed_pages(struct pcv_file *f, uint64_t index, uint64_t n, double ts)
{
	uint64_t want = f->pages > index + n ? f->pages : index + n;

	if (want > PCV_WMAX_PAGES)
		want = PCV_WMAX_PAGES;
	if (index >= want || !n)
		return 0;
	if (f->epages < want) {
		uint32_t *more = realloc(f->evicted_at, want * sizeof(*more));

		if (!more)
			return 0;
		memset(more + f->epages, 0, (want - f->epages) * sizeof(*more));
		f->ebase = f->evicted_at ? f->ebase : ts;
		f->evicted_at = more;
		f->epages = want;
	}
	return n > f->epages - index ? f->epages - index : n;
}

/* A direct reclaimer's row of the file's table, NULL when the table is full. */
static struct pcv_reclaimer *reclaimer_of(struct pcv_file *f, const struct pcv_event *ev)
{
	struct pcv_reclaimer *r;

	for (int i = 0; i < f->nreclaimers; i++) {
		r = &f->reclaimers[i];
		if (r->cgroup == ev->reclaimer && r->target == ev->target &&
		    !strncmp(r->comm, ev->comm, sizeof(r->comm)))
			return r;
	}
	if (f->nreclaimers == PCV_RECLAIMERS)
		return NULL;
	r = &f->reclaimers[f->nreclaimers++];
	r->cgroup = ev->reclaimer;
	r->target = ev->target;
	snprintf(r->comm, sizeof(r->comm), "%.*s", (int)sizeof(ev->comm), ev->comm);
	r->pages = 0;
	return r;
}

/*
 * The latest waker of the node of kswapd named comm (kswapd<N> runs for
 * node N), NULL when none was seen.  The wake-up event fires only while
 * that kswapd sleeps, so the latest is a waker of its current run, unless
 * the run's own wake-up events were lost or not traced.
 */
static const struct pcv_woke *woke_of(const struct pcv_model *m, const char *comm)
{
	unsigned long nid = strtoul(comm + 6, NULL, 10);	/* digits: pclab_is_kswapd() */
	const struct pcv_woke *w = &m->woke[nid % PCV_NODES];

	return w->seen && w->nid == nid ? w : NULL;
}

/* kswapd's pages charged to its waker w (NULL: unknown) in the file's table */
static void charge_waker(struct pcv_file *f, const struct pcv_woke *w, uint64_t pages)
{
	struct pcv_waker *r = NULL;
	int i;

	if (!w) {
		f->woken_unknown += pages;
		return;
	}
	for (i = 0; i < f->nwakers; i++)
		if (f->wakers[i].cgroup == w->cgroup &&
		    !strncmp(f->wakers[i].comm, w->comm, sizeof(w->comm)))
			break;
	if (i < f->nwakers) {
		r = &f->wakers[i];
	} else if (f->nwakers < PCV_WAKERS) {
		r = &f->wakers[f->nwakers++];
		r->cgroup = w->cgroup;
		memcpy(r->comm, w->comm, sizeof(r->comm));	/* both 16 bytes, ended */
		r->pages = 0;
	}
	if (r)
		r->pages += pages;
	else
		f->woken_others += pages;
}

/* A task woke a node's kswapd: it is the one the next evictions of that kswapd are charged to. */
static void waker_event(struct pcv_model *m, const struct pcv_event *ev)
{
	struct pcv_woke *w = &m->woke[ev->arg[1] % PCV_NODES];

	w->seen = true;
	w->nid = ev->arg[1];
	w->pid = ev->pid;
	w->cgroup = ev->reclaimer;
	memcpy(w->comm, ev->comm, sizeof(w->comm));
	w->comm[sizeof(w->comm) - 1] = 0;	/* a comm of 15 characters at most */
	w->ts = ev->ts;
}

/*
 * An eviction: who did it (kswapd by its name, charged to the task that
 * woke it; anyone else in direct reclaim), and when, for the refault to
 * come.
 */
static void evict_event(const struct pcv_model *m, struct pcv_file *f, const struct pcv_event *ev)
{
	uint64_t pages = ev->nr_pages ? ev->nr_pages : 1, n;
	double ms;

	if (pclab_is_kswapd(ev->comm)) {
		f->evict_kswapd += pages;
		charge_waker(f, woke_of(m, ev->comm), pages);
	} else {
		struct pcv_reclaimer *r = reclaimer_of(f, ev);

		f->evict_direct += pages;
		if (r)
			r->pages += pages;
		else
			f->evict_others += pages;
	}
	n = timed_pages(f, ev->index, pages, ev->ts);
	ms = (ev->ts - f->ebase) * 1000;	/* ebase is set by the first */
	for (uint64_t p = 0; p < n; p++)
		f->evicted_at[ev->index + p] = ms < 0 ? 1 : ms >= UINT32_MAX - 1 ? UINT32_MAX :
					       (uint32_t)ms + 1;
}

/* A refault: how long each page of the folio was gone, when its eviction was seen. */
static void refault_event(struct pcv_file *f, const struct pcv_event *ev)
{
	uint64_t pages = ev->nr_pages ? ev->nr_pages : 1, timed = 0;

	f->refaults += pages;
	if (ev->arg[0])
		f->refault_activated += pages;
	for (uint64_t p = ev->index; f->evicted_at && p < f->epages && p - ev->index < pages;
	     p++) {
		double gone;

		if (!f->evicted_at[p])
			continue;
		gone = ev->ts - (f->ebase + (f->evicted_at[p] - 1) / 1000.0);
		gone = gone < 0 ? 0 : gone;
		f->gone_sum += gone;
		f->gone_max = gone > f->gone_max ? gone : f->gone_max;
		f->gone_n++;
		f->evicted_at[p] = 0;
		timed++;
	}
	f->refault_unseen += pages - timed;
}

unsigned pcv_file_wmask(const struct pcv_model *m, const struct pcv_file *f, uint64_t i)
{
	if (i >= m->ticks || i >= PCV_WHIST)
		return 0;
	return f->whist[(m->ticks - 1 - i) % PCV_WHIST];
}

/*
 * Sets or clears the bits of pages [index, index + n), a word at a time (a
 * hostile trace's event may claim millions of pages); keeps the total.
 */
static void track(struct pcv_file *f, uint64_t index, uint64_t n, bool cached)
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

static struct pcv_pfn_slot *pfn_slot(struct pcv_model *m, uint64_t pfn)
{
	if (!m->pfn) {
		m->pfn = calloc(PCV_PFN_SLOTS, sizeof(*m->pfn));
		if (!m->pfn)
			return NULL;
	}
	return &m->pfn[(pfn * 0x9E3779B97F4A7C15ull) >> (64 - 17)];
}

static void ring_push(struct pcv_model *m, const struct pcv_event *ev)
{
	m->ring[m->ring_head] = *ev;
	m->ring_head = (m->ring_head + 1) % PCV_RING;
	if (m->ring_len < PCV_RING)
		m->ring_len++;
}

const struct pcv_event *pcv_model_recent(const struct pcv_model *m, unsigned i)
{
	if (i >= m->ring_len)
		return NULL;
	return &m->ring[(m->ring_head + PCV_RING - 1 - i) % PCV_RING];
}

static uint64_t event_pages(const struct pcv_event *ev)
{
	switch (ev->kind) {
	case PCV_EV_LRU_INSERT:
	case PCV_EV_LRU_ACTIVATE:
	case PCV_EV_DIRTY:
	case PCV_EV_KSWAPD_WAKE:
	case PCV_EV_KSWAPD_WAKER:
	case PCV_EV_DIRECT_RECLAIM:
		return 1;
	case PCV_EV_DB_CALL:
		return (ev->nr_pages + 4095) / 4096;
	default:
		return ev->nr_pages;
	}
}

/* The file's count for cgroup: its entry, a new one, or NULL (the others) */
static uint64_t *charge_of(struct pcv_file *f, uint64_t cgroup, bool add)
{
	for (int i = 0; i < f->ncharges; i++)
		if (f->charges[i].cgroup == cgroup)
			return &f->charges[i].pages;
	if (!add || f->ncharges == PCV_CHARGES)
		return NULL;
	f->charges[f->ncharges].cgroup = cgroup;
	return &f->charges[f->ncharges++].pages;
}

/* The folio in slot leaves the cache, or stops being followed: off its cgroup's count */
static void uncharge(struct pcv_model *m, struct pcv_pfn_slot *slot)
{
	struct pcv_file *f = &m->files[slot->file];
	uint64_t *n;

	if (!slot->memcg)
		return;
	n = charge_of(f, slot->memcg, false);
	if (!n)
		n = &f->charged_others;
	*n -= *n < slot->pages ? *n : slot->pages;
	slot->memcg = 0;
}

static int cmp_pfn(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

void pcv_model_charge(struct pcv_model *m, pcv_charge_fn *lookup, void *arg)
{
	size_t live = 0;

	/* the folios still cached only: beside a stream, most are gone already */
	for (size_t i = 0; i < m->nuncharged; i++) {
		struct pcv_pfn_slot *slot = pfn_slot(m, m->uncharged[i]);

		if (slot && slot->pfn_plus1 == m->uncharged[i] + 1 && !slot->memcg)
			m->uncharged[live++] = m->uncharged[i];
	}
	if (live)	/* m->uncharged may still be NULL, which qsort() must not get */
		qsort(m->uncharged, live, sizeof(*m->uncharged), cmp_pfn);
	for (size_t i = 0; i < live; i++) {
		uint64_t pfn = m->uncharged[i], *n;
		struct pcv_pfn_slot *slot = pfn_slot(m, pfn);

		/* a pfn added twice is charged once */
		if (slot->memcg)
			continue;
		slot->memcg = lookup(pfn, arg);
		if (!slot->memcg)
			continue;
		n = charge_of(&m->files[slot->file], slot->memcg, true);
		*(n ? n : &m->files[slot->file].charged_others) += slot->pages;
	}
	m->nuncharged = 0;
}

uint64_t pcv_file_charge_unknown(const struct pcv_file *f)
{
	uint64_t known = f->charged_others;

	for (int i = 0; i < f->ncharges; i++)
		known += f->charges[i].pages;
	return f->unknown || f->total.cached < known ? 0 : f->total.cached - known;
}

/* A folio added to a watched file: in the pfn table, and to be charged */
static void added(struct pcv_model *m, int fi, const struct pcv_event *ev)
{
	struct pcv_pfn_slot *slot = pfn_slot(m, ev->pfn);

	if (!slot)
		return;
	if (slot->pfn_plus1)
		uncharge(m, slot);
	slot->pfn_plus1 = ev->pfn + 1;
	slot->file = fi;
	slot->index = ev->index;
	slot->pages = ev->nr_pages > UINT32_MAX ? UINT32_MAX : (uint32_t)ev->nr_pages;
	if (!m->uncharged)
		m->uncharged = malloc(PCV_PFN_SLOTS * sizeof(*m->uncharged));
	/* more than the table holds between two charges: the rest stay unknown */
	if (m->uncharged && m->nuncharged < PCV_PFN_SLOTS)
		m->uncharged[m->nuncharged++] = ev->pfn;
}

/* An event in the counts (and file fi's, if watched) */
static void count(struct pcv_model *m, int fi, const struct pcv_event *ev)
{
	uint64_t pages = event_pages(ev);

	m->ev_count[ev->kind]++;
	m->ev_pages[ev->kind] += pages;
	if (ev->kind == PCV_EV_DB_END) {
		if (ev->arg[0] < PCV_DB_NWHEN)
			m->db_end_when[ev->arg[0]]++;
		if (ev->arg[1] < PCV_DB_NRESULT)
			m->db_end_pages[ev->arg[1]] += pages;
	}
	if (ev->kind == PCV_EV_DB_CALL)
		for (int c = 0; c < PCV_CALL_N; c++)
			m->db_call[c] += ev->arg[1 + c];
	if (fi >= 0)
		m->files[fi].events[ev->kind]++;
}

void pcv_model_event(struct pcv_model *m, const struct pcv_event *in)
{
	struct pcv_event ev = *in;
	struct pcv_pfn_slot *slot;
	int fi = -1;

	switch (ev.kind) {
	case PCV_EV_LRU_INSERT:
	case PCV_EV_LRU_ACTIVATE:
		slot = pfn_slot(m, ev.pfn);
		if (!slot || slot->pfn_plus1 != ev.pfn + 1) {
			m->unattributed++;
			return;
		}
		fi = slot->file;
		ev.dev = m->files[fi].dev;
		ev.ino = m->files[fi].ino;
		ev.index = slot->index;
		break;
	case PCV_EV_KSWAPD_WAKE:
	case PCV_EV_DIRECT_RECLAIM:
	case PCV_EV_RECLAIM:
		break;
	case PCV_EV_KSWAPD_WAKER:
		waker_event(m, &ev);
		break;
	case PCV_EV_EVICT:
	case PCV_EV_REFAULT:
		/* anonymous memory has no inode: never a watched file's */
		if (!ev.ino)
			return;
		fi = pcv_model_find_file(m, ev.dev, ev.ino);
		if (fi < 0)
			return;
		break;
	default:
		fi = pcv_model_find_file(m, ev.dev, ev.ino);
		if (fi < 0)
			return;
		break;
	}
	count(m, fi, &ev);
	ring_push(m, &ev);
	if (fi < 0)
		return;
	if (ev.kind == PCV_EV_ADD && ev.pfn) {
		added(m, fi, &ev);
	} else if (ev.kind == PCV_EV_DELETE && ev.pfn && (slot = pfn_slot(m, ev.pfn)) &&
		   slot->pfn_plus1 == ev.pfn + 1) {
		uncharge(m, slot);
		slot->pfn_plus1 = 0;
	}
	write_event(&m->files[fi], &ev);
	if (ev.kind == PCV_EV_EVICT)
		evict_event(m, &m->files[fi], &ev);
	else if (ev.kind == PCV_EV_REFAULT)
		refault_event(&m->files[fi], &ev);
	if (!m->reconstruct)
		return;
	if (ev.kind == PCV_EV_ADD || ev.kind == PCV_EV_DB_MARK)
		track(&m->files[fi], ev.index, ev.nr_pages, true);
	else if (ev.kind == PCV_EV_DELETE ||
		 (ev.kind == PCV_EV_DB_END && ev.arg[1] == PCV_DB_DROPPED))
		track(&m->files[fi], ev.index, ev.nr_pages, false);
}

static double rate(uint64_t now, uint64_t before, double dt)
{
	return now >= before ? (double)(now - before) / dt : 0;
}

void pcv_model_tick(struct pcv_model *m, double now)
{
	struct pcv_system *s = &m->sys;
	double dt = now - m->prev_now;

	m->now = now;
	if (!m->primed) {
		m->t0 = now;
		m->primed = true;
	} else if (dt > 0) {
		for (int k = 0; k < PCV_EV_NKINDS; k++)
			m->ev_rate[k] = rate(m->ev_count[k], m->ev_prev[k], dt);
		for (int v = 0; v < PCV_VM_N; v++)
			s->vm_rate[v] = rate(s->vm[v], s->vm_prev[v], dt);
		if (s->kswapd_ticks >= 0 && s->kswapd_prev_ticks >= 0)
			s->kswapd_cpu = 100.0 * (double)(s->kswapd_ticks - s->kswapd_prev_ticks) /
					(double)s->ticks_per_s / dt;
		/* a cgroup's rates need it in this sample and the one before */
		for (int i = 0; i < m->memcgs.n; i++) {
			struct pcv_memcg *c = &m->memcgs.cg[i];

			for (int k = PCV_MCG_REFAULT; k < PCV_MCG_N; k++)
				c->rate[k] = c->has_prev && c->valid[k] ?
					     rate(c->stat[k], c->prev[k], dt) : 0;
		}
	}
	/* the write timeline: the states pages were in or went through */
	for (int i = 0; i < m->nfiles; i++) {
		struct pcv_file *f = &m->files[i];
		unsigned now_in = 0;

		for (int w = PCV_W_DIRTY; w < PCV_W_N; w++)
			now_in |= f->wcount[w] ? 1u << w : 0;
		f->whist[m->ticks % PCV_WHIST] = (uint8_t)(f->wseen | now_in);
		f->wseen = 0;
	}
	m->ticks++;
	memcpy(m->ev_prev, m->ev_count, sizeof(m->ev_prev));
	memcpy(s->vm_prev, s->vm, sizeof(s->vm_prev));
	s->kswapd_prev_ticks = s->kswapd_ticks;
	m->prev_now = now;
}

void pcv_model_reset_counts(struct pcv_model *m)
{
	memset(m->ev_count, 0, sizeof(m->ev_count));
	memset(m->ev_pages, 0, sizeof(m->ev_pages));
	memset(m->db_end_when, 0, sizeof(m->db_end_when));
	memset(m->db_end_pages, 0, sizeof(m->db_end_pages));
	memset(m->db_call, 0, sizeof(m->db_call));
	m->folio_pauses = 0;
	memset(m->ev_prev, 0, sizeof(m->ev_prev));
	memset(m->ev_rate, 0, sizeof(m->ev_rate));
	for (int i = 0; i < m->nfiles; i++) {
		memset(m->files[i].events, 0, sizeof(m->files[i].events));
		memset(m->files[i].wto, 0, sizeof(m->files[i].wto));
		memset(m->files[i].wkept, 0, sizeof(m->files[i].wkept));
		/* the eviction times stay: a page evicted before the reset may come back after */
		m->files[i].evict_kswapd = m->files[i].evict_direct = m->files[i].evict_others = 0;
		memset(m->files[i].reclaimers, 0, sizeof(m->files[i].reclaimers));
		m->files[i].nreclaimers = 0;
		/* the latest wakers stay: kswapd may go on with the run they woke */
		memset(m->files[i].wakers, 0, sizeof(m->files[i].wakers));
		m->files[i].nwakers = 0;
		m->files[i].woken_others = m->files[i].woken_unknown = 0;
		m->files[i].refaults = m->files[i].refault_activated = 0;
		m->files[i].refault_unseen = m->files[i].gone_n = 0;
		m->files[i].gone_sum = m->files[i].gone_max = 0;
	}
	m->unattributed = 0;
	m->lost = 0;
	m->ring_len = 0;
}

struct pcv_res pcv_model_total(const struct pcv_model *m)
{
	struct pcv_res sum = { 0 };

	for (int i = 0; i < m->nfiles; i++)
		pcv_res_add(&sum, &m->files[i].total);
	return sum;
}

static const char *name_of(const struct pcv_model *m, const struct pcv_event *ev, char *buf,
			   size_t len)
{
	int fi = pcv_model_find_file(m, ev->dev, ev->ino);
	const char *slash;

	if (fi < 0) {
		snprintf(buf, len, "ino %llu", (unsigned long long)ev->ino);
		return buf;
	}
	slash = strrchr(m->files[fi].path, '/');
	return slash && slash[1] ? slash + 1 : m->files[fi].path;
}

static const char *pages(const struct pcv_event *ev, char *buf, size_t len)
{
	if (ev->nr_pages > 1)
		snprintf(buf, len, "pages %llu-%llu", (unsigned long long)ev->index,
			 (unsigned long long)(ev->index + ev->nr_pages - 1));
	else
		snprintf(buf, len, "page %llu", (unsigned long long)ev->index);
	return buf;
}

/* "... evicted by kswapd0", "... by dd in direct reclaim (pid 812, cgroup 345) for memcg 678" */
static void evict_words(const struct pcv_model *m, const struct pcv_event *ev, char *buf,
			size_t len)
{
	char nb[48], pb[48], who[96], target[40] = "";

	if (pclab_is_kswapd(ev->comm))
		snprintf(who, sizeof(who), "%.16s", ev->comm);
	else
		snprintf(who, sizeof(who), "%.16s%sdirect reclaim (pid %d, cgroup %llu)",
			 ev->comm[0] ? ev->comm : "", ev->comm[0] ? " in " : "", ev->pid,
			 (unsigned long long)ev->reclaimer);
	if (ev->target != PCV_CGROUP_ROOT)
		snprintf(target, sizeof(target), " for memcg %llu", (unsigned long long)ev->target);
	snprintf(buf, len, "%s: %s of memcg %llu%s evicted by %s%s", name_of(m, ev, nb, sizeof(nb)),
		 pages(ev, pb, sizeof(pb)), (unsigned long long)ev->memcg,
		 ev->arg[0] ? " (active)" : "", who, target);
}

/* "kswapd1 woken by dd (pid 812, cgroup 345) for an order-0 allocation in zone 2" */
static void waker_words(const struct pcv_event *ev, char *buf, size_t len)
{
	char cgroup[40] = "";

	if (ev->reclaimer)
		snprintf(cgroup, sizeof(cgroup), ", cgroup %llu", (unsigned long long)ev->reclaimer);
	snprintf(buf, len, "kswapd%u woken by %.16s%s(pid %d%s) for an order-%u allocation in zone %u",
		 ev->arg[1], ev->comm, ev->comm[0] ? " " : "", ev->pid, cgroup, ev->arg[0],
		 ev->arg[2]);
}

static void refault_words(const struct pcv_model *m, const struct pcv_event *ev, char *buf,
			  size_t len)
{
	char nb[48], pb[48], distance[48] = "";

	if (ev->distance != PCV_DISTANCE_UNKNOWN)
		snprintf(distance, sizeof(distance), ", distance %llu pages",
			 (unsigned long long)ev->distance);
	snprintf(buf, len, "%s: %s refaulted%s%s%s", name_of(m, ev, nb, sizeof(nb)),
		 pages(ev, pb, sizeof(pb)), ev->arg[1] ? " (was active)" : "", distance,
		 ev->arg[0] ? ", activated" : "");
}

void pcv_event_words(const struct pcv_model *m, const struct pcv_event *ev, char *buf, size_t len)
{
	char nb[48], pb[48];
	const char *rw = ev->arg[0] ? "write" : "read";

	switch (ev->kind) {
	case PCV_EV_ADD:
		snprintf(buf, len, "%s: %s added to the cache", name_of(m, ev, nb, sizeof(nb)),
			 pages(ev, pb, sizeof(pb)));
		break;
	case PCV_EV_DELETE:
		snprintf(buf, len, "%s: %s removed from the cache", name_of(m, ev, nb, sizeof(nb)),
			 pages(ev, pb, sizeof(pb)));
		break;
	case PCV_EV_LRU_INSERT:
		snprintf(buf, len, "%s: page %llu put on an LRU list", name_of(m, ev, nb, sizeof(nb)),
			 (unsigned long long)ev->index);
		break;
	case PCV_EV_LRU_ACTIVATE:
		snprintf(buf, len, "%s: page %llu activated (used again)",
			 name_of(m, ev, nb, sizeof(nb)), (unsigned long long)ev->index);
		break;
	case PCV_EV_DIRTY:
		snprintf(buf, len, "%s: page %llu dirtied", name_of(m, ev, nb, sizeof(nb)),
			 (unsigned long long)ev->index);
		break;
	case PCV_EV_WRITEBACK:
		snprintf(buf, len, "%s: writeback wrote %llu pages", name_of(m, ev, nb, sizeof(nb)),
			 (unsigned long long)ev->nr_pages);
		break;
	case PCV_EV_KSWAPD_WAKE:
		snprintf(buf, len, "kswapd woken (order %u)", ev->arg[0]);
		break;
	case PCV_EV_KSWAPD_WAKER:
		waker_words(ev, buf, len);
		break;
	case PCV_EV_DIRECT_RECLAIM:
		snprintf(buf, len, "direct reclaim begins (order %u)", ev->arg[0]);
		break;
	case PCV_EV_RECLAIM:
		snprintf(buf, len, "reclaim scanned %llu, reclaimed %llu pages",
			 (unsigned long long)ev->index, (unsigned long long)ev->nr_pages);
		break;
	case PCV_EV_DB_MARK:
		snprintf(buf, len, "%s: %s marked drop-behind (uncached %s)",
			 name_of(m, ev, nb, sizeof(nb)), pages(ev, pb, sizeof(pb)), rw);
		break;
	case PCV_EV_DB_SERVE:
		snprintf(buf, len, "%s: %s already cached, served (uncached %s)",
			 name_of(m, ev, nb, sizeof(nb)), pages(ev, pb, sizeof(pb)), rw);
		break;
	case PCV_EV_DB_CLAIM:
		snprintf(buf, len, "%s: %s claimed by an ordinary read, fault or write",
			 name_of(m, ev, nb, sizeof(nb)), pages(ev, pb, sizeof(pb)));
		break;
	case PCV_EV_DB_END:
		snprintf(buf, len, "%s: %s after %s: %s", name_of(m, ev, nb, sizeof(nb)),
			 pages(ev, pb, sizeof(pb)), ev->arg[0] < PCV_DB_NWHEN ? pcv_db_when[ev->arg[0]] : "?",
			 ev->arg[1] < PCV_DB_NRESULT ? pcv_db_result[ev->arg[1]] : "?");
		break;
	case PCV_EV_DB_CALL:
		snprintf(buf, len,
			 "%s: uncached %s of %llu bytes at %llu: marked %u served %u dropped %u kept %u",
			 name_of(m, ev, nb, sizeof(nb)), rw, (unsigned long long)ev->nr_pages,
			 (unsigned long long)ev->index, ev->arg[1], ev->arg[2], ev->arg[3], ev->arg[4]);
		break;
	case PCV_EV_EVICT:
		evict_words(m, ev, buf, len);
		break;
	case PCV_EV_REFAULT:
		refault_words(m, ev, buf, len);
		break;
	case PCV_EV_WB_START:
		snprintf(buf, len, "%s: writeback starts (dirty pages go under writeback)",
			 name_of(m, ev, nb, sizeof(nb)));
		break;
	case PCV_EV_WB_END:
		snprintf(buf, len, "%s: writeback done (no page under writeback)",
			 name_of(m, ev, nb, sizeof(nb)));
		break;
	default:
		snprintf(buf, len, "unknown event");
		break;
	}
}

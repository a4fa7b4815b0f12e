// SPDX-License-Identifier: GPL-2.0
/*
 * pcviz's model: the files watched, the event dispatcher (which hands each
 * event to the parts by job: cells.c, writes.c, evictions.c, charges.c),
 * the ring of the latest events, counts and rates.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "model.h"

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
	m->page_size = (unsigned)getpagesize();
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

static uint64_t pages_of(uint64_t size, unsigned page_size)
{
	return (size + page_size - 1) / page_size;
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
	f->page_size = m->page_size;
	f->pages = pages_of(size, f->page_size);
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
	f->pages = pages_of(size, f->page_size);
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

static uint64_t event_pages(const struct pcv_model *m, const struct pcv_event *ev)
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
		return pages_of(ev->nr_pages, m->page_size);	/* nr_pages: the call's bytes */
	default:
		return ev->nr_pages;
	}
}

/* An event in the counts (and file fi's, if watched) */
static void count(struct pcv_model *m, int fi, const struct pcv_event *ev)
{
	uint64_t pages = event_pages(m, ev);

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
	const struct pcv_pfn_slot *slot;
	int fi = -1;

	switch (ev.kind) {
	case PCV_EV_LRU_INSERT:
	case PCV_EV_LRU_ACTIVATE:
		slot = pcv_pfn_find(m, ev.pfn);
		if (!slot) {
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
		pcv_waker_event(m, &ev);
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
	if (ev.kind == PCV_EV_ADD && ev.pfn)
		pcv_pfn_added(m, fi, &ev);
	else if (ev.kind == PCV_EV_DELETE && ev.pfn)
		pcv_pfn_deleted(m, ev.pfn);
	pcv_write_event(&m->files[fi], &ev);
	if (ev.kind == PCV_EV_EVICT)
		pcv_evict_event(m, &m->files[fi], &ev);
	else if (ev.kind == PCV_EV_REFAULT)
		pcv_refault_event(&m->files[fi], &ev);
	if (!m->reconstruct)
		return;
	if (ev.kind == PCV_EV_ADD || ev.kind == PCV_EV_DB_MARK)
		pcv_file_set_cached(&m->files[fi], ev.index, ev.nr_pages, true);
	else if (ev.kind == PCV_EV_DELETE ||
		 (ev.kind == PCV_EV_DB_END && ev.arg[1] == PCV_DB_DROPPED))
		pcv_file_set_cached(&m->files[fi], ev.index, ev.nr_pages, false);
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
	for (int i = 0; i < m->nfiles; i++)
		pcv_file_wtick(&m->files[i], m->ticks);
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

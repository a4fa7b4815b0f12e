// SPDX-License-Identifier: GPL-2.0
/*
 * Batch output.  One table of named values per interval (lib/'s
 * pclab/table.h) feeds both formats, so CSV columns and JSON keys are the
 * same names (docs/pcviz.md lists them).  JSON nests what CSV's fixed
 * columns cannot hold, per file and per cgroup, with lib/'s writer
 * (pclab/json.h).  The keys the labs read are listed in
 * tests/fixtures/schema (tests/host/schema.sh).
 */
#include "output.h"
#include "pclab/json.h"
#include "pclab/table.h"

#define MAX_VALUES (40 + PCV_VM_N + 2 * PCV_EV_NKINDS + PCV_DB_NWHEN + PCV_DB_NRESULT + \
		    PCV_CALL_N + 2 * PCV_W_N)

/* pcv_db_when as column names: "irq-writeback" is no name a script can use as a key */
static const char *const db_when_key[PCV_DB_NWHEN] = {
	"read", "writeback", "irq_writeback", "fsync", "close",
};

/* a value of the model, or empty (null) where it is unknown */
static void known_uint(struct pclab_table *t, const char *name, uint64_t u, bool known)
{
	if (known)
		pclab_add_uint(t, name, u);
	else
		pclab_add_null(t, name);
}

static void known_real(struct pclab_table *t, const char *name, double d, bool known)
{
	if (known)
		pclab_add_real(t, name, 3, d);
	else
		pclab_add_null(t, name);
}

/* The files' states in file order, separated by spaces ("ok unknown"). */
static const char *states(const struct pcv_model *m, char *buf, size_t len)
{
	size_t used = 0;

	*buf = 0;
	for (int i = 0; i < m->nfiles && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? " " : "",
					 pcv_file_state_name(&m->files[i]));
	return buf;
}

/* states has room for every file's state: "truncated" is the longest */
#define STATES_LEN (PCV_MAX_FILES * 10 + 1)

/*
 * Eviction attribution, the watched files' summed: pages evicted by kswapd
 * (of them, those with a waker seen) and by direct reclaim, refaulted and
 * activated, how long refaulted pages were gone (0 when none was timed).
 */
static void eviction_values(const struct pcv_model *m, struct pclab_table *t)
{
	uint64_t kswapd = 0, woken = 0, direct = 0, refaults = 0, activated = 0, n = 0;
	double sum = 0, max = 0;

	for (int i = 0; i < m->nfiles; i++) {
		const struct pcv_file *f = &m->files[i];

		kswapd += f->evict_kswapd;
		woken += pcv_file_woken_known(f);
		direct += f->evict_direct;
		refaults += f->refaults;
		activated += f->refault_activated;
		n += f->gone_n;
		sum += f->gone_sum;
		max = f->gone_max > max ? f->gone_max : max;
	}
	pclab_add_uint(t, "evict_kswapd", kswapd);
	pclab_add_uint(t, "evict_kswapd_woken_known", woken);
	pclab_add_uint(t, "evict_direct", direct);
	pclab_add_uint(t, "refaults", refaults);
	pclab_add_uint(t, "refault_activated", activated);
	pclab_add_real(t, "gone_mean_s", 3, n ? sum / (double)n : 0);
	pclab_add_real(t, "gone_max_s", 3, max);
}

/* A file's direct reclaimers: [{"cgroup":N,"comm":"dd","target":N,"pages":N}, ...] */
static void json_reclaimers(struct pclab_json *j, const struct pcv_file *f)
{
	pclab_json_begin_array(j, "reclaimers");
	for (int r = 0; r < f->nreclaimers; r++) {
		const struct pcv_reclaimer *c = &f->reclaimers[r];

		pclab_json_begin_object(j, NULL);
		pclab_json_uint(j, "cgroup", c->cgroup);
		pclab_json_string(j, "comm", c->comm);
		pclab_json_uint(j, "target", c->target);
		pclab_json_uint(j, "pages", c->pages);
		pclab_json_end(j);
	}
	pclab_json_end(j);
	pclab_json_uint(j, "evict_others", f->evict_others);
}

/* Who woke kswapd for the file's pages: [{"cgroup":N,"comm":"dd","pages":N}, ...] */
static void json_wakers(struct pclab_json *j, const struct pcv_file *f)
{
	pclab_json_begin_array(j, "kswapd_wakers");
	for (int i = 0; i < f->nwakers; i++) {
		const struct pcv_waker *w = &f->wakers[i];

		pclab_json_begin_object(j, NULL);
		pclab_json_uint(j, "cgroup", w->cgroup);
		pclab_json_string(j, "comm", w->comm);
		pclab_json_uint(j, "pages", w->pages);
		pclab_json_end(j);
	}
	pclab_json_end(j);
	pclab_json_uint(j, "kswapd_woken_others", f->woken_others);
	pclab_json_uint(j, "kswapd_woken_unknown", f->woken_unknown);
}

/*
 * The cgroups charged for the file's cached pages, where the source tells:
 * [{"cgroup":N,"pages":N}, ...], the others, and the pages whose charge is
 * unknown (null where the source tells none)
 */
static void json_charges(struct pclab_json *j, const struct pcv_model *m, const struct pcv_file *f)
{
	pclab_json_begin_array(j, "charges");
	for (int i = 0; i < f->ncharges; i++) {
		pclab_json_begin_object(j, NULL);
		pclab_json_uint(j, "cgroup", f->charges[i].cgroup);
		pclab_json_uint(j, "pages", f->charges[i].pages);
		pclab_json_end(j);
	}
	pclab_json_end(j);
	pclab_json_uint(j, "charged_others", f->charged_others);
	if (m->charges_known && !f->unknown)
		pclab_json_uint(j, "charge_unknown", pcv_file_charge_unknown(f));
	else
		pclab_json_null(j, "charge_unknown");
}

/* per_file's values of one file up to the attribution: residency, write timeline, evictions */
#define FILE_VALUES (8 + 2 * PCV_W_N + 7)

static void file_values(const struct pcv_file *f, struct pclab_table *t)
{
	pclab_add_text(t, "path", f->path);
	pclab_add_uint(t, "size", f->size);
	pclab_add_uint(t, "pages", f->pages);
	known_uint(t, "cached", f->total.cached, !f->unknown);
	known_uint(t, "dirty", f->total.dirty, !f->unknown);
	known_uint(t, "writeback", f->total.writeback, !f->unknown);
	known_uint(t, "evicted", f->total.evicted, !f->unknown);
	known_uint(t, "recently_evicted", f->total.recently_evicted, !f->unknown);
	for (int w = PCV_W_DIRTY; w < PCV_W_N; w++) {
		pclab_table_add(t, PCLAB_UINT, "wr_%s", pcv_wstate_name[w])->u = f->wcount[w];
		pclab_table_add(t, PCLAB_UINT, "wr_to_%s", pcv_wstate_name[w])->u = f->wto[w];
	}
	pclab_add_uint(t, "evict_kswapd", f->evict_kswapd);
	pclab_add_uint(t, "evict_direct", f->evict_direct);
	pclab_add_uint(t, "refaults", f->refaults);
	pclab_add_uint(t, "refault_activated", f->refault_activated);
	pclab_add_uint(t, "refault_unseen", f->refault_unseen);
	pclab_add_real(t, "gone_mean_s", 3, pcv_file_gone_mean(f));
	pclab_add_real(t, "gone_max_s", 3, f->gone_max);
}

/* per_file: an object a file */
static void json_files(struct pclab_json *j, const struct pcv_model *m)
{
	pclab_json_begin_array(j, "per_file");
	for (int i = 0; i < m->nfiles; i++) {
		const struct pcv_file *f = &m->files[i];
		struct pclab_value v[FILE_VALUES];
		struct pclab_table t;

		pclab_table_init(&t, v, FILE_VALUES);
		file_values(f, &t);
		pclab_json_begin_object(j, NULL);
		pclab_table_json_members(j, &t);
		json_reclaimers(j, f);
		json_wakers(j, f);
		json_charges(j, m, f);
		pclab_json_string(j, "state", pcv_file_state_name(f));
		pclab_json_string(j, "note", f->unknown ? f->why : f->note);
		pclab_json_end(j);
	}
	pclab_json_end(j);
}

/* a cgroup's values: sizes in bytes, event counters per second, memory.max "max" for none */
#define MEMCG_VALUES (3 + PCV_MCG_N + PCV_MCG_EV_N + 2)

static void memcg_values(const struct pcv_memcg *g, struct pclab_table *t)
{
	char name[40];

	pclab_add_text(t, "path", g->path);
	known_uint(t, "current", g->current, g->current_valid);
	if (g->max_valid && g->max == PCV_MCG_UNLIMITED)
		pclab_add_text(t, "max", "max");
	else
		known_uint(t, "max", g->max, g->max_valid);
	for (int k = 0; k < PCV_MCG_REFAULT; k++)
		known_uint(t, pcv_mcg_name[k], g->stat[k], g->valid[k]);
	for (int k = PCV_MCG_REFAULT; k < PCV_MCG_N; k++) {
		snprintf(name, sizeof(name), "%s_s", pcv_mcg_name[k]);
		known_real(t, name, g->rate[k], g->valid[k]);
	}
	for (int k = 0; k < PCV_MCG_EV_N; k++) {
		snprintf(name, sizeof(name), "events_%s", pcv_mcg_event_name[k]);
		known_uint(t, name, g->events[k], g->events_valid);
	}
	known_real(t, "psi_some_avg10", g->psi_some, g->psi_valid);
	known_real(t, "psi_full_avg10", g->psi_full, g->psi_valid);
}

/*
 * The memory cgroups, live only: a number of them varies from line to
 * line, which CSV's fixed columns cannot take, so JSON alone has them.
 */
static void json_memcgs(struct pclab_json *j, const struct pcv_memcgs *c)
{
	pclab_json_begin_array(j, "cgroups");
	for (int i = 0; i < c->n; i++) {
		struct pclab_value v[MEMCG_VALUES];
		struct pclab_table t;

		pclab_table_init(&t, v, MEMCG_VALUES);
		memcg_values(&c->cg[i], &t);
		pclab_json_begin_object(j, NULL);
		pclab_table_json_members(j, &t);
		pclab_json_end(j);
	}
	pclab_json_end(j);
	pclab_json_int(j, "cgroups_more", c->more);
}

static void values(const struct pcv_model *m, struct pclab_table *t, char *states_buf)
{
	struct pcv_res total = pcv_model_total(m);
	const struct pcv_system *s = &m->sys;
	/* residency totals: unknown when any file's is */
	bool known = !pcv_model_any_unknown(m);

	/* runs compared: which one, first (their time columns share one axis) */
	if (m->run)
		pclab_add_text(t, "run", m->run);
	pclab_add_real(t, "time", 3, m->now - m->t0);
	pclab_add_uint(t, "files", (uint64_t)m->nfiles);
	pclab_add_uint(t, "pages", total.pages);
	known_uint(t, "cached", total.cached, known);
	known_uint(t, "dirty", total.dirty, known);
	known_uint(t, "writeback", total.writeback, known);
	known_uint(t, "evicted", total.evicted, known);
	known_uint(t, "recently_evicted", total.recently_evicted, known);
	pclab_add_text(t, "residency", m->res_source);
	pclab_add_text(t, "states", states(m, states_buf, STATES_LEN));
	/* /proc/meminfo: unknown when there are no counters (replay) */
	known_uint(t, "mem_free_kb", s->mem_free, s->known);
	known_uint(t, "cached_kb", s->cached, s->known);
	known_uint(t, "active_file_kb", s->active_file, s->known);
	known_uint(t, "inactive_file_kb", s->inactive_file, s->known);
	known_uint(t, "dirty_kb", s->dirty, s->known);
	known_uint(t, "writeback_kb", s->writeback, s->known);
	for (int i = 0; i < PCV_VM_N; i++) {
		char name[40];

		snprintf(name, sizeof(name), "%s_s", pcv_vm_name[i]);
		known_real(t, name, s->vm_rate[i], s->known && s->vm_valid[i]);
	}
	known_real(t, "kswapd_cpu", s->kswapd_cpu, s->kswapd_ticks >= 0);
	known_uint(t, "mglru", (uint64_t)(s->mglru > 0), s->mglru >= 0);
	pclab_add_text(t, "events", m->events_on ? "on" : "off");
	pclab_add_text(t, "events_why", m->events_why);
	/* whether the per-folio counts below are every event, or leave some out */
	pclab_add_text(t, "folio_events", m->folio_pauses ? "sampled" : "whole");
	pclab_add_uint(t, "folio_pauses", m->folio_pauses);
	for (int k = 0; k < PCV_EV_NKINDS; k++)
		pclab_table_add(t, PCLAB_UINT, "ev_%s", pcv_kind_name[k])->u = m->ev_count[k];
	for (int k = 0; k < PCV_EV_NKINDS; k++)
		pclab_table_add(t, PCLAB_UINT, "pages_%s", pcv_kind_name[k])->u = m->ev_pages[k];
	for (int w = 0; w < PCV_DB_NWHEN; w++)
		pclab_table_add(t, PCLAB_UINT, "db_end_after_%s", db_when_key[w])->u =
			m->db_end_when[w];
	for (int r = 0; r < PCV_DB_NRESULT; r++)
		pclab_table_add(t, PCLAB_UINT, "db_end_pages_%s", pcv_db_result[r])->u =
			m->db_end_pages[r];
	for (int c = 0; c < PCV_CALL_N; c++)
		pclab_table_add(t, PCLAB_UINT, "db_call_%s", pcv_call_count[c])->u = m->db_call[c];
	/* the write timeline: pages in each write state now, and that went into it */
	for (int w = PCV_W_DIRTY; w < PCV_W_N; w++) {
		uint64_t now = 0, to = 0;

		for (int i = 0; i < m->nfiles; i++) {
			now += m->files[i].wcount[w];
			to += m->files[i].wto[w];
		}
		pclab_table_add(t, PCLAB_UINT, "wr_%s", pcv_wstate_name[w])->u = now;
		pclab_table_add(t, PCLAB_UINT, "wr_to_%s", pcv_wstate_name[w])->u = to;
	}
	eviction_values(m, t);
	pclab_add_uint(t, "lost", m->lost);
	pclab_add_uint(t, "unattributed", m->unattributed);
	pclab_add_real(t, "refresh_us", 3, m->refresh_us);
}

/* One line's table: the interval's values of a model */
struct line {
	struct pclab_value v[MAX_VALUES];
	struct pclab_table t;
	char states[STATES_LEN];
};

static const struct pclab_table *line_values(struct line *l, const struct pcv_model *m)
{
	pclab_table_init(&l->t, l->v, MAX_VALUES);
	values(m, &l->t, l->states);
	return &l->t;
}

void pcv_csv_header(FILE *out, const struct pcv_model *like)
{
	struct line l;

	/* the names are the same whatever the values: like's own serve */
	pclab_csv_header(out, line_values(&l, like));
	fflush(out);
}

void pcv_csv_line(FILE *out, const struct pcv_model *m)
{
	struct line l;

	pclab_csv_row(out, line_values(&l, m));
	fflush(out);
}

void pcv_json_line(FILE *out, const struct pcv_model *m)
{
	struct line l;
	struct pclab_json j;

	pclab_json_init(&j, out);
	pclab_json_begin_object(&j, NULL);
	pclab_table_json_members(&j, line_values(&l, m));
	json_files(&j, m);
	if (m->memcgs.known)
		json_memcgs(&j, &m->memcgs);
	pclab_json_end(&j);
	fflush(out);
}

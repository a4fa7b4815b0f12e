// SPDX-License-Identifier: GPL-2.0
/*
 * Batch output.  One table of named values per interval (lib/'s
 * pclab/table.h) feeds both formats, so CSV columns and JSON keys are the
 * same names (docs/pcviz.md lists them).
 */
#include <inttypes.h>
#include <stdlib.h>

#include "output.h"
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
static void json_reclaimers(FILE *out, const struct pcv_file *f)
{
	fputs(",\"reclaimers\":[", out);
	for (int r = 0; r < f->nreclaimers; r++) {
		const struct pcv_reclaimer *c = &f->reclaimers[r];

		fprintf(out, "%s{\"cgroup\":%" PRIu64 ",\"comm\":", r ? "," : "", c->cgroup);
		pclab_json_text(out, c->comm);
		fprintf(out, ",\"target\":%" PRIu64 ",\"pages\":%" PRIu64 "}", c->target, c->pages);
	}
	fprintf(out, "],\"evict_others\":%" PRIu64, f->evict_others);
}

/* Who woke kswapd for the file's pages: [{"cgroup":N,"comm":"dd","pages":N}, ...] */
static void json_wakers(FILE *out, const struct pcv_file *f)
{
	fputs(",\"kswapd_wakers\":[", out);
	for (int i = 0; i < f->nwakers; i++) {
		const struct pcv_waker *w = &f->wakers[i];

		fprintf(out, "%s{\"cgroup\":%" PRIu64 ",\"comm\":", i ? "," : "", w->cgroup);
		pclab_json_text(out, w->comm);
		fprintf(out, ",\"pages\":%" PRIu64 "}", w->pages);
	}
	fprintf(out, "],\"kswapd_woken_others\":%" PRIu64 ",\"kswapd_woken_unknown\":%" PRIu64,
		f->woken_others, f->woken_unknown);
}

/*
 * The cgroups charged for the file's cached pages, where the source tells:
 * [{"cgroup":N,"pages":N}, ...], the others, and the pages whose charge is
 * unknown (null where the source tells none)
 */
static void json_charges(FILE *out, const struct pcv_model *m, const struct pcv_file *f)
{
	fputs(",\"charges\":[", out);
	for (int i = 0; i < f->ncharges; i++)
		fprintf(out, "%s{\"cgroup\":%" PRIu64 ",\"pages\":%" PRIu64 "}", i ? "," : "",
			f->charges[i].cgroup, f->charges[i].pages);
	fprintf(out, "],\"charged_others\":%" PRIu64, f->charged_others);
	if (m->charges_known && !f->unknown)
		fprintf(out, ",\"charge_unknown\":%" PRIu64, pcv_file_charge_unknown(f));
	else
		fputs(",\"charge_unknown\":null", out);
}

/* a JSON member ",\"name\":N", or null where it is unknown */
static void json_uint(FILE *out, const char *name, uint64_t u, bool known)
{
	if (known)
		fprintf(out, ",\"%s\":%" PRIu64, name, u);
	else
		fprintf(out, ",\"%s\":null", name);
}

static void json_real(FILE *out, const char *name, double d, bool known)
{
	if (known)
		fprintf(out, ",\"%s\":%.3f", name, d);
	else
		fprintf(out, ",\"%s\":null", name);
}

/*
 * The memory cgroups, live only: a number of them varies from line to
 * line, which CSV's fixed columns cannot take, so JSON alone has them.
 * Sizes in bytes, event counters per second, memory.max "max" for none.
 */
static void json_memcgs(FILE *out, const struct pcv_memcgs *c)
{
	fputs(",\"cgroups\":[", out);
	for (int i = 0; i < c->n; i++) {
		const struct pcv_memcg *g = &c->cg[i];
		char name[40];

		fprintf(out, "%s{\"path\":", i ? "," : "");
		pclab_json_text(out, g->path);
		json_uint(out, "current", g->current, g->current_valid);
		if (g->max_valid && g->max == PCV_MCG_UNLIMITED)
			fputs(",\"max\":\"max\"", out);
		else
			json_uint(out, "max", g->max, g->max_valid);
		for (int k = 0; k < PCV_MCG_REFAULT; k++)
			json_uint(out, pcv_mcg_name[k], g->stat[k], g->valid[k]);
		for (int k = PCV_MCG_REFAULT; k < PCV_MCG_N; k++) {
			snprintf(name, sizeof(name), "%s_s", pcv_mcg_name[k]);
			json_real(out, name, g->rate[k], g->valid[k]);
		}
		for (int k = 0; k < PCV_MCG_EV_N; k++) {
			snprintf(name, sizeof(name), "events_%s", pcv_mcg_event_name[k]);
			json_uint(out, name, g->events[k], g->events_valid);
		}
		json_real(out, "psi_some_avg10", g->psi_some, g->psi_valid);
		json_real(out, "psi_full_avg10", g->psi_full, g->psi_valid);
		fputc('}', out);
	}
	fprintf(out, "],\"cgroups_more\":%ld", c->more);
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

void pcv_csv_header(FILE *out, const struct pcv_model *like)
{
	struct pcv_model *m = calloc(1, sizeof(*m));
	struct pclab_value v[MAX_VALUES];
	struct pclab_table t;
	char st[STATES_LEN];

	if (!m)
		return;
	m->run = like->run;
	pclab_table_init(&t, v, MAX_VALUES);
	values(m, &t, st);
	pclab_csv_header(out, &t);
	fflush(out);
	free(m);
}

void pcv_csv_line(FILE *out, const struct pcv_model *m)
{
	struct pclab_value v[MAX_VALUES];
	struct pclab_table t;
	char st[STATES_LEN];

	pclab_table_init(&t, v, MAX_VALUES);
	values(m, &t, st);
	pclab_csv_row(out, &t);
	fflush(out);
}

void pcv_json_line(FILE *out, const struct pcv_model *m)
{
	struct pclab_value v[MAX_VALUES];
	struct pclab_table t;
	char st[STATES_LEN];

	pclab_table_init(&t, v, MAX_VALUES);
	values(m, &t, st);
	fputc('{', out);
	pclab_json_members(out, &t);
	fputs(",\"per_file\":[", out);
	for (int i = 0; i < m->nfiles; i++) {
		const struct pcv_file *f = &m->files[i];

		fprintf(out, "%s{\"path\":", i ? "," : "");
		pclab_json_text(out, f->path);
		fprintf(out, ",\"size\":%" PRIu64 ",\"pages\":%" PRIu64, f->size, f->pages);
		if (f->unknown)
			fputs(",\"cached\":null,\"dirty\":null,\"writeback\":null,\"evicted\":null,"
			      "\"recently_evicted\":null", out);
		else
			fprintf(out,
				",\"cached\":%" PRIu64 ",\"dirty\":%" PRIu64 ",\"writeback\":%" PRIu64
				",\"evicted\":%" PRIu64 ",\"recently_evicted\":%" PRIu64,
				f->total.cached, f->total.dirty, f->total.writeback, f->total.evicted,
				f->total.recently_evicted);
		for (int w = PCV_W_DIRTY; w < PCV_W_N; w++)
			fprintf(out, ",\"wr_%s\":%" PRIu64 ",\"wr_to_%s\":%" PRIu64, pcv_wstate_name[w],
				f->wcount[w], pcv_wstate_name[w], f->wto[w]);
		fprintf(out,
			",\"evict_kswapd\":%" PRIu64 ",\"evict_direct\":%" PRIu64
			",\"refaults\":%" PRIu64 ",\"refault_activated\":%" PRIu64
			",\"refault_unseen\":%" PRIu64 ",\"gone_mean_s\":%.3f,\"gone_max_s\":%.3f",
			f->evict_kswapd, f->evict_direct, f->refaults, f->refault_activated,
			f->refault_unseen, pcv_file_gone_mean(f), f->gone_max);
		json_reclaimers(out, f);
		json_wakers(out, f);
		json_charges(out, m, f);
		fprintf(out, ",\"state\":\"%s\",\"note\":", pcv_file_state_name(f));
		pclab_json_text(out, f->unknown ? f->why : f->note);
		fputc('}', out);
	}
	fputc(']', out);
	if (m->memcgs.known)
		json_memcgs(out, &m->memcgs);
	fputs("}\n", out);
	fflush(out);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Batch output.  One table of named values per interval feeds both formats,
 * so CSV columns and JSON keys are the same names (docs/pcviz.md lists them).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"

enum vtype { V_UINT, V_REAL, V_TEXT, V_NONE };

struct value {
	char name[40];
	enum vtype type;
	uint64_t u;
	double d;
	const char *s;
};

#define MAX_VALUES (32 + PCV_VM_N + PCV_EV_NKINDS)

static struct value *add(struct value *v, int *n, const char *prefix, const char *name,
			 const char *suffix, enum vtype type)
{
	struct value *x = &v[(*n)++];

	snprintf(x->name, sizeof(x->name), "%s%s%s", prefix, name, suffix);
	x->type = type;
	return x;
}

static void uint_value(struct value *v, int *n, const char *name, uint64_t u)
{
	add(v, n, "", name, "", V_UINT)->u = u;
}

/* a /proc/meminfo value: empty (null) when there are no counters (replay) */
static void kib_value(struct value *v, int *n, const char *name, uint64_t u, bool known)
{
	add(v, n, "", name, "", known ? V_UINT : V_NONE)->u = u;
}

static void text_value(struct value *v, int *n, const char *name, const char *s)
{
	add(v, n, "", name, "", V_TEXT)->s = s;
}

static const char *const state_name[] = {
	[PCV_FILE_OK] = "ok", [PCV_FILE_DELETED] = "deleted", [PCV_FILE_TRUNCATED] = "truncated",
	[PCV_FILE_GREW] = "grew", [PCV_FILE_ERROR] = "error",
};

static int values(const struct pcv_model *m, struct value *v)
{
	struct pcv_res t = pcv_model_total(m);
	const struct pcv_system *s = &m->sys;
	struct value *x;
	int n = 0;

	add(v, &n, "", "time", "", V_REAL)->d = m->now - m->t0;
	uint_value(v, &n, "files", (uint64_t)m->nfiles);
	uint_value(v, &n, "pages", t.pages);
	uint_value(v, &n, "cached", t.cached);
	uint_value(v, &n, "dirty", t.dirty);
	uint_value(v, &n, "writeback", t.writeback);
	uint_value(v, &n, "evicted", t.evicted);
	uint_value(v, &n, "recently_evicted", t.recently_evicted);
	text_value(v, &n, "residency", m->res_source);
	kib_value(v, &n, "mem_free_kb", s->mem_free, s->known);
	kib_value(v, &n, "cached_kb", s->cached, s->known);
	kib_value(v, &n, "active_file_kb", s->active_file, s->known);
	kib_value(v, &n, "inactive_file_kb", s->inactive_file, s->known);
	kib_value(v, &n, "dirty_kb", s->dirty, s->known);
	kib_value(v, &n, "writeback_kb", s->writeback, s->known);
	for (int i = 0; i < PCV_VM_N; i++) {
		x = add(v, &n, "", pcv_vm_name[i], "_s", s->known && s->vm_valid[i] ? V_REAL : V_NONE);
		x->d = s->vm_rate[i];
	}
	x = add(v, &n, "", "kswapd_cpu", "", s->kswapd_ticks >= 0 ? V_REAL : V_NONE);
	x->d = s->kswapd_cpu;
	x = add(v, &n, "", "mglru", "", s->mglru >= 0 ? V_UINT : V_NONE);
	x->u = (uint64_t)(s->mglru > 0);
	text_value(v, &n, "events", m->events_on ? "on" : "off");
	text_value(v, &n, "events_why", m->events_why);
	for (int k = 0; k < PCV_EV_NKINDS; k++)
		add(v, &n, "ev_", pcv_kind_name[k], "", V_UINT)->u = m->ev_count[k];
	uint_value(v, &n, "lost", m->lost);
	uint_value(v, &n, "unattributed", m->unattributed);
	add(v, &n, "", "refresh_us", "", V_REAL)->d = m->refresh_us;
	return n;
}

void pcv_csv_header(FILE *out)
{
	struct pcv_model *m = calloc(1, sizeof(*m));
	struct value v[MAX_VALUES];
	int n;

	if (!m)
		return;
	n = values(m, v);
	for (int i = 0; i < n; i++)
		fprintf(out, "%s%s", i ? "," : "", v[i].name);
	fputc('\n', out);
	fflush(out);
	free(m);
}

/* CSV text: no commas, quotes or newlines, so no quoting is needed */
static void csv_text(FILE *out, const char *s)
{
	for (; *s; s++)
		fputc(strchr(",\"\n\r", *s) ? ';' : *s, out);
}

static void json_text(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

static void print_value(FILE *out, const struct value *v, bool json)
{
	switch (v->type) {
	case V_UINT:
		fprintf(out, "%" PRIu64, v->u);
		break;
	case V_REAL:
		fprintf(out, "%.3f", v->d);
		break;
	case V_TEXT:
		if (json)
			json_text(out, v->s);
		else
			csv_text(out, v->s);
		break;
	case V_NONE:
		if (json)
			fputs("null", out);
		break;
	}
}

void pcv_csv_line(FILE *out, const struct pcv_model *m)
{
	struct value v[MAX_VALUES];
	int n = values(m, v);

	for (int i = 0; i < n; i++) {
		if (i)
			fputc(',', out);
		print_value(out, &v[i], false);
	}
	fputc('\n', out);
	fflush(out);
}

void pcv_json_line(FILE *out, const struct pcv_model *m)
{
	struct value v[MAX_VALUES];
	int n = values(m, v);

	fputc('{', out);
	for (int i = 0; i < n; i++) {
		fprintf(out, "%s\"%s\":", i ? "," : "", v[i].name);
		print_value(out, &v[i], true);
	}
	fputs(",\"per_file\":[", out);
	for (int i = 0; i < m->nfiles; i++) {
		const struct pcv_file *f = &m->files[i];

		fprintf(out, "%s{\"path\":", i ? "," : "");
		json_text(out, f->path);
		fprintf(out,
			",\"size\":%" PRIu64 ",\"pages\":%" PRIu64 ",\"cached\":%" PRIu64
			",\"dirty\":%" PRIu64 ",\"writeback\":%" PRIu64 ",\"evicted\":%" PRIu64
			",\"recently_evicted\":%" PRIu64 ",\"state\":\"%s\",\"note\":",
			f->size, f->pages, f->total.cached, f->total.dirty, f->total.writeback,
			f->total.evicted, f->total.recently_evicted, state_name[f->state]);
		json_text(out, f->note);
		fputc('}', out);
	}
	fputs("]}\n", out);
	fflush(out);
}

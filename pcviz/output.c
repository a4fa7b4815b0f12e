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

/* a residency total: empty (null) when a file's residency is unknown */
static void res_value(struct value *v, int *n, const char *name, uint64_t u, bool known)
{
	add(v, n, "", name, "", known ? V_UINT : V_NONE)->u = u;
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

static int values(const struct pcv_model *m, struct value *v, char *states_buf)
{
	struct pcv_res t = pcv_model_total(m);
	const struct pcv_system *s = &m->sys;
	bool known = !pcv_model_any_unknown(m);
	struct value *x;
	int n = 0;

	add(v, &n, "", "time", "", V_REAL)->d = m->now - m->t0;
	uint_value(v, &n, "files", (uint64_t)m->nfiles);
	uint_value(v, &n, "pages", t.pages);
	res_value(v, &n, "cached", t.cached, known);
	res_value(v, &n, "dirty", t.dirty, known);
	res_value(v, &n, "writeback", t.writeback, known);
	res_value(v, &n, "evicted", t.evicted, known);
	res_value(v, &n, "recently_evicted", t.recently_evicted, known);
	text_value(v, &n, "residency", m->res_source);
	text_value(v, &n, "states", states(m, states_buf, STATES_LEN));
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
	char st[STATES_LEN];
	int n;

	if (!m)
		return;
	n = values(m, v, st);
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

/*
 * The length of the valid UTF-8 character at s (not ASCII), 0 if there is
 * none: overlong forms, surrogates and values past U+10FFFF are invalid.
 */
static int utf8_char(const unsigned char *s)
{
	int n = s[0] >= 0xc2 && s[0] <= 0xdf ? 2 : s[0] >= 0xe0 && s[0] <= 0xef ? 3 :
		s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : 0;

	for (int i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0) ||
	    (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90))
		return 0;
	return n;
}

/*
 * A JSON string.  File names are bytes: a byte that is not part of valid
 * UTF-8 becomes the lone surrogate \udcXX, as Python's "surrogateescape"
 * writes it, so the JSON stays valid and os.fsencode() gives the name back.
 */
static void json_text(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', out);
	while (*p) {
		int n = *p < 0x80 ? 1 : utf8_char(p);

		if (*p == '"' || *p == '\\')
			fprintf(out, "\\%c", *p);
		else if (*p < 0x20)
			fprintf(out, "\\u%04x", *p);
		else if (!n)
			fprintf(out, "\\udc%02x", *p);
		else
			fwrite(p, 1, (size_t)n, out);
		p += n ? n : 1;
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
	char st[STATES_LEN];
	int n = values(m, v, st);

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
	char st[STATES_LEN];
	int n = values(m, v, st);

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
		fprintf(out, ",\"state\":\"%s\",\"note\":", pcv_file_state_name(f));
		json_text(out, f->unknown ? f->why : f->note);
		fputc('}', out);
	}
	fputs("]}\n", out);
	fflush(out);
}

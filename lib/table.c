// SPDX-License-Identifier: GPL-2.0
/* Named values as CSV or JSON (through pclab/json.h); see pclab/table.h. */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "pclab/table.h"

void pclab_table_init(struct pclab_table *t, struct pclab_value *v, int cap)
{
	t->v = v;
	t->n = 0;
	t->cap = cap;
	t->overflow = false;
}

struct pclab_value *pclab_table_add(struct pclab_table *t, enum pclab_type type, const char *fmt,
				    ...)
{
	static struct pclab_value scratch;
	struct pclab_value *x = &scratch;
	va_list ap;

	if (t->n < t->cap)
		x = &t->v[t->n++];
	else
		t->overflow = true;
	memset(x, 0, sizeof(*x));
	va_start(ap, fmt);
	vsnprintf(x->name, sizeof(x->name), fmt, ap);
	va_end(ap);
	x->type = type;
	return x;
}

void pclab_add_uint(struct pclab_table *t, const char *name, uint64_t u)
{
	pclab_table_add(t, PCLAB_UINT, "%s", name)->u = u;
}

void pclab_add_int(struct pclab_table *t, const char *name, long long i)
{
	pclab_table_add(t, PCLAB_INT, "%s", name)->i = i;
}

void pclab_add_real(struct pclab_table *t, const char *name, int decimals, double d)
{
	struct pclab_value *x = pclab_table_add(t, PCLAB_REAL, "%s", name);

	x->decimals = decimals;
	x->d = d;
}

void pclab_add_text(struct pclab_table *t, const char *name, const char *s)
{
	pclab_table_add(t, PCLAB_TEXT, "%s", name)->s = s;
}

void pclab_add_null(struct pclab_table *t, const char *name)
{
	pclab_table_add(t, PCLAB_NULL, "%s", name);
}

void pclab_add_object(struct pclab_table *t, const char *name, int members)
{
	pclab_table_add(t, PCLAB_OBJECT, "%s", name)->members = members;
}

void pclab_csv_text(FILE *out, const char *s)
{
	if (!s[strcspn(s, ",\"\r\n")]) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

/* One CSV field of a value: unknown (null, NaN, infinite) is empty */
static void csv_value(FILE *out, const struct pclab_value *v)
{
	switch (v->type) {
	case PCLAB_UINT:
		fprintf(out, "%" PRIu64, v->u);
		break;
	case PCLAB_INT:
		fprintf(out, "%lld", v->i);
		break;
	case PCLAB_REAL:
		if (isfinite(v->d))
			fprintf(out, "%.*f", v->decimals, v->d);
		break;
	case PCLAB_TEXT:
		pclab_csv_text(out, v->s);
		break;
	case PCLAB_NULL:
	case PCLAB_OBJECT:
		break;
	}
}

static void json_value(struct pclab_json *j, const struct pclab_value *v)
{
	switch (v->type) {
	case PCLAB_UINT:
		pclab_json_uint(j, v->name, v->u);
		break;
	case PCLAB_INT:
		pclab_json_int(j, v->name, v->i);
		break;
	case PCLAB_REAL:
		pclab_json_real(j, v->name, v->decimals, v->d);
		break;
	case PCLAB_TEXT:
		pclab_json_string(j, v->name, v->s);
		break;
	case PCLAB_NULL:
		pclab_json_null(j, v->name);
		break;
	case PCLAB_OBJECT:
		pclab_json_begin_object(j, v->name);
		break;
	}
}

void pclab_csv_header(FILE *out, const struct pclab_table *t)
{
	const struct pclab_value *object = NULL;
	int left = 0;
	bool first = true;

	for (int i = 0; i < t->n; i++) {
		const struct pclab_value *v = &t->v[i];

		if (v->type == PCLAB_OBJECT) {
			object = v;
			left = v->members;
			continue;
		}
		fputs(first ? "" : ",", out);
		first = false;
		if (left > 0) {
			left--;
			pclab_csv_text(out, object->name);
			fputc('_', out);
		}
		pclab_csv_text(out, v->name);
	}
	fputc('\n', out);
}

void pclab_csv_row(FILE *out, const struct pclab_table *t)
{
	bool first = true;

	for (int i = 0; i < t->n; i++) {
		if (t->v[i].type == PCLAB_OBJECT)
			continue;
		fputs(first ? "" : ",", out);
		first = false;
		csv_value(out, &t->v[i]);
	}
	fputc('\n', out);
}

void pclab_table_json_members(struct pclab_json *j, const struct pclab_table *t)
{
	int left = -1;		/* members of the open object still to come; -1: none open */

	for (int i = 0; i < t->n; i++) {
		const struct pclab_value *v = &t->v[i];

		json_value(j, v);
		if (v->type == PCLAB_OBJECT)
			left = v->members;
		else if (left > 0)
			left--;
		if (!left) {
			pclab_json_end(j);
			left = -1;
		}
	}
	/* a table cut short still closes its object */
	if (left > 0)
		pclab_json_end(j);
}

void pclab_table_json_object(FILE *out, const struct pclab_table *t)
{
	struct pclab_json j;

	pclab_json_init(&j, out);
	pclab_json_begin_object(&j, NULL);
	pclab_table_json_members(&j, t);
	pclab_json_end(&j);
}

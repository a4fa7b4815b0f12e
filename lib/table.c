// SPDX-License-Identifier: GPL-2.0
/* Named values as CSV or JSON; see pclab/table.h. */
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

void pclab_json_text(FILE *out, const char *s)
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

static void print_value(FILE *out, const struct pclab_value *v, bool json)
{
	switch (v->type) {
	case PCLAB_UINT:
		fprintf(out, "%" PRIu64, v->u);
		break;
	case PCLAB_INT:
		fprintf(out, "%lld", v->i);
		break;
	case PCLAB_REAL:
		/* "nan" and "inf" are no JSON numbers: unknown, as a missing value */
		if (isfinite(v->d))
			fprintf(out, "%.*f", v->decimals, v->d);
		else if (json)
			fputs("null", out);
		break;
	case PCLAB_TEXT:
		if (json)
			pclab_json_text(out, v->s);
		else
			pclab_csv_text(out, v->s);
		break;
	case PCLAB_NULL:
		if (json)
			fputs("null", out);
		break;
	case PCLAB_OBJECT:
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
		print_value(out, &t->v[i], false);
	}
	fputc('\n', out);
}

void pclab_json_members(FILE *out, const struct pclab_table *t)
{
	int left = -1;		/* members of the open object still to come; -1: none open */
	bool comma = false;

	for (int i = 0; i < t->n; i++) {
		const struct pclab_value *v = &t->v[i];

		if (comma)
			fputc(',', out);
		pclab_json_text(out, v->name);
		fputc(':', out);
		if (v->type == PCLAB_OBJECT) {
			fputc('{', out);
			left = v->members;
			comma = false;
		} else {
			print_value(out, v, true);
			if (left > 0)
				left--;
			comma = true;
		}
		if (!left) {
			fputc('}', out);
			left = -1;
			comma = true;
		}
	}
	/* a table cut short still closes its object */
	if (left > 0)
		fputc('}', out);
}

void pclab_json_object(FILE *out, const struct pclab_table *t)
{
	fputc('{', out);
	pclab_json_members(out, t);
	fputs("}\n", out);
}

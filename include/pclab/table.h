/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A row of named values, written as CSV (a header of the names, then rows)
 * or as a JSON object with the same names in the same order: one table
 * feeds both formats, so they cannot drift apart.
 */
#ifndef PCLAB_TABLE_H
#define PCLAB_TABLE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "pclab/json.h"

enum pclab_type {
	PCLAB_UINT,
	PCLAB_INT,
	PCLAB_REAL,	/* with .decimals digits after the point */
	PCLAB_TEXT,
	PCLAB_NULL,	/* unknown: empty in CSV, null in JSON */
	PCLAB_OBJECT,	/* the next .members values (no objects): nested in JSON, name_member in CSV */
};

struct pclab_value {
	char name[40];
	enum pclab_type type;
	int decimals;
	union {
		uint64_t u;
		long long i;
		double d;
		const char *s;	/* not copied: it must outlive the writing */
		int members;
	};
};

struct pclab_table {
	struct pclab_value *v;
	int n, cap;
	bool overflow;		/* a value did not fit in cap: a bug, shown by tests */
};

/* A table writing into v[0..cap), empty. */
void pclab_table_init(struct pclab_table *t, struct pclab_value *v, int cap);

/*
 * Appends a value named by the format; returns it for the caller to fill
 * in.  Past cap, a scratch value is returned and t->overflow is set.
 */
struct pclab_value *pclab_table_add(struct pclab_table *t, enum pclab_type type, const char *fmt,
				    ...) __attribute__((format(printf, 3, 4)));

void pclab_add_uint(struct pclab_table *t, const char *name, uint64_t u);
void pclab_add_int(struct pclab_table *t, const char *name, long long i);
void pclab_add_real(struct pclab_table *t, const char *name, int decimals, double d);
void pclab_add_text(struct pclab_table *t, const char *name, const char *s);
void pclab_add_null(struct pclab_table *t, const char *name);
/* Opens an object of the next `members` values (JSON nesting). */
void pclab_add_object(struct pclab_table *t, const char *name, int members);

/* The names, comma-separated, then a newline. */
void pclab_csv_header(FILE *out, const struct pclab_table *t);
/* The values, comma-separated, then a newline. */
void pclab_csv_row(FILE *out, const struct pclab_table *t);
/* The values as members of the object open in j, for a caller that adds members of its own. */
void pclab_table_json_members(struct pclab_json *j, const struct pclab_table *t);
/* {"name":value,...} and a newline. */
void pclab_table_json_object(FILE *out, const struct pclab_table *t);

/*
 * One CSV field (RFC 4180): as is, or in double quotes, with its quotes
 * doubled, when it holds a comma, a quote or a line break.
 */
void pclab_csv_text(FILE *out, const char *s);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A streaming JSON writer: values go straight to a FILE as they come, in
 * objects and arrays nested up to PCLAB_JSON_DEPTH deep.  The writer puts
 * the commas, colons and closing brackets, and a newline after each
 * top-level value, so that one value a line makes JSON Lines.  It is the
 * project's one writer of JSON from C: every output schema, flat or
 * nested, goes through it, so escaping and number formats have one home.
 *
 * Every value takes the key it has in the enclosing object, or NULL in an
 * array and at the top.  A misuse (a key missing in an object or given in
 * an array, an end with nothing open, nesting too deep) writes nothing and
 * is remembered: pclab_json_ok() tells, so tests catch it and programs
 * never crash on it.
 */
#ifndef PCLAB_JSON_H
#define PCLAB_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Deep enough for every schema of the project (pcviz's is 3: line, per_file, reclaimers) */
#define PCLAB_JSON_DEPTH 8

struct pclab_json {
	FILE *out;
	int depth;				/* containers open */
	bool array[PCLAB_JSON_DEPTH];	/* is open container i an array (else an object) */
	bool empty[PCLAB_JSON_DEPTH];	/* has container i no value yet: no comma before the next */
	bool misused;
};

/* A writer to out, with nothing open. */
void pclab_json_init(struct pclab_json *j, FILE *out);

/* Opens an object or an array as a value (key: see above); pclab_json_end() closes it. */
void pclab_json_begin_object(struct pclab_json *j, const char *key);
void pclab_json_begin_array(struct pclab_json *j, const char *key);
/* Closes the innermost object or array. */
void pclab_json_end(struct pclab_json *j);

/*
 * A string.  File names are bytes: a byte that is not part of valid UTF-8
 * becomes the lone surrogate \udcXX, as Python's "surrogateescape" writes
 * it, so the JSON stays valid and os.fsencode() gives the name back.
 * Control characters are \u00XX, quotes and backslashes escaped.
 */
void pclab_json_string(struct pclab_json *j, const char *key, const char *s);
void pclab_json_uint(struct pclab_json *j, const char *key, uint64_t u);
void pclab_json_int(struct pclab_json *j, const char *key, long long i);
/*
 * A number with `decimals` digits after the point; null when d is NaN or
 * infinite, which JSON has no numbers for: unknown, as a missing value.
 */
void pclab_json_real(struct pclab_json *j, const char *key, int decimals, double d);
void pclab_json_bool(struct pclab_json *j, const char *key, bool b);
void pclab_json_null(struct pclab_json *j, const char *key);

/*
 * Whether what was written is whole and well formed: no misuse, nothing
 * left open, and no error writing to the FILE.
 */
bool pclab_json_ok(const struct pclab_json *j);

#endif

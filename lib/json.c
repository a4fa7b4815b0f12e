// SPDX-License-Identifier: GPL-2.0
/* A streaming JSON writer; see pclab/json.h. */
#include <inttypes.h>
#include <math.h>

#include "pclab/json.h"

void pclab_json_init(struct pclab_json *j, FILE *out)
{
	j->out = out;
	j->depth = 0;
	j->misused = false;
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

/* s in double quotes, escaped (keys as well as values) */
static void write_string(FILE *out, const char *s)
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

/*
 * Before a value: the comma that separates it from the one before and its
 * key.  False, with nothing written, where the value cannot come: a key
 * is due in an object and forbidden elsewhere.
 */
static bool value_starts(struct pclab_json *j, const char *key)
{
	bool in_object = j->depth && !j->array[j->depth - 1];

	if (in_object != (key != NULL)) {
		j->misused = true;
		return false;
	}
	if (j->depth) {
		if (!j->empty[j->depth - 1])
			fputc(',', j->out);
		j->empty[j->depth - 1] = false;
	}
	if (key) {
		write_string(j->out, key);
		fputc(':', j->out);
	}
	return true;
}

/* After a value: a top-level one ends its line (JSON Lines) */
static void value_ends(struct pclab_json *j)
{
	if (!j->depth)
		fputc('\n', j->out);
}

static void begin(struct pclab_json *j, const char *key, bool array)
{
	if (j->depth == PCLAB_JSON_DEPTH) {
		j->misused = true;
		return;
	}
	if (!value_starts(j, key))
		return;
	fputc(array ? '[' : '{', j->out);
	j->array[j->depth] = array;
	j->empty[j->depth] = true;
	j->depth++;
}

void pclab_json_begin_object(struct pclab_json *j, const char *key)
{
	begin(j, key, false);
}

void pclab_json_begin_array(struct pclab_json *j, const char *key)
{
	begin(j, key, true);
}

void pclab_json_end(struct pclab_json *j)
{
	if (!j->depth) {
		j->misused = true;
		return;
	}
	j->depth--;
	fputc(j->array[j->depth] ? ']' : '}', j->out);
	value_ends(j);
}

void pclab_json_string(struct pclab_json *j, const char *key, const char *s)
{
	if (!value_starts(j, key))
		return;
	write_string(j->out, s);
	value_ends(j);
}

void pclab_json_uint(struct pclab_json *j, const char *key, uint64_t u)
{
	if (!value_starts(j, key))
		return;
	fprintf(j->out, "%" PRIu64, u);
	value_ends(j);
}

void pclab_json_int(struct pclab_json *j, const char *key, long long i)
{
	if (!value_starts(j, key))
		return;
	fprintf(j->out, "%lld", i);
	value_ends(j);
}

void pclab_json_real(struct pclab_json *j, const char *key, int decimals, double d)
{
	if (!value_starts(j, key))
		return;
	if (isfinite(d))
		fprintf(j->out, "%.*f", decimals, d);
	else
		fputs("null", j->out);
	value_ends(j);
}

void pclab_json_bool(struct pclab_json *j, const char *key, bool b)
{
	if (!value_starts(j, key))
		return;
	fputs(b ? "true" : "false", j->out);
	value_ends(j);
}

void pclab_json_null(struct pclab_json *j, const char *key)
{
	if (!value_starts(j, key))
		return;
	fputs("null", j->out);
	value_ends(j);
}

bool pclab_json_ok(const struct pclab_json *j)
{
	return !j->misused && !j->depth && !ferror(j->out);
}

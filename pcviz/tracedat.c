// SPDX-License-Identifier: GPL-2.0
/*
 * A trace.dat's structure, checked before libtracecmd reads it.  The
 * library trusts what the file says: a page size of 0 makes it divide by
 * zero, a section size of 2^32-1 overflows a heap buffer, a page that
 * claims more data than a page holds makes libtraceevent read past it, an
 * option without its NUL makes it read past the heap block, and so does a
 * printk format without its colon (one under 3 bytes: before it), a
 * CPUSTAT of size 0 writes before it, a HOOK that is no hook dereferences
 * NULL, an options section that points back to itself recurses until the
 * stack overflows, a format-7 file cut inside its header is freed twice
 * (docs/pcviz.md).  So every part of the file is checked against the file
 * and against what the format allows, in both versions (see
 * trace-cmd.dat.v6(5), .v7(5)):
 *
 * - the header; in version 7 its compression and the first options' offset;
 * - every section within the file: in version 7 they follow each other from
 *   the header to the end of the file, each where an option says;
 * - the format texts: the page header's fields where kbuffer reads them,
 *   every event format's parts, every field its print format names, every
 *   line of the printk formats;
 * - every option, by its kind; those a pclab guest's trace never has and
 *   whose text or tables libtracecmd parses (HOOK, PROCMAPS, TIME_SHIFT,
 *   GUEST, TSC2NSEC, STRINGS, BUFFER_TEXT) are refused;
 * - every data page's length within its page, where the data are not
 *   compressed; of compressed data, the chunks' sizes.
 *
 * What compressed sections hold is the library's to read: pcviz runs it in
 * a child process for that (replay.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tracedat.h"

struct reader {
	int fd;
	uint64_t size, pos;	/* of the file; where the next read starts */
	uint64_t end;		/* where the part being read ends: reads stop there */
	bool big;		/* the file's byte order */
	unsigned commit;	/* bytes of a data page's length word (the page header's commit) */
	uint32_t page;		/* the page size */
	const char *what;	/* the part being read, for the message */
	char *why;
	size_t len;
	/* the block of the file read last: small reads come from it */
	char *block;
	uint64_t block_at;
	size_t block_len;
};

/*
 * A block of the file: the page lengths of a trace's data, one a page, are
 * read from blocks, not by a system call each (twice the time libtracecmd
 * then spends on a 48 MiB trace).
 */
#define BLOCK (256u << 10)

/* Format texts pcviz reads whole (a kernel's are some KiB) */
#define MAX_FORMAT (1u << 20)
/* What a compressed section or chunk may inflate to */
#define MAX_INFLATED (256u << 20)

static int bad(struct reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int bad(struct reader *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->why, r->len, fmt, ap);
	va_end(ap);
	return -1;
}

static int past_end(struct reader *r)
{
	if (r->end < r->size)
		return bad(r, "corrupt trace.dat: %s goes past the end of its section", r->what);
	return bad(r, "trace.dat cut short or corrupt: %s goes past the end of the file", r->what);
}

static int get(struct reader *r, void *buf, size_t n)
{
	ssize_t got;

	if (r->pos > r->end || n > r->end - r->pos)
		return past_end(r);
	if (r->block && n <= BLOCK / 2 &&
	    (r->pos < r->block_at || r->pos + n > r->block_at + r->block_len)) {
		got = pread(r->fd, r->block, BLOCK, (off_t)r->pos);
		r->block_at = r->pos;
		r->block_len = got > 0 ? (size_t)got : 0;
	}
	if (r->block && r->pos >= r->block_at && r->pos + n <= r->block_at + r->block_len)
		memcpy(buf, r->block + (r->pos - r->block_at), n);
	else if (pread(r->fd, buf, n, (off_t)r->pos) != (ssize_t)n)
		return past_end(r);
	r->pos += n;
	return 0;
}

/* An unsigned number of bytes 1, 2, 4 or 8, in the file's byte order */
static int number(struct reader *r, size_t bytes, uint64_t *v)
{
	uint8_t b[8] = { 0 };

	if (get(r, b, bytes))
		return -1;
	*v = 0;
	for (size_t i = 0; i < bytes; i++)
		*v |= (uint64_t)b[r->big ? bytes - 1 - i : i] << (8 * i);
	return 0;
}

static int skip(struct reader *r, uint64_t n)
{
	if (r->pos > r->end || n > r->end - r->pos)
		return past_end(r);
	r->pos += n;
	return 0;
}

/* A section of size bytes, the size in bytes bytes before it */
static int sized(struct reader *r, size_t bytes, const char *what)
{
	uint64_t n;

	r->what = what;
	return number(r, bytes, &n) || skip(r, n);
}

/* A NUL-terminated string of at most max bytes */
static int string(struct reader *r, char *buf, size_t max)
{
	for (size_t i = 0; i < max; i++) {
		char c = 0;

		if (get(r, &c, 1))
			return -1;
		buf[i] = c;
		if (!c)
			return 0;
	}
	return bad(r, "corrupt trace.dat: %s is not a string", r->what);
}

/* A marker, such as "header_page" with its NUL */
static int marker(struct reader *r, const char *text, size_t n)
{
	char buf[16];

	r->what = text;
	if (get(r, buf, n))
		return -1;
	if (memcmp(buf, text, n))
		return bad(r, "corrupt trace.dat: no \"%s\" where it belongs", text);
	return 0;
}

/* The n bytes at the reader's position, read whole into *text (NUL added); free() it */
static int text_of(struct reader *r, uint64_t n, char **text)
{
	if (n > MAX_FORMAT)
		return bad(r, "corrupt trace.dat: %s of %llu bytes", r->what, (unsigned long long)n);
	*text = malloc(n + 1);
	if (!*text) {
		bad(r, "out of memory");
		return -1;
	}
	if (get(r, *text, n)) {
		free(*text);
		return -1;
	}
	(*text)[n] = 0;
	return 0;
}

/* The name a field line declares: "field:unsigned long ino[4];" gives "ino" */
static size_t field_name(const char *decl, size_t n, const char **name)
{
	size_t end = n, start;

	while (end && decl[end - 1] == ' ')
		end--;
	if (end && decl[end - 1] == ']') {
		while (end && decl[end - 1] != '[')
			end--;
		end -= !!end;
	}
	start = end;
	while (start && (decl[start - 1] == '_' || (decl[start - 1] >= '0' && decl[start - 1] <= '9') ||
			 ((decl[start - 1] | 0x20) >= 'a' && (decl[start - 1] | 0x20) <= 'z')))
		start--;
	*name = decl + start;
	return end - start;
}

/* Does the format declare a field of that name? */
static bool declares(const char *text, const char *name, size_t n)
{
	for (const char *f = strstr(text, "field:"); f; f = strstr(f + 6, "field:")) {
		const char *semi = strchr(f, ';'), *have;

		if (semi && field_name(f + 6, (size_t)(semi - f - 6), &have) == n &&
		    !memcmp(have, name, n))
			return true;
	}
	return false;
}

/*
 * The page header's format: the fields kbuffer reads a data page by, where
 * it reads them (a timestamp of 8 bytes at 0, the length word at 8, of 4
 * or 8 bytes, the data right after it); the length word's size is kept.
 */
static int page_header(struct reader *r, const char *text)
{
	static const char *const names[] = { "timestamp", "commit", "data" };
	unsigned offset[3] = { 0 }, size[3] = { 0 };
	bool seen[3] = { false };

	for (const char *f = strstr(text, "field:"); f; f = strstr(f + 6, "field:")) {
		const char *semi = strchr(f, ';'), *name, *o, *z, *eol;
		size_t n;

		if (!semi)
			break;
		n = field_name(f + 6, (size_t)(semi - f - 6), &name);
		/* this field's offset and size, on its own line */
		eol = semi + strcspn(semi, "\n");
		o = memmem(semi, (size_t)(eol - semi), "offset:", 7);
		z = memmem(semi, (size_t)(eol - semi), "size:", 5);
		for (int i = 0; i < 3 && o && z; i++)
			if (n == strlen(names[i]) && !memcmp(name, names[i], n) && !seen[i]) {
				seen[i] = true;
				offset[i] = (unsigned)strtoul(o + 7, NULL, 10);
				size[i] = (unsigned)strtoul(z + 5, NULL, 10);
			}
	}
	if (!seen[0] || !seen[1] || !seen[2] || offset[0] || size[0] != 8 || offset[1] != 8 ||
	    (size[1] != 4 && size[1] != 8) || offset[2] != 8 + size[1])
		return bad(r, "corrupt trace.dat: the page header's format is not one libtraceevent "
			   "reads pages by (timestamp, commit, data)");
	r->commit = size[1];
	return 0;
}

/*
 * An event's format: its name, ID, fields and print format, each where the
 * kernel writes it, and every field the print format names (REC->name)
 * declared: libtraceevent dereferences NULL parsing __print_symbolic() of a
 * field that is not there.
 */
static int event_format(struct reader *r, const char *text)
{
	const char *print = strstr(text, "\nprint fmt: ");

	if (strncmp(text, "name: ", 6) || !strstr(text, "\nID: ") || !strstr(text, "\nformat:\n") ||
	    !print)
		return bad(r, "corrupt trace.dat: %s is not an event format (name, ID, format, print "
			   "fmt)", r->what);
	for (const char *rec = strstr(print, "REC->"); rec; rec = strstr(rec + 5, "REC->")) {
		const char *name = rec + 5;
		size_t n = 0;

		while (name[n] == '_' || (name[n] >= '0' && name[n] <= '9') ||
		       ((name[n] | 0x20) >= 'a' && (name[n] | 0x20) <= 'z'))
			n++;
		if (!declares(text, name, n))
			return bad(r, "corrupt trace.dat: the print format of event \"%.*s\" names "
				   "a field \"%.*s\" it does not have",
				   (int)strcspn(text + 6, "\n"), text + 6, (int)(n > 64 ? 64 : n), name);
	}
	return 0;
}

/* A format text of size bytes, the size in bytes bytes before it, checked by check() */
static int format(struct reader *r, size_t bytes, const char *what,
		  int (*check)(struct reader *r, const char *text))
{
	uint64_t n;
	char *text = NULL;
	int status;

	r->what = what;
	if (number(r, bytes, &n) || text_of(r, n, &text) || !text)
		return -1;
	status = check(r, text);
	free(text);
	return status;
}

/* What libtraceevent reads of the headers: the page's and the event's */
static int headers(struct reader *r)
{
	return marker(r, "header_page", 12) ||
	       format(r, 8, "the page header's format", page_header) ||
	       marker(r, "header_event", 13) || sized(r, 8, "the event header's format");
}

/* The ftrace events' formats, then the event systems' */
static int ftrace_formats(struct reader *r)
{
	uint64_t count;

	r->what = "the ftrace formats";
	if (number(r, 4, &count))
		return -1;
	for (uint64_t i = 0; i < count; i++)
		if (format(r, 8, "an ftrace format", event_format))
			return -1;
	return 0;
}

static int event_formats(struct reader *r)
{
	uint64_t count, systems;
	char name[256];

	r->what = "the event formats";
	if (number(r, 4, &systems))
		return -1;
	for (uint64_t s = 0; s < systems; s++) {
		r->what = "an event system's name";
		if (string(r, name, sizeof(name)) || number(r, 4, &count))
			return -1;
		if (!name[0] || strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				       "0123456789_-") != strlen(name))
			return bad(r, "corrupt trace.dat: an event system named \"%.32s\"", name);
		for (uint64_t i = 0; i < count; i++)
			if (format(r, 8, "an event format", event_format))
				return -1;
	}
	return 0;
}

/*
 * The ring-buffer pages of one CPU: each begins with a timestamp and a
 * length word whose low 27 bits are the length of the data (libtraceevent's
 * kbuffer masks them so), which must fit in the page after that header.
 */
static int pages(struct reader *r, int cpu, uint64_t offset, uint64_t size)
{
	uint64_t head = 8 + r->commit;

	for (uint64_t at = offset; at + head <= offset + size; at += r->page) {
		uint64_t commit, room = (offset + size - at < r->page ? offset + size - at : r->page) -
					head;

		r->pos = at + 8;
		r->what = "a data page";
		if (number(r, r->commit, &commit))
			return -1;
		if ((commit & ((1u << 27) - 1)) > room)
			return bad(r, "corrupt trace.dat: the data page at byte %llu (CPU %d) claims "
				   "%llu bytes, more than it holds", (unsigned long long)at, cpu,
				   (unsigned long long)(commit & ((1u << 27) - 1)));
	}
	return 0;
}

/*
 * Compressed data of one CPU: a count of chunks, each its compressed and
 * inflated sizes and its bytes, within the data; a chunk inflates to whole
 * pages.
 */
static int chunks(struct reader *r, int cpu, uint64_t offset, uint64_t size)
{
	uint64_t count, csize, usize;

	r->pos = offset;
	r->end = offset + 4 + size < r->end ? offset + 4 + size : r->end;
	r->what = "the chunks of a CPU's compressed data";
	if (number(r, 4, &count))
		return -1;
	for (uint64_t i = 0; i < count; i++) {
		if (number(r, 4, &csize) || number(r, 4, &usize) || skip(r, csize))
			return -1;
		if (!usize || usize % r->page || usize > MAX_INFLATED)
			return bad(r, "corrupt trace.dat: a chunk of CPU %d's data inflates to %llu "
				   "bytes, no whole number of pages up to 256 MiB", cpu,
				   (unsigned long long)usize);
	}
	return 0;
}

/* The data of one CPU at offset, of size bytes, within [from, to) of the file */
static int cpu_data(struct reader *r, int cpu, uint64_t offset, uint64_t size, uint64_t from,
		    uint64_t to, bool compressed)
{
	if (offset <= r->size && size > r->size - offset && to == r->size)
		return bad(r, "trace.dat cut short or corrupt: the data of CPU %d go past the end of "
			   "the file", cpu);
	if (offset < from || offset > to || size > to - offset)
		return bad(r, "corrupt trace.dat: the data of CPU %d lie outside their section or "
			   "the file", cpu);
	r->end = to;
	return compressed ? chunks(r, cpu, offset, size) : pages(r, cpu, offset, size);
}

/* Text options: NUL-terminated where libtracecmd strdup()s or strtoll()s them */
static bool is_text(uint64_t id)
{
	return id == 1 || id == 2 || id == 4 || id == 5 || id == 7 || id == 9;
}

/* The options pcviz refuses: never in a trace a pclab guest records, parsed by libtracecmd */
static const char *refused_option(uint64_t id)
{
	switch (id) {
	case 6: return "HOOK";
	case 10: return "PROCMAPS";
	case 12: return "TIME_SHIFT";
	case 13: return "GUEST";
	case 14: return "TSC2NSEC";
	case 15: return "STRINGS";
	case 22: return "BUFFER_TEXT";
	default: return NULL;
	}
}

/*
 * The printk formats, "ADDRESS : FORMAT" a line, the text ending at a NUL.
 * libtraceevent (tep_parse_printk_formats(), tep_register_print_string())
 * takes the format from the second byte after the colon, past the line's
 * end when it has none, and reads 3 bytes before a format shorter than 3
 * (its leading quote aside): every line has its colon and such a format.
 */
static int printk_formats(struct reader *r)
{
	uint64_t n, end, line = 0, after = 0;
	bool colon = false, address = false, quote = false, text = false;
	char buf[4096] = { 0 };

	r->what = "the printk formats";
	if (number(r, 4, &n))
		return -1;
	if (n > r->end - r->pos)
		return past_end(r);
	for (end = r->pos + n; r->pos < end;) {
		size_t k = end - r->pos < sizeof(buf) ? (size_t)(end - r->pos) : sizeof(buf);
		uint64_t at = r->pos;

		if (get(r, buf, k))
			return -1;
		for (size_t i = 0; i <= k && !(i == k && r->pos < end); i++, at++) {
			char c = i < k ? buf[i] : 0;

			if (c && c != '\n') {
				if (!text)
					line = at;
				text = true;
				if (colon && after++ == 1)
					quote = c == '"';
				else if (!colon && c != ':')
					address = true;
				else if (!colon && address)
					colon = true;
				continue;
			}
			if (text && (!colon || !after || after - 1 - quote < 3))
				return bad(r, "corrupt trace.dat: the printk format at byte %llu is no "
					   "\"ADDRESS : FORMAT\" of 3 bytes or more",
					   (unsigned long long)line);
			text = colon = address = quote = false;
			after = 0;
			if (!c) {	/* the text ends: libtraceevent reads no further */
				r->pos = end;
				return 0;
			}
		}
	}
	return 0;
}

/* A format-7 section: where it starts, what it is, how big */
struct section {
	uint64_t at, size;
	uint16_t id, flags;
	uint32_t name;		/* its description: an offset into the strings sections */
};

struct sections {
	struct section *s;
	size_t n;
};

static const struct section *section_at(const struct sections *all, uint64_t at)
{
	for (size_t i = 0; i < all->n; i++)
		if (all->s[i].at == at)
			return &all->s[i];
	return NULL;
}

/* A format-7 option pointing at a section: one of its kind, where the option says */
static int points_at(struct reader *r, const struct sections *all, uint64_t at, uint16_t id,
		     const struct section **s)
{
	*s = section_at(all, at);
	if (!*s || (*s)->id != id)
		return bad(r, "corrupt trace.dat: %s points at byte %llu, where no section of its "
			   "kind (%u) begins", r->what, (unsigned long long)at, id);
	return 0;
}

/*
 * A format-7 BUFFER option (the body at r->pos, n bytes): its flyrecord
 * section, name, clock, page size and each CPU's data in the section.
 */
static int buffer_v7(struct reader *r, const struct sections *all, uint64_t n)
{
	uint64_t body_end = r->pos + n, at, page, cpus, cpu, offset, size, next;
	const struct section *fly;
	char text[256];

	r->end = body_end;
	r->what = "a BUFFER option";
	if (number(r, 8, &at) || points_at(r, all, at, 3, &fly) || string(r, text, sizeof(text)) ||
	    string(r, text, sizeof(text)) || number(r, 4, &page) || number(r, 4, &cpus))
		return -1;
	if (page != r->page)
		return bad(r, "corrupt trace.dat: a buffer of pages of %llu bytes in a trace of "
			   "pages of %u", (unsigned long long)page, r->page);
	if (cpus > (body_end - r->pos) / 20 || (body_end - r->pos) % 20 || cpus * 20 != body_end - r->pos)
		return bad(r, "corrupt trace.dat: a BUFFER option of %llu CPUs in %llu bytes",
			   (unsigned long long)cpus, (unsigned long long)(body_end - r->pos));
	for (uint64_t c = 0; c < cpus; c++) {
		r->end = body_end;
		r->what = "a BUFFER option";
		if (number(r, 4, &cpu) || number(r, 8, &offset) || number(r, 8, &size))
			return -1;
		next = r->pos;
		if (cpu_data(r, (int)cpu, offset, size, fly->at + 16, fly->at + 16 + fly->size,
			     fly->flags & 1))
			return -1;
		r->pos = next;
	}
	return 0;
}

/*
 * One option (its body at r->pos, n bytes, within the file); in format 7,
 * with the sections it may point at.  Leaves r->pos after it.
 */
static int option(struct reader *r, uint64_t id, uint64_t n, const struct sections *all)
{
	uint64_t start = r->pos, end = r->end, at;
	const struct section *s;
	char last = 1;
	const char *refused = refused_option(id);

	if (refused)
		return bad(r, "a trace.dat with a %s option (%llu), which pcviz does not replay",
			   refused, (unsigned long long)id);
	r->end = start + n;
	if (is_text(id)) {
		r->what = "a text option";
		if (n && (skip(r, n - 1) || get(r, &last, 1)))
			return -1;
		if (last)
			return bad(r, "corrupt trace.dat: option %llu is no NUL-terminated text",
				   (unsigned long long)id);
	} else if (id == 8 && n != 4) {
		return bad(r, "corrupt trace.dat: a CPUCOUNT option of %llu bytes, not 4",
			   (unsigned long long)n);
	} else if (id == 11 && n != 8) {
		return bad(r, "corrupt trace.dat: a TRACEID option of %llu bytes, not 8",
			   (unsigned long long)n);
	} else if (id == 3 && !all) {
		/* format 6: the buffer's CPU table's offset, then its name */
		r->what = "a BUFFER option";
		if (n < 9)
			return bad(r, "corrupt trace.dat: a BUFFER option of %llu bytes",
				   (unsigned long long)n);
		if (number(r, 8, &at) || skip(r, n - 9) || get(r, &last, 1))
			return -1;
		if (last || at > r->size)
			return bad(r, "corrupt trace.dat: a BUFFER option without its name or beyond "
				   "the file");
	} else if (id == 3) {
		if (buffer_v7(r, all, n))
			return -1;
	} else if (id >= 16 && id <= 21) {
		r->what = "an option naming a section";
		if (!all)
			return bad(r, "corrupt trace.dat: a format-7 option (%llu) in a format-6 file",
				   (unsigned long long)id);
		if (n != 8 || number(r, 8, &at) || points_at(r, all, at, (uint16_t)id, &s))
			return n != 8 ? bad(r, "corrupt trace.dat: option %llu of %llu bytes, not 8",
					    (unsigned long long)id, (unsigned long long)n) : -1;
	}
	r->pos = start + n;
	r->end = end;
	return 0;
}

/* Format 6's options: (id, size, body) until an id of 0 */
static int options_v6(struct reader *r)
{
	uint64_t id, n;

	for (;;) {
		r->what = "the options";
		if (number(r, 2, &id))
			return -1;
		if (!id)
			return 0;
		r->what = "an option";
		if (number(r, 4, &n))
			return -1;
		if (n > r->end - r->pos)
			return past_end(r);
		if (option(r, id, n, NULL))
			return -1;
	}
}

/* Version 6 after the first bytes: every section, the options, then the pages */
static int check_v6(struct reader *r)
{
	uint64_t cpus, offset, size, next;
	char kind[10] = "";

	if (headers(r) || ftrace_formats(r) || event_formats(r) ||
	    sized(r, 4, "the kernel symbols") || printk_formats(r) ||
	    sized(r, 8, "the command lines"))
		return -1;
	r->what = "the number of CPUs";
	if (number(r, 4, &cpus))
		return -1;
	/* the options are optional: trace-cmd writes them, older tools did not */
	r->what = "the data's kind";
	if (get(r, kind, sizeof(kind)))
		return -1;
	if (!memcmp(kind, "options  ", 10) && (options_v6(r) || get(r, kind, sizeof(kind))))
		return -1;
	if (!memcmp(kind, "latency  ", 10))
		return 0;	/* text to the end */
	if (memcmp(kind, "flyrecord", 10))
		return bad(r, "corrupt trace.dat: neither \"flyrecord\" nor \"latency\" data");
	if (cpus > (r->size - r->pos) / 16)
		return bad(r, "corrupt trace.dat: %llu CPUs, more than the file can hold",
			   (unsigned long long)cpus);
	for (uint64_t c = 0; c < cpus; c++) {
		r->what = "the CPUs' data table";
		r->end = r->size;
		if (number(r, 8, &offset) || number(r, 8, &size))
			return -1;
		next = r->pos;
		if (cpu_data(r, (int)c, offset, size, 0, r->size, false))
			return -1;
		r->pos = next;	/* back to the table */
	}
	return 0;
}

/*
 * The contents of an uncompressed format-7 section, each filling it
 * exactly; a compressed one, its compressed and inflated sizes.
 */
static int section_contents(struct reader *r, const struct section *s, bool compression)
{
	uint64_t csize, usize;
	int status = 0;
	char last = 0;

	r->pos = s->at + 16;
	r->end = s->at + 16 + s->size;
	if (s->flags & ~1u || ((s->flags & 1) && !compression))
		return bad(r, "corrupt trace.dat: a section (%u) with flags %#x in a trace %s",
			   s->id, s->flags, compression ? "compressed" : "not compressed");
	if (s->flags & 1) {
		if (s->id == 0)
			return bad(r, "a trace.dat with a compressed options section, which pcviz "
				   "cannot check");
		if (s->id == 3)
			return 0;	/* the data: chunks, checked by their BUFFER option */
		r->what = "a compressed section";
		if (number(r, 4, &csize) || number(r, 4, &usize))
			return -1;
		if (csize != s->size - 8 || usize > MAX_INFLATED)
			return bad(r, "corrupt trace.dat: a compressed section of %llu bytes says %llu, "
				   "inflating to %llu", (unsigned long long)s->size,
				   (unsigned long long)csize, (unsigned long long)usize);
		return 0;
	}
	switch (s->id) {
	case 15:
		r->what = "the strings";
		if (s->size && (skip(r, s->size - 1) || get(r, &last, 1)))
			return -1;
		return s->size && last ? bad(r, "corrupt trace.dat: the strings do not end with a "
					     "NUL") : 0;
	case 16: status = headers(r); break;
	case 17: status = ftrace_formats(r); break;
	case 18: status = event_formats(r); break;
	case 19: status = sized(r, 4, "the kernel symbols"); break;
	case 20: status = printk_formats(r); break;
	case 21: status = sized(r, 8, "the command lines"); break;
	default: return 0;	/* options, strings and data: by what points at them */
	}
	if (!status && r->pos != r->end)
		return bad(r, "corrupt trace.dat: section %u holds %llu bytes more than its contents",
			   s->id, (unsigned long long)(r->end - r->pos));
	return status;
}

/*
 * Every section's description is a string of the strings sections, which
 * libtracecmd joins: an offset into them, within them.
 */
static int names(struct reader *r, const struct sections *all)
{
	uint64_t strings = 0, inflated;

	for (size_t i = 0; i < all->n; i++) {
		if (all->s[i].id != 15)
			continue;
		r->pos = all->s[i].at + 20;
		r->end = all->s[i].at + 16 + all->s[i].size;
		r->what = "the strings";
		if (all->s[i].flags & 1 && number(r, 4, &inflated))
			return -1;
		strings += all->s[i].flags & 1 ? inflated : all->s[i].size;
	}
	for (size_t i = 0; i < all->n; i++)
		if (all->s[i].name >= strings)
			return bad(r, "corrupt trace.dat: the section at byte %llu is described by "
				   "string %u, of %llu bytes of strings",
				   (unsigned long long)all->s[i].at, all->s[i].name,
				   (unsigned long long)strings);
	return 0;
}

/* Format 7's options sections, from the first, each once (a cycle would never end) */
static int options_v7(struct reader *r, const struct sections *all, uint64_t at)
{
	bool *seen = calloc(all->n + 1, sizeof(*seen));
	const struct section *s;
	uint64_t id, n, next;
	int status = 0;

	if (!seen)
		return bad(r, "out of memory");
	while (at && !status) {
		r->what = "an options section's offset";
		r->end = r->size;
		if (points_at(r, all, at, 0, &s) || seen[s - all->s]) {
			status = s && seen[s - all->s] ? bad(r, "corrupt trace.dat: the options "
							      "sections point back to one already "
							      "read") : -1;
			break;
		}
		seen[s - all->s] = true;
		r->pos = s->at + 16;
		r->end = s->at + 16 + s->size;
		for (next = UINT64_MAX; !status && next == UINT64_MAX;) {
			r->what = "an option";
			r->end = s->at + 16 + s->size;
			if (number(r, 2, &id) || number(r, 4, &n) || (n > r->end - r->pos && past_end(r))) {
				status = -1;
			} else if (!id) {
				status = n != 8 || number(r, 8, &next) || r->pos != r->end ?
					 bad(r, "corrupt trace.dat: an options section that does not end "
					     "with its last option (DONE)") : 0;
			} else {
				status = option(r, id, n, all);
			}
		}
		at = next;
	}
	free(seen);
	return status;
}

/* Version 7 after the page size */
static int check_v7(struct reader *r)
{
	struct sections all = { 0 };
	uint64_t first, v;
	char name[64], version[64];
	bool compression;
	int status = 0;

	r->what = "the compression's name";
	if (string(r, name, sizeof(name)))
		return -1;
	r->what = "the compression's version";
	if (string(r, version, sizeof(version)))
		return -1;
	r->what = "the first options' offset";
	if (number(r, 8, &first))
		return -1;
	compression = strcmp(name, "none");
	if (compression && strcmp(name, "zstd"))
		return bad(r, "a trace.dat compressed with \"%.32s\", which pcviz cannot read", name);
	/* the sections, one after another to the end of the file */
	while (r->pos < r->size && !status) {
		struct section *more, *s;

		if (!(all.n % 64)) {
			more = realloc(all.s, (all.n + 64) * sizeof(*more));
			if (!more) {
				status = bad(r, "out of memory");
				break;
			}
			all.s = more;
		}
		s = &all.s[all.n];
		s->at = r->pos;
		r->what = "a section's header";
		if (number(r, 2, &v) || (s->id = (uint16_t)v, number(r, 2, &v)) ||
		    (s->flags = (uint16_t)v, number(r, 4, &v)) ||
		    (s->name = (uint32_t)v, number(r, 8, &s->size))) {
			status = -1;
		} else {
			r->what = "a section";
			status = skip(r, s->size);
			all.n++;
		}
	}
	for (size_t i = 0; i < all.n && !status; i++) {
		if (all.s[i].id != 0 && all.s[i].id != 3 && all.s[i].id != 15 &&
		    (all.s[i].id < 16 || all.s[i].id > 21))
			status = bad(r, "corrupt trace.dat: a section of unknown kind %u at byte %llu",
				     all.s[i].id, (unsigned long long)all.s[i].at);
		else
			status = section_contents(r, &all.s[i], compression);
	}
	if (!status)
		status = names(r, &all);
	if (!status)
		status = options_v7(r, &all, first);
	if (!status && !first)
		status = bad(r, "corrupt trace.dat: no options section");
	free(all.s);
	return status;
}

int pcv_tracedat_check(int fd, uint32_t *page_size, char *why, size_t len)
{
	struct reader r = { .fd = fd, .why = why, .len = len, .what = "the file's first bytes" };
	unsigned char magic[10];
	uint64_t endian, long_size, page;
	char version[16] = "";
	struct stat st;
	int status;

	if (fstat(fd, &st))
		return bad(&r, "%s", strerror(errno));
	if (!S_ISREG(st.st_mode))
		return bad(&r, "not a regular file, so no trace.dat");
	r.size = r.end = (uint64_t)st.st_size;
	if (r.size < sizeof(magic) || pread(fd, magic, sizeof(magic), 0) != sizeof(magic) ||
	    memcmp(magic, "\027\010\104tracing", sizeof(magic)))
		return bad(&r, "not a trace-cmd trace.dat");
	r.pos = sizeof(magic);
	if (string(&r, version, sizeof(version)) || number(&r, 1, &endian))
		return -1;
	r.big = endian != 0;
	if (number(&r, 1, &long_size) || number(&r, 4, &page))
		return -1;
	if ((long_size != 4 && long_size != 8) || page < 4096 || page > 65536 || (page & (page - 1)))
		return bad(&r, "corrupt trace.dat: longs of %llu bytes, pages of %llu",
			   (unsigned long long)long_size, (unsigned long long)page);
	r.page = (uint32_t)page;
	*page_size = r.page;
	r.commit = (unsigned)long_size;
	if (strcmp(version, "6") && strcmp(version, "7"))
		return bad(&r, "a trace.dat of version \"%.8s\": pcviz reads versions 6 and 7",
			   version);
	r.block = malloc(BLOCK);	/* without it, reads one by one */
	status = strcmp(version, "6") ? check_v7(&r) : check_v6(&r);
	free(r.block);
	return status;
}

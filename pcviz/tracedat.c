// SPDX-License-Identifier: GPL-2.0
/*
 * A trace.dat's structure, checked before libtracecmd reads it.  The
 * library trusts the sizes in the file: a page size of 0 makes it divide by
 * zero, a section size of 2^32-1 overflows a heap buffer, a page that
 * claims more data than a page holds makes libtraceevent read past it
 * (docs/pcviz.md).  Every version: the first bytes.  Version 6 (not
 * compressed): every section within the file, every data page's length
 * within its page.  Version 7 compresses its sections, so only its start is
 * checked; the rest is libtracecmd's.  See trace-cmd.dat.v6(5), .v7(5).
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tracedat.h"

struct reader {
	int fd;
	uint64_t size, pos;	/* of the file; where the next read starts */
	bool big;		/* the file's byte order */
	const char *what;	/* the part being read, for the message */
	char *why;
	size_t len;
};

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
	return bad(r, "trace.dat cut short or corrupt: %s goes past the end of the file", r->what);
}

static int get(struct reader *r, void *buf, size_t n)
{
	if (n > r->size - r->pos || pread(r->fd, buf, n, (off_t)r->pos) != (ssize_t)n)
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
	if (n > r->size - r->pos)
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
		if (get(r, buf + i, 1))
			return -1;
		if (!buf[i])
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

/*
 * The ring-buffer pages of one CPU: each begins with a timestamp and a
 * word whose low 27 bits are the length of the data (libtraceevent's
 * kbuffer masks them so), which must fit in the page after that header.
 */
static int pages(struct reader *r, int cpu, uint64_t offset, uint64_t size, uint32_t page,
		 unsigned long_size)
{
	uint64_t head = 8 + long_size;

	if (offset > r->size || size > r->size - offset)
		return bad(r, "trace.dat cut short or corrupt: the data of CPU %d go past the end of "
			   "the file", cpu);
	for (uint64_t at = offset; at + head <= offset + size; at += page) {
		uint64_t commit, room = (offset + size - at < page ? offset + size - at : page) - head;

		r->pos = at + 8;
		r->what = "a data page";
		if (number(r, long_size, &commit))
			return -1;
		if ((commit & ((1u << 27) - 1)) > room)
			return bad(r, "corrupt trace.dat: the data page at byte %llu (CPU %d) claims "
				   "%llu bytes, more than it holds", (unsigned long long)at, cpu,
				   (unsigned long long)(commit & ((1u << 27) - 1)));
	}
	return 0;
}

/* Version 6 after the first bytes: every section, then the pages */
static int check_v6(struct reader *r, uint32_t page, unsigned long_size)
{
	uint64_t count, systems, cpus, id, offset, size, next;
	char name[4096] = "", kind[10] = "";

	if (marker(r, "header_page", 12) || sized(r, 8, "the page header's format") ||
	    marker(r, "header_event", 13) || sized(r, 8, "the event header's format"))
		return -1;
	r->what = "the ftrace formats";
	if (number(r, 4, &count))
		return -1;
	for (uint64_t i = 0; i < count; i++)
		if (sized(r, 8, "an ftrace format"))
			return -1;
	r->what = "the event formats";
	if (number(r, 4, &systems))
		return -1;
	for (uint64_t s = 0; s < systems; s++) {
		r->what = "an event system's name";
		if (string(r, name, sizeof(name)) || number(r, 4, &count))
			return -1;
		for (uint64_t i = 0; i < count; i++)
			if (sized(r, 8, "an event format"))
				return -1;
	}
	if (sized(r, 4, "the kernel symbols") || sized(r, 4, "the printk formats") ||
	    sized(r, 8, "the command lines"))
		return -1;
	r->what = "the number of CPUs";
	if (number(r, 4, &cpus))
		return -1;
	if (marker(r, "options  ", 10))
		return -1;
	for (;;) {
		r->what = "the options";
		if (number(r, 2, &id))
			return -1;
		if (!id)
			break;
		if (sized(r, 4, "an option"))
			return -1;
	}
	r->what = "the data's kind";
	if (get(r, kind, sizeof(kind)))
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
		if (number(r, 8, &offset) || number(r, 8, &size))
			return -1;
		next = r->pos;
		if (pages(r, (int)c, offset, size, page, long_size))
			return -1;
		r->pos = next;	/* back to the table */
	}
	return 0;
}

int pcv_tracedat_check(int fd, char *why, size_t len)
{
	struct reader r = { .fd = fd, .why = why, .len = len, .what = "the file's first bytes" };
	unsigned char magic[10];
	uint64_t endian, long_size, page;
	char version[16] = "";
	struct stat st;

	if (fstat(fd, &st))
		return bad(&r, "%s", strerror(errno));
	if (!S_ISREG(st.st_mode))
		return bad(&r, "not a regular file, so no trace.dat");
	r.size = (uint64_t)st.st_size;
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
	if (!strcmp(version, "6"))
		return check_v6(&r, (uint32_t)page, (unsigned)long_size);
	if (strcmp(version, "7"))
		return bad(&r, "a trace.dat of version \"%.8s\": pcviz reads versions 6 and 7", version);
	return 0;
}

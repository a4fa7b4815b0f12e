// SPDX-License-Identifier: GPL-2.0
/* Live events from a private tracefs instance (libtracefs, libtraceevent). */
#include <errno.h>
#include <fcntl.h>
#include <kbuffer.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <tracefs.h>
#include <unistd.h>

#include "decode.h"
#include "pclab/clock.h"
#include "procfs.h"
#include "tracing.h"

#define MAX_STALE 32

/*
 * The per-folio events of the folios an uncached read brings in and drops,
 * five a folio, are left out and counted from the read's dropbehind_call,
 * where the kernel tells them apart (the series' patches 17 to 19).  Their
 * uncounted_ twins fire for every other folio; a filter would keep them
 * out of the ring buffer too, but each would still be built first, which
 * costs an uncached stream 12.5% (docs/bench.md).  The map does not need
 * them (cachestat), nor do the pages' states, which they leave as they
 * found them; the log shows the reads' calls instead.  The add events of
 * the folios an uncached write brings in are counted from their marks,
 * streamed; their pfns, and so their cgroups, are not known.  LRU
 * insertions of such folios are left out uncounted: they name no file.
 */
static const struct summed {
	enum pcv_kind kind;
	const char *twin;	/* the event that leaves them out, in the kind's system */
} summed[] = {
	{ PCV_EV_ADD, "uncounted_mm_filemap_add_to_page_cache" },
	{ PCV_EV_DELETE, "uncounted_mm_filemap_delete_from_page_cache" },
	{ PCV_EV_DB_MARK, "uncounted_dropbehind_mark" },
	{ PCV_EV_DB_END, "uncounted_dropbehind_end" },
	{ PCV_EV_LRU_INSERT, "uncounted_mm_lru_insertion" },
};
#define NSUMMED (sizeof(summed) / sizeof(summed[0]))
/* The kinds that must all be on to sum: the summed ones and the calls they are counted from */
#define SUMMING_KINDS (1u << PCV_EV_ADD | 1u << PCV_EV_DELETE | 1u << PCV_EV_DB_MARK | \
		       1u << PCV_EV_DB_END | 1u << PCV_EV_DB_CALL)

/* Task names remembered (a slot per pid modulo this), and for how long */
#define COMM_SLOTS 256
#define COMM_TTL_S 10.0

static struct {
	struct tracefs_instance *inst;
	struct tep_handle *tep;
	struct pcv_decoder dec;
	struct tracefs_cpu **cpu;
	int ncpu;
	void *page;
	struct kbuffer *kbuf;
	uint64_t lost_seen;
	int stale;
	int kpagecgroup;	/* /proc/kpagecgroup, -1 when it cannot be read */
	/* the event enabled for each spec, a twin of summed[] (NULL: the spec's own) */
	const char *name[PCV_NSPECS];
	/* dropbehind_call's counts of what the twins leave out (NULL: not summing) */
	struct tep_format_field *created, *created_pages, *dropped_pages;
	/* pid -> comm for the evictions: /proc read once per task, not per event */
	struct {
		int pid;
		double when;
		char comm[16];
	} comm[COMM_SLOTS];
	/* pid -> cgroup ID for kswapd's wakers, likewise (0: unknown) */
	struct {
		int pid;
		double when;
		uint64_t id;
	} cgroup[COMM_SLOTS];
} T = { .kpagecgroup = -1 };

struct stale_list {
	char *name[MAX_STALE];
	int n;
};

/*
 * Is pid a running pcviz (our instance, or another live viewer's)?  By
 * name, so a build under another name (pcviz-asan) counts too.
 */
static bool live_pcviz(int pid)
{
	char path[64], comm[32];

	if (pid == getpid())
		return true;
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	return pclab_read_file(path, comm, sizeof(comm)) > 0 && !strncmp(comm, "pcviz", 5);
}

static int collect_stale(const char *name, void *ctx)
{
	struct stale_list *l = ctx;
	int pid;
	char end;

	if (sscanf(name, "pcviz-%d%c", &pid, &end) == 1 && pid > 0 && !live_pcviz(pid) &&
	    l->n < MAX_STALE)
		l->name[l->n++] = strdup(name);
	return 0;
}

static void remove_instance(struct tracefs_instance *inst)
{
	tracefs_event_disable(inst, NULL, NULL);
	tracefs_instance_destroy(inst);
	tracefs_instance_free(inst);
}

static void remove_stale(void)
{
	struct stale_list l = { .n = 0 };

	tracefs_instances_walk(collect_stale, &l);
	for (int i = 0; i < l.n; i++) {
		struct tracefs_instance *inst = l.name[i] ? tracefs_instance_alloc(NULL, l.name[i]) : NULL;

		if (inst) {
			remove_instance(inst);
			T.stale++;
		}
		free(l.name[i]);
	}
}

/* The in-kernel filter for one kind of event, NULL for none. */
static char *filter_for(const struct pcv_model *m, enum pcv_filter kind)
{
	/* a term is at most 60 characters: no truncation, p stays in s */
	size_t len = 64 + (size_t)m->nfiles * 80;
	char *s = malloc(len), *p = s;

	if (!s)
		return NULL;
	*s = 0;
	switch (kind) {
	case PCV_FILTER_DEV_INO:
		for (int i = 0; i < m->nfiles; i++)
			p += snprintf(p, len - (size_t)(p - s), "%s(s_dev == %u && i_ino == %llu)",
				      i ? " || " : "", m->files[i].dev,
				      (unsigned long long)m->files[i].ino);
		break;
	case PCV_FILTER_INO:
		for (int i = 0; i < m->nfiles; i++)
			p += snprintf(p, len - (size_t)(p - s), "%sino == %llu", i ? " || " : "",
				      (unsigned long long)m->files[i].ino);
		break;
	case PCV_FILTER_FILE_LRU:
		snprintf(s, len, "lru == 2 || lru == 3");	/* LRU_INACTIVE_FILE, LRU_ACTIVE_FILE */
		break;
	case PCV_FILTER_NONE:
		free(s);
		return NULL;
	}
	return s;
}

/* The event enabled for spec i */
static const char *event_name(int i)
{
	return T.name[i] ? T.name[i] : pcv_specs[i].name;
}

/* The filter of event i in our instance: 0, or -1 if the kernel refused it */
static int write_filter(const struct pcv_model *m, int i)
{
	char *filter = filter_for(m, pcv_specs[i].filter);
	int err = filter && tracefs_event_file_write(T.inst, pcv_specs[i].system, event_name(i),
						     "filter", filter) < 0 ? -1 : 0;

	free(filter);
	return err;
}

/* Filters and enables event i (its twin, if summing) in our instance: false if refused */
static bool enable(const struct pcv_model *m, int i)
{
	return !write_filter(m, i) &&
	       !tracefs_event_enable(T.inst, pcv_specs[i].system, event_name(i));
}

void pcv_trace_refilter(const struct pcv_model *m)
{
	if (!T.inst)
		return;
	for (int i = 0; i < PCV_NSPECS; i++)
		if (T.dec.ev[i].id >= 0 && pcv_specs[i].filter != PCV_FILTER_NONE &&
		    pcv_specs[i].filter != PCV_FILTER_FILE_LRU)
			write_filter(m, i);
}

/* The spec of a kind's events: every kind has one */
static int spec_of(enum pcv_kind kind)
{
	int i = 0;

	while (i < PCV_NSPECS - 1 && pcv_specs[i].kind != kind)
		i++;
	return i;
}

/*
 * The formats of pcviz's events and their twins only:
 * tracefs_local_events() would also parse every other event of the
 * systems and /proc/kallsyms, which takes seconds on a slow guest, during
 * which the events would be missed.
 */
static struct tep_handle *load_formats(void)
{
	struct tep_handle *tep = tep_alloc();
	enum tep_endian endian = tep_is_bigendian() ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN;

	if (!tep)
		return NULL;
	tep_set_long_size(tep, sizeof(long));
	tep_set_page_size(tep, getpagesize());
	tep_set_file_bigendian(tep, endian);
	tep_set_local_bigendian(tep, endian);
	for (size_t i = 0; i < PCV_NSPECS + NSUMMED; i++) {
		int spec = i < PCV_NSPECS ? (int)i : spec_of(summed[i - PCV_NSPECS].kind), size;
		const char *name = i < PCV_NSPECS ? pcv_specs[i].name : summed[i - PCV_NSPECS].twin;
		char *format = tracefs_event_file_read(NULL, pcv_specs[spec].system, name, "format",
						       &size);

		if (format)
			tep_parse_event(tep, format, (unsigned long)size, pcv_specs[spec].system);
		free(format);
	}
	return tep;
}

/* Can the kernel's events of this kind be decoded? */
static bool has_kind(enum pcv_kind kind)
{
	return T.dec.ev[spec_of(kind)].id >= 0;
}

static int fail(char *why, size_t len, const char *fmt, const char *arg)
{
	snprintf(why, len, fmt, arg);
	pcv_trace_stop();
	return -1;
}

/*
 * Sums, if every per-folio kind is asked for, with the call events to
 * count them from, and the kernel tells the folios apart, counts them and
 * has the twins that leave them out: sets T.name, the decoder's ids and
 * the call's fields (T.created set: summing).
 */
static void sum_if_possible(unsigned kinds)
{
	struct tep_event *call = tep_find_event_by_name(T.tep, "filemap", "dropbehind_call");
	struct pcv_decoder twins = T.dec;

	for (int k = 0; k < PCV_EV_NKINDS; k++)
		if ((SUMMING_KINDS & 1u << k) && !has_kind((enum pcv_kind)k))
			return;
	if ((kinds & SUMMING_KINDS) != SUMMING_KINDS || !call)
		return;
	for (size_t k = 0; k < NSUMMED; k++)
		if ((kinds & 1u << summed[k].kind) &&
		    !pcv_decoder_use(&twins, T.tep, spec_of(summed[k].kind), summed[k].twin))
			return;
	T.created = tep_find_field(call, "created");
	T.created_pages = tep_find_field(call, "created_pages");
	T.dropped_pages = tep_find_field(call, "dropped_pages");
	if (!T.created || !T.created_pages || !T.dropped_pages) {
		T.created = NULL;
		return;
	}
	T.dec = twins;
	for (size_t k = 0; k < NSUMMED; k++)
		if (kinds & 1u << summed[k].kind)
			T.name[spec_of(summed[k].kind)] = summed[k].twin;
}

/* Field f of a live record, into *v; false if the record is too short */
static bool number(struct tep_format_field *f, const struct tep_record *rec,
		   unsigned long long *v)
{
	return f->offset >= 0 &&
	       (unsigned long)f->offset + (unsigned long)f->size <= (unsigned long)rec->size &&
	       !tep_read_number_field(f, rec->data, v);
}

/*
 * Counts what the twins leave out of the ring buffer, from the events
 * that stand for it: an uncached read's call (the folios it brought in,
 * their adds and marks; the folios it dropped, their ends and deletes),
 * an uncached write's mark (its folio's add).
 */
static void count_summed(struct pcv_model *m, const struct pcv_event *ev,
			 const struct tep_record *rec)
{
	unsigned long long created, created_pages, dropped_pages;
	struct pcv_event like = { .dev = ev->dev, .ino = ev->ino };

	if (ev->kind == PCV_EV_DB_MARK && ev->arg[0]) {
		like.kind = PCV_EV_ADD;
		like.nr_pages = ev->nr_pages;
		pcv_model_count(m, &like, 1);
		return;
	}
	if (ev->kind != PCV_EV_DB_CALL || ev->arg[0] || !number(T.created, rec, &created) ||
	    !number(T.created_pages, rec, &created_pages) ||
	    !number(T.dropped_pages, rec, &dropped_pages))
		return;
	like.nr_pages = created_pages;
	like.kind = PCV_EV_ADD;
	pcv_model_count(m, &like, created);
	like.kind = PCV_EV_DB_MARK;
	pcv_model_count(m, &like, created);
	like.nr_pages = dropped_pages;
	like.kind = PCV_EV_DELETE;
	pcv_model_count(m, &like, ev->arg[3]);	/* dropped folios */
	like.kind = PCV_EV_DB_END;
	like.arg[0] = PCV_DB_READ;
	like.arg[1] = PCV_DB_DROPPED;
	pcv_model_count(m, &like, ev->arg[3]);
}

int pcv_trace_start(struct pcv_model *m, unsigned kinds, long buffer_kb, char *why, size_t len)
{
	const char *dir;
	char name[32];
	unsigned on = 0;

	m->events_on = false;
	if (geteuid() != 0)
		return fail(why, len, "%s", "not root: tracing needs root");
	dir = tracefs_tracing_dir();
	if (!dir)
		return fail(why, len, "%s", "tracefs is not mounted");
	/* the formats first: no instance exists unless there are events to decode */
	T.tep = load_formats();
	if (!T.tep || !pcv_decoder_init(&T.dec, T.tep))
		return fail(why, len, "%s", T.tep && T.dec.problem[0] ? T.dec.problem :
					    "no page-cache events in this kernel");
	remove_stale();
	snprintf(name, sizeof(name), "pcviz-%d", getpid());
	T.inst = tracefs_instance_create(name);
	if (!T.inst)
		return fail(why, len, "cannot create a tracefs instance: %s", strerror(errno));
	tracefs_instance_set_buffer_size(T.inst, (size_t)buffer_kb, -1);
	sum_if_possible(kinds);
	for (int i = 0; i < PCV_NSPECS; i++)
		if (T.dec.ev[i].id >= 0 && (kinds & 1u << pcv_specs[i].kind) && enable(m, i))
			on |= 1u << pcv_specs[i].kind;
	if (T.created && (on & SUMMING_KINDS) != SUMMING_KINDS) {
		/* what would count the summed events is off: the events themselves, whole */
		T.created = NULL;
		for (int i = 0; i < PCV_NSPECS; i++) {
			if (!T.name[i])
				continue;
			tracefs_event_disable(T.inst, pcv_specs[i].system, T.name[i]);
			T.name[i] = NULL;
			on &= ~(1u << pcv_specs[i].kind);
			if (enable(m, i))
				on |= 1u << pcv_specs[i].kind;
		}
		pcv_decoder_init(&T.dec, T.tep);
	}
	if (!on)
		return fail(why, len, "%s", "could not enable any event");
	T.ncpu = (int)sysconf(_SC_NPROCESSORS_CONF);
	T.cpu = calloc((size_t)T.ncpu, sizeof(*T.cpu));
	T.page = malloc((size_t)getpagesize() * 4);
	T.kbuf = kbuffer_alloc(KBUFFER_LSIZE_SAME_AS_HOST, KBUFFER_ENDIAN_SAME_AS_HOST);
	if (!T.cpu || !T.page || !T.kbuf)
		return fail(why, len, "%s", "out of memory");
	for (int c = 0; c < T.ncpu; c++)
		T.cpu[c] = tracefs_cpu_open(T.inst, c, true);
	T.lost_seen = 0;
	/* a page's cgroup needs its pfn, which only its add event gives */
	if ((kinds & 1u << PCV_EV_ADD) && has_kind(PCV_EV_ADD))
		T.kpagecgroup = open("/proc/kpagecgroup", O_RDONLY | O_CLOEXEC);
	m->charges_known = T.kpagecgroup >= 0;
	m->events_on = true;
	snprintf(why, len, "live from tracefs %s%s%s%s%s%s%s", name,
		 T.stale ? " (stale instances removed)" : "",
		 T.created ? "; uncached reads' folios counted from their calls" : "",
		 T.dec.ev[PCV_NSPECS - 1].id < 0 ? "; this kernel has no drop-behind events" : "",
		 !has_kind(PCV_EV_EVICT) ? "; this kernel has no workingset events" : "",
		 T.dec.problem[0] ? "; not traced: " : "", T.dec.problem);
	return 0;
}

/*
 * The name of the task pid, from /proc, remembered for COMM_TTL_S (a pid
 * is reused, a task renames itself); "" when the task is gone already.
 */
static void comm_of(int pid, char comm[16])
{
	char path[64], text[32];
	double now = pclab_now();
	size_t slot = (unsigned)pid % COMM_SLOTS, n;

	if (T.comm[slot].pid != pid || now - T.comm[slot].when >= COMM_TTL_S) {
		snprintf(path, sizeof(path), "/proc/%d/comm", pid);
		if (pid <= 0 || pclab_read_file(path, text, sizeof(text)) <= 0)
			text[0] = 0;
		n = strcspn(text, "\n");
		text[n < 15 ? n : 15] = 0;	/* a comm is 15 characters at most */
		T.comm[slot].pid = pid;
		T.comm[slot].when = now;
		memcpy(T.comm[slot].comm, text, 16);
	}
	memcpy(comm, T.comm[slot].comm, 16);
}

/*
 * The cgroup2 ID of the task pid: its "0::/path" line of /proc/PID/cgroup,
 * the inode number of that directory below /sys/fs/cgroup (the ID the
 * workingset events give), remembered as the names are; 0 when the task
 * is gone, or in no cgroup2 mounted there.
 */
static uint64_t cgroup_of(int pid)
{
	char path[64], text[1024], dir[1100], *line, *end;
	double now = pclab_now();
	size_t slot = (unsigned)pid % COMM_SLOTS;
	struct stat st;

	if (T.cgroup[slot].pid == pid && now - T.cgroup[slot].when < COMM_TTL_S)
		return T.cgroup[slot].id;
	T.cgroup[slot].pid = pid;
	T.cgroup[slot].when = now;
	T.cgroup[slot].id = 0;
	snprintf(path, sizeof(path), "/proc/%d/cgroup", pid);
	if (pid <= 0 || pclab_read_file(path, text, sizeof(text)) <= 0)
		return 0;
	/* v1 hierarchies have lines "N:controllers:/path", cgroup2 the one "0::/path" */
	line = !strncmp(text, "0::", 3) ? text : strstr(text, "\n0::");
	if (!line)
		return 0;
	line += *line == '\n' ? 4 : 3;
	end = line + strcspn(line, "\n");
	*end = 0;
	if (snprintf(dir, sizeof(dir), "/sys/fs/cgroup%s", line) < (int)sizeof(dir) &&
	    !stat(dir, &st))
		T.cgroup[slot].id = (uint64_t)st.st_ino;
	return T.cgroup[slot].id;
}

/* overrun + dropped events of every CPU's buffer */
static uint64_t lost_total(void)
{
	uint64_t total = 0;

	for (int c = 0; c < T.ncpu; c++) {
		char file[64], *text, *p;

		snprintf(file, sizeof(file), "per_cpu/cpu%d/stats", c);
		text = tracefs_instance_file_read(T.inst, file, NULL);
		if (!text)
			continue;
		if ((p = strstr(text, "overrun:")))
			total += strtoull(p + 8, NULL, 10);
		if ((p = strstr(text, "dropped events:")))
			total += strtoull(p + 15, NULL, 10);
		free(text);
	}
	return total;
}

/* Entries of /proc/kpagecgroup read at once: a page's worth, 512 pfns */
#define KPAGE_BLOCK 512

/* A block of /proc/kpagecgroup, read for one poll's charges */
struct kpage_block {
	uint64_t first;		/* the block's first pfn */
	size_t n;		/* entries read, 0: none yet */
	uint64_t id[KPAGE_BLOCK];
};

/*
 * The cgroup charged for the page at pfn (pcv_charge_fn): its entry of
 * /proc/kpagecgroup, the inode number of its memory cgroup's directory,
 * the ID the workingset events carry.  The pfns come sorted: a block is
 * read once.  0 when the kernel does not tell.
 */
static uint64_t kpage_cgroup(uint64_t pfn, void *arg)
{
	struct kpage_block *b = arg;
	ssize_t got;

	if (!b->n || pfn < b->first || pfn - b->first >= b->n) {
		b->first = pfn - pfn % KPAGE_BLOCK;
		got = pfn > (uint64_t)INT64_MAX / sizeof(b->id[0]) ? -1 :
		      pread(T.kpagecgroup, b->id, sizeof(b->id), (off_t)(b->first * sizeof(b->id[0])));
		b->n = got > 0 ? (size_t)got / sizeof(b->id[0]) : 0;
		if (pfn - b->first >= b->n)
			return 0;
	}
	return b->id[pfn - b->first];
}

void pcv_trace_poll(struct pcv_model *m)
{
	struct kpage_block block = { .n = 0 };
	uint64_t lost;

	if (!T.inst)
		return;
	for (int c = 0; c < T.ncpu; c++) {
		if (!T.cpu[c])
			continue;
		while (tracefs_cpu_read(T.cpu[c], T.page, true) > 0) {
			unsigned long long ts;
			void *data;

			if (kbuffer_load_subbuffer(T.kbuf, T.page) < 0)
				break;
			for (data = kbuffer_read_event(T.kbuf, &ts); data;
			     data = kbuffer_next_event(T.kbuf, &ts)) {
				struct tep_record rec = { .ts = ts, .data = data, .cpu = c };
				struct pcv_event ev;

				rec.size = kbuffer_event_size(T.kbuf);
				if (!pcv_decode(&T.dec, &rec, &ev))
					continue;
				if (ev.kind == PCV_EV_EVICT || ev.kind == PCV_EV_KSWAPD_WAKER)
					comm_of(ev.pid, ev.comm);
				if (ev.kind == PCV_EV_KSWAPD_WAKER)
					ev.reclaimer = cgroup_of(ev.pid);
				pcv_model_event(m, &ev);
				if (T.created)
					count_summed(m, &ev, &rec);
			}
		}
	}
	if (T.kpagecgroup >= 0)
		pcv_model_charge(m, kpage_cgroup, &block);
	lost = lost_total();
	if (lost > T.lost_seen)
		m->lost += lost - T.lost_seen;
	T.lost_seen = lost;
}

void pcv_trace_stop(void)
{
	if (T.cpu) {
		for (int c = 0; c < T.ncpu; c++)
			if (T.cpu[c])
				tracefs_cpu_close(T.cpu[c]);
		free(T.cpu);
		T.cpu = NULL;
	}
	if (T.inst) {
		remove_instance(T.inst);
		T.inst = NULL;
	}
	if (T.kpagecgroup >= 0)
		close(T.kpagecgroup);
	T.kpagecgroup = -1;
	memset(T.name, 0, sizeof(T.name));
	T.created = T.created_pages = T.dropped_pages = NULL;
	if (T.kbuf)
		kbuffer_free(T.kbuf);
	T.kbuf = NULL;
	free(T.page);
	T.page = NULL;
	if (T.tep)
		tep_free(T.tep);
	T.tep = NULL;
}

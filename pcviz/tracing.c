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
 * An uncached read fires an event for each folio it meets, five for each
 * it brings in and drops (add, LRU insertion, mark, end, delete), a serve
 * for each it finds cached (PCV_FOLIO_KINDS).  Beside a stream, copying
 * them out and decoding them costs the stream half its speed, and even a
 * filter that discards them in the kernel costs 12.5%: an enabled event
 * builds its record before its filter reads it (docs/pcviz.md).
 * Nothing in those events tells a stream's folios from others before the
 * record is built, so pcviz samples them.  Each uncached read's call
 * event switches them off in the kernel at once (a disable_event trigger:
 * a soft-disabled event returns before it builds anything, but still
 * costs a call); pcviz, once it sees that, switches them off in full,
 * triggers removed and tracepoints unregistered, for a pause, then on
 * again.  A call per pause is seen folio by folio, or the end of one, and
 * the calls' counts (marked, served, dropped and kept folios) count every
 * call.  While uncached reads go on the pauses grow, up to MAX_OFF_POLLS;
 * without them nothing is switched, and every event comes.
 */
/* The trigger's condition: reads.  A write's folios are the write timeline's */
#define SAMPLED_FILTER "write == 0"
/* Reads of the events (100 ms apart) the sampled events stay off at most: 1.6 s */
#define MAX_OFF_POLLS 16
/* How long after switching them on again pcviz looks whether a call switched them off */
#define ARMED_CHECK_US 20000

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
	/* the enable files of the sampled per-folio events, open; -1: not sampled */
	int sampled[PCV_NSPECS];
	/*
	 * the sampled events are off in full, for off_for reads of the events
	 * (off_polls so far); the next pause is next_off reads long
	 */
	bool folios_off;
	int off_polls, off_for, next_off;
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
} T = { .kpagecgroup = -1, .sampled = { [0 ... PCV_NSPECS - 1] = -1 } };

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

/* The filter of event i in our instance: 0, or -1 if the kernel refused it */
static int write_filter(const struct pcv_model *m, int i)
{
	char *filter = filter_for(m, pcv_specs[i].filter);
	int err = filter && tracefs_event_file_write(T.inst, pcv_specs[i].system, T.dec.ev[i].name,
						     "filter", filter) < 0 ? -1 : 0;

	free(filter);
	return err;
}

/* Filters and enables event i in our instance: false if refused */
static bool enable(const struct pcv_model *m, int i)
{
	return !write_filter(m, i) &&
	       !tracefs_event_enable(T.inst, pcv_specs[i].system, T.dec.ev[i].name);
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
 * The formats of pcviz's events only, each under its name or its former
 * one (struct pcv_evspec's was): tracefs_local_events() would also parse
 * every other event of the systems and /proc/kallsyms, which takes
 * seconds on a slow guest, during which the events would be missed.
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
	for (int i = 0; i < PCV_NSPECS; i++) {
		const struct pcv_evspec *s = &pcv_specs[i];
		int size;
		char *format = tracefs_event_file_read(NULL, s->system, s->name, "format", &size);

		if (!format && s->was)
			format = tracefs_event_file_read(NULL, s->system, s->was, "format", &size);
		if (format)
			tep_parse_event(tep, format, (unsigned long)size, s->system);
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

/* Stops sampling: every per-folio event comes, whoever calls */
static void stop_sampling(void)
{
	int call = spec_of(PCV_EV_DB_CALL);

	if (T.inst && T.dec.ev[call].name)
		tracefs_event_file_clear(T.inst, pcv_specs[call].system, T.dec.ev[call].name,
					 "trigger");
	for (int i = 0; i < PCV_NSPECS; i++) {
		if (T.sampled[i] >= 0)
			close(T.sampled[i]);
		T.sampled[i] = -1;
	}
	T.folios_off = false;
}

/*
 * Adds (on) or removes the trigger by which each uncached read's call
 * switches sampled event i off: false if the kernel refused.  Appended,
 * as a write that truncates the file removes every trigger.
 */
static bool trigger(int i, bool on)
{
	int call = spec_of(PCV_EV_DB_CALL);
	char text[160];

	snprintf(text, sizeof(text), "%sdisable_event:%s:%s if " SAMPLED_FILTER, on ? "" : "!",
		 pcv_specs[i].system, T.dec.ev[i].name);
	return tracefs_event_file_append(T.inst, pcv_specs[call].system, T.dec.ev[call].name,
					  "trigger", text) >= 0;
}

/*
 * Samples the per-folio events enabled in on, if the calls that count
 * their folios are on too (see SAMPLED_FILTER).  Returns how many are
 * sampled; -1 if the kernel refused, and then none is.
 */
static int sample_folios(unsigned on)
{
	int n = 0;

	if (!(on & 1u << PCV_EV_DB_CALL))
		return 0;
	for (int i = 0; i < PCV_NSPECS; i++) {
		const struct pcv_evspec *s = &pcv_specs[i];
		char *path;

		if (!(on & PCV_FOLIO_KINDS & 1u << s->kind) || T.dec.ev[i].id < 0)
			continue;
		path = tracefs_event_get_file(T.inst, s->system, T.dec.ev[i].name, "enable");
		T.sampled[i] = path ? open(path, O_RDWR | O_CLOEXEC) : -1;
		tracefs_put_tracing_file(path);
		if (T.sampled[i] < 0 || !trigger(i, true)) {
			stop_sampling();
			return -1;
		}
		n++;
	}
	T.next_off = 1;
	return n;
}

/* Has an uncached read's call switched the sampled events off? */
static bool switched_off(void)
{
	bool off = false;

	for (int i = 0; i < PCV_NSPECS; i++) {
		char state[4] = "";

		/* "1*": enabled, in the trigger's soft mode; "0*": switched off by it */
		off |= T.sampled[i] >= 0 && pread(T.sampled[i], state, sizeof(state) - 1, 0) > 0 &&
		       state[0] == '0';
	}
	return off;
}

/*
 * Switched off by an uncached read: off in full for a pause (the triggers
 * removed, so their tracepoints are too, and cost nothing), T.next_off
 * reads of the events long; the next pause, twice as long.
 */
static void pause_folios(struct pcv_model *m)
{
	m->folio_pauses++;
	for (int i = 0; i < PCV_NSPECS; i++)
		if (T.sampled[i] >= 0)
			trigger(i, false);
	T.folios_off = true;
	T.off_polls = 0;
	T.off_for = T.next_off;
	T.next_off = T.next_off < MAX_OFF_POLLS ? 2 * T.next_off : MAX_OFF_POLLS;
}

/*
 * The sampled events at each read of the events: after a pause, on again
 * and armed; while uncached reads go on, one switches them off within a
 * call, and they pause again, for longer.  Found on at a read of the
 * events (no uncached read since they were armed), the next pause is one
 * read of the events again.
 */
static void resample(struct pcv_model *m)
{
	if (T.folios_off) {
		if (++T.off_polls < T.off_for)
			return;
		for (int i = 0; i < PCV_NSPECS; i++)
			if (T.sampled[i] >= 0 && pwrite(T.sampled[i], "1", 1, 0) == 1)
				trigger(i, true);
		T.folios_off = false;
		/*
		 * reads going on end a call within milliseconds: its switch is
		 * caught now, not a read of the events later, during which the
		 * soft-disabled events would cost each folio a call
		 */
		usleep(ARMED_CHECK_US);
		if (switched_off())
			pause_folios(m);
		return;
	}
	if (switched_off())
		pause_folios(m);
	else
		T.next_off = 1;
}

int pcv_trace_start(struct pcv_model *m, unsigned kinds, long buffer_kb, char *why, size_t len)
{
	const char *dir;
	char name[32];
	unsigned on = 0;
	int sampled;

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
	for (int i = 0; i < PCV_NSPECS; i++)
		if (T.dec.ev[i].id >= 0 && (kinds & 1u << pcv_specs[i].kind) && enable(m, i))
			on |= 1u << pcv_specs[i].kind;
	if (!on)
		return fail(why, len, "%s", "could not enable any event");
	sampled = sample_folios(on);
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
		 sampled > 0 ? "; per-folio events sampled beside uncached reads" :
		 sampled < 0 ? "; per-folio events not sampled: the kernel refused a trigger" : "",
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
	resample(m);
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
	stop_sampling();
	if (T.inst) {
		remove_instance(T.inst);
		T.inst = NULL;
	}
	if (T.kpagecgroup >= 0)
		close(T.kpagecgroup);
	T.kpagecgroup = -1;
	if (T.kbuf)
		kbuffer_free(T.kbuf);
	T.kbuf = NULL;
	free(T.page);
	T.page = NULL;
	if (T.tep)
		tep_free(T.tep);
	T.tep = NULL;
}

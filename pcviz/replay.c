// SPDX-License-Identifier: GPL-2.0
/*
 * The replay source: a trace.dat recorded with trace-cmd (in the guest),
 * read with libtracecmd on the host.  The events are loaded once; the
 * replay clock moves through them, and residency is reconstructed from the
 * add, delete, drop-behind mark and drop events.  Files are known by device
 * and inode (a trace has no names), sized by the highest page seen.
 *
 * A trace.dat is untrusted input, and libtracecmd trusts it: pcviz checks
 * its structure first (tracedat.c), then lets libtracecmd read it in a
 * child process under limits of CPU time and memory, which hands the
 * decoded events back through a memfd.  Whatever the library does on a
 * file the check let through (crash, loop, allocate), pcviz says the trace
 * is corrupt and exits 1.
 *
 * The guest's static build has no libtracecmd: PCVIZ_REPLAY is not defined
 * and --replay says so.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>

#include "source.h"

#ifdef PCVIZ_REPLAY
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <trace-cmd.h>
#include <unistd.h>
#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/common_interface_defs.h>
#endif

#include "decode.h"
#include "message.h"
#include "tracedat.h"

/*
 * What one event may claim (a hostile trace must not cost gigabytes or
 * minutes): no folio has 2^20 pages, and a file of 1 TiB (2^28 pages) is
 * beyond what a pclab guest records.
 */
#define MAX_EVENT_PAGES (1ull << 20)
#define MAX_FILE_PAGES (1ull << 28)
/*
 * Events a trace may yield per byte of its file: a record takes 12 bytes
 * of a ring-buffer page at least, and zstd shrinks a recorded trace a few
 * times, never near 96 times; a compressed section that inflates to more
 * is corrupt, and would otherwise cost 120 bytes of memory an event.
 */
#define MAX_EVENTS_PER_BYTE 8
/*
 * What the decoding child may spend: CPU seconds, a base and more per MiB
 * of the file (libtracecmd decodes some 30 MiB a second here), and, in a
 * build without AddressSanitizer (whose shadow memory is address space
 * too), address space, a base and more per byte of the file.
 */
#define CHILD_CPU_S 10
#define CHILD_CPU_S_PER_MIB 1
#define CHILD_AS_BYTES (2ull << 30)
#define CHILD_AS_PER_BYTE 4

struct replay {
	const struct pcv_event *ev;	/* in the child's memfd, mapped read-only */
	void *map;
	size_t map_len;
	size_t n, pos;
	double clock;
	uint64_t lost;
};

/*
 * The decoding child's report at the start of its memfd; the events follow
 * at EVENTS_AT.  done is DECODED_DONE once the child has written it all.
 */
struct decoded {
	uint64_t n, lost;
	char why[200];		/* why the trace cannot be replayed; "" when it can */
	uint32_t done;
};
#define EVENTS_AT 4096
#define DECODED_DONE 0x70637664u
_Static_assert(sizeof(struct decoded) <= EVENTS_AT, "the report fits before the events");

/* The child's state while libtracecmd reads */
struct decoding {
	struct tracecmd_input *h;
	struct pcv_decoder dec;
	int out;
	uint64_t max_events;
	struct decoded head;
	struct pcv_event buf[512];
	size_t nbuf;
};

/* Set in the decoding child: where libtracecmd's first complaint goes */
static struct decoding *decoding;

static void complain(const char *fmt, va_list ap)
{
	struct decoded *d;
	int n;

	if (!decoding)
		return;
	d = &decoding->head;
	if (d->why[0])
		return;
	n = snprintf(d->why, sizeof(d->why), "corrupt trace.dat: libtracecmd: ");
	vsnprintf(d->why + n, sizeof(d->why) - (size_t)n, fmt, ap);
	d->why[strcspn(d->why, "\n")] = 0;
}

/*
 * libtracecmd's complaints: weak in the library, so these are the ones it
 * calls.  A complaint while it reads the data means data it skipped (a
 * chunk that does not decompress, a page it cannot load): the replay would
 * show part of the trace as if it were all, so the first one is the reason
 * the trace is refused.  Outside the child (never, in pcviz) they are
 * dropped, as libtracecmd's log level would.
 */
void tracecmd_warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	complain(fmt, ap);
	va_end(ap);
}

void tracecmd_critical(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	complain(fmt, ap);
	va_end(ap);
}

/* Does e claim pages of a file (it sizes the file and may be tracked)? */
static bool claims_pages(const struct pcv_event *e)
{
	return e->dev && e->ino && e->kind != PCV_EV_DB_CALL && e->kind != PCV_EV_WB_START &&
	       e->kind != PCV_EV_WB_END;
}

static int write_all(int fd, const void *buf, size_t n)
{
	const char *p = buf;

	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static int flush_events(struct decoding *d)
{
	if (write_all(d->out, d->buf, d->nbuf * sizeof(d->buf[0]))) {
		snprintf(d->head.why, sizeof(d->head.why), "cannot keep the events: %s",
			 strerror(errno));
		return -1;
	}
	d->head.n += d->nbuf;
	d->nbuf = 0;
	return 0;
}

static int collect(struct tracecmd_input *h, struct tep_record *rec, int cpu, void *ctx)
{
	struct decoding *d = ctx;
	struct pcv_event *ev = &d->buf[d->nbuf];

	(void)cpu;
	if (rec->missed_events)
		d->head.lost += rec->missed_events > 0 ? (uint64_t)rec->missed_events : 1;
	/*
	 * A record of an event the trace does not describe is what corrupt
	 * data decode to (a compressed chunk whose bytes changed inflates
	 * all the same): replayed without it, the trace would look whole.
	 */
	if (!tep_find_event(tracecmd_get_tep(h), tep_data_type(tracecmd_get_tep(h), rec))) {
		snprintf(d->head.why, sizeof(d->head.why), "corrupt trace.dat: a record at %.6f s "
			 "of event type %d, which the trace does not describe", (double)rec->ts / 1e9,
			 tep_data_type(tracecmd_get_tep(h), rec));
		return -1;
	}
	if (!pcv_decode(&d->dec, rec, ev))
		return 0;
	/*
	 * who evicted, who woke kswapd: the trace's saved command lines name
	 * the task ("<...>": not saved); its cgroup was another machine's
	 */
	if (ev->kind == PCV_EV_EVICT || ev->kind == PCV_EV_KSWAPD_WAKER) {
		const char *comm = tep_data_comm_from_pid(tracecmd_get_tep(h), ev->pid);

		if (comm && strcmp(comm, "<...>"))
			snprintf(ev->comm, sizeof(ev->comm), "%s", comm);
	}
	if (claims_pages(ev) && (ev->nr_pages > MAX_EVENT_PAGES || ev->index >= MAX_FILE_PAGES ||
				 ev->index + ev->nr_pages > MAX_FILE_PAGES)) {
		snprintf(d->head.why, sizeof(d->head.why),
			 "an event at %.6f s claims %llu pages from page %llu of inode %llu, past "
			 "what pcviz replays (2^20 pages an event, 1 TiB a file)", ev->ts,
			 (unsigned long long)ev->nr_pages, (unsigned long long)ev->index,
			 (unsigned long long)ev->ino);
		return -1;
	}
	if (d->head.n + d->nbuf >= d->max_events) {
		snprintf(d->head.why, sizeof(d->head.why),
			 "corrupt trace.dat: more than %llu events, more than a file of its size "
			 "holds (compressed data that inflate too far?)",
			 (unsigned long long)d->max_events);
		return -1;
	}
	if (++d->nbuf == sizeof(d->buf) / sizeof(d->buf[0]))
		return flush_events(d);
	return 0;
}

/* A limit, never above the one the child inherited */
static void limit(int resource, uint64_t soft, uint64_t hard)
{
	struct rlimit rl;

	if (getrlimit(resource, &rl))
		return;
	if (rl.rlim_max != RLIM_INFINITY && hard > rl.rlim_max)
		hard = rl.rlim_max;
	if (soft > hard)
		soft = hard;
	rl.rlim_cur = soft;
	rl.rlim_max = hard;
	setrlimit(resource, &rl);
}

/* The child's CPU budget in seconds for a trace.dat of size bytes */
static uint64_t cpu_budget(uint64_t size)
{
	return CHILD_CPU_S + CHILD_CPU_S_PER_MIB * (size >> 20);
}

/*
 * The child: libtracecmd reads the trace, which it may not survive (its
 * bugs, docs/pcviz.md), under limits of CPU and memory; the events go to
 * out after EVENTS_AT, the report to its start.  Never returns.
 */
static void __attribute__((noreturn)) decode_child(const char *path, uint64_t size, int out)
{
	static struct decoding d;
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	limit(RLIMIT_CORE, 0, 0);
	limit(RLIMIT_CPU, cpu_budget(size), cpu_budget(size) + 1);
#ifndef __SANITIZE_ADDRESS__
	limit(RLIMIT_AS, CHILD_AS_BYTES + CHILD_AS_PER_BYTE * size,
	      CHILD_AS_BYTES + CHILD_AS_PER_BYTE * size);
#else
	/*
	 * A crash of libtracecmd or libtraceevent, which are not instrumented,
	 * kills the child as in the plain build, and pcviz says so: the
	 * sanitizer's handler would report the library's bug as pcviz's.
	 */
	signal(SIGSEGV, SIG_DFL);
	signal(SIGBUS, SIG_DFL);
	signal(SIGFPE, SIG_DFL);
	signal(SIGILL, SIG_DFL);
	/* the sanitizers' reports still reach pcviz's stderr, unless they go to files */
	if (!strstr(getenv("ASAN_OPTIONS") ? getenv("ASAN_OPTIONS") : "", "log_path") &&
	    !strstr(getenv("UBSAN_OPTIONS") ? getenv("UBSAN_OPTIONS") : "", "log_path"))
		__sanitizer_set_report_fd((void *)(intptr_t)fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3));
#endif
	/* libtracecmd writes some complaints straight to stderr (perror, fwrite) */
	if (null >= 0) {
		dup2(null, STDOUT_FILENO);
		dup2(null, STDERR_FILENO);
	}
	d.out = out;
	d.max_events = size * MAX_EVENTS_PER_BYTE;
	decoding = &d;
	if (lseek(out, EVENTS_AT, SEEK_SET) != EVENTS_AT)
		_exit(2);
	d.h = tracecmd_open_head(path, TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!d.h) {
		if (!d.head.why[0])
			snprintf(d.head.why, sizeof(d.head.why), "not a trace-cmd trace.dat, or its "
				 "headers are cut short or corrupt");
	} else if (!pcv_decoder_init(&d.dec, tracecmd_get_tep(d.h)) || d.dec.problem[0]) {
		snprintf(d.head.why, sizeof(d.head.why), "%s", d.dec.problem[0] ? d.dec.problem :
			 "the trace has none of the page-cache events pcviz shows");
	} else if (tracecmd_init_data(d.h) < 0) {
		snprintf(d.head.why, sizeof(d.head.why), "the trace's data are cut short or corrupt "
			 "(a run that ended early?)");
	} else if (tracecmd_iterate_events(d.h, NULL, 0, collect, &d) < 0 && !d.head.why[0]) {
		snprintf(d.head.why, sizeof(d.head.why), "could not read the events");
	} else if (!d.head.why[0]) {
		flush_events(&d);
	}
	d.head.done = DECODED_DONE;
	if (pwrite(out, &d.head, sizeof(d.head), 0) != (ssize_t)sizeof(d.head))
		_exit(2);
	/* no tracecmd_close(): the process ends, and the close crashes on some handles */
	_exit(0);
}

static int cmp_events_file(const void *a, const void *b)
{
	const struct pcv_event *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

/*
 * The files the events name, each sized by the highest page it touched;
 * those beyond --max-files are counted in m->unwatched.
 */
static int find_files(struct replay *r, struct pcv_model *m)
{
	uint64_t end[PCV_MAX_FILES] = { 0 };
	struct pcv_event *left_out = NULL;
	size_t nleft = 0;

	for (size_t i = 0; i < r->n; i++) {
		const struct pcv_event *e = &r->ev[i];
		char name[64];
		int fi;

		if (!claims_pages(e))
			continue;
		fi = pcv_model_find_file(m, e->dev, e->ino);
		if (fi < 0) {
			snprintf(name, sizeof(name), "dev %u:%u ino %llu", e->dev >> 20, e->dev & 0xfffff,
				 (unsigned long long)e->ino);
			fi = pcv_model_add_file(m, name, e->dev, e->ino, 0);
		}
		if (fi < 0) {
			struct pcv_event *more = nleft % 4096 ? left_out :
						 realloc(left_out, (nleft + 4096) * sizeof(*more));

			if (!more) {
				free(left_out);
				return -1;
			}
			left_out = more;
			left_out[nleft++] = *e;
			continue;
		}
		if (e->index + e->nr_pages > end[fi])	/* at most MAX_FILE_PAGES: collect() */
			end[fi] = e->index + e->nr_pages;
	}
	/* the files left out: distinct (dev, ino) pairs */
	if (nleft)
		qsort(left_out, nleft, sizeof(*left_out), cmp_events_file);
	for (size_t i = 0; i < nleft; i++)
		m->unwatched += !i || cmp_events_file(&left_out[i - 1], &left_out[i]);
	free(left_out);
	for (int i = 0; i < m->nfiles; i++) {
		m->files[i].size = end[i] * m->page_size;
		m->files[i].pages = end[i];
		if (pcv_file_track_pages(&m->files[i]))
			return -1;
	}
	return 0;
}

static int replay_refresh(struct pcv_source *s, struct pcv_model *m, double dt)
{
	struct replay *r = s->priv;

	r->clock += dt;
	while (r->pos < r->n && r->ev[r->pos].ts <= r->clock)
		pcv_model_event(m, &r->ev[r->pos++]);
	for (int i = 0; i < m->nfiles; i++)
		pcv_file_from_bitmap(&m->files[i]);
	m->lost = r->lost;
	pcv_model_tick(m, r->clock);
	return r->pos == r->n;
}

static double replay_next_event(struct pcv_source *s)
{
	const struct replay *r = s->priv;

	return r->pos < r->n ? r->ev[r->pos].ts : INFINITY;
}

static void replay_close(struct pcv_source *s, struct pcv_model *m)
{
	struct replay *r = s->priv;

	(void)m;
	if (r->map)
		munmap(r->map, r->map_len);
	free(r);
}

/*
 * Checks the file's structure (tracedat.c); its size and *page_size (its
 * header's), or -1 with a message in err
 */
static off_t check_file(const char *path, uint32_t *page_size, char *err, size_t len)
{
	char why[160];
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);	/* a FIFO: no wait */
	struct stat st;
	off_t size = -1;

	if (fd < 0) {
		pcv_path_error(err, len, path, "%s", strerror(errno));
		return -1;
	}
	if (pcv_tracedat_check(fd, page_size, why, sizeof(why)))
		pcv_path_error(err, len, path, "%s", why);
	else if (fstat(fd, &st))
		pcv_path_error(err, len, path, "%s", strerror(errno));
	else
		size = st.st_size;
	close(fd);
	return size;
}

/* Why the child ended without its report, in words, into err */
static void child_died(const char *path, int status, const struct rusage *ru, uint64_t size,
		       char *err, size_t len)
{
	double cpu = (double)ru->ru_utime.tv_sec + (double)ru->ru_stime.tv_sec +
		     (double)(ru->ru_utime.tv_usec + ru->ru_stime.tv_usec) / 1e6;

	if (WIFSIGNALED(status) && (WTERMSIG(status) == SIGXCPU ||
				    (WTERMSIG(status) == SIGKILL && cpu >= (double)cpu_budget(size))))
		pcv_path_error(err, len, path, "corrupt trace.dat: libtracecmd spent %.0f s of CPU "
			       "on it, more than a trace of its size needs", cpu);
	else if (WIFSIGNALED(status))
		pcv_path_error(err, len, path, "corrupt trace.dat: libtracecmd died of SIG%s reading "
			       "it (a bug of the library on corrupt input: docs/pcviz.md)",
			       sigabbrev_np(WTERMSIG(status)) ? sigabbrev_np(WTERMSIG(status)) : "?");
	else
		pcv_path_error(err, len, path, "corrupt trace.dat: libtracecmd failed reading it "
			       "(status %d)", WEXITSTATUS(status));
}

/*
 * Reads the events: libtracecmd in a child process (decode_child()), its
 * death a clear error, and the trace's page size into *page_size; 0, or
 * -1 with a message in err.
 */
static int read_trace(const char *path, struct replay *r, uint32_t *page_size, char *err,
		      size_t len)
{
	struct decoded head;
	struct rusage ru;
	struct stat st;
	off_t size = check_file(path, page_size, err, len);
	int out, status = 0;
	bool stopped = false;
	pid_t pid;

	if (size < 0)
		return -1;
	out = memfd_create("pcviz-events", MFD_CLOEXEC);
	if (out < 0) {
		pcv_path_error(err, len, path, "memfd_create: %s", strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		pcv_path_error(err, len, path, "fork: %s", strerror(errno));
		close(out);
		return -1;
	}
	if (!pid)
		decode_child(path, (uint64_t)size, out);
	/*
	 * A signal that stops pcviz (its handlers do not restart calls) stops
	 * the child at once, wherever libtracecmd is.
	 */
	while (wait4(pid, &status, 0, &ru) < 0) {
		if (errno != EINTR)
			break;
		kill(pid, SIGKILL);
		stopped = true;
	}
	if (stopped) {
		pcv_path_error(err, len, path, "stopped by a signal while the trace was read");
	} else if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		child_died(path, status, &ru, (uint64_t)size, err, len);
	} else if (pread(out, &head, sizeof(head), 0) != (ssize_t)sizeof(head) ||
		   head.done != DECODED_DONE) {
		pcv_path_error(err, len, path, "the decoding process left no report");
	} else if (head.why[0]) {
		head.why[sizeof(head.why) - 1] = 0;
		pcv_path_error(err, len, path, "%s", head.why);
	} else if (fstat(out, &st) || (uint64_t)st.st_size != EVENTS_AT + head.n * sizeof(*r->ev)) {
		pcv_path_error(err, len, path, "the decoding process left %llu events, not all there",
			       (unsigned long long)head.n);
	} else {
		r->map_len = (size_t)st.st_size;
		r->map = mmap(NULL, r->map_len, PROT_READ, MAP_PRIVATE, out, 0);
		if (r->map == MAP_FAILED) {
			r->map = NULL;
			pcv_path_error(err, len, path, "mmap of the events: %s", strerror(errno));
		} else {
			r->ev = (const struct pcv_event *)((const char *)r->map + EVENTS_AT);
			r->n = head.n;
			r->lost = head.lost;
		}
	}
	close(out);
	return r->map ? 0 : -1;
}

int pcv_replay_open(struct pcv_source *s, struct pcv_model *m, const struct pcv_options *o,
		    const char *path, char *err, size_t len)
{
	struct replay *r = calloc(1, sizeof(*r));
	uint32_t page_size;

	if (!r) {
		snprintf(err, len, "out of memory");
		return -1;
	}
	m->max_files = o->max_files;
	if (read_trace(path, r, &page_size, err, len)) {
		free(r);
		return -1;
	}
	s->priv = r;
	/* the trace's events count pages of the recording machine's size */
	m->page_size = page_size;
	if (find_files(r, m)) {
		pcv_path_error(err, len, path, "out of memory for the files' pages");
		replay_close(s, m);
		return -1;
	}
	/* the replay clock starts just before the first event */
	r->clock = r->n ? r->ev[0].ts - 1e-9 : 0;
	m->reconstruct = true;
	m->events_on = true;
	snprintf(m->events_why, sizeof(m->events_why), "replay of %s (%zu events)", path, r->n);
	snprintf(m->res_source, sizeof(m->res_source), "replay");
	s->name = "replay";
	s->sample = replay_refresh;
	s->next_event = replay_next_event;
	s->close = replay_close;
	return 0;
}

#else

int pcv_replay_open(struct pcv_source *s, struct pcv_model *m, const struct pcv_options *o,
		    const char *path, char *err, size_t len)
{
	(void)s;
	(void)m;
	snprintf(err, len,
		 "%s: --%s works in the host build only (this static build has no libtracecmd)",
		 path, o->nreplay > 1 ? "compare" : "replay");
	return -1;
}

#endif

// SPDX-License-Identifier: GPL-2.0
/*
 * The replay source: a trace.dat recorded with trace-cmd (in the guest),
 * read with libtracecmd on the host.  The events are loaded once; the
 * replay clock moves through them, and residency is reconstructed from the
 * add, delete, drop-behind mark and drop events.  Files are known by device
 * and inode (a trace has no names), sized by the highest page seen.
 *
 * The guest's static build has no libtracecmd: PCVIZ_REPLAY is not defined
 * and --replay says so.
 */
#include <stdio.h>
#include <stdlib.h>

#include "source.h"

#ifdef PCVIZ_REPLAY
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <trace-cmd.h>
#include <unistd.h>

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

struct replay {
	struct pcv_event *ev;
	size_t n, cap, pos;
	double clock;
	uint64_t lost;
	struct pcv_decoder dec;
	char bad[160];		/* why collect() stopped, "" if it did not */
};

/* Does e claim pages of a file (it sizes the file and may be tracked)? */
static bool claims_pages(const struct pcv_event *e)
{
	return e->dev && e->ino && e->kind != PCV_EV_DB_CALL && e->kind != PCV_EV_WB_START &&
	       e->kind != PCV_EV_WB_END;
}

static int collect(struct tracecmd_input *h, struct tep_record *rec, int cpu, void *ctx)
{
	struct replay *r = ctx;
	struct pcv_event ev;

	(void)cpu;
	if (rec->missed_events)
		r->lost += rec->missed_events > 0 ? (uint64_t)rec->missed_events : 1;
	if (!pcv_decode(&r->dec, rec, &ev))
		return 0;
	/*
	 * who evicted, who woke kswapd: the trace's saved command lines name
	 * the task ("<...>": not saved); its cgroup was another machine's
	 */
	if (ev.kind == PCV_EV_EVICT || ev.kind == PCV_EV_KSWAPD_WAKER) {
		const char *comm = tep_data_comm_from_pid(tracecmd_get_tep(h), ev.pid);

		if (comm && strcmp(comm, "<...>"))
			snprintf(ev.comm, sizeof(ev.comm), "%s", comm);
	}
	if (claims_pages(&ev) && (ev.nr_pages > MAX_EVENT_PAGES || ev.index >= MAX_FILE_PAGES ||
				  ev.index + ev.nr_pages > MAX_FILE_PAGES)) {
		snprintf(r->bad, sizeof(r->bad),
			 "an event at %.6f s claims pages %llu-%llu of inode %llu, past what pcviz "
			 "replays (2^20 pages an event, 1 TiB a file)", ev.ts,
			 (unsigned long long)ev.index, (unsigned long long)(ev.index + ev.nr_pages),
			 (unsigned long long)ev.ino);
		return -1;
	}
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 4096;
		struct pcv_event *more = realloc(r->ev, cap * sizeof(*more));

		if (!more) {
			snprintf(r->bad, sizeof(r->bad), "out of memory after %zu events", r->n);
			return -1;
		}
		r->ev = more;
		r->cap = cap;
	}
	r->ev[r->n++] = ev;
	return 0;
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
		m->files[i].size = end[i] * 4096;
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

static void replay_close(struct pcv_source *s, struct pcv_model *m)
{
	struct replay *r = s->priv;

	(void)m;
	free(r->ev);
	free(r);
}

/*
 * A handle whose tracecmd_init_data() failed: libtracecmd's close crashes
 * on it, so it is never closed (trace-cmd report does the same: it exits).
 * Kept here, pcviz's exit follows.
 */
static struct tracecmd_input *unclosable;

/* Checks the file's structure (tracedat.c); 0, or -1 with a message in err */
static int check_file(const char *path, char *err, size_t len)
{
	char why[160];
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC), status;	/* a FIFO: no wait */

	if (fd < 0) {
		pcv_path_error(err, len, path, "%s", strerror(errno));
		return -1;
	}
	status = pcv_tracedat_check(fd, why, sizeof(why));
	close(fd);
	if (status)
		pcv_path_error(err, len, path, "%s", why);
	return status;
}

/*
 * libtracecmd writes some complaints straight to stderr (perror, fwrite),
 * whatever its log level: muted while it reads, pcviz says what failed.
 */
static int mute_stderr(void)
{
	int saved, null = open("/dev/null", O_WRONLY | O_CLOEXEC);

	fflush(stderr);
	saved = null < 0 ? -1 : fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
	if (saved >= 0)
		dup2(null, STDERR_FILENO);
	if (null >= 0)
		close(null);
	return saved;
}

static void unmute_stderr(int saved)
{
	if (saved < 0)
		return;
	dup2(saved, STDERR_FILENO);
	close(saved);
}

/* Reads the events; 0, or -1 with a message in err. */
static int read_trace(const char *path, struct replay *r, struct pcv_model *m, char *err,
		      size_t len)
{
	struct tracecmd_input *h;
	int status = -1;

	if (check_file(path, err, len))
		return -1;
	h = tracecmd_open_head(path, TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!h) {
		pcv_path_error(err, len, path, "not a trace-cmd trace.dat, or its headers are "
			       "cut short or corrupt");
		return -1;
	}
	if (!pcv_decoder_init(&r->dec, tracecmd_get_tep(h)) || r->dec.problem[0]) {
		pcv_path_error(err, len, path, "%s", r->dec.problem[0] ? r->dec.problem :
			       "the trace has none of the page-cache events pcviz shows");
	} else if (tracecmd_init_data(h) < 0) {
		pcv_path_error(err, len, path, "the trace's data are cut short or corrupt "
			       "(a run that ended early?)");
		unclosable = h;
		return -1;
	} else if (tracecmd_iterate_events(h, NULL, 0, collect, r) < 0 || r->bad[0]) {
		pcv_path_error(err, len, path, "%s", r->bad[0] ? r->bad : "could not read the events");
	} else if (find_files(r, m)) {
		pcv_path_error(err, len, path, "out of memory for the files' pages");
	} else {
		status = 0;
	}
	tracecmd_close(h);
	return status;
}

int pcv_replay_open(struct pcv_source *s, struct pcv_model *m, const struct pcv_options *o,
		    const char *path, char *err, size_t len)
{
	struct replay *r = calloc(1, sizeof(*r));
	int saved, status;

	if (!r) {
		snprintf(err, len, "out of memory");
		return -1;
	}
	m->max_files = o->max_files;
	saved = mute_stderr();
	status = read_trace(path, r, m, err, len);
	unmute_stderr(saved);
	if (status) {
		free(r->ev);
		free(r);
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
	s->close = replay_close;
	s->priv = r;
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

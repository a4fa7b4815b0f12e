// SPDX-License-Identifier: GPL-2.0
/*
 * pcviz: a live view of page-cache residency and page-cache events.
 * See pcviz(1) and docs/pcviz.md.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "output.h"
#include "pclab/cli.h"
#include "pclab/clock.h"
#include "source.h"
#include "ui.h"

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

/* Signals end the main loop, which then removes the tracefs instance. */
static void catch_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT };
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;	/* no SA_RESTART: sleeps end early */
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
}

/* Cleanup done: dies of the signal that stopped pcviz, as the caller expects */
static void die_of_stop_signal(void)
{
	if (stop_signal && stop_signal != SIGPIPE) {
		signal(stop_signal, SIG_DFL);
		raise(stop_signal);
	}
}

/* How often events are read between refreshes: the kernel's buffer stays small. */
#define DRAIN_S 0.1

/*
 * Sleeps until start + n * interval on the monotonic clock (no drift),
 * reading the sources' events every DRAIN_S meanwhile.
 */
static void wait_interval(struct pcv_source *s, struct pcv_model *m, int nruns, double start,
			  double interval, long n)
{
	double at = start + interval * (double)n;

	while (!stop_signal) {
		double now = pclab_now(), until;
		struct timespec ts;

		if (now >= at)
			break;
		until = now + DRAIN_S < at ? now + DRAIN_S : at;
		ts = pclab_timespec(until);
		if (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) || until >= at)
			continue;
		for (int i = 0; i < nruns; i++)
			if (s[i].drain)
				s[i].drain(&s[i], &m[i]);
	}
}

/* "A: " before what is said of a run compared with another, "" otherwise */
static const char *who(const struct pcv_model *m, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s", m->run ? m->run : "", m->run ? ": " : "");
	return buf;
}

/*
 * Says on stderr, once per file, why pcviz cannot know its residency;
 * returns whether any file's is unknown now.
 */
static bool tell_unknown(const struct pcv_model *m, bool *told)
{
	bool any = false;
	char run[8];

	for (int i = 0; i < m->nfiles; i++) {
		const struct pcv_file *f = &m->files[i];

		if (!f->unknown)
			continue;
		any = true;
		if (!told[i])
			fprintf(stderr, "pcviz: %s%s: residency unknown: %s\n", who(m, run, sizeof(run)),
				f->path, f->why);
		told[i] = true;
	}
	return any;
}

/* Exit status of a batch run in which some file's residency was unknown */
#define EXIT_UNKNOWN 3

/*
 * After run i's line for interval n: the interval its next line is for.
 * A replay's stretch of idle intervals (no event) is written as its first
 * and last lines: nothing but the time changes in between (the rates are
 * 0), and a trace whose timestamps jump by years, a corrupt one, costs two
 * lines instead of gigabytes.  A run that ended is idle to the end.
 */
static long next_line(struct pcv_source *s, const struct pcv_model *m, double interval, long n,
		      bool idle)
{
	double k;

	if (!idle || !s->next_event)
		return n + 1;
	/* the next event is in interval n + k; its line and the idle one before it are written */
	k = ceil((s->next_event(s) - m->now) / interval);
	if (isinf(k) || k >= (double)(LONG_MAX / 2))
		return LONG_MAX;
	return k > 2 ? n + (long)k - 1 : n + 1;
}

/*
 * Samples a run for interval n, and at once for the intervals since it was
 * last sampled (sampled); whether it met no event then (idle), and whether
 * it has ended.
 */
static bool sample_run(struct pcv_source *s, struct pcv_model *m, double interval, long n,
		       long *sampled, bool *idle)
{
	double before = s->next_event ? s->next_event(s) : 0;
	bool ended = s->sample(s, m, interval * (double)(n - *sampled)) != 0;

	*sampled = n;
	*idle = s->next_event && s->next_event(s) == before;
	return ended;
}

/*
 * One line per run and interval, but for a replay's idle stretches
 * (next_line()); runs compared go on, on one time axis, until the longer
 * one ends (the other's values stay as they ended).
 */
static int run_batch(struct pcv_source *s, struct pcv_model *m, int nruns,
		     const struct pcv_options *o)
{
	static bool told[PCV_RUNS][PCV_MAX_FILES];
	long sampled[PCV_RUNS] = { 0 }, due[PCV_RUNS] = { 0 };
	double start;
	bool last = false, unknown = false, ended[PCV_RUNS] = { false }, idle[PCV_RUNS];
	char words[160], run[8];

	for (int i = 0; i < nruns; i++) {
		if (!m[i].events_on)
			fprintf(stderr, "pcviz: %sno events: %s\n", who(&m[i], run, sizeof(run)),
				m[i].events_why);
		pcv_unwatched_words(&m[i], words, sizeof(words));
		if (*words)
			fprintf(stderr, "pcviz: %s%s\n", who(&m[i], run, sizeof(run)), words);
	}
	if (!o->json)
		pcv_csv_header(stdout, &m[0]);
	start = pclab_now();
	for (int i = 0; i < nruns; i++)
		s[i].sample(&s[i], &m[i], 0);
	for (long n = 1; !last && (!o->count || n <= o->count);) {
		bool writes[PCV_RUNS];
		long next = LONG_MAX;

		if (s[0].realtime)
			wait_interval(s, m, nruns, start, o->interval, n);
		/* a signal ends the run with a line for the partial interval */
		if (stop_signal == SIGPIPE)
			break;
		last = true;
		for (int i = 0; i < nruns; i++) {
			writes[i] = n >= due[i];
			if (writes[i])
				ended[i] = sample_run(&s[i], &m[i], o->interval, n, &sampled[i], &idle[i]);
			last &= ended[i];
		}
		last |= stop_signal != 0 || (o->count && n == o->count);
		for (int i = 0; i < nruns; i++) {
			/* at the end, the last line of a run idle until then */
			if (last && !writes[i]) {
				ended[i] = sample_run(&s[i], &m[i], o->interval, n, &sampled[i], &idle[i]);
				writes[i] = true;
			}
			if (!writes[i])
				continue;
			unknown |= tell_unknown(&m[i], told[i]);
			if (o->json)
				pcv_json_line(stdout, &m[i]);
			else
				pcv_csv_line(stdout, &m[i]);
			due[i] = next_line(&s[i], &m[i], o->interval, n, idle[i]);
		}
		for (int i = 0; i < nruns; i++)
			next = due[i] < next ? due[i] : next;
		if (o->count && next > o->count)
			next = o->count;
		n = next > n ? next : n + 1;
		last |= ferror(stdout);
	}
	return ferror(stdout) ? 1 : unknown ? EXIT_UNKNOWN : 0;
}

/*
 * Opens the runs' sources: nruns replays (labelled A and B when more than
 * one), or one synthetic or live source.  Returns 0, or 1 with the message
 * on stderr and every run closed.
 */
static int open_runs(struct pcv_source *s, struct pcv_model *m, int nruns,
		     const struct pcv_options *o)
{
	char err[512];
	int status = 0, i;

	for (i = 0; i < nruns && !status; i++) {
		pcv_model_init(&m[i]);
		if (nruns > 1)
			m[i].run = i ? "B" : "A";
		if (o->nreplay)
			status = pcv_replay_open(&s[i], &m[i], o, o->replay[i], err, sizeof(err));
		else if (o->synthetic)
			status = pcv_synth_open(&s[i], &m[i], o, err, sizeof(err));
		else
			status = pcv_live_open(&s[i], &m[i], o, err, sizeof(err));
	}
	if (!status)
		return 0;
	fprintf(stderr, "pcviz: %s\n", err);
	/* the one that failed is closed; those before it are open */
	pcv_model_free(&m[--i]);
	while (i--) {
		s[i].close(&s[i], &m[i]);
		pcv_model_free(&m[i]);
	}
	return 1;
}

int main(int argc, char **argv)
{
	static struct pcv_model model[PCV_RUNS];
	struct pcv_options o;
	struct pcv_source src[PCV_RUNS] = { 0 };
	char err[512];
	int status, nruns;

	status = pcv_parse_options(argc, argv, &o, err, sizeof(err));
	if (status == 1) {
		fputs(pcv_usage, stdout);
		return 0;
	}
	if (status == 2) {
		pclab_print_version();
		return 0;
	}
	if (status)
		pclab_usage_error("%s", err);
	if (!o.batch && !isatty(STDOUT_FILENO))
		o.batch = true;
	/* before the source opens: ncurses exits on a bad TERM, past the cleanup */
	if (!o.batch && pcv_ui_check_terminal(err, sizeof(err))) {
		fprintf(stderr, "pcviz: %s\n", err);
		return 2;
	}
	catch_signals();
	nruns = o.nreplay > 1 ? o.nreplay : 1;
	if (open_runs(src, model, nruns, &o)) {
		die_of_stop_signal();	/* one that came while a trace was read */
		return 1;
	}
	status = o.batch ? run_batch(src, model, nruns, &o)
			 : pcv_ui_run(src, model, nruns, &o, &stop_signal);
	for (int i = 0; i < nruns; i++) {
		src[i].close(&src[i], &model[i]);
		pcv_model_free(&model[i]);
	}
	die_of_stop_signal();
	return status;
}

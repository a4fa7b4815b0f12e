// SPDX-License-Identifier: GPL-2.0
/*
 * pcviz: a live view of page-cache residency and page-cache events.
 * See pcviz(1) and docs/pcviz.md.
 */
#define _GNU_SOURCE
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

/* How often events are read between refreshes: the kernel's buffer stays small. */
#define DRAIN_S 0.1

/*
 * Sleeps until start + n * interval on the monotonic clock (no drift),
 * reading the source's events every DRAIN_S meanwhile.
 */
static void wait_interval(struct pcv_source *s, struct pcv_model *m, double start,
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
		if (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == 0 && until < at &&
		    s->drain)
			s->drain(s, m);
	}
}

/*
 * Says on stderr, once per file, why pcviz cannot know its residency;
 * returns whether any file's is unknown now.
 */
static bool tell_unknown(const struct pcv_model *m, bool *told)
{
	bool any = false;

	for (int i = 0; i < m->nfiles; i++) {
		const struct pcv_file *f = &m->files[i];

		if (!f->unknown)
			continue;
		any = true;
		if (!told[i])
			fprintf(stderr, "pcviz: %s: residency unknown: %s\n", f->path, f->why);
		told[i] = true;
	}
	return any;
}

/* Exit status of a batch run in which some file's residency was unknown */
#define EXIT_UNKNOWN 3

static int run_batch(struct pcv_source *s, struct pcv_model *m, const struct pcv_options *o)
{
	static bool told[PCV_MAX_FILES];
	double start;
	bool last = false, unknown = false;
	char words[160];

	if (!m->events_on)
		fprintf(stderr, "pcviz: no events: %s\n", m->events_why);
	pcv_unwatched_words(m, words, sizeof(words));
	if (*words)
		fprintf(stderr, "pcviz: %s\n", words);
	if (!o->json)
		pcv_csv_header(stdout);
	start = pclab_now();
	s->sample(s, m, 0);
	for (long n = 1; !last && (!o->count || n <= o->count); n++) {
		if (s->realtime)
			wait_interval(s, m, start, o->interval, n);
		/* a signal ends the run with a line for the partial interval */
		if (stop_signal == SIGPIPE)
			break;
		last = s->sample(s, m, o->interval) || stop_signal;
		unknown |= tell_unknown(m, told);
		if (o->json)
			pcv_json_line(stdout, m);
		else
			pcv_csv_line(stdout, m);
		last |= ferror(stdout);
	}
	return ferror(stdout) ? 1 : unknown ? EXIT_UNKNOWN : 0;
}

int main(int argc, char **argv)
{
	static struct pcv_model model;
	struct pcv_options o;
	struct pcv_source src = { 0 };
	char err[512];
	int status;

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
	pcv_model_init(&model);
	if (o.replay)
		status = pcv_replay_open(&src, &model, &o, err, sizeof(err));
	else if (o.synthetic)
		status = pcv_synth_open(&src, &model, &o, err, sizeof(err));
	else
		status = pcv_live_open(&src, &model, &o, err, sizeof(err));
	if (status) {
		fprintf(stderr, "pcviz: %s\n", err);
		pcv_model_free(&model);
		return 1;
	}
	status = o.batch ? run_batch(&src, &model, &o) : pcv_ui_run(&src, &model, &o, &stop_signal);
	src.close(&src, &model);
	pcv_model_free(&model);
	if (stop_signal && stop_signal != SIGPIPE) {
		/* clean up done: die of the signal, as the caller expects */
		signal(stop_signal, SIG_DFL);
		raise(stop_signal);
	}
	return status;
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where the model's numbers come from, behind one interface: live (files,
 * /proc, tracefs), replay of a trace.dat, or a synthetic workload.
 */
#ifndef PCVIZ_SOURCE_H
#define PCVIZ_SOURCE_H

#include <stddef.h>

#include "model.h"
#include "options.h"

struct pcv_source {
	const char *name;
	/*
	 * Refreshes the model: residency of the laid-out cells and the totals,
	 * system counters, events, then pcv_model_tick().  dt is the time to
	 * advance a replay or synthetic clock by (live sources use the real
	 * clock).  Returns 0, or 1 when a replay has reached its end.
	 */
	int (*sample)(struct pcv_source *s, struct pcv_model *m, double dt);
	void (*close)(struct pcv_source *s, struct pcv_model *m);
	/* Optional: reads buffered events between refreshes, so none are lost. */
	void (*drain)(struct pcv_source *s, struct pcv_model *m);
	/*
	 * Optional, a replay's: the time of the next event not yet replayed,
	 * on the clock of the model's now; INFINITY when none is left.  Batch
	 * mode leaves out the lines of intervals that are idle between two
	 * that are not.
	 */
	double (*next_event)(struct pcv_source *s);
	bool realtime;		/* live: batch mode sleeps between refreshes */
	void *priv;
};

/*
 * Each returns 0, or -1 with a message in err (the caller exits 1).  A
 * replay reads the trace.dat at path (one of o->replay[]).
 */
int pcv_live_open(struct pcv_source *s, struct pcv_model *m, const struct pcv_options *o,
		  char *err, size_t len);
int pcv_synth_open(struct pcv_source *s, struct pcv_model *m, const struct pcv_options *o,
		   char *err, size_t len);
int pcv_replay_open(struct pcv_source *s, struct pcv_model *m, const struct pcv_options *o,
		    const char *path, char *err, size_t len);

#endif

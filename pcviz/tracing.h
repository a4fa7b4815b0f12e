/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Live events: a private tracefs instance "pcviz-<pid>" with the events of
 * decode.c, filtered in the kernel to the watched files where the events
 * carry the inode.  Removed on every exit path.
 */
#ifndef PCVIZ_TRACING_H
#define PCVIZ_TRACING_H

#include <stddef.h>

#include "model.h"

/*
 * Removes stale pcviz-<pid> instances of dead processes, creates ours and
 * enables the events of kinds (a bit per enum pcv_kind).  On failure
 * returns -1 with the reason in why (the events panel says it);
 * m->events_on tells the outcome.
 */
int pcv_trace_start(struct pcv_model *m, unsigned kinds, long buffer_kb, char *why, size_t len);
/* The in-kernel filters again, after files were added to the model. */
void pcv_trace_refilter(const struct pcv_model *m);
/* Feeds the model everything the kernel has buffered; adds lost events. */
void pcv_trace_poll(struct pcv_model *m);
/* Disables the events and removes the instance; a second call does nothing. */
void pcv_trace_stop(void);

#endif

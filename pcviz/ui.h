/* SPDX-License-Identifier: GPL-2.0 */
/* The live views (ncurses): they render the model and handle the keys. */
#ifndef PCVIZ_UI_H
#define PCVIZ_UI_H

#include <signal.h>

#include "source.h"

/*
 * Can the views use this terminal (TERM)?  -1 with the reason in err if
 * not.  ncurses itself would exit the process on a bad TERM.
 */
int pcv_ui_check_terminal(char *err, size_t len);
/*
 * Runs until q, o->count refreshes or *stop; returns the exit status.
 * s[] and m[] are nruns runs: two are compared side by side.
 */
int pcv_ui_run(struct pcv_source *s, struct pcv_model *m, int nruns,
	       const struct pcv_options *o, volatile sig_atomic_t *stop);

#endif

// SPDX-License-Identifier: GPL-2.0
/*
 * Whether the views can use the terminal, asked before anything else runs:
 * on an unknown TERM, ncurses' initscr() prints its own message and exits
 * the process, past pcviz's cleanup.  (Apart from ui.c: <term.h> defines
 * macros named like ui.c's key handlers.)
 */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <term.h>
#include <unistd.h>

#include "ui.h"

int pcv_ui_check_terminal(char *err, size_t len)
{
	const char *term = getenv("TERM");
	int why;

	if (!term || !*term) {
		snprintf(err, len, "%s", "TERM is not set: no terminal type for the views; try --batch");
		return -1;
	}
	if (setupterm(NULL, STDOUT_FILENO, &why) == OK) {
		del_curterm(cur_term);
		return 0;
	}
	snprintf(err, len, "TERM=%s: %s; try --batch", term,
		 why == 1 ? "a hardcopy terminal, no views" :
		 why == 0 ? "unknown terminal type" : "no terminfo database");
	return -1;
}

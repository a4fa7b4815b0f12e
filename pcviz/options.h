/* SPDX-License-Identifier: GPL-2.0 */
/* pcviz's command line. */
#ifndef PCVIZ_OPTIONS_H
#define PCVIZ_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

#include "model.h"

struct pcv_options {
	bool batch, json, ascii, mincore, synthetic;
	unsigned events;	/* bit (1 << enum pcv_kind) per kind traced; 0: none */
	double interval;	/* seconds */
	double speed;		/* replay speed */
	long count;		/* intervals, 0: until stopped */
	long buffer_kb;		/* trace buffer per CPU */
	int max_files;		/* files watched at most */
	/* trace.dat files: one to replay, two to compare (PCV_RUNS at most) */
	const char *replay[PCV_RUNS];
	int nreplay;
	bool compare;		/* --compare: the operands are traces too */
	char **paths;
	int npaths;
};

extern const char pcv_usage[];

/*
 * Parses argv into o.  Returns 0 to run, 1 when --help was asked for, 2
 * for --version, -1 on bad input with a message in err.
 */
int pcv_parse_options(int argc, char **argv, struct pcv_options *o, char *err, size_t len);

#endif

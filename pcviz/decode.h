/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tracepoints pcviz uses and their decoding (libtraceevent), shared by
 * the live tracefs source and the trace.dat replay.
 */
#ifndef PCVIZ_DECODE_H
#define PCVIZ_DECODE_H

#include <event-parse.h>

#include "model.h"

/* How an event is filtered in the kernel. */
enum pcv_filter { PCV_FILTER_DEV_INO, PCV_FILTER_INO, PCV_FILTER_FILE_LRU, PCV_FILTER_NONE };

#define PCV_NFIELDS 14

struct pcv_evspec {
	/*
	 * was: the name older pclab kernels gave the event (before the
	 * mm_filemap_ prefix), read where name is missing: a trace recorded
	 * on such a kernel still replays; NULL: none
	 */
	const char *system, *name, *was;
	enum pcv_kind kind;
	enum pcv_filter filter;
	/*
	 * fields read into dev, ino, index, nr_pages, pfn, arg[0..4], memcg,
	 * target, reclaimer, distance (NULL: none)
	 */
	const char *field[PCV_NFIELDS];
};

#define PCV_NSPECS 19
extern const struct pcv_evspec pcv_specs[PCV_NSPECS];

struct pcv_decoder {
	struct tep_format_field *type;	/* common_type: which event a record is */
	struct tep_format_field *pid;	/* common_pid: the task (NULL: none readable) */
	bool native;			/* the trace's byte order is ours: read fields directly */
	struct {
		int id;		/* -1: not in this kernel or trace */
		const char *name;	/* the spec's name or its was, as found; NULL: neither */
		struct tep_format_field *field[PCV_NFIELDS];
	} ev[PCV_NSPECS];
	int found;
	/* the first event that exists but cannot be decoded, and why ("" if none) */
	char problem[128];
};

/*
 * Looks the events up in tep, each by its name or else by its was;
 * returns how many can be decoded.  An event without one of the fields
 * pcviz reads, or with such a field of a size other than 1, 2, 4 or 8
 * bytes, is not used (its id stays -1), and the first such event is named
 * in d->problem.
 */
int pcv_decoder_init(struct pcv_decoder *d, struct tep_handle *tep);
/*
 * Decodes a record of one of the events; false for any other record and
 * for a record too short for the fields its format promises.
 */
bool pcv_decode(const struct pcv_decoder *d, const struct tep_record *rec, struct pcv_event *ev);

#endif

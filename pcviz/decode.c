// SPDX-License-Identifier: GPL-2.0
/* The tracepoints pcviz uses and their decoding (libtraceevent). */
#include <string.h>

#include "decode.h"

/*
 * field slots: dev, ino, index, nr_pages, pfn, arg[0..4], memcg, target,
 * reclaimer, distance (PCV_NFIELDS in all)
 */
enum { F_DEV, F_INO, F_INDEX, F_NR, F_PFN, F_ARG, F_MEMCG = F_ARG + 5, F_TARGET, F_RECLAIMER,
       F_DISTANCE };

#define DB_FIELDS "s_dev", "i_ino", "index", "nr_pages", NULL

const struct pcv_evspec pcv_specs[PCV_NSPECS] = {
	{ "filemap", "mm_filemap_add_to_page_cache", NULL, PCV_EV_ADD, PCV_FILTER_DEV_INO,
	  { "s_dev", "i_ino", "index", NULL, "pfn", "order" } },
	{ "filemap", "mm_filemap_delete_from_page_cache", NULL, PCV_EV_DELETE, PCV_FILTER_DEV_INO,
	  { "s_dev", "i_ino", "index", NULL, "pfn", "order" } },
	{ "workingset", "mm_workingset_eviction", NULL, PCV_EV_EVICT, PCV_FILTER_DEV_INO,
	  { DB_FIELDS, "workingset", NULL, NULL, NULL, NULL, "memcg", "target", "reclaimer" } },
	{ "workingset", "mm_workingset_refault", NULL, PCV_EV_REFAULT, PCV_FILTER_DEV_INO,
	  { DB_FIELDS, "activate", "workingset", NULL, NULL, NULL, "memcg", NULL, NULL,
	    "distance" } },
	{ "pagemap", "mm_lru_insertion", NULL, PCV_EV_LRU_INSERT, PCV_FILTER_FILE_LRU,
	  { NULL, NULL, NULL, NULL, "pfn" } },
	{ "pagemap", "mm_lru_activate", NULL, PCV_EV_LRU_ACTIVATE, PCV_FILTER_NONE,
	  { NULL, NULL, NULL, NULL, "pfn" } },
	{ "writeback", "writeback_dirty_folio", NULL, PCV_EV_DIRTY, PCV_FILTER_INO,
	  { NULL, "ino", "index" } },
	{ "writeback", "writeback_single_inode", NULL, PCV_EV_WRITEBACK, PCV_FILTER_INO,
	  { NULL, "ino", NULL, "wrote" } },
	{ "writeback", "sb_mark_inode_writeback", NULL, PCV_EV_WB_START, PCV_FILTER_INO,
	  { "dev", "ino" } },
	{ "writeback", "sb_clear_inode_writeback", NULL, PCV_EV_WB_END, PCV_FILTER_INO,
	  { "dev", "ino" } },
	{ "vmscan", "mm_vmscan_kswapd_wake", NULL, PCV_EV_KSWAPD_WAKE, PCV_FILTER_NONE,
	  { NULL, NULL, NULL, NULL, NULL, "order" } },
	/* in the task whose allocation wakes kswapd: who kswapd's evictions are for */
	{ "vmscan", "mm_vmscan_wakeup_kswapd", NULL, PCV_EV_KSWAPD_WAKER, PCV_FILTER_NONE,
	  { NULL, NULL, NULL, NULL, NULL, "order", "nid", "zid" } },
	{ "vmscan", "mm_vmscan_direct_reclaim_begin", NULL, PCV_EV_DIRECT_RECLAIM, PCV_FILTER_NONE,
	  { NULL, NULL, NULL, NULL, NULL, "order" } },
	{ "vmscan", "mm_vmscan_lru_shrink_inactive", NULL, PCV_EV_RECLAIM, PCV_FILTER_NONE,
	  { NULL, NULL, "nr_scanned", "nr_reclaimed" } },
	{ "filemap", "mm_filemap_dropbehind_mark", "dropbehind_mark", PCV_EV_DB_MARK,
	  PCV_FILTER_DEV_INO, { DB_FIELDS, "write" } },
	{ "filemap", "mm_filemap_dropbehind_serve", "dropbehind_serve", PCV_EV_DB_SERVE,
	  PCV_FILTER_DEV_INO, { DB_FIELDS, "write" } },
	{ "filemap", "mm_filemap_dropbehind_claim", "dropbehind_claim", PCV_EV_DB_CLAIM,
	  PCV_FILTER_DEV_INO, { DB_FIELDS } },
	{ "filemap", "mm_filemap_dropbehind_end", "dropbehind_end", PCV_EV_DB_END,
	  PCV_FILTER_DEV_INO, { DB_FIELDS, "when", "result" } },
	{ "filemap", "mm_filemap_dropbehind_call", "dropbehind_call", PCV_EV_DB_CALL,
	  PCV_FILTER_DEV_INO,
	  { "s_dev", "i_ino", "pos", "bytes", NULL, "write", "marked", "served", "dropped", "kept" } },
};

/* pcviz reads fields of 1, 2, 4 or 8 bytes at a non-negative offset. */
static bool readable(const struct tep_format_field *f)
{
	return f && f->offset >= 0 && (f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8);
}

int pcv_decoder_init(struct pcv_decoder *d, struct tep_handle *tep)
{
	memset(d, 0, sizeof(*d));
	for (int i = 0; i < PCV_NSPECS; i++) {
		const struct pcv_evspec *s = &pcv_specs[i];
		struct tep_event *e = tep_find_event_by_name(tep, s->system, s->name);
		struct tep_format_field *type;
		const char *missing = NULL;

		if (!e && s->was)
			e = tep_find_event_by_name(tep, s->system, s->was);
		d->ev[i].id = -1;
		if (!e)
			continue;
		d->ev[i].name = e->name;
		type = tep_find_common_field(e, "common_type");
		if (!readable(type))
			missing = "common_type";
		/* the look-up stops at the first missing field */
		for (int f = 0; f < PCV_NFIELDS && !missing; f++) {
			if (!s->field[f])
				continue;
			d->ev[i].field[f] = tep_find_field(e, s->field[f]);
			if (!readable(d->ev[i].field[f]))
				missing = s->field[f];
		}
		if (missing) {
			memset(d->ev[i].field, 0, sizeof(d->ev[i].field));
			if (!d->problem[0])
				snprintf(d->problem, sizeof(d->problem), "%s:%s has no usable field %s",
					 s->system, e->name, missing);
			continue;
		}
		d->ev[i].id = e->id;
		d->type = type;
		/* the task: optional, an event without it still counts */
		d->pid = tep_find_common_field(e, "common_pid");
		if (!readable(d->pid))
			d->pid = NULL;
		d->found++;
	}
	d->native = tep_is_file_bigendian(tep) == tep_is_local_bigendian(tep);
	return d->found;
}

/*
 * A field's value.  Decoding is most of pcviz's work beside a fast stream,
 * so fields in our byte order are read directly, not through
 * tep_read_number_field().
 */
static uint64_t value(const struct pcv_decoder *d, struct tep_format_field *f, const void *data)
{
	const unsigned char *p = (const unsigned char *)data + f->offset;
	unsigned long long v = 0;
	uint32_t v32;
	uint16_t v16;
	uint64_t v64;

	if (!d->native) {
		tep_read_number_field(f, data, &v);
		return v;
	}
	switch (f->size) {	/* readable(): 1, 2, 4 or 8 */
	case 1:
		return *p;
	case 2:
		memcpy(&v16, p, 2);
		return v16;
	case 4:
		memcpy(&v32, p, 4);
		return v32;
	case 8:
		memcpy(&v64, p, 8);
		return v64;
	default:
		return 0;
	}
}

/* Is field f inside the record? */
static bool inside(const struct tep_format_field *f, const struct tep_record *rec)
{
	return rec->size > 0 &&
	       (unsigned long)f->offset + (unsigned long)f->size <= (unsigned long)rec->size;
}

bool pcv_decode(const struct pcv_decoder *d, const struct tep_record *rec, struct pcv_event *ev)
{
	uint64_t v[PCV_NFIELDS] = { 0 };
	int i, id;

	if (!d->type || !inside(d->type, rec))
		return false;
	id = (int)value(d, d->type, rec->data);
	for (i = 0; i < PCV_NSPECS && d->ev[i].id != id; i++)
		;
	if (i == PCV_NSPECS)
		return false;
	for (int f = 0; f < PCV_NFIELDS; f++) {
		if (!d->ev[i].field[f])
			continue;
		if (!inside(d->ev[i].field[f], rec))
			return false;
		v[f] = value(d, d->ev[i].field[f], rec->data);
	}
	memset(ev, 0, sizeof(*ev));
	ev->ts = (double)rec->ts / 1e9;
	ev->kind = pcv_specs[i].kind;
	ev->dev = (uint32_t)v[F_DEV];
	ev->ino = v[F_INO];
	ev->index = v[F_INDEX];
	ev->nr_pages = v[F_NR];
	ev->pfn = v[F_PFN];
	for (int a = 0; a < 5; a++)
		ev->arg[a] = (uint32_t)v[F_ARG + a];
	ev->memcg = v[F_MEMCG];
	ev->target = v[F_TARGET];
	ev->reclaimer = v[F_RECLAIMER];
	ev->distance = v[F_DISTANCE];
	/* an unsigned long of 4 bytes: ULONG_MAX is unknown too */
	if (d->ev[i].field[F_DISTANCE] && d->ev[i].field[F_DISTANCE]->size == 4 &&
	    ev->distance == UINT32_MAX)
		ev->distance = PCV_DISTANCE_UNKNOWN;
	if (d->pid && inside(d->pid, rec))
		ev->pid = (int32_t)value(d, d->pid, rec->data);
	if (ev->kind == PCV_EV_ADD || ev->kind == PCV_EV_DELETE)
		/* the folio's order; one of 64 or more is no folio, and claims all pages */
		ev->nr_pages = ev->arg[0] < 64 ? 1ull << ev->arg[0] : UINT64_MAX;
	return true;
}

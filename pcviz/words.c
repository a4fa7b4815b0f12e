// SPDX-License-Identifier: GPL-2.0
/*
 * The model in words, for the views (the event log, the notes on files
 * left out): English only, no state of its own.
 */
#include <stdio.h>
#include <string.h>

#include "model.h"
#include "pclab/sysstat.h"
#include "words.h"

void pcv_unwatched_words(const struct pcv_model *m, char *buf, size_t len)
{
	if (!m->unwatched)
		snprintf(buf, len, "%s", "");
	else if (m->max_files < PCV_MAX_FILES)
		snprintf(buf, len, "%ld files not watched: pcviz watches %d files "
			 "(--max-files N raises it, up to %d)", m->unwatched, m->max_files,
			 PCV_MAX_FILES);
	else
		snprintf(buf, len, "%ld files not watched: pcviz watches %d files at most",
			 m->unwatched, PCV_MAX_FILES);
}

static const char *name_of(const struct pcv_model *m, const struct pcv_event *ev, char *buf,
			   size_t len)
{
	int fi = pcv_model_find_file(m, ev->dev, ev->ino);
	const char *slash;

	if (fi < 0) {
		snprintf(buf, len, "ino %llu", (unsigned long long)ev->ino);
		return buf;
	}
	slash = strrchr(m->files[fi].path, '/');
	return slash && slash[1] ? slash + 1 : m->files[fi].path;
}

static const char *pages(const struct pcv_event *ev, char *buf, size_t len)
{
	if (ev->nr_pages > 1)
		snprintf(buf, len, "pages %llu-%llu", (unsigned long long)ev->index,
			 (unsigned long long)(ev->index + ev->nr_pages - 1));
	else
		snprintf(buf, len, "page %llu", (unsigned long long)ev->index);
	return buf;
}

/* "... evicted by kswapd0", "... by dd in direct reclaim (pid 812, cgroup 345) for memcg 678" */
static void evict_words(const struct pcv_model *m, const struct pcv_event *ev, char *buf,
			size_t len)
{
	char nb[48], pb[48], who[96], target[40] = "";

	if (pclab_is_kswapd(ev->comm))
		snprintf(who, sizeof(who), "%.16s", ev->comm);
	else
		snprintf(who, sizeof(who), "%.16s%sdirect reclaim (pid %d, cgroup %llu)",
			 ev->comm[0] ? ev->comm : "", ev->comm[0] ? " in " : "", ev->pid,
			 (unsigned long long)ev->reclaimer);
	if (ev->target != PCV_CGROUP_ROOT)
		snprintf(target, sizeof(target), " for memcg %llu", (unsigned long long)ev->target);
	snprintf(buf, len, "%s: %s of memcg %llu%s evicted by %s%s", name_of(m, ev, nb, sizeof(nb)),
		 pages(ev, pb, sizeof(pb)), (unsigned long long)ev->memcg,
		 ev->arg[0] ? " (active)" : "", who, target);
}

/* "kswapd1 woken by dd (pid 812, cgroup 345) for an order-0 allocation in zone 2" */
static void waker_words(const struct pcv_event *ev, char *buf, size_t len)
{
	char cgroup[40] = "";

	if (ev->reclaimer)
		snprintf(cgroup, sizeof(cgroup), ", cgroup %llu", (unsigned long long)ev->reclaimer);
	snprintf(buf, len, "kswapd%u woken by %.16s%s(pid %d%s) for an order-%u allocation in zone %u",
		 ev->arg[1], ev->comm, ev->comm[0] ? " " : "", ev->pid, cgroup, ev->arg[0],
		 ev->arg[2]);
}

static void refault_words(const struct pcv_model *m, const struct pcv_event *ev, char *buf,
			  size_t len)
{
	char nb[48], pb[48], distance[48] = "";

	if (ev->distance != PCV_DISTANCE_UNKNOWN)
		snprintf(distance, sizeof(distance), ", distance %llu pages",
			 (unsigned long long)ev->distance);
	snprintf(buf, len, "%s: %s refaulted%s%s%s", name_of(m, ev, nb, sizeof(nb)),
		 pages(ev, pb, sizeof(pb)), ev->arg[1] ? " (was active)" : "", distance,
		 ev->arg[0] ? ", activated" : "");
}

void pcv_event_words(const struct pcv_model *m, const struct pcv_event *ev, char *buf, size_t len)
{
	char nb[48], pb[48];
	const char *rw = ev->arg[0] ? "write" : "read";

	switch (ev->kind) {
	case PCV_EV_ADD:
		snprintf(buf, len, "%s: %s added to the cache", name_of(m, ev, nb, sizeof(nb)),
			 pages(ev, pb, sizeof(pb)));
		break;
	case PCV_EV_DELETE:
		snprintf(buf, len, "%s: %s removed from the cache", name_of(m, ev, nb, sizeof(nb)),
			 pages(ev, pb, sizeof(pb)));
		break;
	case PCV_EV_LRU_INSERT:
		snprintf(buf, len, "%s: page %llu put on an LRU list", name_of(m, ev, nb, sizeof(nb)),
			 (unsigned long long)ev->index);
		break;
	case PCV_EV_LRU_ACTIVATE:
		snprintf(buf, len, "%s: page %llu activated (used again)",
			 name_of(m, ev, nb, sizeof(nb)), (unsigned long long)ev->index);
		break;
	case PCV_EV_DIRTY:
		snprintf(buf, len, "%s: page %llu dirtied", name_of(m, ev, nb, sizeof(nb)),
			 (unsigned long long)ev->index);
		break;
	case PCV_EV_WRITEBACK:
		snprintf(buf, len, "%s: writeback wrote %llu pages", name_of(m, ev, nb, sizeof(nb)),
			 (unsigned long long)ev->nr_pages);
		break;
	case PCV_EV_KSWAPD_WAKE:
		snprintf(buf, len, "kswapd woken (order %u)", ev->arg[0]);
		break;
	case PCV_EV_KSWAPD_WAKER:
		waker_words(ev, buf, len);
		break;
	case PCV_EV_DIRECT_RECLAIM:
		snprintf(buf, len, "direct reclaim begins (order %u)", ev->arg[0]);
		break;
	case PCV_EV_RECLAIM:
		snprintf(buf, len, "reclaim scanned %llu, reclaimed %llu pages",
			 (unsigned long long)ev->index, (unsigned long long)ev->nr_pages);
		break;
	case PCV_EV_DB_MARK:
		snprintf(buf, len, "%s: %s marked drop-behind (uncached %s)",
			 name_of(m, ev, nb, sizeof(nb)), pages(ev, pb, sizeof(pb)), rw);
		break;
	case PCV_EV_DB_SERVE:
		snprintf(buf, len, "%s: %s already cached, served (uncached %s)",
			 name_of(m, ev, nb, sizeof(nb)), pages(ev, pb, sizeof(pb)), rw);
		break;
	case PCV_EV_DB_CLAIM:
		snprintf(buf, len, "%s: %s claimed by an ordinary read, fault or write",
			 name_of(m, ev, nb, sizeof(nb)), pages(ev, pb, sizeof(pb)));
		break;
	case PCV_EV_DB_END:
		snprintf(buf, len, "%s: %s after %s: %s", name_of(m, ev, nb, sizeof(nb)),
			 pages(ev, pb, sizeof(pb)), ev->arg[0] < PCV_DB_NWHEN ? pcv_db_when[ev->arg[0]] : "?",
			 ev->arg[1] < PCV_DB_NRESULT ? pcv_db_result[ev->arg[1]] : "?");
		break;
	case PCV_EV_DB_CALL:
		snprintf(buf, len,
			 "%s: uncached %s of %llu bytes at %llu: marked %u served %u dropped %u kept %u",
			 name_of(m, ev, nb, sizeof(nb)), rw, (unsigned long long)ev->nr_pages,
			 (unsigned long long)ev->index, ev->arg[1], ev->arg[2], ev->arg[3], ev->arg[4]);
		break;
	case PCV_EV_EVICT:
		evict_words(m, ev, buf, len);
		break;
	case PCV_EV_REFAULT:
		refault_words(m, ev, buf, len);
		break;
	case PCV_EV_WB_START:
		snprintf(buf, len, "%s: writeback starts (dirty pages go under writeback)",
			 name_of(m, ev, nb, sizeof(nb)));
		break;
	case PCV_EV_WB_END:
		snprintf(buf, len, "%s: writeback done (no page under writeback)",
			 name_of(m, ev, nb, sizeof(nb)));
		break;
	default:
		snprintf(buf, len, "unknown event");
		break;
	}
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The model's eviction attribution: who evicted a file's pages (kswapd,
 * charged to the task that woke it, or a direct reclaimer), and how long
 * refaulted pages were gone.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evictions.h"
#include "model.h"
#include "pclab/sysstat.h"

uint64_t pcv_file_woken_known(const struct pcv_file *f)
{
	return f->evict_kswapd - f->woken_unknown;
}

double pcv_file_gone_mean(const struct pcv_file *f)
{
	return f->gone_n ? f->gone_sum / (double)f->gone_n : 0;
}

/*
 * The pages of [index, index + n) that can be timed, the eviction times
 * allocated for them (lazily, as the write states are); 0 if none can.
 */
static uint64_t timed_pages(struct pcv_file *f, uint64_t index, uint64_t n, double ts)
{
	uint64_t want = f->pages > index + n ? f->pages : index + n;

	if (want > PCV_WMAX_PAGES)
		want = PCV_WMAX_PAGES;
	if (index >= want || !n)
		return 0;
	if (f->epages < want) {
		uint32_t *more = realloc(f->evicted_at, want * sizeof(*more));

		if (!more)
			return 0;
		memset(more + f->epages, 0, (want - f->epages) * sizeof(*more));
		f->ebase = f->evicted_at ? f->ebase : ts;
		f->evicted_at = more;
		f->epages = want;
	}
	return n > f->epages - index ? f->epages - index : n;
}

/* A direct reclaimer's row of the file's table, NULL when the table is full. */
static struct pcv_reclaimer *reclaimer_of(struct pcv_file *f, const struct pcv_event *ev)
{
	struct pcv_reclaimer *r;

	for (int i = 0; i < f->nreclaimers; i++) {
		r = &f->reclaimers[i];
		if (r->cgroup == ev->reclaimer && r->target == ev->target &&
		    !strncmp(r->comm, ev->comm, sizeof(r->comm)))
			return r;
	}
	if (f->nreclaimers == PCV_RECLAIMERS)
		return NULL;
	r = &f->reclaimers[f->nreclaimers++];
	r->cgroup = ev->reclaimer;
	r->target = ev->target;
	snprintf(r->comm, sizeof(r->comm), "%.*s", (int)sizeof(ev->comm), ev->comm);
	r->pages = 0;
	return r;
}

/*
 * The latest waker of the node of kswapd named comm (kswapd<N> runs for
 * node N), NULL when none was seen.  The wake-up event fires only while
 * that kswapd sleeps, so the latest is a waker of its current run, unless
 * the run's own wake-up events were lost or not traced.
 */
static const struct pcv_woke *woke_of(const struct pcv_model *m, const char *comm)
{
	unsigned long nid = strtoul(comm + 6, NULL, 10);	/* digits: pclab_is_kswapd() */
	const struct pcv_woke *w = &m->woke[nid % PCV_NODES];

	return w->seen && w->nid == nid ? w : NULL;
}

/* kswapd's pages charged to its waker w (NULL: unknown) in the file's table */
static void charge_waker(struct pcv_file *f, const struct pcv_woke *w, uint64_t pages)
{
	struct pcv_waker *r = NULL;
	int i;

	if (!w) {
		f->woken_unknown += pages;
		return;
	}
	for (i = 0; i < f->nwakers; i++)
		if (f->wakers[i].cgroup == w->cgroup &&
		    !strncmp(f->wakers[i].comm, w->comm, sizeof(w->comm)))
			break;
	if (i < f->nwakers) {
		r = &f->wakers[i];
	} else if (f->nwakers < PCV_WAKERS) {
		r = &f->wakers[f->nwakers++];
		r->cgroup = w->cgroup;
		memcpy(r->comm, w->comm, sizeof(r->comm));	/* both 16 bytes, ended */
		r->pages = 0;
	}
	if (r)
		r->pages += pages;
	else
		f->woken_others += pages;
}

void pcv_waker_event(struct pcv_model *m, const struct pcv_event *ev)
{
	struct pcv_woke *w = &m->woke[ev->arg[1] % PCV_NODES];

	w->seen = true;
	w->nid = ev->arg[1];
	w->pid = ev->pid;
	w->cgroup = ev->reclaimer;
	memcpy(w->comm, ev->comm, sizeof(w->comm));
	w->comm[sizeof(w->comm) - 1] = 0;	/* a comm of 15 characters at most */
	w->ts = ev->ts;
}

/* kswapd by its name, charged to the task that woke it; anyone else in direct reclaim */
void pcv_evict_event(const struct pcv_model *m, struct pcv_file *f, const struct pcv_event *ev)
{
	uint64_t pages = ev->nr_pages ? ev->nr_pages : 1, n;
	double ms;

	if (pclab_is_kswapd(ev->comm)) {
		f->evict_kswapd += pages;
		charge_waker(f, woke_of(m, ev->comm), pages);
	} else {
		struct pcv_reclaimer *r = reclaimer_of(f, ev);

		f->evict_direct += pages;
		if (r)
			r->pages += pages;
		else
			f->evict_others += pages;
	}
	n = timed_pages(f, ev->index, pages, ev->ts);
	ms = (ev->ts - f->ebase) * 1000;	/* ebase is set by the first */
	for (uint64_t p = 0; p < n; p++)
		f->evicted_at[ev->index + p] = ms < 0 ? 1 : ms >= UINT32_MAX - 1 ? UINT32_MAX :
					       (uint32_t)ms + 1;
}

void pcv_refault_event(struct pcv_file *f, const struct pcv_event *ev)
{
	uint64_t pages = ev->nr_pages ? ev->nr_pages : 1, timed = 0;

	f->refaults += pages;
	if (ev->arg[0])
		f->refault_activated += pages;
	for (uint64_t p = ev->index; f->evicted_at && p < f->epages && p - ev->index < pages;
	     p++) {
		double gone;

		if (!f->evicted_at[p])
			continue;
		gone = ev->ts - (f->ebase + (f->evicted_at[p] - 1) / 1000.0);
		gone = gone < 0 ? 0 : gone;
		f->gone_sum += gone;
		f->gone_max = gone > f->gone_max ? gone : f->gone_max;
		f->gone_n++;
		f->evicted_at[p] = 0;
		timed++;
	}
	f->refault_unseen += pages - timed;
}

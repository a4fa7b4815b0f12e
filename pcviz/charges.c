// SPDX-License-Identifier: GPL-2.0
/*
 * The model's pfn table and charges: which watched page a pfn is (for
 * the LRU events), and the memory cgroups charged for a file's pages.
 */
#include <stdlib.h>

#include "charges.h"
#include "model.h"

/* The slot of pfn, the table allocated on first use; NULL without memory */
static struct pcv_pfn_slot *pfn_slot(struct pcv_model *m, uint64_t pfn)
{
	if (!m->pfn) {
		m->pfn = calloc(PCV_PFN_SLOTS, sizeof(*m->pfn));
		if (!m->pfn)
			return NULL;
	}
	return &m->pfn[(pfn * 0x9E3779B97F4A7C15ull) >> (64 - 17)];
}

struct pcv_pfn_slot *pcv_pfn_find(struct pcv_model *m, uint64_t pfn)
{
	struct pcv_pfn_slot *slot = pfn_slot(m, pfn);

	return slot && slot->pfn_plus1 == pfn + 1 ? slot : NULL;
}

/* The file's count for cgroup: its entry, a new one, or NULL (the others) */
static uint64_t *charge_of(struct pcv_file *f, uint64_t cgroup, bool add)
{
	for (int i = 0; i < f->ncharges; i++)
		if (f->charges[i].cgroup == cgroup)
			return &f->charges[i].pages;
	if (!add || f->ncharges == PCV_CHARGES)
		return NULL;
	f->charges[f->ncharges].cgroup = cgroup;
	return &f->charges[f->ncharges++].pages;
}

/* The folio in slot leaves the cache, or stops being followed: off its cgroup's count */
static void uncharge(struct pcv_model *m, struct pcv_pfn_slot *slot)
{
	struct pcv_file *f = &m->files[slot->file];
	uint64_t *n;

	if (!slot->memcg)
		return;
	n = charge_of(f, slot->memcg, false);
	if (!n)
		n = &f->charged_others;
	*n -= *n < slot->pages ? *n : slot->pages;
	slot->memcg = 0;
}

static int cmp_pfn(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

void pcv_model_charge(struct pcv_model *m, pcv_charge_fn *lookup, void *arg)
{
	size_t live = 0;

	/* the folios still cached only: beside a stream, most are gone already */
	for (size_t i = 0; i < m->nuncharged; i++) {
		const struct pcv_pfn_slot *slot = pcv_pfn_find(m, m->uncharged[i]);

		if (slot && !slot->memcg)
			m->uncharged[live++] = m->uncharged[i];
	}
	if (live)	/* m->uncharged may still be NULL, which qsort() must not get */
		qsort(m->uncharged, live, sizeof(*m->uncharged), cmp_pfn);
	for (size_t i = 0; i < live; i++) {
		uint64_t pfn = m->uncharged[i], *n;
		struct pcv_pfn_slot *slot = pfn_slot(m, pfn);

		/* a pfn added twice is charged once */
		if (slot->memcg)
			continue;
		slot->memcg = lookup(pfn, arg);
		if (!slot->memcg)
			continue;
		n = charge_of(&m->files[slot->file], slot->memcg, true);
		*(n ? n : &m->files[slot->file].charged_others) += slot->pages;
	}
	m->nuncharged = 0;
}

uint64_t pcv_file_charge_unknown(const struct pcv_file *f)
{
	uint64_t known = f->charged_others;

	for (int i = 0; i < f->ncharges; i++)
		known += f->charges[i].pages;
	return f->unknown || f->total.cached < known ? 0 : f->total.cached - known;
}

void pcv_pfn_added(struct pcv_model *m, int fi, const struct pcv_event *ev)
{
	struct pcv_pfn_slot *slot = pfn_slot(m, ev->pfn);

	if (!slot)
		return;
	if (slot->pfn_plus1)
		uncharge(m, slot);
	slot->pfn_plus1 = ev->pfn + 1;
	slot->file = fi;
	slot->index = ev->index;
	slot->pages = ev->nr_pages > UINT32_MAX ? UINT32_MAX : (uint32_t)ev->nr_pages;
	if (!m->uncharged)
		m->uncharged = malloc(PCV_PFN_SLOTS * sizeof(*m->uncharged));
	/* more than the table holds between two charges: the rest stay unknown */
	if (m->uncharged && m->nuncharged < PCV_PFN_SLOTS)
		m->uncharged[m->nuncharged++] = ev->pfn;
}

void pcv_pfn_deleted(struct pcv_model *m, uint64_t pfn)
{
	struct pcv_pfn_slot *slot = pcv_pfn_find(m, pfn);

	if (!slot)
		return;
	uncharge(m, slot);
	slot->pfn_plus1 = 0;
}

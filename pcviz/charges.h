/* SPDX-License-Identifier: GPL-2.0 */
/* The model's pfn table and the memory cgroups charged for its pages (charges.c). */
#ifndef PCVIZ_CHARGES_H
#define PCVIZ_CHARGES_H

#include <stdint.h>

struct pcv_event;
struct pcv_file;
struct pcv_model;
struct pcv_pfn_slot;

/*
 * The cgroup charged for the page at pfn, as the source can tell: its ID,
 * 0 when it cannot.
 */
typedef uint64_t pcv_charge_fn(uint64_t pfn, void *arg);
/*
 * Charges the folios added since the last call that are still cached to
 * the cgroups lookup tells, in the order of their pfns.
 */
void pcv_model_charge(struct pcv_model *m, pcv_charge_fn *lookup, void *arg);
/* Pages of the file cached but charged to no known cgroup (cached before pcviz looked, not followed) */
uint64_t pcv_file_charge_unknown(const struct pcv_file *f);
/* For the dispatcher's LRU events: the slot following the folio at pfn, NULL when none is. */
struct pcv_pfn_slot *pcv_pfn_find(struct pcv_model *m, uint64_t pfn);
/* For the dispatcher: a folio added to watched file fi, into the table and to be charged. */
void pcv_pfn_added(struct pcv_model *m, int fi, const struct pcv_event *ev);
/* For the dispatcher: the folio at pfn left the cache, off the table and its cgroup's count. */
void pcv_pfn_deleted(struct pcv_model *m, uint64_t pfn);

#endif

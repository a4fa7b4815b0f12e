/* SPDX-License-Identifier: GPL-2.0 */
/* The model's eviction, refault and kswapd waker attribution (evictions.c). */
#ifndef PCVIZ_EVICTIONS_H
#define PCVIZ_EVICTIONS_H

#include <stdint.h>

struct pcv_event;
struct pcv_file;
struct pcv_model;

/*
 * For the dispatcher: a task woke a node's kswapd, and is the one the
 * next evictions of that kswapd are charged to.
 */
void pcv_waker_event(struct pcv_model *m, const struct pcv_event *ev);
/* For the dispatcher: an eviction of f's pages, who did it and when, for the refault to come. */
void pcv_evict_event(const struct pcv_model *m, struct pcv_file *f, const struct pcv_event *ev);
/* For the dispatcher: a refault, how long each page of the folio was gone if its eviction was seen. */
void pcv_refault_event(struct pcv_file *f, const struct pcv_event *ev);
/* Pages the file's kswapd evictions had a waker for (evict_kswapd less woken_unknown). */
uint64_t pcv_file_woken_known(const struct pcv_file *f);
/* The mean time the file's refaulted pages were gone, in seconds (0: none timed). */
double pcv_file_gone_mean(const struct pcv_file *f);

#endif

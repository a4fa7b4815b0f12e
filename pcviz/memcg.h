/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Page-cache counters per memory cgroup, live: memory.stat, memory.events,
 * memory.pressure, memory.current and memory.max of each cgroup2 directory
 * that has the memory controller.
 */
#ifndef PCVIZ_MEMCG_H
#define PCVIZ_MEMCG_H

#include "model.h"

/* The files' text into c; each returns the number of values found. */
int pcv_parse_memcg_stat(const char *text, struct pcv_memcg *c);
int pcv_parse_memcg_events(const char *text, struct pcv_memcg *c);
/* memory.pressure: the avg10 of its "some" and "full" lines */
int pcv_parse_psi(const char *text, double *some, double *full);

/*
 * Reads the memory cgroups below root (cgroup2's mount, "/sys/fs/cgroup"),
 * depth-first in name order, the first PCV_MEMCGS of them; the rest are
 * counted in c->more.  A cgroup's rates come from its previous sample,
 * matched by path, at the next pcv_model_tick().
 */
void pcv_read_memcgs(struct pcv_memcgs *c, const char *root);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/* System counters into the model: /proc/meminfo, /proc/vmstat, kswapd's CPU, MGLRU. */
#ifndef PCVIZ_PROCFS_H
#define PCVIZ_PROCFS_H

#include "model.h"
#include "pclab/sysstat.h"

/* The files' text into s (lib/'s parser); each returns the number of values found. */
int pcv_parse_meminfo(const char *text, struct pcv_system *s);
int pcv_parse_vmstat(const char *text, struct pcv_system *s);
/* /sys/kernel/mm/lru_gen/enabled ("0x0007"): 1 on, 0 off, -1 unknown */
int pcv_parse_mglru(const char *text);

/* Reads all of the above into s; kswapd from pclab_kswapd_find(). */
void pcv_read_system(struct pcv_system *s, const struct pclab_kswapd *kswapd);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/* System counters: /proc/meminfo, /proc/vmstat, kswapd's CPU, MGLRU. */
#ifndef PCVIZ_PROCFS_H
#define PCVIZ_PROCFS_H

#include <stddef.h>

#include "model.h"

/* Parsers of the files' text; each returns the number of values found. */
int pcv_parse_meminfo(const char *text, struct pcv_system *s);
int pcv_parse_vmstat(const char *text, struct pcv_system *s);
/* utime + stime of a /proc/PID/stat line, -1 if it does not parse */
long long pcv_parse_stat_ticks(const char *text);
/* /sys/kernel/mm/lru_gen/enabled ("0x0007"): 1 on, 0 off, -1 unknown */
int pcv_parse_mglru(const char *text);

/* Reads a whole (small) file into buf, NUL-terminated; -1 on error. */
int pcv_read_file(const char *path, char *buf, size_t len);
/* The pid of the kswapd0 kernel thread, or -1. */
int pcv_find_kswapd(void);
/* Reads all of the above into s; kswapd_pid may be -1. */
void pcv_read_system(struct pcv_system *s, int kswapd_pid);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The system's page-cache counters: /proc/meminfo, /proc/vmstat and the CPU
 * time of kswapd.  One parser and one kswapd definition for pcviz, iolab and
 * the tests, so that a lab table and pcviz report the same numbers.
 */
#ifndef PCLAB_SYSSTAT_H
#define PCLAB_SYSSTAT_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Reads the whole of a small file into buf, NUL-terminated, truncated to
 * len - 1 bytes.  Returns the length read, or -1 with errno.
 */
int pclab_read_file(const char *path, char *buf, size_t len);

/*
 * The values of keys[0..n) in the text of /proc/meminfo ("Key:   value kB",
 * in KiB) or /proc/vmstat ("key value"): a key matches a line's whole first
 * word, less its colon, so "Cached" is not "SwapCached" and "pgpgin" is not
 * "pgpgin_extra".  values[i] is -1 where keys[i] is absent (a counter the
 * kernel lacks).  Returns how many keys were found.
 */
int pclab_proc_values(const char *text, const char *const *keys, long long *values, int n);

/*
 * The same from one read of path, so that the values are one sample.
 * Returns how many keys were found, or -1 with errno (every value -1) if
 * the file cannot be read.
 */
int pclab_read_proc_values(const char *path, const char *const *keys, long long *values, int n);

/* One key of /proc/meminfo (KiB) or /proc/vmstat; -1 if absent or unreadable. */
long long pclab_meminfo(const char *key);
long long pclab_vmstat(const char *key);

/*
 * kswapd's CPU time is the sum over every kswapd thread, one per memory
 * node ("kswapd0", "kswapd1", ...): counting only kswapd0 would miss the
 * reclaim of every other node.
 */
#define PCLAB_MAX_KSWAPD 1024	/* MAX_NUMNODES with NODES_SHIFT 10 */

struct pclab_kswapd {
	const char *proc;	/* where procfs is: "/proc", or a test's copy */
	int nr;
	int pid[PCLAB_MAX_KSWAPD];
};

/* Whether comm, a /proc/PID/comm line, names a kswapd thread: "kswapd" and a node number. */
bool pclab_is_kswapd(const char *comm);

/*
 * Finds the kswapd threads under proc (NULL: "/proc") into *k, once: they
 * live as long as the kernel, and scanning procfs at every sample would be
 * work done beside the measured I/O.  Returns how many were found.
 */
int pclab_kswapd_find(struct pclab_kswapd *k, const char *proc);

/*
 * CPU time (utime + stime, in clock ticks: sysconf(_SC_CLK_TCK) a second)
 * used so far by the threads of k, summed; -1 if k has none.
 */
long long pclab_kswapd_ticks(const struct pclab_kswapd *k);

/* utime + stime of the text of a /proc/PID/stat file; -1 if it does not parse. */
long long pclab_stat_ticks(const char *text);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cachestat(2): the page-cache state of a range of an open file.
 *
 * The UAPI structures are restated here, layout for layout, because the
 * host's headers (Debian 12 ships 6.1's) predate them and the patched
 * kernel's <linux/mman.h> clashes with glibc's <sys/mman.h>: a host build
 * then needs no kernel tree, a guest build no header juggling.
 */
#ifndef PCLAB_CACHESTAT_H
#define PCLAB_CACHESTAT_H

#include <stdint.h>

/* The system call's number: 451 on every architecture since Linux 6.5. */
#define PCLAB_NR_CACHESTAT 451

/* struct cachestat_range of <linux/mman.h> */
struct pclab_cachestat_range {
	uint64_t off;
	uint64_t len;
};

/* struct cachestat of <linux/mman.h>, in pages */
struct pclab_cachestat {
	uint64_t nr_cache;
	uint64_t nr_dirty;
	uint64_t nr_writeback;
	uint64_t nr_evicted;
	uint64_t nr_recently_evicted;
};

/*
 * cachestat(2) of bytes [off, off + len) of fd (len 0: to the end of the
 * file) into *cs.  Returns 0, or -1 with errno (ENOSYS: a kernel before
 * 6.5; EPERM: a file the caller may not write, on kernels with that rule).
 */
int pclab_cachestat(int fd, uint64_t off, uint64_t len, struct pclab_cachestat *cs);

#endif

// SPDX-License-Identifier: GPL-2.0
/* cachestat(2) without the kernel's headers; see pclab/cachestat.h. */
#define _GNU_SOURCE
#include <unistd.h>

#include "pclab/cachestat.h"

/* The kernel copies exactly these bytes: a restated layout must match. */
_Static_assert(sizeof(struct pclab_cachestat_range) == 16, "struct cachestat_range is 2 x u64");
_Static_assert(sizeof(struct pclab_cachestat) == 40, "struct cachestat is 5 x u64");

int pclab_cachestat(int fd, uint64_t off, uint64_t len, struct pclab_cachestat *cs)
{
	struct pclab_cachestat_range range = { .off = off, .len = len };

	/* flags: none are defined; the kernel refuses any other value */
	return syscall(PCLAB_NR_CACHESTAT, fd, &range, cs, 0) ? -1 : 0;
}

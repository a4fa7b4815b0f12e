/* SPDX-License-Identifier: GPL-2.0 */
/*
 * RWF_UNCACHED, the name of the 2019 proposal that pclab's programs, labs
 * and exercises use, for the flag the kernel's UAPI calls RWF_DONTCACHE:
 * an alias kept in pclab's own headers, not in the kernel's, so that what
 * is written here builds against upstream's headers too.  The value is
 * Linux 6.14's, should the headers at hand predate the flag.
 */
#ifndef PCLAB_UNCACHED_H
#define PCLAB_UNCACHED_H

#include <linux/fs.h>

#ifndef RWF_DONTCACHE
#define RWF_DONTCACHE 0x00000080
#endif
#define RWF_UNCACHED RWF_DONTCACHE

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pseudo-filesystems (proc, sysfs, tracefs, cgroup, ...): their files are
 * regular files to stat(2) but have no page cache of their own, so
 * cachestat(2) of one reports zeros, which pcviz and the tools would show
 * as if measured.  They refuse such files instead, by this one list.
 */
#ifndef PCLAB_PSEUDOFS_H
#define PCLAB_PSEUDOFS_H

/*
 * The name of the pseudo-filesystem the open file fd is on ("proc",
 * "sysfs", ...), or NULL when it is on another filesystem or fstatfs(2)
 * fails (then what the caller does next says what is wrong).
 */
const char *pclab_pseudo_fs(int fd);

#endif

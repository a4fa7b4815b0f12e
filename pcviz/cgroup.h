/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Cgroup IDs to paths, live: a cgroup's ID (what the workingset events
 * carry) is the inode number of its directory in cgroup2.
 */
#ifndef PCVIZ_CGROUP_H
#define PCVIZ_CGROUP_H

#include <stdint.h>

/* Cgroups remembered; directories one walk of the hierarchy visits at most */
#define PCV_CGROUP_CACHE 256
#define PCV_CGROUP_WALK 4096

struct pcv_cgroups {
	char root[64];		/* where cgroup2 is mounted: "/sys/fs/cgroup" */
	struct {
		uint64_t id;
		char path[120];	/* below root: "/", "/system.slice/ssh.service" */
	} cache[PCV_CGROUP_CACHE];
	int n, next;		/* entries used; the one a full cache replaces next */
	unsigned long walked;	/* the refresh of the last walk, plus 1 (0: never walked) */
};

/*
 * Calls fn for the cgroup directory root and each below it, depth-first
 * in name order: rel is its path below root ("" for root itself), dir its
 * whole path, ino its inode number (the cgroup's ID).  Bounded: at most
 * PCV_CGROUP_WALK directories, 16 levels, paths of PCV_CGROUP_PATH bytes.
 */
#define PCV_CGROUP_PATH 256
typedef void pcv_cgroup_fn(const char *rel, const char *dir, uint64_t ino, void *arg);
void pcv_cgroup_walk(const char *root, pcv_cgroup_fn *fn, void *arg);

void pcv_cgroups_init(struct pcv_cgroups *c, const char *root);
/*
 * The path of cgroup id below the root, NULL when it is not found.  A miss
 * walks the hierarchy again, at most once per refresh (the caller's count).
 */
const char *pcv_cgroup_path(struct pcv_cgroups *c, uint64_t id, unsigned long refresh);

#endif

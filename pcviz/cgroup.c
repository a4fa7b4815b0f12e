// SPDX-License-Identifier: GPL-2.0
/*
 * Cgroup IDs to paths: walks the cgroup2 hierarchy matching st_ino.  The
 * walk is bounded (PCV_CGROUP_WALK directories, a depth of 16) and runs
 * on a miss at most once per refresh, so a reclaimer in a cgroup that is
 * gone costs one walk per refresh, not one per lookup.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgroup.h"

#define MAX_DEPTH 16

struct walk {
	struct pcv_cgroups *c;
	uint64_t want;
	char found[120];
	int visited;
};

static void remember(struct pcv_cgroups *c, uint64_t id, const char *path)
{
	int i = c->n < PCV_CGROUP_CACHE ? c->n++ : c->next++ % PCV_CGROUP_CACHE;

	c->cache[i].id = id;
	snprintf(c->cache[i].path, sizeof(c->cache[i].path), "%s", path);
}

static int lookup(const struct pcv_cgroups *c, uint64_t id)
{
	for (int i = 0; i < c->n; i++)
		if (c->cache[i].id == id)
			return i;
	return -1;
}

/* The directory fd, at path below the root: it and its subdirectories. */
static void visit(struct walk *w, int fd, const char *path, int depth)
{
	struct dirent *e;
	struct stat st;
	DIR *d;

	if (fstat(fd, &st) || w->visited++ >= PCV_CGROUP_WALK) {
		close(fd);
		return;
	}
	/* every cgroup seen while there is room: the next lookups need no walk */
	if ((uint64_t)st.st_ino == w->want)
		snprintf(w->found, sizeof(w->found), "%s", *path ? path : "/");
	else if (w->c->n < PCV_CGROUP_CACHE && lookup(w->c, (uint64_t)st.st_ino) < 0)
		remember(w->c, (uint64_t)st.st_ino, *path ? path : "/");
	d = depth < MAX_DEPTH ? fdopendir(fd) : NULL;
	if (!d) {
		close(fd);
		return;
	}
	while ((e = readdir(d)) && w->visited < PCV_CGROUP_WALK) {
		char sub[sizeof(w->found)];
		int subfd;

		if (e->d_type != DT_DIR || e->d_name[0] == '.' ||
		    snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name) >= (int)sizeof(sub))
			continue;
		subfd = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (subfd >= 0)
			visit(w, subfd, sub, depth + 1);
	}
	closedir(d);
}

void pcv_cgroups_init(struct pcv_cgroups *c, const char *root)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->root, sizeof(c->root), "%s", root);
}

const char *pcv_cgroup_path(struct pcv_cgroups *c, uint64_t id, unsigned long refresh)
{
	struct walk w = { .c = c, .want = id };
	int i = lookup(c, id), fd;

	if (i >= 0)
		return c->cache[i].path;
	if (c->walked == refresh + 1)
		return NULL;
	c->walked = refresh + 1;
	fd = open(c->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	visit(&w, fd, "", 0);
	if (!w.found[0])
		return NULL;
	remember(c, id, w.found);
	return c->cache[lookup(c, id)].path;
}

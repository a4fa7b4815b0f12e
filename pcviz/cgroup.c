// SPDX-License-Identifier: GPL-2.0
/*
 * Cgroup IDs to paths: walks the cgroup2 hierarchy matching st_ino.  The
 * walk is bounded (PCV_CGROUP_WALK directories, a depth of 16) and runs
 * on a miss at most once per refresh, so a reclaimer in a cgroup that is
 * gone costs one walk per refresh, not one per lookup.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cgroup.h"

#define MAX_DEPTH 16

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

struct walk {
	const char *root;
	pcv_cgroup_fn *fn;
	void *arg;
	int visited;
};

static int subdir(const struct dirent *e)
{
	return e->d_type == DT_DIR && e->d_name[0] != '.';
}

/* The cgroup rel (below the root), then its children in name order */
static void visit(struct walk *w, const char *rel, int depth)
{
	char dir[PCV_CGROUP_PATH + 64];
	struct dirent **names;
	struct stat st;
	int n;

	if (w->visited++ >= PCV_CGROUP_WALK ||
	    snprintf(dir, sizeof(dir), "%s%s", w->root, rel) >= (int)sizeof(dir) ||
	    stat(dir, &st))
		return;
	w->fn(rel, dir, (uint64_t)st.st_ino, w->arg);
	n = depth < MAX_DEPTH ? scandir(dir, &names, subdir, alphasort) : -1;
	for (int i = 0; i < n; i++) {
		char sub[PCV_CGROUP_PATH];

		if (snprintf(sub, sizeof(sub), "%s/%s", rel, names[i]->d_name) < (int)sizeof(sub))
			visit(w, sub, depth + 1);
		free(names[i]);
	}
	if (n >= 0)
		free(names);
}

void pcv_cgroup_walk(const char *root, pcv_cgroup_fn *fn, void *arg)
{
	struct walk w = { .root = root, .fn = fn, .arg = arg };

	visit(&w, "", 0);
}

/* What a lookup's walk looks for, and every cgroup seen while there is room */
struct find {
	struct pcv_cgroups *c;
	uint64_t want;
	char found[sizeof(((struct pcv_cgroups *)0)->cache[0].path)];
};

static void find_one(const char *rel, const char *dir, uint64_t ino, void *arg)
{
	struct find *f = arg;
	const char *path = *rel ? rel : "/";

	(void)dir;
	if (strlen(path) >= sizeof(f->found))
		return;
	if (ino == f->want)
		snprintf(f->found, sizeof(f->found), "%s", path);
	else if (f->c->n < PCV_CGROUP_CACHE && lookup(f->c, ino) < 0)
		remember(f->c, ino, path);
}

void pcv_cgroups_init(struct pcv_cgroups *c, const char *root)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->root, sizeof(c->root), "%s", root);
}

const char *pcv_cgroup_path(struct pcv_cgroups *c, uint64_t id, unsigned long refresh)
{
	struct find f = { .c = c, .want = id };
	int i = lookup(c, id);

	if (i >= 0)
		return c->cache[i].path;
	if (c->walked == refresh + 1)
		return NULL;
	c->walked = refresh + 1;
	pcv_cgroup_walk(c->root, find_one, &f);
	if (!f.found[0])
		return NULL;
	remember(c, id, f.found);
	return c->cache[lookup(c, id)].path;
}

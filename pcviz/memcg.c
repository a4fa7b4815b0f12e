// SPDX-License-Identifier: GPL-2.0
/*
 * Memory cgroups' page-cache counters, live.  A walk of the cgroup2
 * hierarchy per refresh (pcv_cgroup_walk(), bounded), reading the first PCV_MEMCGS cgroups that
 * have a memory.stat; a cgroup without the memory controller has none.
 * The root cgroup's (6.12 has one, though cgroup-v2.rst says memory.stat
 * "exists on non-root cgroups") counts the whole hierarchy; the root has
 * no memory.events, memory.current or memory.max.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup.h"
#include "memcg.h"
#include "pclab/sysstat.h"

/* a cgroup's whole path and a file name */
#define PATH_LEN (PCV_CGROUP_PATH + 96)

struct reader {
	struct pcv_memcgs *c;
	const char *root;
	/* the previous sample, for the rates */
	const struct pcv_memcg *old;
	int nold;
	char buf[16384];	/* memory.stat is about 2 KiB in 6.x */
};

int pcv_parse_memcg_stat(const char *text, struct pcv_memcg *c)
{
	long long v[PCV_MCG_N];
	int found = pclab_proc_values(text, pcv_mcg_name, v, PCV_MCG_N);

	for (int i = 0; i < PCV_MCG_N; i++) {
		c->valid[i] = v[i] >= 0;
		c->stat[i] = c->valid[i] ? (uint64_t)v[i] : 0;
	}
	return found;
}

int pcv_parse_memcg_events(const char *text, struct pcv_memcg *c)
{
	long long v[PCV_MCG_EV_N];
	int found = pclab_proc_values(text, pcv_mcg_event_name, v, PCV_MCG_EV_N);

	for (int i = 0; i < PCV_MCG_EV_N; i++)
		c->events[i] = v[i] >= 0 ? (uint64_t)v[i] : 0;
	return found;
}

/* "avg10=1.23 ..." after the line's first word: the number, or -1 */
static double avg10(const char *p)
{
	char *end;
	double v;

	p += strspn(p, " \t");
	if (strncmp(p, "avg10=", 6))
		return -1;
	v = strtod(p + 6, &end);
	return end == p + 6 || v < 0 ? -1 : v;
}

int pcv_parse_psi(const char *text, double *some, double *full)
{
	int found = 0;

	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		double v;

		if (!strncmp(l, "some ", 5) && (v = avg10(l + 5)) >= 0) {
			*some = v;
			found++;
		} else if (!strncmp(l, "full ", 5) && (v = avg10(l + 5)) >= 0) {
			*full = v;
			found++;
		}
	}
	return found;
}

/* A single-value file: a number, or "max" (memory.max); false when neither */
static bool read_value(struct reader *r, const char *dir, const char *name, uint64_t *v)
{
	char path[PATH_LEN], *end;

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path) ||
	    pclab_read_file(path, r->buf, sizeof(r->buf)) <= 0)
		return false;
	if (!strncmp(r->buf, "max", 3)) {
		*v = PCV_MCG_UNLIMITED;
		return true;
	}
	if (r->buf[0] < '0' || r->buf[0] > '9')
		return false;
	*v = strtoull(r->buf, &end, 10);
	return true;
}

static bool read_text(struct reader *r, const char *dir, const char *name)
{
	char path[PATH_LEN];

	return snprintf(path, sizeof(path), "%s/%s", dir, name) < (int)sizeof(path) &&
	       pclab_read_file(path, r->buf, sizeof(r->buf)) > 0;
}

/* The cgroup at dir (rel below the root), if it has the memory controller */
static void read_one(struct reader *r, const char *dir, const char *rel)
{
	struct pcv_memcgs *c = r->c;
	struct pcv_memcg *g;

	/* no memory.stat, or none left to read (gone since the listing): no memcg */
	if (strlen(rel) >= sizeof(c->cg[0].path) || !read_text(r, dir, "memory.stat"))
		return;
	if (c->n >= PCV_MEMCGS) {
		c->more++;
		return;
	}
	g = &c->cg[c->n];
	memset(g, 0, sizeof(*g));
	if (!pcv_parse_memcg_stat(r->buf, g))
		return;
	c->n++;
	snprintf(g->path, sizeof(g->path), "%s", *rel ? rel : "/");
	g->events_valid = read_text(r, dir, "memory.events") &&
			  pcv_parse_memcg_events(r->buf, g) > 0;
	g->psi_valid = read_text(r, dir, "memory.pressure") &&
		       pcv_parse_psi(r->buf, &g->psi_some, &g->psi_full) == 2;
	g->current_valid = read_value(r, dir, "memory.current", &g->current);
	g->max_valid = read_value(r, dir, "memory.max", &g->max);
	/* the same cgroup in the sample before: what its rates count from */
	for (int i = 0; i < r->nold; i++) {
		const struct pcv_memcg *o = &r->old[i];

		if (strcmp(o->path, g->path))
			continue;
		g->has_prev = true;
		for (int k = 0; k < PCV_MCG_N; k++)
			g->prev[k] = o->valid[k] ? o->stat[k] : g->stat[k];
		break;
	}
}

/* pcv_cgroup_walk()'s call for each directory */
static void visit(const char *rel, const char *dir, uint64_t ino, void *arg)
{
	(void)ino;
	read_one(arg, dir, rel);
}

void pcv_read_memcgs(struct pcv_memcgs *c, const char *root)
{
	/* the sample before, and the read buffer: static, 30 KiB is much for a stack */
	static struct pcv_memcg old[PCV_MEMCGS];
	static struct reader r;

	memcpy(old, c->cg, sizeof(old));
	r = (struct reader){ .c = c, .root = root, .old = old, .nold = c->n };
	c->known = true;
	c->n = 0;
	c->more = 0;
	pcv_cgroup_walk(root, visit, &r);
	if (!c->n)
		snprintf(c->why, sizeof(c->why), "no cgroup below %s has memory.stat (cgroup2 with "
			 "the memory controller)", root);
	else
		c->why[0] = 0;
}

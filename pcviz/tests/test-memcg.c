// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of pcviz's memory cgroup counters (TAP): the parsers of
 * memory.stat, memory.events and memory.pressure, the walk of a directory
 * tree standing in for cgroup2 (given as the first argument; the host's
 * cgroups are never read), its bound, rates across two samples, and the
 * JSON "cgroups" array.  Run by tests/host/pcviz-unit.sh.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "memcg.h"
#include "model.h"
#include "output.h"
#include "tap.h"

static struct pcv_model M;

/* memory.stat as a 6.x kernel writes it, the keys pcviz reads among others */
static const char stat_a[] =
	"anon 1048576\nfile 8388608\nkernel 4096\nfile_dirty 12288\nfile_writeback 4096\n"
	"active_file 6291456\ninactive_file 2097152\nworkingset_refault_anon 0\n"
	"workingset_refault_file 300\nworkingset_activate_file 40\npgscan 5000\npgsteal 4000\n";

/* Writes text to dir/name; false when it cannot */
static bool put(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		return false;
	fputs(text, f);
	return !fclose(f);
}

/* A cgroup directory dir with a memory.stat of text (NULL: none) */
static bool cgroup(const char *dir, const char *text)
{
	return !mkdir(dir, 0700) && (!text || put(dir, "memory.stat", text));
}

/* The memcg read at path, NULL when it was not */
static const struct pcv_memcg *find(const struct pcv_memcgs *c, const char *path)
{
	for (int i = 0; i < c->n; i++)
		if (!strcmp(c->cg[i].path, path))
			return &c->cg[i];
	return NULL;
}

static void test_parsers(void)
{
	struct pcv_memcg g = { 0 };
	double some = -1, full = -1;

	EXPECT_TRUE(pcv_parse_memcg_stat(stat_a, &g) == PCV_MCG_N && g.stat[PCV_MCG_FILE] == 8388608 &&
		    g.stat[PCV_MCG_ACTIVE_FILE] == 6291456 && g.stat[PCV_MCG_INACTIVE_FILE] == 2097152 &&
		    g.stat[PCV_MCG_FILE_DIRTY] == 12288 && g.stat[PCV_MCG_FILE_WRITEBACK] == 4096 &&
		    g.stat[PCV_MCG_REFAULT] == 300 && g.stat[PCV_MCG_ACTIVATE] == 40 &&
		    g.stat[PCV_MCG_PGSCAN] == 5000 && g.stat[PCV_MCG_PGSTEAL] == 4000,
		    "memory.stat: every key read, by its whole name (not workingset_refault_anon)");
	EXPECT_TRUE(pcv_parse_memcg_stat("file\nfile_dirty x\n\x01\x02 3\nactive_file -5\n"
					 "garbage garbage garbage\ninactive_file 4096\n", &g) == 1 &&
		    !g.valid[PCV_MCG_FILE] && !g.valid[PCV_MCG_FILE_DIRTY] &&
		    !g.valid[PCV_MCG_ACTIVE_FILE] && g.valid[PCV_MCG_INACTIVE_FILE] &&
		    g.stat[PCV_MCG_INACTIVE_FILE] == 4096,
		    "memory.stat: malformed lines ignored, the good one read");
	EXPECT_TRUE(pcv_parse_memcg_events("low 1\nhigh 2\nmax 3\noom 4\noom_kill 5\n", &g) == 4 &&
		    g.events[PCV_MCG_EV_LOW] == 1 && g.events[PCV_MCG_EV_HIGH] == 2 &&
		    g.events[PCV_MCG_EV_MAX] == 3 && g.events[PCV_MCG_EV_OOM] == 4,
		    "memory.events: low, high, max, oom (not oom_kill)");
	EXPECT_TRUE(pcv_parse_psi("some avg10=12.50 avg60=1.00 avg300=0.00 total=123\n"
				  "full avg10=3.25 avg60=0.00 avg300=0.00 total=45\n", &some, &full) == 2 &&
		    some == 12.5 && full == 3.25, "memory.pressure: some and full avg10");
	some = full = -1;
	EXPECT_TRUE(pcv_parse_psi("some avg60=1.00\nfull avg10=x\nsome\n", &some, &full) == 0 &&
		    some == -1 && full == -1, "memory.pressure: malformed lines give nothing");
}

/* The fake tree: what is read, what skipped, values, rates across two samples */
static void test_tree(const char *dir)
{
	char root[256], a[300], ax[320], b[300], bc[320], d[300], e[300], f[300], link[320];
	const struct pcv_memcg *g;
	char *buf = NULL;
	size_t len = 0;
	FILE *out;

	snprintf(root, sizeof(root), "%s/memcg", dir);
	snprintf(a, sizeof(a), "%s/a", root);
	snprintf(ax, sizeof(ax), "%s/x", a);
	snprintf(b, sizeof(b), "%s/b", root);
	snprintf(bc, sizeof(bc), "%s/c", b);
	snprintf(d, sizeof(d), "%s/d", root);
	snprintf(e, sizeof(e), "%s/e", root);
	snprintf(f, sizeof(f), "%s/f", root);
	snprintf(link, sizeof(link), "%s/memory.stat", d);
	/*
	 * The root has no memory.stat (cgroup2's has none); b has no memory
	 * controller, its child c has; d's memory.stat vanished after the
	 * listing (a link to nothing); e's other files did
	 */
	if (!cgroup(root, NULL) || !cgroup(a, stat_a) || !cgroup(ax, "file 4096\n") ||
	    !cgroup(b, NULL) || !cgroup(bc, "file 0\n") || !cgroup(d, NULL) ||
	    symlink("gone", link) || !cgroup(e, "file 1\n") ||
	    !put(a, "memory.events", "low 0\nhigh 7\nmax 2\noom 1\noom_kill 1\n") ||
	    !put(a, "memory.pressure", "some avg10=1.50 avg60=0.00 avg300=0.00 total=9\n"
				       "full avg10=0.50 avg60=0.00 avg300=0.00 total=3\n") ||
	    !put(a, "memory.current", "16777216\n") || !put(a, "memory.max", "max\n") ||
	    !put(ax, "memory.max", "33554432\n") || !put(root, "cgroup.procs", "1\n")) {
		tap_skip("cannot make the tree", "memory cgroups");
		return;
	}
	pcv_model_init(&M);
	pcv_read_memcgs(&M.memcgs, root);
	EXPECT_TRUE(M.memcgs.known && M.memcgs.n == 4 && !strcmp(M.memcgs.cg[0].path, "/a") &&
		    !strcmp(M.memcgs.cg[1].path, "/a/x") && !strcmp(M.memcgs.cg[2].path, "/b/c") &&
		    !strcmp(M.memcgs.cg[3].path, "/e") && !M.memcgs.more,
		    "the tree: /a, /a/x, /b/c, /e depth-first in name order (%d read)", M.memcgs.n);
	EXPECT_TRUE(!find(&M.memcgs, "/") && !find(&M.memcgs, "/b"),
		    "cgroups without memory.stat skipped: the root, /b");
	EXPECT_TRUE(!find(&M.memcgs, "/d"), "a memory.stat gone between listing and reading: skipped");
	g = find(&M.memcgs, "/a");
	EXPECT_TRUE(g && g->stat[PCV_MCG_FILE] == 8388608 && g->stat[PCV_MCG_PGSTEAL] == 4000 &&
		    g->events_valid && g->events[PCV_MCG_EV_HIGH] == 7 && g->events[PCV_MCG_EV_OOM] == 1 &&
		    g->psi_valid && g->psi_some == 1.5 && g->psi_full == 0.5 && g->current_valid &&
		    g->current == 16777216 && g->max_valid && g->max == PCV_MCG_UNLIMITED,
		    "/a: memory.stat, memory.events, PSI, current, max \"max\" read");
	g = find(&M.memcgs, "/a/x");
	EXPECT_TRUE(g && g->max_valid && g->max == 33554432 && !g->valid[PCV_MCG_PGSTEAL],
		    "/a/x: a limit, and a key its memory.stat lacks is unknown");
	g = find(&M.memcgs, "/e");
	EXPECT_TRUE(g && !g->events_valid && !g->psi_valid && !g->current_valid && !g->max_valid,
		    "/e: its other files gone after memory.stat: read, those values unknown");

	/* two seconds later: /a refaulted 200 pages and had 1000 stolen; /f is new */
	pcv_model_tick(&M, 10.0);
	if (!put(a, "memory.stat", "file 8388608\nworkingset_refault_file 500\n"
				   "workingset_activate_file 40\npgscan 7000\npgsteal 5000\n") ||
	    !cgroup(f, "workingset_refault_file 99999\n")) {
		tap_skip("cannot write the second sample", "memory cgroup rates");
		return;
	}
	pcv_read_memcgs(&M.memcgs, root);
	pcv_model_tick(&M, 12.0);
	g = find(&M.memcgs, "/a");
	EXPECT_TRUE(g && g->has_prev && g->rate[PCV_MCG_REFAULT] == 100 &&
		    g->rate[PCV_MCG_ACTIVATE] == 0 && g->rate[PCV_MCG_PGSCAN] == 1000 &&
		    g->rate[PCV_MCG_PGSTEAL] == 500,
		    "rates across two samples: 100 refaults/s, 500 pages stolen/s");
	g = find(&M.memcgs, "/f");
	EXPECT_TRUE(g && !g->has_prev && g->rate[PCV_MCG_REFAULT] == 0,
		    "a cgroup new in this sample: no rate yet (not its whole count)");

	out = open_memstream(&buf, &len);
	if (!out)
		return;
	pcv_json_line(out, &M);
	fclose(out);
	EXPECT_TRUE(strstr(buf, "],\"cgroups\":[{\"path\":\"/a\",\"current\":16777216,\"max\":\"max\","
				"\"file\":8388608,\"active_file\":null,") &&
		    strstr(buf, "\"workingset_refault_file_s\":100.000,\"workingset_activate_file_s\":0.000,"
				"\"pgscan_s\":1000.000,\"pgsteal_s\":500.000,\"events_low\":0,"
				"\"events_high\":7,\"events_max\":2,\"events_oom\":1,"
				"\"psi_some_avg10\":1.500,\"psi_full_avg10\":0.500}") &&
		    strstr(buf, "{\"path\":\"/e\",\"current\":null,\"max\":null,") &&
		    strstr(buf, "],\"cgroups_more\":0}\n"),
		    "JSON: a \"cgroups\" array, values, null where unknown");
	free(buf);
	pcv_model_free(&M);

	/* a replay's (or the synthetic) model: no key at all, the CSV columns stay the JSON keys */
	pcv_model_init(&M);
	buf = NULL;
	out = open_memstream(&buf, &len);
	if (!out)
		return;
	pcv_json_line(out, &M);
	fclose(out);
	EXPECT_TRUE(!strstr(buf, "cgroups"), "JSON without cgroup counters: no \"cgroups\" key");
	free(buf);
	pcv_model_free(&M);
}

/* More memory cgroups than PCV_MEMCGS: the first read, the rest counted */
static void test_bound(const char *dir)
{
	char root[256], sub[300];

	snprintf(root, sizeof(root), "%s/many", dir);
	if (mkdir(root, 0700)) {
		tap_skip("cannot make the tree", "the bound");
		return;
	}
	for (int i = 0; i < PCV_MEMCGS + 6; i++) {
		snprintf(sub, sizeof(sub), "%s/c%03d", root, i);
		if (!cgroup(sub, "file 4096\n")) {
			tap_skip("cannot make the tree", "the bound");
			return;
		}
	}
	pcv_model_init(&M);
	pcv_read_memcgs(&M.memcgs, root);
	EXPECT_TRUE(M.memcgs.n == PCV_MEMCGS && M.memcgs.more == 6 &&
		    !strcmp(M.memcgs.cg[PCV_MEMCGS - 1].path, "/c063"),
		    "%d cgroups: the first %d read, %ld counted as more", PCV_MEMCGS + 6, M.memcgs.n,
		    M.memcgs.more);
	pcv_model_free(&M);
	pcv_model_init(&M);
	snprintf(sub, sizeof(sub), "%s/nothing", dir);
	pcv_read_memcgs(&M.memcgs, sub);
	EXPECT_TRUE(M.memcgs.known && !M.memcgs.n && strstr(M.memcgs.why, "has memory.stat"),
		    "no such root: none read, and why: %s", M.memcgs.why);
	pcv_model_free(&M);
}

int main(int argc, char **argv)
{
	char dir[200];

	test_parsers();
	/* a directory of this run's own: the scratch directory outlives a run */
	if (argc > 1 && snprintf(dir, sizeof(dir), "%s/memcg-XXXXXX", argv[1]) < (int)sizeof(dir) &&
	    mkdtemp(dir)) {
		test_tree(dir);
		test_bound(dir);
	} else {
		tap_skip("no scratch directory given", "memory cgroups");
	}
	return tap_done(0);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of pcviz's model, parsers, residency, batch output and
 * options (TAP).  Run by tests/host/pcviz-unit.sh.  No tracing: the host
 * kernel's tracefs is never touched.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgroup.h"
#include "message.h"
#include "model.h"
#include "options.h"
#include "pclab/clock.h"
#include "output.h"
#include "procfs.h"
#include "residency.h"
#include "tap.h"

static struct pcv_model M;

static void test_parsers(void)
{
	struct pcv_system s = { 0 };
	const char *meminfo = "MemTotal:        1000 kB\nMemFree:          200 kB\n"
			      "Cached:           300 kB\nActive(file):      40 kB\n"
			      "Inactive(file):    50 kB\nDirty:              6 kB\n"
			      "Writeback:          7 kB\nWritebackTmp:       9 kB\n";
	const char *vmstat = "pgpgin 11\npgpgout 12\npgscan_kswapd 13\npgscan_direct 14\n"
			     "pgsteal_kswapd 15\npgsteal_direct 16\nworkingset_refault_file 17\n"
			     "dropbehind_marked 18\ndropbehind_read 19\n";

	EXPECT_EQ(6, pcv_parse_meminfo(meminfo, &s), "meminfo: the six fields are found");
	EXPECT_TRUE(s.mem_free == 200 && s.cached == 300 && s.active_file == 40 && s.inactive_file == 50 &&
		    s.dirty == 6 && s.writeback == 7,
		    "meminfo: values (Writeback not confused with WritebackTmp)");
	EXPECT_EQ(9, pcv_parse_vmstat(vmstat, &s), "vmstat: nine known counters found");
	EXPECT_TRUE(s.vm[PCV_VM_PGPGIN] == 11 && s.vm[PCV_VM_REFAULT_FILE] == 17 &&
		    s.vm[PCV_VM_DB_READ] == 19 && s.vm_valid[PCV_VM_DB_MARKED],
		    "vmstat: values, drop-behind counters included");
	EXPECT_TRUE(!s.vm_valid[PCV_VM_DB_WRITE] && !s.vm_valid[PCV_VM_DB_BUSY],
		    "vmstat: counters the kernel lacks are marked missing");
	pcv_parse_vmstat("workingset_refault 5\npgpgin 1\n", &s);
	EXPECT_TRUE(s.vm_valid[PCV_VM_REFAULT_FILE] && s.vm[PCV_VM_REFAULT_FILE] == 5 &&
		    !s.vm_valid[PCV_VM_DB_MARKED],
		    "vmstat: an old kernel's workingset_refault counts, no drop-behind");
	EXPECT_TRUE(pcv_parse_mglru("0x0007\n") == 1 && pcv_parse_mglru("0x0000\n") == 0 &&
		    pcv_parse_mglru("") == -1,
		    "lru_gen/enabled: on, off, unknown");
}

static void test_rates(void)
{
	pcv_model_init(&M);
	M.sys.vm[PCV_VM_PGPGIN] = 1000;
	M.sys.kswapd_ticks = 100;
	M.sys.ticks_per_s = 100;
	M.ev_count[PCV_EV_ADD] = 10;
	pcv_model_tick(&M, 10.0);
	EXPECT_TRUE(M.sys.vm_rate[PCV_VM_PGPGIN] == 0 && M.ev_rate[PCV_EV_ADD] == 0,
		    "rates: none after the first sample");
	M.sys.vm[PCV_VM_PGPGIN] = 1500;
	M.sys.kswapd_ticks = 125;
	M.ev_count[PCV_EV_ADD] = 110;
	pcv_model_tick(&M, 10.5);
	EXPECT_TRUE(M.sys.vm_rate[PCV_VM_PGPGIN] == 1000, "rates: 500 in 0.5 s is 1000/s (got %g)",
		    M.sys.vm_rate[PCV_VM_PGPGIN]);
	EXPECT_TRUE(M.ev_rate[PCV_EV_ADD] == 200, "rates: events per second (got %g)", M.ev_rate[PCV_EV_ADD]);
	EXPECT_TRUE(M.sys.kswapd_cpu > 49.9 && M.sys.kswapd_cpu < 50.1,
		    "kswapd CPU: 25 ticks at 100 Hz in 0.5 s is 50%% (got %g)", M.sys.kswapd_cpu);
	M.sys.vm[PCV_VM_PGPGIN] = 10;	/* a counter going back (reset) is no negative rate */
	pcv_model_tick(&M, 11.0);
	EXPECT_TRUE(M.sys.vm_rate[PCV_VM_PGPGIN] == 0, "rates: a counter going back gives 0, not garbage");
	pcv_model_free(&M);
}

static uint64_t covered(const struct pcv_file *f)
{
	uint64_t sum = 0, start, expect = f->first;

	for (unsigned i = 0; i < f->ncells; i++) {
		uint64_t n = pcv_cell_range(f, i, &start);

		if (start != expect)
			return 0;
		sum += n;
		expect += n;
	}
	return sum;
}

static void test_cells(void)
{
	struct pcv_file *f;
	uint64_t pan = 0;
	unsigned n;
	struct pcv_res r = { .pages = 3, .cached = 1 };

	pcv_model_init(&M);
	pcv_model_add_file(&M, "/a/small", 1, 2, 1 << 20);
	pcv_model_add_file(&M, "/a/huge", 1, 3, 1ull << 40);
	pcv_model_add_file(&M, "/a/empty", 1, 4, 0);
	pcv_model_add_file(&M, "/a/odd", 1, 5, 4097);
	f = &M.files[0];
	n = pcv_file_layout(f, 100, 0, &pan);
	EXPECT_TRUE(f->pages == 256 && f->per_cell == 3 && n == 86 && covered(f) == 256,
		    "1 MiB in 100 cells: 3 pages each, 86 cells cover all 256 pages (%u cells)", n);
	f = &M.files[1];
	n = pcv_file_layout(f, 3000, 0, &pan);
	EXPECT_TRUE(n <= 3000 && f->per_cell == 89479 && covered(f) == 1ull << 28,
		    "1 TiB in 3000 cells: %llu pages each, every page covered once",
		    (unsigned long long)f->per_cell);
	pan = 1ull << 40;
	n = pcv_file_layout(f, 1000, 2, &pan);
	EXPECT_TRUE(pan == (1ull << 28) - (1ull << 26) && covered(f) == 1ull << 26 &&
		    f->first + (uint64_t)(n - 1) * f->per_cell < f->pages,
		    "zoom x4 shows a quarter; panning past the end stops at the last quarter");
	n = pcv_file_layout(f, 1000, 40, &pan);
	EXPECT_TRUE(n == 1 && f->per_cell == 1, "zooming past one page shows one page");
	n = pcv_file_layout(f, PCV_MAX_CELLS * 4, 0, &pan);
	EXPECT_TRUE(n <= PCV_MAX_CELLS, "cells are capped at %d however large the window", PCV_MAX_CELLS);
	pan = 0;
	EXPECT_EQ(0, pcv_file_layout(&M.files[2], 100, 0, &pan), "an empty file has no cells");
	EXPECT_TRUE(pcv_file_layout(&M.files[3], 100, 0, &pan) == 2 && covered(&M.files[3]) == 2,
		    "4097 bytes are 2 pages, 2 cells");
	f = &M.files[0];
	pcv_file_layout(f, 10, 0, &pan);
	pcv_cell_set(&f->cells[0], &r);
	EXPECT_TRUE(!f->cells[0].changed, "a new layout's first values are not highlighted as changes");
	pcv_cell_set(&f->cells[0], &r);
	EXPECT_TRUE(!f->cells[0].changed, "same values: not changed");
	r.cached = 3;
	pcv_cell_set(&f->cells[0], &r);
	EXPECT_TRUE(f->cells[0].changed, "pages arriving: changed");
	pcv_file_set_size(f, 4096);
	EXPECT_TRUE(f->state == PCV_FILE_TRUNCATED && f->pages == 1 && strstr(f->note, "truncated"),
		    "a shrinking file is marked truncated: %s", f->note);
	pcv_model_free(&M);
}

static struct pcv_event ev(enum pcv_kind kind, uint64_t ino, uint64_t index, uint64_t nr,
			   uint64_t pfn)
{
	struct pcv_event e = { .kind = kind, .dev = 7 << 20 | 1, .ino = ino, .index = index,
			       .nr_pages = nr, .pfn = pfn };
	return e;
}

static void feed(struct pcv_event e)
{
	pcv_model_event(&M, &e);
}

static void test_events(void)
{
	struct pcv_event e;
	char words[160];

	pcv_model_init(&M);
	pcv_model_add_file(&M, "/mnt/a", 7 << 20 | 1, 12, 1 << 20);
	pcv_model_add_file(&M, "/mnt/b", 7 << 20 | 1, 13, 1 << 20);
	feed(ev(PCV_EV_ADD, 12, 5, 4, 1000));
	feed(ev(PCV_EV_ADD, 99, 0, 1, 3000));	/* not watched */
	EXPECT_TRUE(M.ev_count[PCV_EV_ADD] == 1 && M.ev_pages[PCV_EV_ADD] == 4 &&
		    M.files[0].events[PCV_EV_ADD] == 1,
		    "add events: counted for the watched file only, in events and pages");
	feed(ev(PCV_EV_LRU_INSERT, 0, 0, 0, 1000));
	feed(ev(PCV_EV_LRU_INSERT, 0, 0, 0, 3000));
	EXPECT_TRUE(M.files[0].events[PCV_EV_LRU_INSERT] == 1 && M.unattributed == 1,
		    "LRU insertion attributed by pfn to the file that added the page; others unattributed");
	EXPECT_TRUE(pcv_model_recent(&M, 0)->ino == 12 && pcv_model_recent(&M, 0)->index == 5,
		    "an attributed LRU event names the file and page");
	feed(ev(PCV_EV_DELETE, 12, 5, 4, 1000));
	feed(ev(PCV_EV_LRU_ACTIVATE, 0, 0, 0, 1000));
	EXPECT_TRUE(M.unattributed == 2 && M.ev_count[PCV_EV_LRU_ACTIVATE] == 0,
		    "after the page left the cache its pfn no longer attributes");
	e = ev(PCV_EV_WRITEBACK, 13, 0, 256, 0);
	e.dev = 0;
	feed(e);
	EXPECT_EQ(1, M.files[1].events[PCV_EV_WRITEBACK], "writeback events match by inode alone");
	feed(ev(PCV_EV_RECLAIM, 0, 32, 30, 0));
	feed(ev(PCV_EV_KSWAPD_WAKE, 0, 0, 0, 0));
	EXPECT_TRUE(M.ev_count[PCV_EV_RECLAIM] == 1 && M.ev_pages[PCV_EV_RECLAIM] == 30 &&
		    M.ev_count[PCV_EV_KSWAPD_WAKE] == 1,
		    "reclaim and kswapd events count system-wide");
	e = ev(PCV_EV_DB_END, 12, 8, 1, 0);
	e.arg[0] = 2;
	e.arg[1] = 3;
	pcv_event_words(&M, &e, words, sizeof(words));
	EXPECT_STREQ("a: page 8 after irq-writeback: mapped", words, "event in words: '%s'", words);
	feed(e);
	EXPECT_TRUE(M.db_end_when[2] == 1 && M.db_end_pages[3] == 1,
		    "the end of a folio kept mapped after irq-writeback counts as such");
	e = ev(PCV_EV_ADD, 12, 0, 16, 0);
	pcv_event_words(&M, &e, words, sizeof(words));
	EXPECT_STREQ("a: pages 0-15 added to the cache", words, "event in words: '%s'", words);
	for (int i = 0; i < 300; i++)
		feed(ev(PCV_EV_DB_MARK, 13, (uint64_t)i, 1, 0));
	EXPECT_TRUE(M.ring_len == PCV_RING && pcv_model_recent(&M, 0)->index == 299 &&
		    pcv_model_recent(&M, PCV_RING - 1)->index == 300 - PCV_RING &&
		    !pcv_model_recent(&M, PCV_RING),
		    "the ring keeps the latest %d events, newest first", PCV_RING);
	pcv_model_reset_counts(&M);
	EXPECT_TRUE(!M.ev_count[PCV_EV_DB_MARK] && !M.files[1].events[PCV_EV_DB_MARK] && !M.ring_len &&
		    !M.db_end_when[2] && !M.db_end_pages[3],
		    "reset zeroes the counts, the drop-behind outcomes and the log");
	pcv_model_free(&M);
}

/* An eviction of pages [index, index + nr) of ino at ts by task comm of cgroup reclaimer */
static void evict(double ts, uint64_t ino, uint64_t index, uint64_t nr, const char *comm,
		  uint64_t reclaimer, uint64_t target)
{
	struct pcv_event e = ev(PCV_EV_EVICT, ino, index, nr, 0);

	e.ts = ts;
	e.pid = 4242;
	snprintf(e.comm, sizeof(e.comm), "%s", comm);
	e.memcg = 77;
	e.target = target;
	e.reclaimer = reclaimer;
	feed(e);
}

static void refault(double ts, uint64_t ino, uint64_t index, uint64_t nr, bool activate)
{
	struct pcv_event e = ev(PCV_EV_REFAULT, ino, index, nr, 0);

	e.ts = ts;
	e.arg[0] = activate;
	e.memcg = 77;
	e.distance = PCV_DISTANCE_UNKNOWN;
	feed(e);
}

static bool near(double a, double b)
{
	return a > b - 1e-3 && a < b + 1e-3;
}

/* A fresh model watching two files of 1 MiB, inodes 12 and 13 of one device */
static void two_files(const struct pcv_file **a, const struct pcv_file **b)
{
	pcv_model_init(&M);
	pcv_model_add_file(&M, "/mnt/a", 7 << 20 | 1, 12, 1 << 20);
	pcv_model_add_file(&M, "/mnt/b", 7 << 20 | 1, 13, 1 << 20);
	*a = &M.files[0];
	*b = &M.files[1];
}

/* Who evicted whom: kswapd, direct reclaimers by cgroup and task, refaults, time gone. */
static void test_eviction(void)
{
	const struct pcv_file *a, *b;
	struct pcv_event e;
	char words[200];

	two_files(&a, &b);
	evict(10.0, 12, 0, 1, "kswapd0", 1, 1);
	evict(10.0, 12, 1, 4, "kswapd1", 1, 1);
	EXPECT_TRUE(a->evict_kswapd == 5 && !a->evict_direct && !a->nreclaimers && !a->evict_others,
		    "kswapd's evictions: 5 pages (a folio of 4 counts 4), no direct reclaimer");
	EXPECT_TRUE(M.ev_count[PCV_EV_EVICT] == 2 && M.ev_pages[PCV_EV_EVICT] == 5 &&
		    a->events[PCV_EV_EVICT] == 2,
		    "evictions are counted as events, folios and pages");
	evict(11.0, 12, 10, 2, "dd", 300, 1);
	evict(11.5, 12, 12, 1, "dd", 300, 1);
	evict(12.0, 12, 20, 3, "cat", 400, 500);
	EXPECT_TRUE(a->evict_direct == 6 && a->nreclaimers == 2 && a->reclaimers[0].cgroup == 300 &&
		    !strcmp(a->reclaimers[0].comm, "dd") && a->reclaimers[0].pages == 3 &&
		    a->reclaimers[0].target == 1 && a->reclaimers[1].cgroup == 400 &&
		    a->reclaimers[1].pages == 3 && a->reclaimers[1].target == 500,
		    "direct reclaim: two reclaimers by cgroup and task, with their memcg target");
	e = ev(PCV_EV_EVICT, 12, 20, 3, 0);
	e.pid = 9;
	snprintf(e.comm, sizeof(e.comm), "cat");
	e.reclaimer = 400;
	e.target = 500;
	e.memcg = 77;
	pcv_event_words(&M, &e, words, sizeof(words));
	EXPECT_STREQ("a: pages 20-22 of memcg 77 evicted by cat in direct reclaim (pid 9, "
				    "cgroup 400) for memcg 500", words, "eviction in words: '%s'", words);
	refault(13.0, 12, 10, 2, true);
	EXPECT_TRUE(a->refaults == 2 && a->refault_activated == 2 && a->gone_n == 2 &&
		    near(a->gone_max, 2.0) && near(pcv_file_gone_mean(a), 2.0) && !a->refault_unseen,
		    "a refault 2 s after the eviction: 2 pages back, activated, gone 2 s (mean %.3f)",
		    pcv_file_gone_mean(a));
	refault(14.0, 12, 0, 1, false);
	EXPECT_TRUE(a->refaults == 3 && a->refault_activated == 2 && a->gone_n == 3 &&
		    near(a->gone_max, 4.0) && near(pcv_file_gone_mean(a), 8.0 / 3),
		    "another, 4 s gone: mean of the pages %.3f s, max %.3f s", pcv_file_gone_mean(a),
		    a->gone_max);
	refault(15.0, 12, 0, 1, false);
	refault(15.0, 12, 100, 1, false);
	EXPECT_TRUE(a->refaults == 5 && a->gone_n == 3 && a->refault_unseen == 2,
		    "refaults without an eviction seen (again, or never): counted, not timed");
	refault(16.0, 12, 1, 8, false);
	EXPECT_TRUE(a->gone_n == 7 && near(a->gone_max, 6.0) && a->refault_unseen == 6,
		    "a large folio's refault: its 4 evicted pages timed, the other 4 not seen evicted");
	for (int i = 0; i < PCV_RECLAIMERS + 2; i++) {
		char comm[16];

		snprintf(comm, sizeof(comm), "t%d", i);
		evict(20.0, 13, (uint64_t)i, 1, comm, (uint64_t)(1000 + i), 1);
	}
	evict(20.0, 13, 50, 2, "t0", 1000, 1);
	EXPECT_TRUE(b->nreclaimers == PCV_RECLAIMERS && b->evict_others == 2 &&
		    b->evict_direct == PCV_RECLAIMERS + 4 && b->reclaimers[0].pages == 3,
		    "the reclaimers table is full at %d: the rest go to others", PCV_RECLAIMERS);
	e = ev(PCV_EV_EVICT, 99, 0, 1, 0);
	feed(e);
	e = ev(PCV_EV_EVICT, 0, 0, 1, 0);	/* anonymous: no inode */
	e.dev = 0;
	feed(e);
	e = ev(PCV_EV_REFAULT, 99, 0, 1, 0);
	feed(e);
	EXPECT_TRUE(M.ev_count[PCV_EV_EVICT] == 5 + PCV_RECLAIMERS + 3 && M.ev_count[PCV_EV_REFAULT] == 5 &&
		    a->evict_kswapd == 5 && b->evict_kswapd == 0,
		    "evictions and refaults of unwatched inodes and anonymous memory are ignored");
	pcv_model_reset_counts(&M);
	EXPECT_TRUE(!a->evict_kswapd && !a->evict_direct && !a->nreclaimers && !a->refaults &&
		    !a->gone_n && !b->evict_others && a->evicted_at,
		    "reset zeroes the attribution, keeps the eviction times");
	refault(30.0, 12, 20, 1, false);
	EXPECT_TRUE(a->gone_n == 1 && near(a->gone_max, 18.0),
		    "a page evicted before the reset and back after it is timed: %.3f s", a->gone_max);
	pcv_model_free(&M);
}

/* A task woke node nid's kswapd at ts: pid, name, cgroup (0: unknown) */
static void waker(double ts, uint32_t nid, int32_t pid, const char *comm, uint64_t cgroup)
{
	struct pcv_event e = ev(PCV_EV_KSWAPD_WAKER, 0, 0, 0, 0);

	e.ts = ts;
	e.dev = 0;
	e.arg[1] = nid;
	e.pid = pid;
	snprintf(e.comm, sizeof(e.comm), "%s", comm);
	e.reclaimer = cgroup;
	feed(e);
}

/*
 * Who woke kswapd: each kswapd eviction is charged to the latest waker of
 * its node (kswapd<N>, node N); none seen is unknown; a table of
 * PCV_WAKERS per file, the rest in others.
 */
static void test_kswapd_wakers(void)
{
	const struct pcv_file *a, *b;
	struct pcv_event e;
	char words[200];

	two_files(&a, &b);
	evict(1.0, 12, 0, 2, "kswapd0", 1, 1);
	EXPECT_TRUE(a->evict_kswapd == 2 && a->woken_unknown == 2 && !a->nwakers &&
		    !pcv_file_woken_known(a),
		    "kswapd evicts with no waker seen: its 2 pages are unknown's");
	waker(2.0, 0, 812, "dd", 345);
	EXPECT_TRUE(M.ev_count[PCV_EV_KSWAPD_WAKER] == 1 && M.ev_pages[PCV_EV_KSWAPD_WAKER] == 1 &&
		    !a->events[PCV_EV_KSWAPD_WAKER] && M.woke[0].seen && M.woke[0].pid == 812,
		    "a wake-up counts system-wide, no file's, and is kept as node 0's latest waker");
	evict(2.1, 12, 2, 4, "kswapd0", 1, 1);
	evict(2.2, 12, 6, 1, "kswapd0", 1, 1);
	evict(2.3, 12, 7, 1, "dd", 345, 1);
	EXPECT_TRUE(a->evict_kswapd == 7 && a->nwakers == 1 && a->wakers[0].cgroup == 345 &&
		    !strcmp(a->wakers[0].comm, "dd") && a->wakers[0].pages == 5 &&
		    a->woken_unknown == 2 && pcv_file_woken_known(a) == 5 && a->evict_direct == 1,
		    "a waker then kswapd's evictions: 5 pages charged to dd (cgroup 345), not the direct one");
	waker(3.0, 0, 900, "cat", 400);
	waker(3.0, 0, 901, "sort", 400);
	evict(3.1, 12, 8, 3, "kswapd0", 1, 1);
	EXPECT_TRUE(a->nwakers == 2 && a->wakers[1].pages == 3 && !strcmp(a->wakers[1].comm, "sort") &&
		    a->wakers[0].pages == 5,
		    "two wakers before kswapd runs: the latest (sort) is charged, cat not");
	waker(4.0, 1, 77, "make", 500);
	evict(4.1, 12, 11, 1, "kswapd1", 1, 1);
	evict(4.2, 12, 12, 1, "kswapd0", 1, 1);
	evict(4.3, 12, 13, 1, "kswapd2", 1, 1);
	evict(4.4, 12, 14, 1, "kswapd64", 1, 1);
	EXPECT_TRUE(a->nwakers == 3 && !strcmp(a->wakers[2].comm, "make") && a->wakers[2].pages == 1 &&
		    a->wakers[1].pages == 4 && a->woken_unknown == 4,
		    "per node: kswapd1 is charged to node 1's waker, kswapd0 to node 0's, kswapd2 "
		    "and kswapd64 (node 0's slot, another node) to unknown");
	waker(5.0, 0, 0, "", 0);
	evict(5.1, 12, 15, 1, "kswapd0", 1, 1);
	EXPECT_TRUE(a->nwakers == 4 && !a->wakers[3].cgroup && !a->wakers[3].comm[0] &&
		    a->wakers[3].pages == 1 && a->woken_unknown == 4,
		    "a waker with no name or cgroup (a replay without cmdlines) is still a known waker");
	e = ev(PCV_EV_KSWAPD_WAKER, 0, 0, 0, 0);
	e.pid = 812;
	e.arg[0] = 2;
	e.arg[1] = 1;
	e.arg[2] = 3;
	e.reclaimer = 345;
	snprintf(e.comm, sizeof(e.comm), "dd");
	pcv_event_words(&M, &e, words, sizeof(words));
	EXPECT_STREQ("kswapd1 woken by dd (pid 812, cgroup 345) for an order-2 allocation "
				    "in zone 3", words, "wake-up in words: '%s'", words);
	for (int i = 0; i < PCV_WAKERS + 2; i++) {
		char comm[16];

		snprintf(comm, sizeof(comm), "w%d", i);
		waker(6.0 + i, 0, 1000 + i, comm, (uint64_t)(2000 + i));
		evict(6.0 + i, 13, (uint64_t)i, 1, "kswapd0", 1, 1);
	}
	waker(20.0, 0, 1000, "w0", 2000);
	evict(20.0, 13, 50, 2, "kswapd0", 1, 1);
	EXPECT_TRUE(b->nwakers == PCV_WAKERS && b->woken_others == 2 && b->wakers[0].pages == 3 &&
		    b->evict_kswapd == PCV_WAKERS + 4 && !b->woken_unknown &&
		    pcv_file_woken_known(b) == b->evict_kswapd,
		    "the wakers table is full at %d: the rest go to others, still known", PCV_WAKERS);
	pcv_model_reset_counts(&M);
	evict(21.0, 12, 30, 1, "kswapd0", 1, 1);
	EXPECT_TRUE(a->evict_kswapd == 1 && a->nwakers == 1 && !strcmp(a->wakers[0].comm, "w0") &&
		    !b->nwakers && !b->woken_others && !a->woken_unknown,
		    "reset zeroes the wakers tables, keeps the latest waker: kswapd may still run for it");
	pcv_model_free(&M);
}

/* Eviction times are kept for PCV_WMAX_PAGES pages of a file, allocated when needed */
static void test_eviction_bounds(void)
{
	const struct pcv_file *f;

	pcv_model_init(&M);
	pcv_model_add_file(&M, "/mnt/huge", 7 << 20 | 1, 12, 1ull << 40);
	f = &M.files[0];
	refault(1.0, 12, 5, 1, false);
	EXPECT_TRUE(!f->evicted_at && f->refault_unseen == 1, "no eviction yet: no times allocated");
	evict(2.0, 12, PCV_WMAX_PAGES + 5, 1, "kswapd0", 1, 1);
	EXPECT_TRUE(f->evict_kswapd == 1 && !f->evicted_at,
		    "an eviction past %llu pages counts, and allocates no times: it cannot be timed",
		    (unsigned long long)PCV_WMAX_PAGES);
	evict(2.0, 12, 3, 1, "kswapd0", 1, 1);
	EXPECT_EQ(PCV_WMAX_PAGES, f->epages, "one within them: times for %llu pages, no more",
		  (unsigned long long)f->epages);
	refault(3.0, 12, PCV_WMAX_PAGES + 5, 1, false);
	EXPECT_TRUE(f->refaults == 1 + 1 && f->refault_unseen == 2 && !f->gone_n,
		    "... its refault counts but is not timed");
	pcv_model_free(&M);
}

/* Cgroup IDs are directories' inode numbers: resolved in a tree standing in for cgroup2 */
static void test_cgroups(const char *dir)
{
	static struct pcv_cgroups c;
	char root[256], slice[300], path[320];
	struct stat st;
	const char *found;

	snprintf(root, sizeof(root), "%s/cgroup", dir);
	snprintf(slice, sizeof(slice), "%s/a.slice", root);
	snprintf(path, sizeof(path), "%s/b.scope", slice);
	if (mkdir(root, 0700) || mkdir(slice, 0700) || mkdir(path, 0700) || stat(path, &st)) {
		tap_skip("cannot make the tree", "cgroup paths");
		return;
	}
	pcv_cgroups_init(&c, root);
	found = pcv_cgroup_path(&c, (uint64_t)st.st_ino, 1);
	EXPECT_TRUE(found && !strcmp(found, "/a.slice/b.scope"), "a cgroup ID resolves to its path: %s",
		    found ? found : "(none)");
	stat(root, &st);
	found = pcv_cgroup_path(&c, (uint64_t)st.st_ino, 1);
	EXPECT_TRUE(found && !strcmp(found, "/"), "the root is /, found without a walk");
	EXPECT_TRUE(!pcv_cgroup_path(&c, 1ull << 60, 1) && c.walked == 2,
		    "an unknown ID: not found");
	snprintf(path, sizeof(path), "%s/late", root);
	if (mkdir(path, 0700) || stat(path, &st)) {
		tap_skip("cannot make a directory", "cgroup made later");
		return;
	}
	EXPECT_TRUE(!pcv_cgroup_path(&c, (uint64_t)st.st_ino, 1),
		    "a cgroup made after the walk: no second walk in the same refresh");
	found = pcv_cgroup_path(&c, (uint64_t)st.st_ino, 2);
	EXPECT_TRUE(found && !strcmp(found, "/late"), "... found at the next refresh");
}

/* Replay: residency rebuilt from a synthetic stream of add/delete/drop events. */
static void test_reconstruct(void)
{
	struct pcv_file *f;
	struct pcv_event e;
	uint64_t pan = 0;

	pcv_model_init(&M);
	M.reconstruct = true;
	pcv_model_add_file(&M, "f", 7 << 20 | 1, 12, 64 * 4096);
	f = &M.files[0];
	EXPECT_EQ(0, pcv_file_track_pages(f), "page bitmap allocated");
	feed(ev(PCV_EV_ADD, 12, 0, 16, 1));		/* buffered read of 0-15 */
	feed(ev(PCV_EV_DB_MARK, 12, 16, 16, 0));	/* uncached read of 16-31 */
	EXPECT_EQ(32, f->total.cached, "adds and marks bring pages in (%llu)",
		  (unsigned long long)f->total.cached);
	e = ev(PCV_EV_DB_END, 12, 16, 16, 0);
	e.arg[1] = PCV_DB_DROPPED;
	feed(e);
	e = ev(PCV_EV_DB_END, 12, 0, 4, 0);
	e.arg[1] = 2;	/* kept: claimed */
	feed(e);
	EXPECT_TRUE(M.db_end_pages[PCV_DB_DROPPED] == 16 && M.db_end_pages[2] == 4 &&
		    M.db_end_when[0] == 2 && M.ev_pages[PCV_EV_DB_END] == 20,
		    "dropbehind_end: pages by result (16 dropped, 4 claimed), folios by when (2 after read)");
	feed(ev(PCV_EV_DELETE, 12, 0, 2, 1));
	feed(ev(PCV_EV_ADD, 12, 4, 4, 2));		/* already cached: no double count */
	feed(ev(PCV_EV_DELETE, 12, 60, 100, 3));	/* past the end: clamped */
	EXPECT_EQ(14, f->total.cached, "dropped and deleted pages leave, kept ones stay (%llu)",
		  (unsigned long long)f->total.cached);
	pcv_file_layout(f, 4, 0, &pan);
	pcv_file_from_bitmap(f);
	EXPECT_TRUE(f->ncells == 4 && f->cells[0].r.cached == 14 && f->cells[1].r.cached == 0 &&
		    f->cells[2].r.cached == 0 && f->cells[3].r.cached == 0 && f->cells[0].r.pages == 16,
		    "cells from the bitmap: 14 0 0 0 of 16 pages each");
	feed(ev(PCV_EV_ADD, 12, 40, 8, 4));
	pcv_file_from_bitmap(f);
	EXPECT_TRUE(f->cells[2].r.cached == 8 && f->cells[2].changed && !f->cells[0].changed,
		    "a new arrival changes its cell only");
	pcv_model_free(&M);

	/* ranges over many words, at odd ends: the count stays exact */
	pcv_model_init(&M);
	M.reconstruct = true;
	pcv_model_add_file(&M, "big", 7 << 20 | 1, 12, 1ull << 33);	/* 2^21 pages */
	f = &M.files[0];
	pcv_file_track_pages(f);
	feed(ev(PCV_EV_DB_MARK, 12, 5, (1u << 20) + 100, 0));
	feed(ev(PCV_EV_DELETE, 12, 63, 66, 0));
	feed(ev(PCV_EV_ADD, 12, 64, 1, 0));
	EXPECT_EQ((1u << 20) + 100 - 66 + 1, f->total.cached,
		  "a million pages marked, 66 deleted across words, one back: %llu cached",
		  (unsigned long long)f->total.cached);
	feed(ev(PCV_EV_DELETE, 12, 0, UINT64_MAX, 0));
	EXPECT_EQ(0, f->total.cached, "everything deleted: 0 cached");
	pcv_model_free(&M);
}

static void test_messages(void)
{
	char err[128], path[6000];

	pcv_path_error(err, sizeof(err), "/a/b", "%s", "No such file or directory");
	EXPECT_STREQ("/a/b: No such file or directory", err, "path error: '%s'", err);
	memset(path, 'x', sizeof(path) - 1);
	path[sizeof(path) - 1] = 0;
	path[0] = '/';
	pcv_path_error(err, sizeof(err), path, "%s", "File name too long");
	EXPECT_TRUE(strlen(err) == sizeof(err) - 1 && !strncmp(err, "...xxx", 6) &&
		    !strcmp(err + strlen(err) - 21, "x: File name too long"),
		    "a 6000-byte path gives way to the reason: '%.12s...%s'", err, err + strlen(err) - 24);
	memcpy(path + sizeof(path) - 60, "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 8);
	for (size_t len = 40; len < 50; len++) {
		pcv_path_error(err, len, path, "%s", "No");
		if ((err[3] & 0xc0) == 0x80)
			break;
	}
	EXPECT_TRUE((err[3] & 0xc0) != 0x80, "the path is never cut inside a UTF-8 character");
}

static double now_us(void)
{
	return pclab_now() * 1e6;
}

/* Best of 5 refreshes of a file of size bytes, 3000 cells. */
static double refresh_us(const char *path, uint64_t size, struct pcv_res *total, bool mincore)
{
	double best = 1e18;
	uint64_t pan = 0;
	bool used;
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);

	memset(total, 0, sizeof(*total));
	if (fd < 0 || ftruncate(fd, (off_t)size) || pwrite(fd, "x", 1, 0) != 1)
		return -1;
	pcv_model_init(&M);
	pcv_model_add_file(&M, path, 0, 0, size);
	pcv_file_layout(&M.files[0], 3000, 0, &pan);
	for (int i = 0; i < 5; i++) {
		double t0 = now_us();

		if (pcv_residency_refresh(&M.files[0], fd, mincore, true, &used))
			best = -1;
		else if (now_us() - t0 < best)
			best = now_us() - t0;
	}
	*total = M.files[0].total;
	pcv_model_free(&M);
	close(fd);
	unlink(path);
	return best;
}

static void test_residency(const char *dir)
{
	char small[4096], huge[4096];
	struct pcv_res t;
	double a, b, c;

	snprintf(small, sizeof(small), "%s/small", dir);
	snprintf(huge, sizeof(huge), "%s/huge", dir);
	a = refresh_us(small, 1 << 20, &t, false);
	EXPECT_TRUE(a >= 0 && t.pages == 256 && t.cached >= 1 && t.dirty >= 1,
		    "cachestat: a 1 MiB file with one written page: %llu cached, %llu dirty",
		    (unsigned long long)t.cached, (unsigned long long)t.dirty);
	b = refresh_us(huge, 1ull << 40, &t, false);
	EXPECT_TRUE(b >= 0 && t.pages == 1ull << 28 && t.cached >= 1 && t.cached < 16,
		    "cachestat: a 1 TiB sparse file: %llu cached of %llu pages",
		    (unsigned long long)t.cached, (unsigned long long)t.pages);
	tap_diag("refresh of 3000 cells: 1 MiB %.0f us, 1 TiB sparse %.0f us", a, b);
	EXPECT_TRUE(b < 20 * a + 20000, "a 1 TiB sparse file refreshes in bounded time (%.0f us vs %.0f us)",
		    b, a);
	c = refresh_us(huge, 1ull << 40, &t, true);
	tap_diag("mincore fallback, 1 TiB sparse: %.0f us", c);
	EXPECT_TRUE(c >= 0 && c < 2e6, "mincore fallback samples: bounded for 1 TiB too (%.0f us)", c);
}

static int count_char(const char *s, char c)
{
	int n = 0;

	for (; *s; s++)
		n += *s == c;
	return n;
}

static void test_output(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	char *line2;

	pcv_model_init(&M);
	pcv_model_add_file(&M, "/x/a \"quoted\", file", 1, 2, 8192);
	M.files[0].total.cached = 2;
	M.sys.known = true;
	M.sys.vm_valid[PCV_VM_PGPGIN] = true;
	M.lost = 7;
	M.events_on = false;
	snprintf(M.events_why, sizeof(M.events_why), "not root, so no tracing");
	pcv_csv_header(out, &M);
	pcv_csv_line(out, &M);
	fclose(out);
	line2 = strchr(buf, '\n') + 1;
	EXPECT_TRUE(!strncmp(buf, "time,files,pages,cached,dirty,writeback,evicted,recently_evicted,", 65),
		    "CSV header starts with the residency columns");
	EXPECT_TRUE(strstr(buf, ",lost,") && strstr(buf, ",ev_db_mark,") && strstr(buf, ",events,events_why,"),
		    "CSV header has lost, the event counts and why events are off");
	EXPECT_EQ(2 * (count_char(line2, ',') - 1), count_char(buf, ',') - 1,
		  "CSV line has as many fields as the header (the one quoted comma aside)");
	EXPECT_TRUE(strstr(line2, ",off,\"not root, so no tracing\",") != NULL,
		    "CSV says why events are off, quoted around its comma");
	EXPECT_TRUE(strstr(line2, ",,") != NULL, "CSV leaves counters the kernel lacks empty");
	free(buf);
	buf = NULL;
	out = open_memstream(&buf, &len);
	pcv_json_line(out, &M);
	fclose(out);
	EXPECT_TRUE(buf[0] == '{' && !strcmp(buf + strlen(buf) - 2, "}\n") && count_char(buf, '\n') == 1,
		    "JSON: one object per line");
	EXPECT_TRUE(strstr(buf, "\"lost\":7,") && strstr(buf, "\"pgpgin_s\":0.000,") &&
		    strstr(buf, "\"pgpgout_s\":null,") && strstr(buf, "\"cached\":2,"),
		    "JSON: numbers, null for what the kernel lacks");
	EXPECT_TRUE(strstr(buf, "\"path\":\"/x/a \\\"quoted\\\", file\"") != NULL,
		    "JSON: strings escaped: %s", strstr(buf, "\"path\""));
	free(buf);
	M.sys.known = false;	/* a replay */
	buf = NULL;
	out = open_memstream(&buf, &len);
	pcv_json_line(out, &M);
	fclose(out);
	EXPECT_TRUE(strstr(buf, "\"mem_free_kb\":null,") && strstr(buf, "\"pgpgin_s\":null,"),
		    "JSON: no system counters in a replay: null, not 0");
	free(buf);
	pcv_model_free(&M);
}

/* The attribution in the batch output: summed columns in CSV, per file with reclaimers in JSON */
static void test_eviction_output(void)
{
	char *buf = NULL, *line2;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	pcv_model_init(&M);
	pcv_model_add_file(&M, "/mnt/a", 7 << 20 | 1, 12, 1 << 20);
	pcv_model_add_file(&M, "/mnt/b", 7 << 20 | 1, 13, 1 << 20);
	evict(1.0, 12, 0, 2, "kswapd0", 1, 1);
	waker(1.5, 0, 55, "x\\y", 600);
	evict(1.5, 13, 5, 1, "kswapd0", 1, 1);
	evict(1.0, 12, 2, 1, "a \"q\", b", 300, 500);
	evict(2.0, 13, 0, 1, "dd", 300, 1);
	refault(2.5, 12, 0, 2, true);
	refault(4.0, 13, 0, 1, false);
	pcv_csv_header(out, &M);
	pcv_csv_line(out, &M);
	fclose(out);
	line2 = strchr(buf, '\n') + 1;
	EXPECT_TRUE(strstr(buf, ",wr_to_kept,evict_kswapd,evict_kswapd_woken_known,evict_direct,refaults,"
				"refault_activated,gone_mean_s,gone_max_s,lost,") != NULL,
		    "CSV: the attribution columns, after the write timeline's, before lost");
	EXPECT_TRUE(strstr(line2, ",3,1,2,3,2,1.667,2.000,") != NULL,
		    "CSV: the files summed: 3 by kswapd, 1 of them with a waker seen, 2 direct, 3 "
		    "refaulted, 2 activated, gone mean 1.667 s, max 2 s");
	EXPECT_EQ(2 * count_char(line2, ','), count_char(buf, ','),
		  "CSV line has as many fields as the header");
	free(buf);
	buf = NULL;
	out = open_memstream(&buf, &len);
	pcv_json_line(out, &M);
	fclose(out);
	EXPECT_TRUE(strstr(buf, "\"evict_kswapd\":2,\"evict_direct\":1,\"refaults\":2,"
				"\"refault_activated\":2,\"refault_unseen\":0,\"gone_mean_s\":1.500,"
				"\"gone_max_s\":1.500,\"reclaimers\":[{\"cgroup\":300,"
				"\"comm\":\"a \\\"q\\\", b\",\"target\":500,\"pages\":1}],"
				"\"evict_others\":0") != NULL,
		    "JSON per file: the counts, the reclaimers with task names escaped");
	EXPECT_TRUE(strstr(buf, "\"evict_others\":0,\"kswapd_wakers\":[],\"kswapd_woken_others\":0,"
				"\"kswapd_woken_unknown\":2,") != NULL &&
		    strstr(buf, "\"kswapd_wakers\":[{\"cgroup\":600,\"comm\":\"x\\\\y\",\"pages\":1}],"
				"\"kswapd_woken_others\":0,\"kswapd_woken_unknown\":0,") != NULL,
		    "JSON per file: kswapd's wakers (a's none, 2 pages unknown; b's one, escaped)");
	free(buf);
	pcv_model_free(&M);
}

/*
 * A stand-in for /proc/kpagecgroup: pfns below 2000 are cgroup 300's, below
 * 3000 cgroup 400's, from 10000 on each its own cgroup (its pfn), the rest
 * not told (0).  Counts the calls.
 */
static uint64_t fake_kpagecgroup(uint64_t pfn, void *arg)
{
	unsigned *calls = arg;

	(*calls)++;
	return pfn < 2000 ? 300 : pfn < 3000 ? 400 : pfn >= 10000 ? pfn : 0;
}

/* The cgroups charged for the watched files' pages, from the add events' pfns */
static void test_charges(void)
{
	const struct pcv_file *a, *b;
	unsigned calls = 0;
	char *buf = NULL;
	size_t len = 0;
	FILE *out;

	two_files(&a, &b);
	/* before any add: nothing to look up (and no NULL array sorted, R2-11) */
	pcv_model_charge(&M, fake_kpagecgroup, &calls);
	EXPECT_EQ(0, calls, "charges: none asked before the first add");
	feed(ev(PCV_EV_ADD, 12, 0, 4, 1500));	/* a folio of 4 pages */
	feed(ev(PCV_EV_ADD, 12, 4, 1, 2500));
	feed(ev(PCV_EV_ADD, 13, 0, 1, 1600));
	feed(ev(PCV_EV_ADD, 12, 5, 1, 1700));	/* gone before the charges are asked */
	feed(ev(PCV_EV_DELETE, 12, 5, 1, 1700));
	feed(ev(PCV_EV_ADD, 12, 6, 1, 5000));	/* the kernel does not tell */
	pcv_model_charge(&M, fake_kpagecgroup, &calls);
	EXPECT_TRUE(calls == 4 && a->ncharges == 2 && a->charges[0].cgroup == 300 &&
		    a->charges[0].pages == 4 && a->charges[1].cgroup == 400 && a->charges[1].pages == 1,
		    "charges: a's folio of 4 pages to cgroup 300, a page to 400; a page gone before is "
		    "not asked (%u asked)", calls);
	EXPECT_TRUE(b->ncharges == 1 && b->charges[0].cgroup == 300 && b->charges[0].pages == 1 &&
		    !b->charged_others, "charges: b's page is b's");
	calls = 0;
	pcv_model_charge(&M, fake_kpagecgroup, &calls);
	EXPECT_TRUE(calls == 0 && a->charges[0].pages == 4, "charges: a folio is charged once");
	feed(ev(PCV_EV_DELETE, 12, 0, 4, 1500));
	EXPECT_TRUE(a->charges[0].pages == 0 && a->charges[1].pages == 1,
		    "charges: a folio that leaves the cache leaves its cgroup's count");
	M.files[0].total.cached = 10;
	EXPECT_EQ(9, pcv_file_charge_unknown(a), "charges: 10 pages cached, 1 charged: 9 unknown (%llu)",
		  (unsigned long long)pcv_file_charge_unknown(a));
	M.files[0].total.cached = 0;
	EXPECT_EQ(0, pcv_file_charge_unknown(a), "charges: never fewer than 0 unknown");
	for (uint64_t i = 0; i < PCV_CHARGES + 2; i++)
		feed(ev(PCV_EV_ADD, 13, 10 + i, 1, 10000 + i));
	pcv_model_charge(&M, fake_kpagecgroup, &calls);
	EXPECT_TRUE(b->ncharges == PCV_CHARGES && b->charged_others == 3,
		    "charges: %d cgroups told apart, the 3 after them summed as others", PCV_CHARGES);
	feed(ev(PCV_EV_DELETE, 13, 10 + PCV_CHARGES + 1, 1, 10000 + PCV_CHARGES + 1));
	EXPECT_EQ(2, b->charged_others, "charges: a page of the others leaves their count");
	out = open_memstream(&buf, &len);
	pcv_json_line(out, &M);
	M.charges_known = true;
	M.files[1].total.cached = 20;
	pcv_json_line(out, &M);
	fclose(out);
	EXPECT_TRUE(strstr(buf, "\"charges\":[{\"cgroup\":300,\"pages\":0},{\"cgroup\":400,"
				"\"pages\":1}],\"charged_others\":0,\"charge_unknown\":null,") != NULL,
		    "JSON per file: the charges, and null unknown where the source cannot tell");
	EXPECT_TRUE(strstr(buf, "\"charged_others\":2,\"charge_unknown\":10,") != NULL,
		    "JSON per file: 20 cached, 10 charged: 10 unknown where it can");
	free(buf);
	pcv_model_free(&M);
}

/* Runs compared: a run column first, in both formats, the rest as for one run */
static void test_output_runs(void)
{
	char *one = NULL, *two = NULL, *json = NULL;
	size_t len = 0;
	FILE *out;

	pcv_model_init(&M);
	pcv_model_add_file(&M, "/x/f", 1, 2, 8192);
	M.files[0].total.cached = 2;
	M.ev_count[PCV_EV_ADD] = 3;
	out = open_memstream(&one, &len);
	pcv_csv_header(out, &M);
	pcv_csv_line(out, &M);
	fclose(out);
	M.run = "B";
	out = open_memstream(&two, &len);
	pcv_csv_header(out, &M);
	pcv_csv_line(out, &M);
	fclose(out);
	out = open_memstream(&json, &len);
	pcv_json_line(out, &M);
	fclose(out);
	EXPECT_TRUE(!strncmp(two, "run,time,files,", 15) && strchr(one, '\n') &&
		    !strncmp(two + 4, one, (size_t)(strchr(one, '\n') - one + 1)),
		    "CSV of a run compared: a run column before time, the rest as for one run");
	EXPECT_TRUE(strchr(one, '\n') && strstr(two, "\nB,") &&
		    !strcmp(strstr(two, "\nB,") + 3, strchr(one, '\n') + 1),
		    "CSV: the run's label leads its line, then the values of one run");
	EXPECT_TRUE(!strncmp(json, "{\"run\":\"B\",\"time\":0.000,", 24) && strstr(json, "\"ev_add\":3,"),
		    "JSON: the run's label first, as \"run\"");
	free(one);
	free(two);
	free(json);
	pcv_model_free(&M);
}

/* Residency pcviz cannot know is shown as unknown, never as a number. */
static void test_unknown(void)
{
	char *buf = NULL, *line2;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	pcv_model_init(&M);
	pcv_model_add_file(&M, "/x/mine", 1, 2, 8192);
	pcv_model_add_file(&M, "/x/theirs", 1, 3, 8192);
	M.files[0].total = (struct pcv_res){ .pages = 2, .cached = 1 };
	M.files[1].total = (struct pcv_res){ .pages = 2 };
	M.files[1].unknown = true;
	snprintf(M.files[1].why, sizeof(M.files[1].why), "cachestat refused: not yours");
	pcv_csv_header(out, &M);
	pcv_csv_line(out, &M);
	fclose(out);
	line2 = strchr(buf, '\n') + 1;
	EXPECT_TRUE(!strncmp(buf, "time,files,pages,cached,dirty,writeback,evicted,recently_evicted,"
			     "residency,states,", 75),
		    "CSV: a states column after residency");
	EXPECT_TRUE(strstr(line2, ",2,4,,,,,,cachestat,ok unknown,") != NULL,
		    "CSV: totals empty when a file's residency is unknown; states 'ok unknown'");
	free(buf);
	buf = NULL;
	out = open_memstream(&buf, &len);
	pcv_json_line(out, &M);
	fclose(out);
	EXPECT_TRUE(strstr(buf, "\"cached\":null,") &&
		    strstr(buf, "\"path\":\"/x/mine\",\"size\":8192,\"pages\":2,\"cached\":1,") &&
		    strstr(buf, "\"path\":\"/x/theirs\",\"size\":8192,\"pages\":2,\"cached\":null,") &&
		    strstr(buf, "\"state\":\"unknown\",\"note\":\"cachestat refused: not yours\""),
		    "JSON: null for the unknown file and the totals, its state and why");
	free(buf);
	pcv_model_free(&M);
}

/* File names are bytes: JSON gets valid UTF-8 whatever they are. */
static void test_json_names(void)
{
	static const struct {
		const char *name, *json, *what;
	} names[] = {
		{ "caf\xc3\xa9", "caf\xc3\xa9", "valid UTF-8 as it is" },
		{ "\xe2\x82\xac\xf0\x9f\x98\x80", "\xe2\x82\xac\xf0\x9f\x98\x80", "3 and 4 bytes" },
		{ "a\xff\xfe", "a\\udcff\\udcfe", "bytes never in UTF-8" },
		{ "\xc0\x80", "\\udcc0\\udc80", "an overlong NUL" },
		{ "\xed\xa0\x80", "\\udced\\udca0\\udc80", "a UTF-16 surrogate" },
		{ "\xf4\x90\x80\x80", "\\udcf4\\udc90\\udc80\\udc80", "past U+10FFFF" },
		{ "\xe2\x82", "\\udce2\\udc82", "a character cut short" },
		{ "\xe2\x82x", "\\udce2\\udc82x", "cut short, then ASCII" },
		{ "tab\t\"q\"", "tab\\u0009\\\"q\\\"", "control characters and quotes" },
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char *buf = NULL, want[128];
		size_t len = 0;
		FILE *out = open_memstream(&buf, &len);

		pcv_model_init(&M);
		pcv_model_add_file(&M, names[i].name, 1, 2, 0);
		pcv_json_line(out, &M);
		fclose(out);
		snprintf(want, sizeof(want), "\"path\":\"%s\",", names[i].json);
		EXPECT_TRUE(strstr(buf, want) != NULL, "JSON names: %s", names[i].what);
		free(buf);
		pcv_model_free(&M);
	}
}

static int parse(const char *args, struct pcv_options *o, char *err)
{
	static char copy[512];
	char *argv[32];
	int argc = 0;

	snprintf(copy, sizeof(copy), "%s", args);
	for (char *t = strtok(copy, " "); t && argc < 31; t = strtok(NULL, " "))
		argv[argc++] = t;
	argv[argc] = NULL;
	return pcv_parse_options(argc, argv, o, err, 256);
}

static void test_options(void)
{
	static const struct {
		const char *args, *msg;
	} bad[] = {
		{ "pcviz -i 0 f", "--interval 0: not a number" },
		{ "pcviz --interval abc f", "--interval abc" },
		{ "pcviz -c 0 f", "--count 0: not a whole number" },
		{ "pcviz -c 1.5 f", "--count 1.5" },
		{ "pcviz --buffer-kb 1 f", "--buffer-kb 1" },
		{ "pcviz --events add,nosuch f", "--events: 'nosuch' is not an event name" },
		{ "pcviz -e , f", "--events ',': no event names in it" },
		{ "pcviz --max-files 0 f", "--max-files 0: not a whole number from 1 to 4096" },
		{ "pcviz --max-files 4097 f", "--max-files 4097" },
		{ "pcviz --max-files 2.5 f", "--max-files 2.5" },
		{ "pcviz --speed -2 --replay t", "--speed -2" },
		{ "pcviz --frobnicate f", "unknown option '--frobnicate'" },
		{ "pcviz -x f", "unknown option '-x'" },
		{ "pcviz f -i", "option '-i' needs a value" },
		{ "pcviz f --buffer-kb", "option '--buffer-kb' needs a value" },
		{ "pcviz --ascii=1 f", "option '--ascii' takes no value" },
		{ "pcviz", "no FILE or DIR" },
		{ "pcviz --replay t --synthetic", "exclude each other" },
		{ "pcviz --synthetic f", "f: no files with" },
		{ "pcviz --compare a.dat", "--compare needs two trace.dat files, A and B (one given)" },
		{ "pcviz --compare", "--compare needs two trace.dat files, A and B (none given)" },
		{ "pcviz -C f", "--compare needs two trace.dat files" },
		{ "pcviz --compare a b c", "c: --compare compares two traces, not more" },
		{ "pcviz --replay a --compare b c", "c: --compare compares two traces, not more" },
		{ "pcviz -r a -r b -r c", "--replay c: at most two traces" },
		{ "pcviz --compare a b --synthetic", "--compare and --synthetic exclude each other" },
		{ "pcviz -r a -r b --synthetic", "--replay and --synthetic exclude each other" },
		{ "pcviz -r a -r b f", "f: no files with --replay" },
	};
	struct pcv_options o;
	char err[256], args[512];

	EXPECT_TRUE(parse("pcviz -j -i 0.25 -c 3 --no-events a b", &o, err) == 0 && o.json && o.batch &&
		    o.interval == 0.25 && o.count == 3 && !o.events && o.npaths == 2 &&
		    !strcmp(o.paths[1], "b"),
		    "options: --json implies --batch; interval, count, files");
	EXPECT_EQ(1, parse("pcviz --help", &o, err), "options: --help");
	EXPECT_TRUE(parse("pcviz --version", &o, err) == 2 && parse("pcviz -V", &o, err) == 2,
		    "options: -V, --version");
	EXPECT_TRUE(parse("pcviz -e db_mark,reclaim f", &o, err) == 0 &&
		    o.events == (1u << PCV_EV_DB_MARK | 1u << PCV_EV_RECLAIM),
		    "options: --events picks kinds by name");
	EXPECT_TRUE(parse("pcviz f", &o, err) == 0 && o.interval == 0.5 && o.count == 0 &&
		    o.events == (1u << PCV_EV_NKINDS) - 1 &&
		    o.buffer_kb == 4096 && !o.batch,
		    "options: defaults");
	/* the values the review tried (issue #15), as argv: empty and spaced ones too */
	static const char *const values[][2] = {
		{ "--interval", "0" }, { "--interval", "-1" }, { "--interval", "1e308" },
		{ "--interval", "nan" }, { "--interval", "inf" }, { "--interval", "" },
		{ "--interval", "1x" }, { "--interval", "0.001" }, { "--count", "0" },
		{ "--count", "-3" }, { "--count", "1e300" }, { "--count", "2.5" }, { "--count", "" },
		{ "--buffer-kb", "1e300" }, { "--buffer-kb", "-64" }, { "--buffer-kb", "nan" },
		{ "--speed", "0" }, { "--speed", "1e308" }, { "--speed", "-inf" },
		{ "--max-files", "1e300" }, { "--max-files", "-1" }, { "--events", "" },
	};
	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		char *argv[] = { "pcviz", (char *)values[i][0], (char *)values[i][1], "f", NULL };

		EXPECT_TRUE(pcv_parse_options(4, argv, &o, err, sizeof(err)) == -1 &&
			    strstr(err, values[i][0]),
			    "options: %s '%s' refused: %s", values[i][0], values[i][1], err);
	}
	EXPECT_TRUE(parse("pcviz --replay a.dat", &o, err) == 0 && o.nreplay == 1 &&
		    !strcmp(o.replay[0], "a.dat") && !o.npaths && !o.compare,
		    "options: --replay, one trace");
	EXPECT_TRUE(parse("pcviz --compare a.dat b.dat -i 0.1", &o, err) == 0 && o.nreplay == 2 &&
		    !strcmp(o.replay[0], "a.dat") && !strcmp(o.replay[1], "b.dat") && !o.npaths &&
		    o.interval == 0.1,
		    "options: --compare A B: the operands are the two traces, in order");
	EXPECT_TRUE(parse("pcviz -r a.dat -r b.dat", &o, err) == 0 && o.nreplay == 2 &&
		    !strcmp(o.replay[1], "b.dat") && !o.npaths,
		    "options: --replay twice compares");
	EXPECT_TRUE(parse("pcviz -r a.dat -C b.dat", &o, err) == 0 && o.nreplay == 2 &&
		    !strcmp(o.replay[0], "a.dat") && !strcmp(o.replay[1], "b.dat"),
		    "options: --replay A --compare B");
	EXPECT_TRUE(parse("pcviz --max-files 1000 f", &o, err) == 0 && o.max_files == 1000 &&
		    parse("pcviz f", &o, err) == 0 && o.max_files == 64,
		    "options: --max-files, 64 by default");
	/* lists longer than any buffer: checked whole, never cut (F12) */
	snprintf(args, sizeof(args), "pcviz -e %s%s f", "add,add,add,add,add,add,add,add,"
		 "add,add,add,add,add,add,add,add,add,add,add,add,add,add,add,add,add,add,add,add,"
		 "add,add,add,add,add,add,add,add,add,add,add,add,add,add,add,add,add,add,add,add,"
		 "add,add,add,add,add,add,add,add,add,add,add,add,", "bogus");
	EXPECT_TRUE(parse(args, &o, err) == -1 && strstr(err, "'bogus' is not an event name"),
		    "options: a bad name after 256 characters of good ones is refused: %s", err);
	snprintf(args, sizeof(args), "pcviz -e %s%s f", "add,add,add,add,add,add,add,add,"
		 "add,add,add,add,add,add,add,add,add,add,add,add,add,add,add,add,add,add,add,add,"
		 "add,add,add,add,add,add,add,add,add,add,add,add,add,add,add,add,add,add,add,add,"
		 "add,add,add,add,add,add,add,add,add,add,add,add,", "db_mark");
	EXPECT_TRUE(parse(args, &o, err) == 0 && o.events == (1u << PCV_EV_ADD | 1u << PCV_EV_DB_MARK),
		    "options: a good name after 256 characters counts too");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int status = parse(bad[i].args, &o, err);

		EXPECT_TRUE(status == -1 && strstr(err, bad[i].msg), "options: '%s' refused: %s", bad[i].args,
			    status == -1 ? err : "accepted");
	}
}

/* A dropbehind_end of pages [index, index + nr) after writeback (when) with a result */
static void feed_end(uint64_t ino, uint64_t index, uint64_t nr, uint32_t when, uint32_t result)
{
	struct pcv_event e = ev(PCV_EV_DB_END, ino, index, nr, 0);

	e.arg[0] = when;
	e.arg[1] = result;
	feed(e);
}

/* Are the pages per write state (a file's wcount or wto) these? */
static bool wis(const uint64_t *w, uint64_t dirty, uint64_t wb, uint64_t clean, uint64_t dropped,
		uint64_t kept)
{
	return w[PCV_W_DIRTY] == dirty && w[PCV_W_WRITEBACK] == wb && w[PCV_W_CLEAN] == clean &&
	       w[PCV_W_DROPPED] == dropped && w[PCV_W_KEPT] == kept;
}

#define wcounts(f, ...) wis((f)->wcount, __VA_ARGS__)
#define wtos(f, ...) wis((f)->wto, __VA_ARGS__)

static void test_write_states(void)
{
	enum { AFTER_WB = 1, AFTER_IRQ = 2 };
	const unsigned all = 1u << PCV_W_DIRTY | 1u << PCV_W_WRITEBACK | 1u << PCV_W_CLEAN |
			     1u << PCV_W_DROPPED;
	struct pcv_file *u, *b, *q;
	struct pcv_event e;
	uint64_t pan = 0;

	pcv_model_init(&M);
	M.reconstruct = true;
	pcv_model_add_file(&M, "uncached", 7 << 20 | 1, 12, 16 * 4096);
	pcv_model_add_file(&M, "buffered", 7 << 20 | 1, 13, 16 * 4096);
	pcv_model_add_file(&M, "irq", 7 << 20 | 1, 14, 16 * 4096);
	u = &M.files[0];
	b = &M.files[1];
	q = &M.files[2];
	for (int i = 0; i < 3; i++)
		pcv_file_track_pages(&M.files[i]);
	pcv_model_tick(&M, 0);
	EXPECT_TRUE(!u->wstate && wcounts(u, 0, 0, 0, 0, 0) && pcv_file_wmask(&M, u, 0) == 0,
		    "write states: nothing before the first write");

	/* an uncached write of 8 pages: marked (write), dirtied, written, dropped */
	e = ev(PCV_EV_DB_MARK, 12, 0, 8, 0);
	e.arg[0] = 1;
	feed(e);
	for (uint64_t i = 0; i < 8; i++)
		feed(ev(PCV_EV_DIRTY, 12, i, 0, 0));
	EXPECT_TRUE(wcounts(u, 8, 0, 0, 0, 0) && wtos(u, 8, 0, 0, 0, 0),
		    "uncached write: 8 pages dirty, once each (mark and dirty event)");
	pcv_file_from_bitmap(u);
	EXPECT_TRUE(u->total.dirty == 8 && u->total.writeback == 0, "replay: dirty pages in the totals");
	feed(ev(PCV_EV_WB_START, 12, 0, 0, 0));
	EXPECT_TRUE(wcounts(u, 0, 8, 0, 0, 0) && wtos(u, 8, 8, 0, 0, 0),
		    "writeback starts: the 8 dirty pages go under writeback");
	pcv_file_layout(u, 2, 0, &pan);
	pcv_file_from_bitmap(u);
	EXPECT_TRUE(u->total.writeback == 8 && u->cells[0].r.writeback == 8 && u->cells[1].r.writeback == 0,
		    "replay: writeback pages in the totals and the cells (8 0)");
	feed_end(12, 0, 6, AFTER_WB, PCV_DB_DROPPED);
	EXPECT_TRUE(wcounts(u, 0, 2, 0, 6, 0) && wtos(u, 8, 8, 6, 6, 0),
		    "6 pages' writeback done and dropped: clean, then dropped");
	feed(ev(PCV_EV_WB_END, 12, 0, 0, 0));
	EXPECT_TRUE(wcounts(u, 0, 0, 2, 6, 0), "the file's writeback done: the other 2 clean");
	feed_end(12, 6, 2, AFTER_WB, PCV_DB_DROPPED);
	EXPECT_TRUE(wcounts(u, 0, 0, 0, 8, 0) && wtos(u, 8, 8, 8, 8, 0),
		    "uncached write: 8 pages went dirty, writeback, clean, dropped");

	/* a buffered write of 4 pages: dirty, writeback, clean; no drop */
	for (uint64_t i = 4; i < 8; i++)
		feed(ev(PCV_EV_DIRTY, 13, i, 0, 0));
	feed(ev(PCV_EV_WB_START, 13, 0, 0, 0));
	feed(ev(PCV_EV_DIRTY, 13, 9, 0, 0));	/* dirtied during writeback: waits for the next */
	feed(ev(PCV_EV_WB_END, 13, 0, 0, 0));
	EXPECT_TRUE(wcounts(b, 1, 0, 4, 0, 0) && wtos(b, 5, 4, 4, 0, 0),
		    "buffered write: 4 pages dirty, writeback, clean; 1 dirtied meanwhile still dirty");

	/* uncached writes completed in interrupt context: kept (irq), and kept (claimed) */
	e = ev(PCV_EV_DB_MARK, 14, 0, 4, 0);
	e.arg[0] = 1;
	feed(e);
	feed(ev(PCV_EV_WB_START, 14, 0, 0, 0));
	feed_end(14, 0, 3, AFTER_IRQ, PCV_DB_IRQ);
	feed_end(14, 3, 1, AFTER_WB, 2 /* claimed */);
	EXPECT_TRUE(wcounts(q, 0, 0, 0, 0, 4) && wtos(q, 4, 4, 4, 0, 4) && q->wkept[PCV_DB_IRQ] == 3 &&
		    q->wkept[2] == 1 && M.db_end_pages[PCV_DB_IRQ] == 3,
		    "IRQ-completed writeback: 3 pages kept (irq), 1 kept (claimed)");
	feed_end(14, 0, 4, 0 /* after read */, PCV_DB_DROPPED);
	EXPECT_TRUE(wcounts(q, 0, 0, 0, 0, 4), "a read's drop-behind is no write state");
	feed_end(14, 0, 1, AFTER_WB, PCV_DB_DIRTY);
	EXPECT_TRUE(wcounts(q, 1, 0, 0, 0, 3) && q->wto[PCV_W_DIRTY] == 5,
		    "kept but written again (result dirty): dirty again");
	feed(ev(PCV_EV_DIRTY, 14, 1u << 30, 0, 0));	/* past the file's end: ignored */
	e = ev(PCV_EV_DB_MARK, 14, 2, UINT64_MAX, 0);	/* a hostile page count: clamped */
	e.arg[0] = 1;
	feed(e);
	EXPECT_TRUE(wcounts(q, 15, 0, 0, 0, 1), "write events past the end are clamped (15 dirty)");
	/* live, a file being written grows between the sizes pcviz reads */
	q->grows = true;
	feed(ev(PCV_EV_DIRTY, 14, 20, 0, 0));
	e = ev(PCV_EV_DB_MARK, 14, 30, 2, 0);
	e.arg[0] = 1;
	feed(e);
	EXPECT_TRUE(wcounts(q, 18, 0, 0, 0, 1) && q->wpages == 32,
		    "a growing file: write events past the size last read count (18 dirty, state of 32 pages)");
	feed(ev(PCV_EV_DIRTY, 14, PCV_WMAX_PAGES, 0, 0));
	EXPECT_TRUE(wcounts(q, 18, 0, 0, 0, 1) && q->wpages == 32,
		    "... up to the write state's bound (%llu pages)", (unsigned long long)PCV_WMAX_PAGES);

	/* the timeline: the states each interval saw */
	pcv_model_tick(&M, 1);
	EXPECT_TRUE(pcv_file_wmask(&M, u, 0) == all && pcv_file_wmask(&M, u, 1) == 0,
		    "timeline: the uncached write's interval saw dirty, writeback, clean, dropped");
	EXPECT_EQ((1u << PCV_W_DIRTY | 1u << PCV_W_WRITEBACK |
					      1u << PCV_W_CLEAN), pcv_file_wmask(&M, b, 0),
		  "timeline: the buffered write's saw dirty, writeback, clean");
	pcv_model_tick(&M, 2);
	EXPECT_TRUE(pcv_file_wmask(&M, u, 0) == 1u << PCV_W_DROPPED &&
		    pcv_file_wmask(&M, u, 1) == all && pcv_file_wmask(&M, u, PCV_WHIST) == 0,
		    "timeline: next interval, the pages are still dropped; the history moves left");
	pcv_model_reset_counts(&M);
	EXPECT_TRUE(wtos(u, 0, 0, 0, 0, 0) && wcounts(u, 0, 0, 0, 8, 0),
		    "reset: transitions zeroed, states kept");
	pcv_model_free(&M);
}

/*
 * The write end a writer kept (result tail after writeback) is dropped at
 * the last close: straight from kept to dropped, no writeback ends there;
 * one still dirty at close stays dirty, its writeback decides.
 */
static void test_close(void)
{
	enum { AFTER_WB = 1 };
	struct pcv_file *f;
	struct pcv_event e;

	pcv_model_init(&M);
	pcv_model_add_file(&M, "log", 7 << 20 | 1, 12, 3 * 4096);
	f = &M.files[0];
	e = ev(PCV_EV_DB_MARK, 12, 0, 3, 0);
	e.arg[0] = 1;
	feed(e);
	feed(ev(PCV_EV_WB_START, 12, 0, 0, 0));
	feed_end(12, 0, 2, AFTER_WB, PCV_DB_DROPPED);
	feed_end(12, 2, 1, AFTER_WB, 8 /* tail */);
	EXPECT_TRUE(wcounts(f, 0, 0, 0, 2, 1) && wtos(f, 3, 3, 3, 2, 1) && f->wkept[8] == 1,
		    "an uncached append: 2 pages dropped after writeback, the last kept (tail)");
	feed_end(12, 2, 1, PCV_DB_CLOSE, PCV_DB_DROPPED);
	EXPECT_TRUE(wcounts(f, 0, 0, 0, 3, 0) && wtos(f, 3, 3, 3, 3, 1) &&
		    M.db_end_when[PCV_DB_CLOSE] == 1 && M.db_end_pages[PCV_DB_DROPPED] == 3,
		    "the last close drops the kept page: kept to dropped, not clean again; counted after close");
	feed(ev(PCV_EV_DIRTY, 12, 2, 0, 0));
	feed_end(12, 2, 1, PCV_DB_CLOSE, PCV_DB_DIRTY);
	EXPECT_TRUE(wcounts(f, 1, 0, 0, 2, 0) && wtos(f, 4, 3, 3, 3, 1),
		    "a page dirty at close stays dirty, counted once");
	pcv_model_free(&M);
}

/* The calls' folios are summed: what the per-folio events leave out when sampled */
static void test_calls(void)
{
	struct pcv_event e = ev(PCV_EV_DB_CALL, 12, 0, 1 << 20, 0);
	char buf[8192];
	FILE *out;

	pcv_model_init(&M);
	pcv_model_add_file(&M, "/mnt/a", 7 << 20 | 1, 12, 64 << 20);
	e.arg[1] = 256;		/* marked */
	e.arg[2] = 3;		/* served */
	e.arg[3] = 255;		/* dropped */
	e.arg[4] = 1;		/* kept */
	feed(e);
	feed(e);
	e.ino = 99;		/* a file not watched */
	feed(e);
	EXPECT_TRUE(M.db_call[PCV_CALL_MARKED] == 512 && M.db_call[PCV_CALL_SERVED] == 6 &&
		    M.db_call[PCV_CALL_DROPPED] == 510 && M.db_call[PCV_CALL_KEPT] == 2 &&
		    M.ev_count[PCV_EV_DB_CALL] == 2 && M.ev_pages[PCV_EV_DB_CALL] == 512,
		    "calls: folios marked, served, dropped, kept summed over the watched file's 2 calls");
	M.folio_pauses = 3;
	out = fmemopen(buf, sizeof(buf), "w");
	pcv_json_line(out, &M);
	fclose(out);
	EXPECT_TRUE(strstr(buf, "\"folio_events\":\"sampled\",\"folio_pauses\":3,") &&
		    strstr(buf, "\"db_call_marked\":512,\"db_call_served\":6,\"db_call_dropped\":510,"
				"\"db_call_kept\":2,"),
		    "JSON: the per-folio events sampled (3 pauses), the calls' folios");
	pcv_model_reset_counts(&M);
	out = fmemopen(buf, sizeof(buf), "w");
	pcv_csv_header(out, &M);
	pcv_csv_line(out, &M);
	fclose(out);
	EXPECT_TRUE(!M.db_call[PCV_CALL_MARKED] && !M.folio_pauses &&
		    strstr(buf, ",events_why,folio_events,folio_pauses,") &&
		    strstr(buf, ",db_end_after_fsync,db_end_after_close,") &&
		    strstr(buf, ",db_end_pages_irq,db_call_marked,db_call_served,db_call_dropped,db_call_kept,") &&
		    strstr(buf, ",whole,0,"),
		    "reset: calls and pauses zeroed; CSV: whole, 0 pauses; the columns after close and the calls'");
	pcv_model_free(&M);
}

int main(int argc, char **argv)
{
	test_parsers();
	test_rates();
	test_cells();
	test_events();
	test_reconstruct();
	test_write_states();
	test_eviction();
	test_kswapd_wakers();
	test_eviction_bounds();
	test_eviction_output();
	test_charges();
	test_close();
	test_calls();
	if (argc > 1) {
		test_residency(argv[1]);
		test_cgroups(argv[1]);
	} else {
		tap_skip("no scratch directory given", "cachestat on real files");
		tap_skip("no scratch directory given", "cgroup paths");
	}
	test_output();
	test_output_runs();
	test_unknown();
	test_json_names();
	test_messages();
	test_options();
	return tap_done(0);
}

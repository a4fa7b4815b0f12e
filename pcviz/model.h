/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pcviz's model: what the views and the batch output show, with no
 * terminal or tracing code.  Sources fill it; views render it.
 *
 *  - files: residency per file, as totals and as cells, each cell covering
 *    a range of pages scaled to the window (work per refresh is bounded by
 *    the number of cells, never by the file's size);
 *  - system: /proc/meminfo and /proc/vmstat values, rates per second;
 *  - events: counts and rates per kind, a ring of the latest events, the
 *    number of events the kernel could not deliver (lost);
 *  - memcgs: page-cache counters per memory cgroup, live only.
 *
 * model.c keeps the files, the event dispatcher, the ring, counts and
 * rates; the dispatcher hands each event to the parts by job, whose
 * functions the headers below declare (the words are the views', words.h).
 */
#ifndef PCVIZ_MODEL_H
#define PCVIZ_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cells.h"
#include "charges.h"
#include "evictions.h"
#include "writes.h"

/* Files watched: PCV_FILES unless --max-files says otherwise, PCV_MAX_FILES at most. */
#define PCV_FILES 64
#define PCV_MAX_FILES 4096
/* A number as text, e.g. PCV_STR(PCV_FILES) is "64" */
#define PCV_STR(x) PCV_STR_(x)
#define PCV_STR_(x) #x
#define PCV_MAX_CELLS 16384
/* Runs shown at once: two when comparing replays (--compare), labelled A and B */
#define PCV_RUNS 2
#define PCV_RING 256

/* The kinds of events pcviz counts (docs/pcviz.md lists the tracepoints). */
enum pcv_kind {
	PCV_EV_ADD,		/* filemap:mm_filemap_add_to_page_cache */
	PCV_EV_DELETE,		/* filemap:mm_filemap_delete_from_page_cache */
	PCV_EV_EVICT,		/* workingset:mm_workingset_eviction (reclaim left a shadow entry) */
	PCV_EV_REFAULT,		/* workingset:mm_workingset_refault (a shadow entry's page is back) */
	PCV_EV_LRU_INSERT,	/* pagemap:mm_lru_insertion (by pfn) */
	PCV_EV_LRU_ACTIVATE,	/* pagemap:mm_lru_activate (by pfn) */
	PCV_EV_DIRTY,		/* writeback:writeback_dirty_folio */
	PCV_EV_WRITEBACK,	/* writeback:writeback_single_inode */
	PCV_EV_KSWAPD_WAKE,	/* vmscan:mm_vmscan_kswapd_wake */
	PCV_EV_KSWAPD_WAKER,	/* vmscan:mm_vmscan_wakeup_kswapd (in the task that wakes kswapd) */
	PCV_EV_DIRECT_RECLAIM,	/* vmscan:mm_vmscan_direct_reclaim_begin */
	PCV_EV_RECLAIM,		/* vmscan:mm_vmscan_lru_shrink_inactive */
	PCV_EV_DB_MARK,		/* filemap:mm_filemap_dropbehind_mark */
	PCV_EV_DB_SERVE,	/* filemap:mm_filemap_dropbehind_serve */
	PCV_EV_DB_CLAIM,	/* filemap:mm_filemap_dropbehind_claim */
	PCV_EV_DB_END,		/* filemap:mm_filemap_dropbehind_end */
	PCV_EV_DB_CALL,		/* filemap:mm_filemap_dropbehind_call */
	PCV_EV_WB_START,	/* writeback:sb_mark_inode_writeback (a file's first folio under writeback) */
	PCV_EV_WB_END,		/* writeback:sb_clear_inode_writeback (its last folio written) */
	PCV_EV_NKINDS
};

/* Short names (batch columns "ev_<name>") and the words of the event log. */
extern const char *const pcv_kind_name[PCV_EV_NKINDS];
/*
 * The kinds an uncached read fires for each folio it meets (a bit per
 * kind): a cold one adds, puts on an LRU list, marks, ends and deletes
 * it, a warm one serves it.  Beside a stream they are most of the cost
 * of tracing it.
 */
#define PCV_FOLIO_KINDS (1u << PCV_EV_ADD | 1u << PCV_EV_DELETE | 1u << PCV_EV_LRU_INSERT | \
			 1u << PCV_EV_DB_MARK | 1u << PCV_EV_DB_SERVE | 1u << PCV_EV_DB_END)

/*
 * As the kernel's enum dropbehind_when and enum dropbehind_result
 * (mm/internal.h; pagemap.h in older pclab kernels, which end no folio at
 * close)
 */
#define PCV_DB_NWHEN 5
#define PCV_DB_NRESULT 10
extern const char *const pcv_db_when[PCV_DB_NWHEN];
extern const char *const pcv_db_result[PCV_DB_NRESULT];

/* mm_filemap_dropbehind_end's when and result, as in the kernel's enums */
enum { PCV_DB_READ = 0, PCV_DB_CLOSE = 4 };
enum { PCV_DB_DROPPED = 0, PCV_DB_GONE = 1, PCV_DB_DIRTY = 4, PCV_DB_WRITEBACK = 5,
       PCV_DB_IRQ = 9 };
/* mm_filemap_dropbehind_call's folio counts, summed (pcv_model.db_call) */
enum { PCV_CALL_MARKED, PCV_CALL_SERVED, PCV_CALL_DROPPED, PCV_CALL_KEPT, PCV_CALL_N };
extern const char *const pcv_call_count[PCV_CALL_N];

/*
 * A page's write state (the write timeline), in the order of the write
 * path: dirtied (writeback_dirty_folio, or an uncached write's mark or
 * serve), under writeback (all its file's dirty pages when the file's
 * first folio goes under writeback, sb_mark_inode_writeback), clean (its
 * file's writeback done, sb_clear_inode_writeback, or its own
 * dropbehind_end after writeback), then dropped or kept (dropbehind_end's
 * result; at the last close, straight from the state it had).  NONE: no
 * write seen.
 */
enum pcv_wstate { PCV_W_NONE, PCV_W_DIRTY, PCV_W_WRITEBACK, PCV_W_CLEAN, PCV_W_DROPPED,
		  PCV_W_KEPT, PCV_W_N };
/* "dirty", "writeback", "clean", "dropped", "kept" (batch columns wr_<name>, wr_to_<name>) */
extern const char *const pcv_wstate_name[PCV_W_N];
/* Intervals of the write timeline kept per file */
#define PCV_WHIST 512
/* Pages of a file whose write state is kept (a byte each): 64 GiB */
#define PCV_WMAX_PAGES (1ull << 24)
/* Direct reclaimers of a file's pages told apart; the rest are summed as "others" */
#define PCV_RECLAIMERS 8
/* Tasks that woke kswapd told apart per file; the rest are summed as "others" */
#define PCV_WAKERS 8
/* Memory cgroups told apart per file as charged for its pages; the rest are summed as "others" */
#define PCV_CHARGES 8
/* Nodes whose kswapd's latest waker is kept (kswapd<N> is node N's) */
#define PCV_NODES 64
/* The cgroup ID of the root cgroup: reclaim for the whole machine, kswapd's cgroup */
#define PCV_CGROUP_ROOT 1
/* A refault distance the kernel does not know (ULONG_MAX) */
#define PCV_DISTANCE_UNKNOWN UINT64_MAX

/*
 * One decoded event.  dev is the kernel's encoding (major << 20 | minor),
 * 0 when the event carries none; ino 0 likewise.  Kind-specific values:
 *  DB_MARK/SERVE: arg[0] = write;
 *  DB_END: arg[0] = when, arg[1] = result;
 *  DB_CALL: arg[0] = write, arg[1..4] = marked, served, dropped, kept,
 *           index = pos, nr_pages = bytes;
 *  WRITEBACK: nr_pages = pages written;  RECLAIM: index = scanned,
 *  nr_pages = reclaimed;  KSWAPD_WAKE, DIRECT_RECLAIM: arg[0] = order;
 *  EVICT: arg[0] = workingset, memcg, target, reclaimer (cgroup IDs);
 *  REFAULT: arg[0] = activate, arg[1] = workingset, memcg, distance;
 *  KSWAPD_WAKER: arg[0] = order, arg[1] = nid, arg[2] = zid, reclaimer =
 *  the waking task's cgroup ID (0: unknown).
 * pid is the task the event ran in; comm its name, for evictions (kswapd
 * or a task in direct reclaim) and kswapd's wakers only, "" when unknown.
 */
struct pcv_event {
	double ts;
	enum pcv_kind kind;
	uint32_t dev;
	uint64_t ino;
	uint64_t index;
	uint64_t nr_pages;
	uint64_t pfn;
	uint32_t arg[5];
	int32_t pid;
	char comm[16];
	uint64_t memcg, target, reclaimer, distance;
};

/*
 * A direct reclaimer of a file's pages: the task's cgroup and name, and
 * the memcg the reclaim was for (PCV_CGROUP_ROOT: the whole machine).
 */
struct pcv_reclaimer {
	uint64_t cgroup, target;
	char comm[16];
	uint64_t pages;
};

/*
 * A task that woke kswapd, as a file's kswapd evictions are charged to
 * it: its cgroup (0: unknown) and name.
 */
struct pcv_waker {
	uint64_t cgroup;
	char comm[16];
	uint64_t pages;
};

/* Pages of a file charged to a memory cgroup (its ID) */
struct pcv_charge {
	uint64_t cgroup;
	uint64_t pages;
};

/*
 * The latest task to wake a node's kswapd (a kswapd_waker event): kswapd's
 * evictions are charged to it.  seen is false until one is.
 */
struct pcv_woke {
	bool seen;
	uint32_t nid;
	int32_t pid;
	uint64_t cgroup;
	char comm[16];
	double ts;
};

/* A cell or a file: pages in each state. */
struct pcv_res {
	uint64_t pages, cached, dirty, writeback, evicted, recently_evicted;
};

struct pcv_cell {
	struct pcv_res r;
	bool changed;		/* cached/dirty/writeback differ from the last frame */
};

/* What happened to a file while watched */
enum pcv_file_state { PCV_FILE_OK, PCV_FILE_DELETED, PCV_FILE_TRUNCATED, PCV_FILE_GREW };

struct pcv_file {
	char *path;
	uint32_t dev;		/* kernel encoding, as events carry it */
	uint64_t ino;
	uint64_t size;		/* bytes */
	uint64_t pages;
	unsigned page_size;	/* bytes, the model's: pages holds size in them */
	enum pcv_file_state state;
	char note[96];		/* what happened to it, in words */
	/*
	 * The residency cannot be known (the kernel refuses to tell, or would
	 * tell a wrong number): total and cells hold nothing to show.
	 */
	bool unknown;
	char why[96];		/* why, in words */
	struct pcv_res total;
	uint64_t events[PCV_EV_NKINDS];
	/* the map: cells[0..ncells) cover [first, first + ncells * per_cell) */
	uint64_t first, per_cell;
	unsigned ncells, cap;
	struct pcv_cell *cells;
	/* replay and synthetic sources: which pages are cached, bit per page */
	uint64_t *bitmap;
	/*
	 * Write state (enum pcv_wstate), a byte per page of [0, wpages), from
	 * the file's first write event on (NULL before); pages with a state
	 * are all in [wlo, whi).  wcount: pages in each state now; wto: pages
	 * that went into each state (transitions); wkept: pages kept, by
	 * dropbehind_end result.
	 */
	uint8_t *wstate;
	uint64_t wpages, wlo, whi;
	/*
	 * Live: the size is read between reads of the events, so a write event
	 * past the size last read is the file growing, and the write state
	 * follows it (to PCV_WMAX_PAGES).  Otherwise (a trace) such an event is
	 * clamped to the file's size.
	 */
	bool grows;
	uint64_t wcount[PCV_W_N], wto[PCV_W_N], wkept[PCV_DB_NRESULT];
	/*
	 * The timeline: per interval, a bit (1 << state) for each state pages
	 * were in or went through; whist[(m->ticks - 1 - i) % PCV_WHIST] is
	 * the i-th latest interval.  wseen gathers the current one.
	 */
	uint8_t whist[PCV_WHIST];
	uint8_t wseen;
	/*
	 * Eviction attribution (the workingset events), in pages: evicted by
	 * kswapd or by direct reclaim, the direct reclaimers (the first
	 * PCV_RECLAIMERS seen, the rest in evict_others); refaulted, of them
	 * activated, and refaulted with no eviction seen (evicted before
	 * pcviz looked, or its event lost).
	 */
	uint64_t evict_kswapd, evict_direct, evict_others;
	struct pcv_reclaimer reclaimers[PCV_RECLAIMERS];
	int nreclaimers;
	uint64_t refaults, refault_activated, refault_unseen;
	/*
	 * Who woke kswapd for its evictions of the file, in pages: the latest
	 * waker of the evicting kswapd's node at each eviction (the first
	 * PCV_WAKERS told apart, the rest in woken_others), and kswapd's
	 * pages with no waker seen for its node (woken_unknown).
	 */
	struct pcv_waker wakers[PCV_WAKERS];
	int nwakers;
	uint64_t woken_others, woken_unknown;
	/*
	 * How long refaulted pages were gone: per page of [0, epages), the
	 * time of its eviction in ms after ebase, plus 1 (0: none), from the
	 * file's first eviction on (NULL before); pages past PCV_WMAX_PAGES
	 * are not timed.  gone_n pages timed, their sum and the longest.
	 */
	uint32_t *evicted_at;
	uint64_t epages;
	double ebase;
	uint64_t gone_n;
	double gone_sum, gone_max;
	/*
	 * The memory cgroups charged for the file's cached pages, of the
	 * pages added while pcviz watched whose charge the source could tell
	 * (live: /proc/kpagecgroup): the first PCV_CHARGES cgroups, the rest
	 * in charged_others.  A page leaves its count when it leaves the cache.
	 */
	struct pcv_charge charges[PCV_CHARGES];
	int ncharges;
	uint64_t charged_others;
};

/* The /proc/vmstat counters pcviz reads, in the order of pcv_system.vm[]. */
enum pcv_vm {
	PCV_VM_PGSCAN_KSWAPD, PCV_VM_PGSCAN_DIRECT, PCV_VM_PGSTEAL_KSWAPD, PCV_VM_PGSTEAL_DIRECT,
	PCV_VM_REFAULT_FILE, PCV_VM_PGPGIN, PCV_VM_PGPGOUT,
	PCV_VM_DB_MARKED, PCV_VM_DB_READ, PCV_VM_DB_WRITE, PCV_VM_DB_CLAIMED, PCV_VM_DB_MAPPED,
	PCV_VM_DB_BUSY, PCV_VM_N
};
extern const char *const pcv_vm_name[PCV_VM_N];

struct pcv_system {
	bool known;		/* false in a replay: a trace has no counters */
	/* /proc/meminfo, KiB */
	uint64_t mem_free, cached, active_file, inactive_file, dirty, writeback;
	/* /proc/vmstat, cumulative; valid[] says which the kernel has */
	uint64_t vm[PCV_VM_N], vm_prev[PCV_VM_N];
	bool vm_valid[PCV_VM_N];
	double vm_rate[PCV_VM_N];	/* per second over the last interval */
	/* every kswapd thread's CPU time in clock ticks (-1: none), their share of one CPU */
	long long kswapd_ticks, kswapd_prev_ticks;
	long ticks_per_s;
	double kswapd_cpu;	/* percent of one CPU over the last interval */
	int mglru;		/* 1 on, 0 off, -1 unknown */
};

/*
 * The memory.stat keys pcviz reads per memory cgroup, in the order of
 * pcv_memcg.stat[]: sizes in bytes up to PCV_MCG_REFAULT, event counts
 * (cumulative, shown per second) from it on.
 */
enum pcv_mcg {
	PCV_MCG_FILE, PCV_MCG_ACTIVE_FILE, PCV_MCG_INACTIVE_FILE, PCV_MCG_FILE_DIRTY,
	PCV_MCG_FILE_WRITEBACK, PCV_MCG_REFAULT, PCV_MCG_ACTIVATE, PCV_MCG_PGSCAN, PCV_MCG_PGSTEAL,
	PCV_MCG_N
};
extern const char *const pcv_mcg_name[PCV_MCG_N];
/* The memory.events keys pcviz reads, in the order of pcv_memcg.events[] */
enum { PCV_MCG_EV_LOW, PCV_MCG_EV_HIGH, PCV_MCG_EV_MAX, PCV_MCG_EV_OOM, PCV_MCG_EV_N };
extern const char *const pcv_mcg_event_name[PCV_MCG_EV_N];
/* Memory cgroups read per refresh at most, depth-first; the rest are counted, not read */
#define PCV_MEMCGS 64
/* memory.max "max": no limit */
#define PCV_MCG_UNLIMITED UINT64_MAX

/*
 * One memory cgroup's counters at the last refresh.  valid[] says which
 * memory.stat keys its kernel has; events, PSI, current and max are each
 * unknown (false) when their file could not be read, e.g. the cgroup went
 * away between memory.stat and them.  prev[] is the same cgroup's (by
 * path) at the refresh before, has_prev false when it was not seen then:
 * rates need two samples of one cgroup.
 */
struct pcv_memcg {
	char path[120];		/* below the cgroup2 root: "/", "/system.slice" */
	uint64_t stat[PCV_MCG_N], prev[PCV_MCG_N];
	bool valid[PCV_MCG_N], has_prev;
	double rate[PCV_MCG_N];	/* per second over the last interval, event counts only */
	uint64_t events[PCV_MCG_EV_N];
	bool events_valid;
	double psi_some, psi_full;	/* memory.pressure avg10, percent */
	bool psi_valid;
	uint64_t current, max;	/* bytes; max PCV_MCG_UNLIMITED for "max" */
	bool current_valid, max_valid;
};

struct pcv_memcgs {
	bool known;		/* read live; false in a replay or the synthetic run */
	char why[128];		/* why there are none, when known and n is 0 */
	int n;
	long more;		/* memory cgroups found beyond PCV_MEMCGS, not read */
	struct pcv_memcg cg[PCV_MEMCGS];
};

/*
 * A direct-mapped pfn -> (file, page) table: attributes LRU events, and
 * a page's charge.  A folio added later in another's slot takes it: the
 * one it replaces is not followed any longer.
 */
#define PCV_PFN_SLOTS (1u << 17)
struct pcv_pfn_slot {
	uint64_t pfn_plus1;	/* 0: empty */
	uint64_t index;
	int file;
	uint32_t pages;		/* the folio's */
	uint64_t memcg;		/* the cgroup charged for it, 0 until known */
};

struct pcv_model {
	struct pcv_file files[PCV_MAX_FILES];
	int nfiles;
	int max_files;		/* files[] takes this many (PCV_FILES by default) */
	/* bytes: the system's, a replay's the trace's (its events count pages of that size) */
	unsigned page_size;
	long unwatched;		/* files found beyond max_files */
	struct pcv_system sys;
	struct pcv_memcgs memcgs;
	double now, prev_now;	/* seconds: source's clock */
	double t0;		/* when counting started */
	uint64_t ticks;		/* intervals ended (the write timeline's clock) */
	bool primed;		/* a first tick happened: rates can be computed */
	/* events */
	bool events_on;
	char events_why[192];	/* why not, or what source */
	uint64_t ev_count[PCV_EV_NKINDS], ev_pages[PCV_EV_NKINDS];
	/* dropbehind_end: folios by when, pages by result (what the labs grade) */
	uint64_t db_end_when[PCV_DB_NWHEN], db_end_pages[PCV_DB_NRESULT];
	/* dropbehind_call: the folios the calls met, summed by enum PCV_CALL_ */
	uint64_t db_call[PCV_CALL_N];
	/*
	 * Live beside uncached reads, the per-folio events (PCV_FOLIO_KINDS)
	 * are sampled for their cost: an uncached read's call switches them
	 * off, for a pause (docs/pcviz.md).  The pauses since the start; 0:
	 * their counts are every event.
	 */
	uint64_t folio_pauses;
	uint64_t ev_prev[PCV_EV_NKINDS];
	double ev_rate[PCV_EV_NKINDS];
	uint64_t unattributed;	/* LRU events for pages of no watched file */
	/* each node's latest kswapd waker, node nid in woke[nid % PCV_NODES] */
	struct pcv_woke woke[PCV_NODES];
	uint64_t lost;
	struct pcv_event ring[PCV_RING];
	unsigned ring_head, ring_len;
	bool reconstruct;	/* residency comes from add/delete/drop events */
	struct pcv_pfn_slot *pfn;
	bool charges_known;	/* the source tells a page's cgroup (live, /proc/kpagecgroup) */
	/* folios added to watched files since pcv_model_charge() last ran: their pfns */
	uint64_t *uncharged;
	size_t nuncharged;
	/* what the residency comes from, e.g. "cachestat" or "mincore ..." */
	char res_source[96];
	double refresh_us;	/* time of the last refresh */
	/* the run's label when runs are compared ("A", "B"; a "run" column), else NULL */
	const char *run;
};

void pcv_model_init(struct pcv_model *m);
void pcv_model_free(struct pcv_model *m);
/* Adds a watched file; returns its index, or -1 when max_files are watched or without memory. */
int pcv_model_add_file(struct pcv_model *m, const char *path, uint32_t dev, uint64_t ino,
		       uint64_t size);
int pcv_model_find_file(const struct pcv_model *m, uint32_t dev, uint64_t ino);
/* Sets a file's size; a change is recorded in state/note. */
void pcv_file_set_size(struct pcv_file *f, uint64_t size);
/* The file has a new name (renamed in a watched directory); 0, or -1 without memory. */
int pcv_file_rename(struct pcv_file *f, const char *path);
/* The file's state in a word: "unknown" (residency), else "ok", "deleted", "truncated", "grew". */
const char *pcv_file_state_name(const struct pcv_file *f);
/* Is the residency of any watched file unknown? */
bool pcv_model_any_unknown(const struct pcv_model *m);

/* Feeds one event: counts, attribution, the ring, reconstruction. */
void pcv_model_event(struct pcv_model *m, const struct pcv_event *ev);
/* Ends an interval at time now: rates of events and counters. */
void pcv_model_tick(struct pcv_model *m, double now);
/* Zeroes counts (key r), keeps residency. */
void pcv_model_reset_counts(struct pcv_model *m);
/* Sum of the watched files' residency. */
struct pcv_res pcv_model_total(const struct pcv_model *m);

/* The i-th latest event (0 = newest), NULL past the end. */
const struct pcv_event *pcv_model_recent(const struct pcv_model *m, unsigned i);

/* Kernel dev_t encoding of a user-space st_dev. */
uint32_t pcv_kdev(uint64_t st_dev);

#endif

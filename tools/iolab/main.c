// SPDX-License-Identifier: GPL-2.0
/*
 * iolab: the labs' workload tool.  Reads or writes a file sequentially or
 * at random in one of several I/O modes, prints throughput once a second,
 * and ends with a summary: MB/s, IOPS, latency percentiles, CPU, kswapd's
 * CPU, the page cache at start/peak/end and the page-cache and reclaim
 * counters.
 * See iolab(1).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include "pclab/uncached.h"
#include <liburing.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "iolab.h"
#include "pclab/cachestat.h"
#include "pclab/clock.h"
#include "pclab/sysstat.h"
#include "pclab/table.h"
#include "../tool.h"

static struct iolab_options o;
static struct hist lat;
/* found once, before the run: see pclab_kswapd_find() */
static struct pclab_kswapd kswapd_threads;

/* Page cache, dirty and writeback in KiB, from one read of /proc/meminfo */
struct memstate {
	long long cached, dirty, writeback;
};

static struct memstate memstate(void)
{
	static const char *const keys[] = { "Cached", "Dirty", "Writeback" };
	long long v[3];

	pclab_read_proc_values("/proc/meminfo", keys, v, 3);
	return (struct memstate){ v[0], v[1], v[2] };
}

/*
 * Direct reclaim so far: allocation stalls (every zone's allocstall_*),
 * pages scanned by direct reclaim, and the time some task stalled on
 * memory (PSI, microseconds; -1 without CONFIG_PSI).  Where buffered I/O
 * pays for reclaim itself, not kswapd on another CPU.
 */
struct reclaim {
	long long stalls, scanned, psi_us;
};

static struct reclaim reclaim_state(void)
{
	/* every zone's allocstall_*, then pgscan_direct */
	static const char *const keys[] = {
		"allocstall_dma", "allocstall_dma32", "allocstall_normal", "allocstall_movable",
		"allocstall_device", "pgscan_direct",
	};
	enum { NR_STALL_KEYS = 5, NR_KEYS = sizeof(keys) / sizeof(keys[0]) };
	struct reclaim rc = { 0, 0, -1 };
	long long v[NR_KEYS];
	FILE *f;

	if (pclab_read_proc_values("/proc/vmstat", keys, v, NR_KEYS) >= 0) {
		for (int i = 0; i < NR_STALL_KEYS; i++)
			if (v[i] > 0)
				rc.stalls += v[i];
		rc.scanned = v[NR_STALL_KEYS];
	}
	f = fopen("/proc/pressure/memory", "r");
	if (f) {
		rc.psi_us = psi_some_total(f);
		fclose(f);
	}
	return rc;
}

/* Pages of this file in the page cache (cachestat(2)), or -1 */
static long long file_cached_pages(int fd)
{
	struct pclab_cachestat cs;

	return pclab_cachestat(fd, 0, 0, &cs) ? -1 : (long long)cs.nr_cache;
}

static void io_error(void)
{
	if (errno == EOPNOTSUPP && iolab_uncached(&o))
		die(o.file, "RWF_UNCACHED is not supported here (pclab kernel, ext4 or xfs?)");
	if (errno == EINVAL && iolab_direct(&o))
		die(o.file, "O_DIRECT refused the I/O with EINVAL: offsets, sizes and buffers "
		    "must be a multiple of the logical block size of the device (see "
		    "/sys/block/DEV/queue/logical_block_size); use a block size that is a "
		    "multiple of 4K");
	die(o.file, strerror(errno));
}

/* The run's progress and what the page cache did meanwhile. */
static struct run {
	long long nblocks, next_block, ops, bytes, hits;
	double start;
	long long cached_peak, dirty_peak, writeback_peak;
	/*
	 * Dirty + Writeback at one sample: what vm.dirty_bytes limits.  Where
	 * the disk is slow, the flusher moves dirty pages into its queue
	 * quickly and Dirty alone stays low while the writer is throttled.
	 */
	long long dirty_writeback_peak;
	/* at the last once-a-second sample */
	double last;
	long long last_bytes, last_ops, last_hits, last_kswapd;
	struct reclaim last_reclaim;
	FILE *log;
} r;

/*
 * Set by SIGINT or SIGTERM: the run ends at the next block and reports what
 * it did, so a script can run iolab beside another workload for exactly as
 * long as that workload takes.
 */
static volatile sig_atomic_t stop_requested;

static void request_stop(int sig)
{
	(void)sig;
	stop_requested = 1;
}

/*
 * The next block to do, or -1 when the run is over.  With --rate, it waits
 * for the next I/O's time, but never past --time's end, and a stop request
 * ends the wait (no SA_RESTART): the run is over then.
 */
static long long next(void)
{
	for (;;) {
		double t = pclab_now() - r.start, due = o.rate > 0 ? r.ops / o.rate : 0;
		struct timespec ts;

		if (stop_requested || (o.seconds > 0 && t >= o.seconds) ||
		    (o.seconds <= 0 && r.next_block >= r.nblocks))
			return -1;
		if (due <= t)
			break;
		ts = pclab_timespec((o.seconds > 0 && due > o.seconds ? o.seconds : due) - t);
		nanosleep(&ts, NULL);
	}
	r.next_block++;
	return o.random ? random() % r.nblocks : (r.next_block - 1) % r.nblocks;
}

static void account(double t0, long long n)
{
	/* the run's reads lie within the file as it was (main()): it has shrunk */
	if (n == 0 && !o.write)
		die(o.file, "a read found the end of the file: it is shorter than when the run began");
	hist_add(&lat, (uint64_t)((pclab_now() - t0) * 1e9));
	r.ops++;
	r.bytes += n;
}

/*
 * Once an interval (and, with final, at the end of the run): a throughput
 * line, a log line, and the page-cache peaks.
 */
static void tick(bool final)
{
	double t = pclab_now(), dt = t - r.last;
	struct memstate mem;
	struct reclaim rc;
	long long kswapd;

	if (dt < (final ? 0.01 : o.interval))
		return;
	mem = memstate();
	kswapd = pclab_kswapd_ticks(&kswapd_threads);
	rc = reclaim_state();
	if (mem.cached > r.cached_peak)
		r.cached_peak = mem.cached;
	if (mem.dirty > r.dirty_peak)
		r.dirty_peak = mem.dirty;
	if (mem.writeback > r.writeback_peak)
		r.writeback_peak = mem.writeback;
	if (mem.dirty + mem.writeback > r.dirty_writeback_peak)
		r.dirty_writeback_peak = mem.dirty + mem.writeback;
	if (!o.json && !final)
		printf("%6.1fs %9.1f MB/s  cache %7.1f MiB\n", t - r.start,
		       (r.bytes - r.last_bytes) / 1e6 / dt, mem.cached / 1024.0);
	fflush(stdout);
	if (r.log)
		fprintf(r.log, "%.2f,%.2f,%.0f,%lld,%lld,%lld,%.1f,%.2f,%.1f,%.0f,%.1f\n", t - r.start,
			(r.bytes - r.last_bytes) / 1e6 / dt, (r.ops - r.last_ops) / dt, mem.cached,
			mem.dirty, mem.writeback,
			(kswapd - r.last_kswapd) * 100.0 / sysconf(_SC_CLK_TCK) / dt,
			!o.hits ? -1.0 : r.ops > r.last_ops ?
			(r.hits - r.last_hits) * 100.0 / (r.ops - r.last_ops) : 100.0,
			(rc.stalls - r.last_reclaim.stalls) / dt,
			(rc.scanned - r.last_reclaim.scanned) / dt,
			rc.psi_us < 0 ? -1.0 : (rc.psi_us - r.last_reclaim.psi_us) / 1e4 / dt);
	r.last = t;
	r.last_reclaim = rc;
	r.last_bytes = r.bytes;
	r.last_ops = r.ops;
	r.last_hits = r.hits;
	r.last_kswapd = kswapd;
}

struct slot {
	double t0;
	unsigned char *buf;
};

static void uring_submit(struct io_uring *ring, struct slot *sl, int fd, long long block)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	if (o.write)
		io_uring_prep_write(sqe, fd, sl->buf, o.bs, block * o.bs);
	else
		io_uring_prep_read(sqe, fd, sl->buf, o.bs, block * o.bs);
	sqe->rw_flags = iolab_uncached(&o) ? RWF_UNCACHED : 0;
	io_uring_sqe_set_data(sqe, sl);
	sl->t0 = pclab_now();
}

static void run_uring(int fd, unsigned char *buf)
{
	struct slot *slots = calloc(o.qd, sizeof(*slots));
	struct io_uring ring;
	int inflight = 0;

	if (!slots)
		die("memory", strerror(errno));
	if (io_uring_queue_init(o.qd, &ring, 0))
		die("io_uring", "cannot set up a ring");
	for (int i = 0; i < o.qd; i++) {
		long long block = next();

		slots[i].buf = buf + i * o.bs;
		if (block < 0)
			break;
		uring_submit(&ring, &slots[i], fd, block);
		inflight++;
	}
	io_uring_submit(&ring);
	while (inflight) {
		struct io_uring_cqe *cqe;
		struct slot *sl;
		long long block;
		int res;

		/* a stop request interrupts the wait; the requests still complete */
		do
			res = io_uring_wait_cqe(&ring, &cqe);
		while (res == -EINTR);
		if (res)
			die("io_uring", strerror(-res));
		sl = io_uring_cqe_get_data(cqe);
		res = cqe->res;
		io_uring_cqe_seen(&ring, cqe);
		inflight--;
		if (res < 0) {
			errno = -res;
			io_error();
		}
		account(sl->t0, res);
		block = next();
		if (block >= 0) {
			uring_submit(&ring, sl, fd, block);
			io_uring_submit(&ring);
			inflight++;
		}
		tick(false);
	}
	io_uring_queue_exit(&ring);
	free(slots);
}

/*
 * Whether all of a block's pages are in the page cache, by cachestat(2)
 * just before the read.  (Trying the read with RWF_NOWAIT first is not a
 * test: a miss starts the I/O, and a device fast enough completes it
 * before the kernel gives up, so cold pages counted as hits.)
 */
static bool block_cached(int fd, long long block)
{
	long long page = sysconf(_SC_PAGESIZE);
	long long off = block * o.bs;
	struct pclab_cachestat cs;

	if (pclab_cachestat(fd, off, o.bs, &cs))
		die(o.file, strerror(errno));
	return (long long)cs.nr_cache == (off + o.bs - 1) / page - off / page + 1;
}

/* One preadv2/pwritev2 */
static long long sync_io(int fd, unsigned char *buf, long long block)
{
	struct iovec iov = { buf, o.bs };
	int rwf = iolab_uncached(&o) ? RWF_UNCACHED : 0;
	long long n;

	if (o.write)
		return pwritev2(fd, &iov, 1, block * o.bs, rwf);
	if (o.hits && block_cached(fd, block))
		r.hits++;
	n = preadv2(fd, &iov, 1, block * o.bs, rwf);
	if (n > 0 && o.mode == FADVISE)
		posix_fadvise(fd, block * o.bs, o.bs, POSIX_FADV_DONTNEED);
	return n;
}

static void run_sync(int fd, unsigned char *buf, const unsigned char *map)
{
	long long block;

	while ((block = next()) >= 0) {
		double t0 = pclab_now();
		long long n;

		if (map) {
			memcpy(buf, map + block * o.bs, o.bs);
			n = o.bs;
		} else {
			n = sync_io(fd, buf, block);
			if (n >= 0 && o.fsync_each && fsync(fd))
				die("fsync", strerror(errno));
		}
		if (n < 0)
			io_error();
		account(t0, n);
		tick(false);
	}
}

/* vmstat counters whose change the summary reports */
enum counter {
	PGPGIN, PGPGOUT, PGSTEAL_KSWAPD, PGSTEAL_DIRECT,
	PGSCAN_KSWAPD, PGSCAN_DIRECT, PGSCAN_KHUGEPAGED, REFAULT_FILE,
	DB_MARKED, DB_READ, DB_WRITE, NR_COUNTERS
};
static const char *const counters[NR_COUNTERS] = {
	[PGPGIN] = "pgpgin", [PGPGOUT] = "pgpgout",
	[PGSTEAL_KSWAPD] = "pgsteal_kswapd", [PGSTEAL_DIRECT] = "pgsteal_direct",
	[PGSCAN_KSWAPD] = "pgscan_kswapd", [PGSCAN_DIRECT] = "pgscan_direct",
	[PGSCAN_KHUGEPAGED] = "pgscan_khugepaged",
	[REFAULT_FILE] = "workingset_refault_file", [DB_MARKED] = "dropbehind_marked",
	[DB_READ] = "dropbehind_read", [DB_WRITE] = "dropbehind_write",
};

/* The system before the run */
struct baseline {
	long long kswapd_ticks, cached_kib, counter[NR_COUNTERS];
	struct reclaim reclaim;
};

static struct baseline take_baseline(void)
{
	struct baseline b = { .kswapd_ticks = pclab_kswapd_ticks(&kswapd_threads),
			      .cached_kib = pclab_meminfo("Cached"), .reclaim = reclaim_state() };

	pclab_read_proc_values("/proc/vmstat", counters, b.counter, NR_COUNTERS);
	return b;
}

static void summary(int fd, double elapsed, const struct baseline *b)
{
	struct rusage ru;
	struct reclaim rc = reclaim_state();
	long long cached = pclab_meminfo("Cached"), now[NR_COUNTERS], d[NR_COUNTERS];
	double usr, sys, kswapd, hit_pct;

	getrusage(RUSAGE_SELF, &ru);
	usr = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
	sys = ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	kswapd = (pclab_kswapd_ticks(&kswapd_threads) - b->kswapd_ticks) * 100.0 /
		 sysconf(_SC_CLK_TCK) / elapsed;
	hit_pct = r.ops ? r.hits * 100.0 / r.ops : 0;
	if (cached > r.cached_peak)
		r.cached_peak = cached;
	/* -1 where the kernel lacks the counter (drop-behind ones without the series) */
	pclab_read_proc_values("/proc/vmstat", counters, now, NR_COUNTERS);
	for (int i = 0; i < NR_COUNTERS; i++)
		d[i] = now[i] < 0 || b->counter[i] < 0 ? -1 : now[i] - b->counter[i];
	/* the labs and the bench read these keys: tests/fixtures/schema lists those */
	if (o.json) {
		struct pclab_value v[40];
		struct pclab_table t;

		pclab_table_init(&t, v, sizeof(v) / sizeof(v[0]));
		pclab_add_text(&t, "mode", iolab_mode_names[o.mode]);
		pclab_add_text(&t, "op", o.write ? "write" : "read");
		pclab_add_text(&t, "pattern", o.random ? "random" : "sequential");
		pclab_add_int(&t, "bs", o.bs);
		pclab_add_int(&t, "bytes", r.bytes);
		pclab_add_real(&t, "seconds", 3, elapsed);
		pclab_add_real(&t, "mb_s", 1, r.bytes / 1e6 / elapsed);
		pclab_add_real(&t, "iops", 0, r.ops / elapsed);
		pclab_add_object(&t, "lat_us", 3);
		pclab_add_real(&t, "p50", 1, hist_percentile(&lat, 50) / 1e3);
		pclab_add_real(&t, "p99", 1, hist_percentile(&lat, 99) / 1e3);
		pclab_add_real(&t, "p999", 1, hist_percentile(&lat, 99.9) / 1e3);
		pclab_add_real(&t, "cpu_user_s", 2, usr);
		pclab_add_real(&t, "cpu_sys_s", 2, sys);
		pclab_add_real(&t, "kswapd_cpu_pct", 1, kswapd);
		pclab_add_object(&t, "cache_kib", 3);
		pclab_add_int(&t, "start", b->cached_kib);
		pclab_add_int(&t, "peak", r.cached_peak);
		pclab_add_int(&t, "end", cached);
		pclab_add_int(&t, "dirty_kib_peak", r.dirty_peak);
		pclab_add_int(&t, "writeback_kib_peak", r.writeback_peak);
		pclab_add_int(&t, "dirty_writeback_kib_peak", r.dirty_writeback_peak);
		pclab_add_real(&t, "hit_pct", 2, o.hits ? hit_pct : -1);
		pclab_add_int(&t, "pgpgin_kib", d[PGPGIN]);
		pclab_add_int(&t, "pgpgout_kib", d[PGPGOUT]);
		pclab_add_int(&t, "pages_reclaimed", counters_sum(&d[PGSTEAL_KSWAPD], 2));
		/* scanned against reclaimed: how hard reclaim had to look */
		pclab_add_int(&t, "pgscan", counters_sum(&d[PGSCAN_KSWAPD], 3));
		pclab_add_int(&t, "refaults", d[REFAULT_FILE]);
		pclab_add_int(&t, "dropbehind_marked", d[DB_MARKED]);
		pclab_add_int(&t, "dropbehind_dropped", counters_sum(&d[DB_READ], 2));
		pclab_add_int(&t, "file_cached_pages", file_cached_pages(fd));
		pclab_add_int(&t, "allocstalls", rc.stalls - b->reclaim.stalls);
		pclab_add_int(&t, "pgscan_direct", rc.scanned - b->reclaim.scanned);
		pclab_add_real(&t, "psi_mem_some_ms", 1,
			       rc.psi_us < 0 ? -1.0 : (rc.psi_us - b->reclaim.psi_us) / 1e3);
		pclab_table_json_object(stdout, &t);
		return;
	}
	printf("iolab: %s %s %s, %lld-byte blocks: %.1f MB in %.2f s = %.1f MB/s, %.0f IOPS\n",
	       iolab_mode_names[o.mode], o.random ? "random" : "sequential",
	       o.write ? "write" : "read", o.bs, r.bytes / 1e6, elapsed, r.bytes / 1e6 / elapsed,
	       r.ops / elapsed);
	printf("iolab: latency p50 %.1f us, p99 %.1f us, p99.9 %.1f us\n",
	       hist_percentile(&lat, 50) / 1e3, hist_percentile(&lat, 99) / 1e3,
	       hist_percentile(&lat, 99.9) / 1e3);
	if (o.hits)
		printf("iolab: page-cache hits %.2f%% of %lld reads\n", hit_pct, r.ops);
	printf("iolab: CPU user %.2f s, system %.2f s; kswapd %.1f%% of a CPU\n", usr, sys, kswapd);
	printf("iolab: page cache %.1f MiB at start, %.1f peak, %.1f at end; read %lld KiB, "
	       "wrote %lld KiB from/to disk\n", b->cached_kib / 1024.0,
	       r.cached_peak / 1024.0, cached / 1024.0, d[PGPGIN], d[PGPGOUT]);
}

/*
 * The --log file, written afresh.  Never the file the run reads (data, its
 * fstat), by its name or another link: truncating the log would destroy
 * the data before the first read.  So it is opened without O_TRUNC, its
 * identity compared, and only then emptied.
 */
static FILE *open_log(const struct stat *data)
{
	int fd = open(o.log, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	struct stat st;
	FILE *log;

	if (fd < 0 || fstat(fd, &st))
		die(o.log, strerror(errno));
	if (st.st_dev == data->st_dev && st.st_ino == data->st_ino)
		pclab_usage_error("--log: '%s' is FILE itself: the log would overwrite what the run "
				  "reads", o.log);
	/* a FIFO or a terminal has nothing to empty */
	if (S_ISREG(st.st_mode) && ftruncate(fd, 0))
		die(o.log, strerror(errno));
	log = fdopen(fd, "w");
	if (!log)
		die(o.log, strerror(errno));
	return log;
}

int main(int argc, char **argv)
{
	struct baseline before;
	struct memstate mem;
	struct stat st;
	unsigned char *buf, *map = NULL;
	char err[256], why[128];
	double elapsed;
	long long bufsize;
	int fd;

	switch (iolab_parse(argc, argv, &o, err, sizeof(err))) {
	case IOLAB_HELP:
		iolab_usage();
		return 0;
	case IOLAB_VERSION:
		pclab_print_version();
		return 0;
	case IOLAB_USAGE:
		pclab_usage_error("%s", err);
	case IOLAB_RUN:
		break;
	}
	fd = open_regular(o.file, (o.write ? O_RDWR | O_CREAT : O_RDONLY) |
			  (iolab_direct(&o) ? O_DIRECT : 0), &st);
	if (o.size < 0)
		o.size = st.st_size;
	if (!o.write && o.size > st.st_size) {
		/* reads there return nothing: no I/O to count, and no end to a pass */
		snprintf(why, sizeof(why), "--size %lld is past the end of the file (%lld bytes)",
			 o.size, (long long)st.st_size);
		die(o.file, why);
	}
	r.nblocks = o.size / o.bs;
	if (r.nblocks < 1)
		die(o.file, "smaller than one block");
	if (o.hits && file_cached_pages(fd) < 0)
		die(o.file, errno == ENOSYS ? "--hits needs cachestat(2), Linux 6.5 or later" :
			strerror(errno));
	if (o.log) {
		r.log = open_log(&st);
		fprintf(r.log, "seconds,mb_s,iops,cached_kib,dirty_kib,writeback_kib,kswapd_pct,"
			"hit_pct,allocstall_s,pgscan_direct_s,psi_mem_pct\n");
		/* where the plots start */
		mem = memstate();
		fprintf(r.log, "0,0,0,%lld,%lld,%lld,0,%d,0,0,0\n", mem.cached, mem.dirty,
			mem.writeback, o.hits ? 100 : -1);
	}
	/*
	 * A buffer per request in flight: the uring modes' --qd, one
	 * otherwise.  More would be memory the run never uses, which a small
	 * memory cgroup (make bench's memcg setting) takes from the cache.
	 */
	bufsize = o.bs * (iolab_uring(&o) ? o.qd : 1);
	if (posix_memalign((void **)&buf, 4096, bufsize))
		die("memory", strerror(errno));
	memset(buf, 0x5a, bufsize);
	if (o.mode == MMAP) {
		map = mmap(NULL, o.size, PROT_READ, MAP_SHARED, fd, 0);
		if (map == MAP_FAILED)
			die("mmap", strerror(errno));
	}

	srandom(1);
	pclab_kswapd_find(&kswapd_threads, NULL);
	/* no SA_RESTART: a rate-limited run's sleep ends at the signal */
	sigaction(SIGINT, &(struct sigaction){ .sa_handler = request_stop }, NULL);
	sigaction(SIGTERM, &(struct sigaction){ .sa_handler = request_stop }, NULL);
	before = take_baseline();
	r.last_kswapd = before.kswapd_ticks;
	r.last_reclaim = before.reclaim;
	r.cached_peak = before.cached_kib;
	r.start = r.last = pclab_now();
	if (iolab_uring(&o))
		run_uring(fd, buf);
	else
		run_sync(fd, buf, map);
	tick(true);
	if (o.write && o.mode != FADVISE && fsync(fd))
		die("fsync", strerror(errno));
	elapsed = pclab_now() - r.start;
	summary(fd, elapsed, &before);
	if (r.log && fclose(r.log))
		die(o.log, strerror(errno));
	return 0;
}

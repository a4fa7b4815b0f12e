// SPDX-License-Identifier: GPL-2.0
/*
 * The RWF_UNCACHED contract (docs/semantics.md), one check per rule, on
 * every scratch filesystem: residency measured with cachestat(2) and
 * mincore(2), data checked against a pattern, on ext4 and xfs.
 */
#include "pclab.h"
#include "tap.h"

#include <liburing.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>

#define FILE_SIZE (8 * MiB)
#define FILE_PAGES (FILE_SIZE / PAGE)

static const char *fs_name;	/* "ext4", "xfs", ... for test names */
static char path[256];

static int open_file(int flags)
{
	int fd = open(path, flags);

	if (fd < 0)
		pc_die(path);
	return fd;
}

static unsigned char *alloc_buf(size_t len)
{
	unsigned char *buf;

	if (posix_memalign((void **)&buf, PAGE, len))
		pc_die("posix_memalign");
	return buf;
}

/* Uncached read of the whole file in 1 MiB calls; true if it has seed's data. */
static bool read_all_uncached(int fd, unsigned int seed)
{
	unsigned char *buf = alloc_buf(MiB);
	bool good = true;

	for (size_t off = 0; off < FILE_SIZE && good; off += MiB) {
		ssize_t n = pc_rw2(false, fd, buf, MiB, off, RWF_UNCACHED);

		good = n == (ssize_t)MiB && pc_check(buf, off, MiB, seed) < 0;
	}
	free(buf);
	return good;
}

/* Uncached write of the whole file (pattern seed) in 1 MiB calls. */
static bool write_all_uncached(int fd, unsigned int seed, int flags)
{
	unsigned char *buf = alloc_buf(MiB);
	bool good = true;

	for (size_t off = 0; off < FILE_SIZE && good; off += MiB) {
		pc_fill(buf, off, MiB, seed);
		good = pc_rw2(true, fd, buf, MiB, off, RWF_UNCACHED | flags) == (ssize_t)MiB;
	}
	free(buf);
	return good;
}

/* Read the whole file back through fd and compare with the pattern. */
static bool verify_fd(int fd, unsigned int seed)
{
	unsigned char *buf = alloc_buf(MiB);
	bool good = true;

	for (size_t off = 0; off < FILE_SIZE && good; off += MiB)
		good = pread(fd, buf, MiB, off) == (ssize_t)MiB &&
		       pc_check(buf, off, MiB, seed) < 0;
	free(buf);
	return good;
}

/* I/Os completed and sectors moved by the disk under path, so far. */
struct disk_stat {
	unsigned long reads, read_sectors, writes, write_sectors;
};

static struct disk_stat disk_stat(void)
{
	struct disk_stat ds;
	char sys[128];
	struct stat st;
	FILE *f;

	if (stat(path, &st))
		pc_die("stat");
	snprintf(sys, sizeof(sys), "/sys/dev/block/%u:%u/stat", major(st.st_dev),
		 minor(st.st_dev));
	f = fopen(sys, "r");
	if (!f || fscanf(f, "%lu %*u %lu %*u %lu %*u %lu", &ds.reads, &ds.read_sectors,
			 &ds.writes, &ds.write_sectors) != 4)
		pc_die(sys);
	fclose(f);
	return ds;
}

/* Average size in KiB of the reads or writes since before */
static unsigned long avg_io_kib(struct disk_stat before, bool write)
{
	struct disk_stat now = disk_stat();
	unsigned long ios = write ? now.writes - before.writes : now.reads - before.reads;
	unsigned long sectors = write ? now.write_sectors - before.write_sectors
				      : now.read_sectors - before.read_sectors;

	return ios ? sectors / 2 / ios : 0;
}

static const char *const counters[] = {
	"dropbehind_marked", "dropbehind_read", "dropbehind_write",
	"dropbehind_kept_claimed", "dropbehind_kept_mapped", "dropbehind_kept_busy",
};
#define NR_COUNTERS (sizeof(counters) / sizeof(counters[0]))

/* One read of /proc/vmstat: the counters are one sample; -1 where absent */
static void read_counters(long long *values)
{
	pclab_read_proc_values("/proc/vmstat", counters, values, NR_COUNTERS);
}

/* True if each counter moved by want[i] pages since before; says which not. */
static bool counters_moved(const long long *before, const long long *want)
{
	long long now[NR_COUNTERS];
	bool good = true;

	read_counters(now);
	for (size_t i = 0; i < NR_COUNTERS; i++)
		if (now[i] - before[i] != want[i]) {
			tap_diag("%s moved by %lld, expected %lld", counters[i],
				 now[i] - before[i], want[i]);
			good = false;
		}
	return good;
}

static void test_unsupported(void)
{
	char buf[PAGE];
	struct iovec iov = { buf, sizeof(buf) };
	int fd, err;

	tap_ok(RWF_UNCACHED == 0x80 && RWF_DONTCACHE == RWF_UNCACHED && RWF_ATOMIC == 0x40,
	       "ABI: RWF_UNCACHED = RWF_DONTCACHE = 0x80, RWF_ATOMIC still 0x40");

	fd = open("/tmp/uncached-tmpfs", O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, buf, sizeof(buf)) != sizeof(buf))
		pc_die("tmpfs file");
	err = pc_refused(preadv2(fd, &iov, 1, 0, RWF_UNCACHED));
	tap_ok(err == EOPNOTSUPP, "tmpfs read answers EOPNOTSUPP (%s)", strerror(err));
	err = pc_refused(pwritev2(fd, &iov, 1, 0, RWF_UNCACHED));
	tap_ok(err == EOPNOTSUPP, "tmpfs write answers EOPNOTSUPP (%s)", strerror(err));
	tap_ok(lseek(fd, 0, SEEK_CUR) == sizeof(buf), "refused calls leave the file offset alone");
	close(fd);
	unlink("/tmp/uncached-tmpfs");

	fd = open("/proc/self/status", O_RDONLY);
	err = pc_refused(preadv2(fd, &iov, 1, 0, RWF_UNCACHED));
	tap_ok(err == EOPNOTSUPP, "procfs read answers EOPNOTSUPP (%s)", strerror(err));
	close(fd);

	fd = open("/dev/vdb", O_RDONLY);
	if (fd < 0) {
		tap_skip("no /dev/vdb", "block device answers EOPNOTSUPP");
	} else {
		err = pc_refused(preadv2(fd, &iov, 1, 0, RWF_UNCACHED));
		tap_ok(err == EOPNOTSUPP, "block device read answers EOPNOTSUPP (%s)",
		       strerror(err));
		close(fd);
	}
}

static void test_unknown_bits(void)
{
	char buf[PAGE];
	struct iovec iov = { buf, sizeof(buf) };
	int fd = open_file(O_RDONLY);

	int err = pc_refused(preadv2(fd, &iov, 1, 0, RWF_UNCACHED | 0x100));

	tap_ok(err == EOPNOTSUPP, "%s: an unknown RWF bit beside RWF_UNCACHED answers EOPNOTSUPP (%s)",
	       fs_name, strerror(err));
	close(fd);
}

static void test_cold_read(void)
{
	int fd = open_file(O_RDWR);

	pc_drop_caches();
	tap_ok(read_all_uncached(fd, 1), "%s: cold uncached read returns the right data", fs_name);
	tap_ok(pc_cached_pages(fd) == 0, "%s: cold uncached read leaves 0 pages cached (%llu)",
	       fs_name, (unsigned long long)pc_cached_pages(fd));
	close(fd);
}

static void test_large_io(void)
{
	int fd = open_file(O_RDWR);
	struct disk_stat before;
	unsigned long kib;

	pc_drop_caches();
	before = disk_stat();
	read_all_uncached(fd, 1);
	kib = avg_io_kib(before, false);
	tap_ok(kib >= 32, "%s: an 8 MiB uncached read is done in large I/Os (%lu KiB on average)",
	       fs_name, kib);
	close(fd);
}

/* The vmstat counters account for every page, read and written. */
static void test_counters(void)
{
	long long before[NR_COUNTERS];
	int fd;

	pc_make_cold_file(path, FILE_SIZE, 1);
	fd = open_file(O_RDWR);
	read_counters(before);
	tap_ok(read_all_uncached(fd, 1) &&
	       counters_moved(before, (long long[]){ FILE_PAGES, FILE_PAGES, 0, 0, 0, 0 }),
	       "%s: vmstat: a cold read marks %lu pages and drops them all after reading",
	       fs_name, FILE_PAGES);
	read_counters(before);
	tap_ok(write_all_uncached(fd, 1, 0) && fsync(fd) == 0 &&
	       counters_moved(before, (long long[]){ FILE_PAGES, 0, FILE_PAGES, 0, 0, 0 }),
	       "%s: vmstat: an overwrite marks %lu pages and drops them all after writeback",
	       fs_name, FILE_PAGES);
	close(fd);
}

/*
 * The debugfs knob switches to the 2019 strategy and back: page-sized reads
 * without readahead, writes waited for 16 pages at a time.
 */
static void test_legacy_knob(void)
{
	const char *knob = "/sys/kernel/debug/rwf_uncached/legacy_2019";
	int fd = open_file(O_RDWR);
	struct disk_stat before;
	unsigned long kib;

	if (access(knob, W_OK)) {
		tap_skip("no debugfs knob", "%s: the 2019 strategy knob", fs_name);
		close(fd);
		return;
	}
	pc_write_file(knob, "1");
	pc_drop_caches();
	before = disk_stat();
	tap_ok(read_all_uncached(fd, 1) && pc_cached_pages(fd) == 0,
	       "%s: legacy_2019: uncached read is right and leaves nothing cached", fs_name);
	kib = avg_io_kib(before, false);
	tap_ok(kib <= 8, "%s: legacy_2019: reads go a page at a time, no readahead (%lu KiB)",
	       fs_name, kib);
	before = disk_stat();
	tap_ok(write_all_uncached(fd, 1, 0) && pc_cached_pages(fd) == 0,
	       "%s: legacy_2019: each write returns with its batches written and dropped",
	       fs_name);
	kib = avg_io_kib(before, true);
	tap_ok(kib <= 64, "%s: legacy_2019: writeback goes 16 pages at a time (%lu KiB)",
	       fs_name, kib);
	pc_write_file(knob, "0");
	fsync(fd);
	before = disk_stat();
	write_all_uncached(fd, 1, 0);
	fsync(fd);
	kib = avg_io_kib(before, true);
	tap_ok(kib > 64, "%s: knob off again: writeback of the whole range in large I/Os (%lu KiB)",
	       fs_name, kib);
	close(fd);
}

static void test_readahead_bounded(void)
{
	unsigned char *buf = alloc_buf(64 * KiB);
	int fd = open_file(O_RDWR);

	pc_drop_caches();
	tap_ok(pc_rw2(false, fd, buf, 64 * KiB, MiB, RWF_UNCACHED) == 64 * KiB &&
	       pc_check(buf, MiB, 64 * KiB, 1) < 0,
	       "%s: 64 KiB uncached read in the middle returns the right data", fs_name);
	tap_ok(pc_cached_pages(fd) == 0,
	       "%s: ... and leaves nothing cached, in or beyond the range (%llu pages)",
	       fs_name, (unsigned long long)pc_cached_pages(fd));
	/* The same read, buffered, for contrast */
	if (pread(fd, buf, 64 * KiB, MiB) == 64 * KiB)
		tap_diag("%s: a buffered read of the same range caches %llu pages", fs_name,
			 (unsigned long long)pc_cached_pages(fd));
	close(fd);
	free(buf);
}

static void test_warm_read(void)
{
	int fd = open_file(O_RDWR);

	pc_drop_caches();
	pc_warm(fd, FILE_SIZE);
	tap_ok(pc_cached_pages(fd) == FILE_PAGES, "%s: buffered read caches the whole file", fs_name);
	tap_ok(read_all_uncached(fd, 1), "%s: warm uncached read returns the right data", fs_name);
	tap_ok(pc_cached_pages(fd) == FILE_PAGES,
	       "%s: warm uncached read keeps every page cached (%llu of %lu)", fs_name,
	       (unsigned long long)pc_cached_pages(fd), FILE_PAGES);
	close(fd);
}

static void test_partial_residency(void)
{
	unsigned char *before, *after, page[PAGE];
	int fd = open_file(O_RDWR);
	size_t cached = 0;

	pc_drop_caches();
	/* Cache every third page only: no readahead on this descriptor */
	posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);
	for (size_t i = 0; i < FILE_PAGES; i += 3)
		pread(fd, page, PAGE, i * PAGE);
	before = pc_residency(fd, FILE_SIZE);
	for (size_t i = 0; i < FILE_PAGES; i++)
		cached += before[i];
	tap_ok(read_all_uncached(fd, 1), "%s: uncached read of a partly cached file is right",
	       fs_name);
	after = pc_residency(fd, FILE_SIZE);
	tap_ok(cached > 0 && !memcmp(before, after, FILE_PAGES),
	       "%s: partly cached file (%zu of %lu pages) keeps its exact residency bitmap",
	       fs_name, cached, FILE_PAGES);
	free(before);
	free(after);
	close(fd);
}

/*
 * Read uncached into a buffer that maps the same file range: copying each
 * page faults the folio the read just created, an ordinary user claiming
 * it mid-read.  Every page must survive.
 */
static void test_fault_claims(void)
{
	size_t len = 256 * KiB;
	int fd = open_file(O_RDWR);
	long long before[NR_COUNTERS];
	unsigned char *map;
	ssize_t n;

	pc_drop_caches();
	read_counters(before);
	map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		pc_die("mmap");
	n = pc_rw2(false, fd, map, len, 0, RWF_UNCACHED);
	tap_ok(n == (ssize_t)len && pc_check(map, 0, len, 1) < 0,
	       "%s: uncached read into a mapping of the same range is right", fs_name);
	tap_ok(pc_cachestat(fd, 0, len).nr_cache == len / PAGE,
	       "%s: folios faulted by a mapping during the read stay cached (%llu of %zu)",
	       fs_name, (unsigned long long)pc_cachestat(fd, 0, len).nr_cache, len / PAGE);
	tap_ok(counters_moved(before, (long long[]){ len / PAGE, 0, 0, len / PAGE, 0, 0 }),
	       "%s: vmstat: all %zu pages counted as claimed, none dropped", fs_name, len / PAGE);
	munmap(map, len);
	close(fd);
}

/* Another process maps and touches some pages; an uncached read keeps them. */
static void test_mapped_elsewhere(void)
{
	int fd = open_file(O_RDWR), ready[2], done[2];
	unsigned char *res;
	bool kept = true;
	char c;
	pid_t pid;

	pc_drop_caches();
	if (pipe(ready) || pipe(done))
		pc_die("pipe");
	pid = fork();
	if (pid == 0) {
		volatile unsigned char *map = mmap(NULL, FILE_SIZE, PROT_READ, MAP_SHARED, fd, 0);
		unsigned int sum = 0;

		if (map == MAP_FAILED)
			_exit(1);
		madvise((void *)map, FILE_SIZE, MADV_RANDOM);
		for (size_t i = 0; i < FILE_PAGES; i += 8)
			sum += map[i * PAGE];
		if (write(ready[1], &c, 1) != 1 || read(done[0], &c, 1) != 1)
			_exit(1);
		_exit(sum == 0xffffffffu);
	}
	if (read(ready[0], &c, 1) != 1)
		pc_die("child");
	tap_ok(read_all_uncached(fd, 1), "%s: uncached read beside another process's mapping is right",
	       fs_name);
	res = pc_residency(fd, FILE_SIZE);
	for (size_t i = 0; i < FILE_PAGES; i++)
		if ((i % 8 == 0) != res[i])
			kept = false;
	tap_ok(kept, "%s: pages mapped by another process stay cached, no others are left", fs_name);
	if (write(done[1], &c, 1) != 1)
		pc_die("pipe");
	waitpid(pid, NULL, 0);
	free(res);
	close(fd);
}

static void test_nowait_read(void)
{
	unsigned char *buf = alloc_buf(MiB);
	struct iovec iov = { buf, MiB };
	int fd = open_file(O_RDWR), err;
	ssize_t n;

	pc_drop_caches();
	n = preadv2(fd, &iov, 1, 0, RWF_UNCACHED | RWF_NOWAIT);
	err = pc_refused(n);
	tap_ok(err == EAGAIN || (n >= 0 && n < (ssize_t)MiB),
	       "%s: NOWAIT uncached read of cold data does not wait for I/O (%zd, %s)",
	       fs_name, n, strerror(err));
	tap_ok(pc_cached_pages(fd) == 0, "%s: ... and leaves nothing cached (%llu)", fs_name,
	       (unsigned long long)pc_cached_pages(fd));
	pc_warm(fd, MiB);
	n = preadv2(fd, &iov, 1, 0, RWF_UNCACHED | RWF_NOWAIT);
	tap_ok(n == (ssize_t)MiB && pc_check(buf, 0, MiB, 1) < 0,
	       "%s: NOWAIT uncached read of cached data completes (%zd)", fs_name, n);
	free(buf);
	close(fd);
}

static void test_write_new(void)
{
	int fd;

	unlink(path);
	fd = open_file(O_RDWR | O_CREAT);
	tap_ok(write_all_uncached(fd, 2, 0), "%s: uncached write of a new 8 MiB file", fs_name);
	tap_ok(fsync(fd) == 0, "%s: fsync after it succeeds", fs_name);
	tap_ok(pc_cached_pages(fd) == 0, "%s: new-file write + fsync leaves 0 pages cached (%llu)",
	       fs_name, (unsigned long long)pc_cached_pages(fd));
	tap_ok(verify_fd(fd, 2), "%s: the data reads back (buffered)", fs_name);
	close(fd);
}

static void test_write_starts_writeback(void)
{
	struct pclab_cachestat cs;
	int fd = open_file(O_RDWR), i;

	pc_drop_caches();
	write_all_uncached(fd, 3, 0);
	cs = pc_cachestat(fd, 0, 0);
	tap_ok(cs.nr_dirty == 0,
	       "%s: writeback of the whole range has started when the write returns (%llu dirty)",
	       fs_name, (unsigned long long)cs.nr_dirty);
	/* No fsync: the folios go as their writeback completes. */
	for (i = 0; i < 100 && pc_cached_pages(fd); i++)
		usleep(100 * 1000);
	tap_ok(pc_cached_pages(fd) == 0,
	       "%s: without fsync, the written folios are gone once writeback completes (%.1fs)",
	       fs_name, i / 10.0);
	close(fd);
}

static void test_overwrite(void)
{
	int fd = open_file(O_RDWR);

	pc_drop_caches();
	tap_ok(write_all_uncached(fd, 4, 0), "%s: uncached overwrite of allocated blocks", fs_name);
	fsync(fd);
	tap_ok(pc_cached_pages(fd) == 0,
	       "%s: overwrite + fsync leaves 0 pages cached (%llu), interrupt completions included",
	       fs_name, (unsigned long long)pc_cached_pages(fd));
	tap_ok(verify_fd(fd, 4), "%s: the overwritten data reads back", fs_name);
	close(fd);
}

static void test_write_cached(void)
{
	int fd = open_file(O_RDWR);

	pc_drop_caches();
	pc_warm(fd, FILE_SIZE);
	tap_ok(write_all_uncached(fd, 5, 0), "%s: uncached write over cached folios", fs_name);
	fsync(fd);
	tap_ok(pc_cached_pages(fd) == FILE_PAGES,
	       "%s: folios cached before an uncached write stay cached (%llu of %lu)", fs_name,
	       (unsigned long long)pc_cached_pages(fd), FILE_PAGES);
	tap_ok(verify_fd(fd, 5), "%s: and hold the new data", fs_name);
	close(fd);
}

static void test_dsync_write(void)
{
	int fd = open_file(O_RDWR);

	pc_drop_caches();
	tap_ok(write_all_uncached(fd, 6, RWF_DSYNC), "%s: RWF_UNCACHED|RWF_DSYNC write", fs_name);
	tap_ok(pc_cached_pages(fd) == 0 && pc_cachestat(fd, 0, 0).nr_dirty == 0,
	       "%s: DSYNC uncached write returns with the data on disk and nothing cached (%llu)",
	       fs_name, (unsigned long long)pc_cached_pages(fd));
	close(fd);
}

static void test_direct(void)
{
	unsigned char *buf = alloc_buf(MiB);
	int fd = open_file(O_RDWR | O_DIRECT);

	pc_drop_caches();
	tap_ok(pc_rw2(false, fd, buf, MiB, 0, RWF_UNCACHED) == (ssize_t)MiB &&
	       pc_check(buf, 0, MiB, 6) < 0,
	       "%s: O_DIRECT read with RWF_UNCACHED is accepted and right", fs_name);
	pc_fill(buf, 0, MiB, 6);
	tap_ok(pc_rw2(true, fd, buf, MiB, 0, RWF_UNCACHED) == (ssize_t)MiB,
	       "%s: O_DIRECT write with RWF_UNCACHED is accepted", fs_name);
	tap_ok(pc_cached_pages(fd) == 0, "%s: O_DIRECT leaves the cache empty as ever", fs_name);
	free(buf);
	close(fd);
}

/* One io_uring request per MiB: op is read or write, vectored or not. */
static bool uring_all(bool write, bool vectored, bool async, int fd, unsigned int seed)
{
	unsigned char *buf = alloc_buf(MiB);
	struct io_uring_cqe *cqe;
	struct io_uring ring;
	bool good = true;

	if (io_uring_queue_init(4, &ring, 0))
		pc_die("io_uring_queue_init");
	for (size_t off = 0; off < FILE_SIZE && good; off += MiB) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
		struct iovec iov[2] = { { buf, MiB / 2 }, { buf + MiB / 2, MiB / 2 } };

		if (write)
			pc_fill(buf, off, MiB, seed);
		if (vectored && write)
			io_uring_prep_writev(sqe, fd, iov, 2, off);
		else if (vectored)
			io_uring_prep_readv(sqe, fd, iov, 2, off);
		else if (write)
			io_uring_prep_write(sqe, fd, buf, MiB, off);
		else
			io_uring_prep_read(sqe, fd, buf, MiB, off);
		sqe->rw_flags = RWF_UNCACHED;
		if (async)
			sqe->flags |= IOSQE_ASYNC;	/* run it from an io-wq worker */
		if (io_uring_submit(&ring) != 1 || io_uring_wait_cqe(&ring, &cqe))
			pc_die("io_uring");
		good = cqe->res == (int)MiB && (write || pc_check(buf, off, MiB, seed) < 0);
		if (!good)
			tap_diag("io_uring request at %zu: res %d", off, cqe->res);
		io_uring_cqe_seen(&ring, cqe);
	}
	io_uring_queue_exit(&ring);
	free(buf);
	return good;
}

static void test_io_uring(void)
{
	static const struct {
		bool write, vectored, async;
		const char *name;
	} ops[] = {
		{ true, false, false, "WRITE" },
		{ false, false, false, "READ" },
		{ true, true, true, "WRITEV (io-wq)" },
		{ false, true, true, "READV (io-wq)" },
	};
	int fd = open_file(O_RDWR);
	unsigned int seed = 7;

	/* Each read checks the data of the write before it */
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		if (ops[i].write)
			seed++;
		pc_drop_caches();
		tap_ok(uring_all(ops[i].write, ops[i].vectored, ops[i].async, fd, seed),
		       "%s: io_uring %s with RWF_UNCACHED is right", fs_name, ops[i].name);
		if (ops[i].write)
			fsync(fd);
		tap_ok(pc_cached_pages(fd) == 0, "%s: io_uring %s leaves 0 pages cached (%llu)",
		       fs_name, ops[i].name, (unsigned long long)pc_cached_pages(fd));
	}
	close(fd);
}

static void test_integrity(const char *dir)
{
	unsigned char *map;
	int fd = open_file(O_RDWR), dfd;

	pc_drop_caches();
	write_all_uncached(fd, 9, 0);
	fsync(fd);
	tap_ok(verify_fd(fd, 9), "%s: uncached write reads back through the page cache", fs_name);
	dfd = open_file(O_RDONLY | O_DIRECT);
	pc_drop_caches();
	tap_ok(verify_fd(dfd, 9), "%s: ... through O_DIRECT", fs_name);
	close(dfd);
	map = mmap(NULL, FILE_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	tap_ok(map != MAP_FAILED && pc_check(map, 0, FILE_SIZE, 9) < 0, "%s: ... through mmap",
	       fs_name);
	if (map != MAP_FAILED)
		munmap(map, FILE_SIZE);
	close(fd);
	tap_ok(pc_remount(dir), "%s: unmount and mount again", fs_name);
	fd = open_file(O_RDWR);
	tap_ok(read_all_uncached(fd, 9), "%s: ... and after remount", fs_name);
	close(fd);
}

int main(int argc, char **argv)
{
	const char *dirs[] = { "/mnt/ext4", "/mnt/xfs" };

	(void)argc;
	(void)argv;
	test_unsupported();
	for (size_t d = 0; d < sizeof(dirs) / sizeof(dirs[0]); d++) {
		struct stat st;

		fs_name = dirs[d] + strlen("/mnt/");
		if (stat(dirs[d], &st)) {
			tap_skip("not mounted", "%s: the contract", fs_name);
			continue;
		}
		snprintf(path, sizeof(path), "%s/uncached-test", dirs[d]);
		pc_make_cold_file(path, FILE_SIZE, 1);
		test_unknown_bits();
		test_cold_read();
		test_large_io();
		test_readahead_bounded();
		test_warm_read();
		test_partial_residency();
		test_fault_claims();
		test_mapped_elsewhere();
		test_nowait_read();
		test_write_new();
		pc_make_cold_file(path, FILE_SIZE, 1);
		test_write_starts_writeback();
		test_overwrite();
		test_write_cached();
		test_dsync_write();
		test_direct();
		test_io_uring();
		test_counters();
		test_legacy_knob();
		test_integrity(dirs[d]);
		unlink(path);
	}
	return tap_done(0);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The RWF_UNCACHED contract (docs/semantics.md), one check per rule, on
 * every scratch filesystem: residency measured with cachestat(2) and
 * mincore(2), data checked against a pattern, on ext4 and xfs.  One fixture
 * variant per filesystem; each test starts from a fresh 8 MiB file of
 * pattern 1, on the disk and not cached.
 */
#include "suite.h"

#include <liburing.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>

#define FILE_SIZE (8 * MiB)
#define FILE_PAGES (FILE_SIZE / PAGE)

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

static struct disk_stat disk_stat(const char *path)
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
static unsigned long avg_io_kib(const char *path, struct disk_stat before, bool write)
{
	struct disk_stat now = disk_stat(path);
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

/* The counters are the lab layer's: a kernel of the core layer alone has none */
static bool have_counters(void)
{
	long long values[NR_COUNTERS];

	read_counters(values);
	return values[0] >= 0;
}

/* Each counter moved by want[i] pages since before (what: the check's message) */
static void expect_counters_moved(struct __test_metadata *_metadata, const long long *before,
				  const long long *want, const char *what)
{
	long long now[NR_COUNTERS];

	read_counters(now);
	for (size_t i = 0; i < NR_COUNTERS; i++) {
		EXPECT_EQ(want[i], now[i] - before[i]) TH_LOG("%s: %s", what, counters[i]);
	}
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
			ksft_print_msg("io_uring request at %zu: res %d\n", off, cqe->res);
		io_uring_cqe_seen(&ring, cqe);
	}
	io_uring_queue_exit(&ring);
	free(buf);
	return good;
}

/* Files that have no page cache to drop behind refuse the flag; once, not per filesystem. */
TEST(unsupported)
{
	char buf[PAGE];
	struct iovec iov = { buf, sizeof(buf) };
	int fd, err;

	pc_test_start(_metadata);
	EXPECT_EQ(0x80, RWF_UNCACHED) TH_LOG("ABI: RWF_UNCACHED = 0x80");
	EXPECT_EQ(RWF_UNCACHED, RWF_DONTCACHE) TH_LOG("ABI: RWF_DONTCACHE = RWF_UNCACHED");
	EXPECT_EQ(0x40, RWF_ATOMIC) TH_LOG("ABI: RWF_ATOMIC still 0x40");

	fd = pc_open("/tmp/uncached-tmpfs", O_RDWR | O_CREAT | O_TRUNC);
	if (write(fd, buf, sizeof(buf)) != sizeof(buf))
		pc_die("tmpfs file");
	err = pc_refused(preadv2(fd, &iov, 1, 0, RWF_UNCACHED));
	EXPECT_EQ(EOPNOTSUPP, err) TH_LOG("tmpfs read answers EOPNOTSUPP (%s)", strerror(err));
	err = pc_refused(pwritev2(fd, &iov, 1, 0, RWF_UNCACHED));
	EXPECT_EQ(EOPNOTSUPP, err) TH_LOG("tmpfs write answers EOPNOTSUPP (%s)", strerror(err));
	EXPECT_EQ(sizeof(buf), lseek(fd, 0, SEEK_CUR))
		TH_LOG("refused calls leave the file offset alone");
	close(fd);
	unlink("/tmp/uncached-tmpfs");

	fd = pc_open("/proc/self/status", O_RDONLY);
	err = pc_refused(preadv2(fd, &iov, 1, 0, RWF_UNCACHED));
	EXPECT_EQ(EOPNOTSUPP, err) TH_LOG("procfs read answers EOPNOTSUPP (%s)", strerror(err));
	close(fd);
}

/* A test of its own: a SKIP after a failed EXPECT would report the test skipped. */
TEST(unsupported_block_device)
{
	char buf[PAGE];
	struct iovec iov = { buf, sizeof(buf) };
	int fd, err;

	pc_test_start(_metadata);
	fd = open("/dev/vdb", O_RDONLY);
	if (fd < 0)
		SKIP(return, "no /dev/vdb: block device answers EOPNOTSUPP");
	err = pc_refused(preadv2(fd, &iov, 1, 0, RWF_UNCACHED));
	EXPECT_EQ(EOPNOTSUPP, err)
		TH_LOG("block device read answers EOPNOTSUPP (%s)", strerror(err));
	close(fd);
}

PC_FS_FILE_FIXTURE("uncached-test", FILE_SIZE);

TEST_F(fs, unknown_bits)
{
	char buf[PAGE];
	struct iovec iov = { buf, sizeof(buf) };
	int err = pc_refused(preadv2(self->fd, &iov, 1, 0, RWF_UNCACHED | 0x100));

	EXPECT_EQ(EOPNOTSUPP, err)
		TH_LOG("an unknown RWF bit beside RWF_UNCACHED answers EOPNOTSUPP (%s)",
		       strerror(err));
}

/*
 * A 4 KiB uncached read at the start of each xarray leaf (64 pages) of the
 * file's first half, or its second: each read is alone in its node, as a
 * random read is.
 */
#define LEAF_PAGES 64
static void read_one_page_per_leaf(int fd, bool second_half)
{
	unsigned char buf[PAGE];
	size_t first = second_half ? FILE_PAGES / 2 : 0;

	for (size_t i = first; i < first + FILE_PAGES / 2; i += LEAF_PAGES)
		if (pc_rw2(false, fd, buf, PAGE, i * PAGE, RWF_UNCACHED) != PAGE)
			pc_die("4 KiB uncached read");
}

/* A node counter of /proc/vmstat, with every CPU's pending deltas folded in */
static long long vmstat_folded(const char *key)
{
	pc_write_file("/proc/sys/vm/stat_refresh", "1");
	return pclab_vmstat(key);
}

/*
 * An uncached read's drop leaves an empty value entry where its folio was,
 * so the xarray node stays for the next read nearby: the nodes it leaves
 * hold only value entries and join the shadow-node list (workingset_nodes),
 * where the shrinker can free them.  The entry is no shadow: cachestat()
 * does not count it evicted, a later read of it is no refault, and
 * truncation frees the nodes.
 */
TEST_F(fs, drop_keeps_index_nodes)
{
	const long long leaves = FILE_PAGES / 2 / LEAF_PAGES;
	long long nodes = vmstat_folded("workingset_nodes");
	long long refaults;
	unsigned char buf[PAGE];
	struct pclab_cachestat cs;

	ASSERT_LE(0, nodes) TH_LOG("/proc/vmstat has workingset_nodes");
	read_one_page_per_leaf(self->fd, false);
	EXPECT_EQ(0, pc_cached_pages(self->fd)) TH_LOG("the reads leave no page cached");
	EXPECT_LE(leaves, vmstat_folded("workingset_nodes") - nodes)
		TH_LOG("each of the %lld nodes the reads emptied stays, on the shadow-node list", leaves);
	cs = pc_cachestat(self->fd, 0, FILE_SIZE);
	EXPECT_EQ(0, cs.nr_evicted) TH_LOG("cachestat counts none of the dropped pages as evicted");
	refaults = vmstat_folded("workingset_refault_file");
	for (size_t i = 0; i < FILE_PAGES / 2; i += LEAF_PAGES)
		if (pread(self->fd, buf, PAGE, i * PAGE) != PAGE)
			pc_die("pread");
	EXPECT_EQ(refaults, vmstat_folded("workingset_refault_file"))
		TH_LOG("a buffered read of the dropped pages is no refault");
	nodes = vmstat_folded("workingset_nodes");
	read_one_page_per_leaf(self->fd, true);
	EXPECT_LE(leaves, vmstat_folded("workingset_nodes") - nodes)
		TH_LOG("the second half's nodes stay too");
	if (ftruncate(self->fd, 0))
		pc_die("ftruncate");
	EXPECT_GE(nodes, vmstat_folded("workingset_nodes"))
		TH_LOG("truncation frees them");
}

TEST_F(fs, cold_read)
{
	EXPECT_TRUE(read_all_uncached(self->fd, 1))
		TH_LOG("cold uncached read returns the right data");
	EXPECT_EQ(0, pc_cached_pages(self->fd)) TH_LOG("cold uncached read leaves 0 pages cached");
}

TEST_F(fs, large_io)
{
	struct disk_stat before = disk_stat(self->path);
	unsigned long kib;

	read_all_uncached(self->fd, 1);
	kib = avg_io_kib(self->path, before, false);
	EXPECT_LE(32, kib) TH_LOG("an 8 MiB uncached read is done in large I/Os (%lu KiB on average)",
				  kib);
}

TEST_F(fs, readahead_bounded)
{
	unsigned char *buf = alloc_buf(64 * KiB);

	EXPECT_EQ(64 * KiB, pc_rw2(false, self->fd, buf, 64 * KiB, MiB, RWF_UNCACHED))
		TH_LOG("64 KiB uncached read in the middle");
	EXPECT_GT(0, pc_check(buf, MiB, 64 * KiB, 1))
		TH_LOG("64 KiB uncached read in the middle returns the right data");
	EXPECT_EQ(0, pc_cached_pages(self->fd))
		TH_LOG("... and leaves nothing cached, in or beyond the range");
	/* The same read, buffered, for contrast */
	if (pread(self->fd, buf, 64 * KiB, MiB) == 64 * KiB)
		TH_LOG("a buffered read of the same range caches %llu pages",
		       (unsigned long long)pc_cached_pages(self->fd));
	free(buf);
}

TEST_F(fs, warm_read)
{
	pc_warm(self->fd, FILE_SIZE);
	EXPECT_EQ(FILE_PAGES, pc_cached_pages(self->fd)) TH_LOG("buffered read caches the whole file");
	EXPECT_TRUE(read_all_uncached(self->fd, 1)) TH_LOG("warm uncached read returns the right data");
	EXPECT_EQ(FILE_PAGES, pc_cached_pages(self->fd))
		TH_LOG("warm uncached read keeps every page cached");
}

TEST_F(fs, partial_residency)
{
	unsigned char *before, *after, page[PAGE];
	size_t cached = 0;

	/* Cache every third page only: no readahead on this descriptor */
	posix_fadvise(self->fd, 0, 0, POSIX_FADV_RANDOM);
	for (size_t i = 0; i < FILE_PAGES; i += 3)
		if (pread(self->fd, page, PAGE, i * PAGE) != PAGE)
			pc_die("pread");
	before = pc_residency(self->fd, FILE_SIZE);
	for (size_t i = 0; i < FILE_PAGES; i++)
		cached += before[i];
	EXPECT_TRUE(read_all_uncached(self->fd, 1))
		TH_LOG("uncached read of a partly cached file is right");
	after = pc_residency(self->fd, FILE_SIZE);
	EXPECT_LT(0, cached) TH_LOG("the file is partly cached to begin with");
	EXPECT_EQ(0, memcmp(before, after, FILE_PAGES))
		TH_LOG("partly cached file (%zu of %lu pages) keeps its exact residency bitmap",
		       cached, FILE_PAGES);
	free(before);
	free(after);
}

/*
 * Read uncached into a buffer that maps the same file range: copying each
 * page faults the folio the read just created, an ordinary user claiming
 * it mid-read.  Every page must survive.
 */
TEST_F(fs, fault_claims)
{
	size_t len = 256 * KiB;
	long long before[NR_COUNTERS];
	unsigned char *map;

	read_counters(before);
	map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, self->fd, 0);
	if (map == MAP_FAILED)
		pc_die("mmap");
	EXPECT_EQ(len, pc_rw2(false, self->fd, map, len, 0, RWF_UNCACHED))
		TH_LOG("uncached read into a mapping of the same range");
	EXPECT_GT(0, pc_check(map, 0, len, 1))
		TH_LOG("uncached read into a mapping of the same range is right");
	EXPECT_EQ(len / PAGE, pc_cachestat(self->fd, 0, len).nr_cache)
		TH_LOG("folios faulted by a mapping during the read stay cached");
	if (have_counters())
		expect_counters_moved(_metadata, before,
				      (long long[]){ len / PAGE, 0, 0, len / PAGE, 0, 0 },
				      "vmstat: all pages counted as claimed, none dropped");
	/* The copy dirtied them: their writeback must not drop them either */
	EXPECT_EQ(0, fsync(self->fd));
	EXPECT_EQ(len / PAGE, pc_cachestat(self->fd, 0, len).nr_cache)
		TH_LOG("folios still mapped stay cached after fsync wrote them back");
	munmap(map, len);
}

/* Another process maps and touches some pages; an uncached read keeps them. */
TEST_F(fs, mapped_elsewhere)
{
	int fd = self->fd, ready[2], done[2];
	unsigned char *res;
	size_t wrong = 0;
	char c = 0;
	pid_t pid;

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
	ASSERT_EQ(1, read(ready[0], &c, 1)) TH_LOG("the mapping child did not get ready");
	EXPECT_TRUE(read_all_uncached(fd, 1))
		TH_LOG("uncached read beside another process's mapping is right");
	res = pc_residency(fd, FILE_SIZE);
	for (size_t i = 0; i < FILE_PAGES; i++)
		if ((i % 8 == 0) != res[i])
			wrong++;
	EXPECT_EQ(0, wrong)
		TH_LOG("pages mapped by another process stay cached, no others are left");
	if (write(done[1], &c, 1) != 1)
		pc_die("pipe");
	waitpid(pid, NULL, 0);
	free(res);
}

/*
 * A NOWAIT uncached read of data that is not cached does not wait for I/O,
 * but starts it, as a plain NOWAIT read does: a caller that retries with
 * NOWAIT (io_uring's inline attempts, an event loop) then makes progress,
 * and the call that finds the data copies it and leaves nothing behind.
 */
TEST_F(fs, nowait_read)
{
	unsigned char *buf = alloc_buf(MiB);
	struct iovec iov = { buf, MiB };
	size_t done = 0;
	int tries = 0;
	ssize_t n;
	int err;

	/*
	 * EAGAIN, or a short count, unless the I/O it started was done before
	 * it looked (an emulated disk can be that fast): any of them is right
	 */
	n = preadv2(self->fd, &iov, 1, 0, RWF_UNCACHED | RWF_NOWAIT);
	err = pc_refused(n);
	EXPECT_TRUE(err == EAGAIN || n >= 0) TH_LOG("NOWAIT uncached read of cold data (%s)",
						    strerror(err));
	/* retries, NOWAIT too; the bound is a hang guard, not a speed limit */
	for (done = n > 0 ? n : 0; done < MiB && tries < 3000; tries++) {
		iov = (struct iovec){ buf + done, MiB - done };
		n = preadv2(self->fd, &iov, 1, done, RWF_UNCACHED | RWF_NOWAIT);
		if (n > 0)
			done += n;
		else if (pc_refused(n) != EAGAIN)
			break;
		else
			usleep(10 * 1000);
	}
	EXPECT_EQ(MiB, done)
		TH_LOG("NOWAIT retries get the data: the first call started its I/O (%d tries)",
		       tries);
	EXPECT_GT(0, pc_check(buf, 0, MiB, 1)) TH_LOG("... the right data");
	EXPECT_EQ(0, pc_cached_pages(self->fd)) TH_LOG("... and leave nothing cached");
	pc_warm(self->fd, MiB);
	n = preadv2(self->fd, &iov, 1, 0, RWF_UNCACHED | RWF_NOWAIT);
	EXPECT_EQ(MiB, n) TH_LOG("NOWAIT uncached read of cached data completes");
	EXPECT_GT(0, pc_check(buf, 0, MiB, 1)) TH_LOG("NOWAIT uncached read of cached data is right");
	free(buf);
}

TEST_F(fs, write_new)
{
	close(self->fd);
	unlink(self->path);
	self->fd = pc_open(self->path, O_RDWR | O_CREAT);
	EXPECT_TRUE(write_all_uncached(self->fd, 2, 0)) TH_LOG("uncached write of a new 8 MiB file");
	EXPECT_EQ(0, fsync(self->fd)) TH_LOG("fsync after it succeeds");
	EXPECT_EQ(0, pc_cached_pages(self->fd)) TH_LOG("new-file write + fsync leaves 0 pages cached");
	EXPECT_TRUE(verify_fd(self->fd, 2)) TH_LOG("the data reads back (buffered)");
}

/*
 * No fsync: the write has the flusher write its range back, and the folios
 * go as their writeback completes.  The wait is a hang guard; the periodic
 * writeback (5 s) would also clean them, but not drop them.
 */
TEST_F(fs, write_starts_writeback)
{
	double waited;

	EXPECT_TRUE(write_all_uncached(self->fd, 3, 0)) TH_LOG("uncached overwrite");
	waited = pc_wait_written_dropped(self->fd);
	EXPECT_EQ(0, pc_cached_pages(self->fd))
		TH_LOG("without fsync, the written folios are gone once writeback completes (%.1fs)",
		       waited);
	EXPECT_TRUE(verify_fd(self->fd, 3)) TH_LOG("the data reads back");
}

TEST_F(fs, overwrite)
{
	EXPECT_TRUE(write_all_uncached(self->fd, 4, 0)) TH_LOG("uncached overwrite of allocated blocks");
	fsync(self->fd);
	EXPECT_EQ(0, pc_cached_pages(self->fd))
		TH_LOG("overwrite + fsync leaves 0 pages cached, interrupt completions included");
	EXPECT_TRUE(verify_fd(self->fd, 4)) TH_LOG("the overwritten data reads back");
}

TEST_F(fs, write_cached)
{
	pc_warm(self->fd, FILE_SIZE);
	EXPECT_TRUE(write_all_uncached(self->fd, 5, 0)) TH_LOG("uncached write over cached folios");
	fsync(self->fd);
	EXPECT_EQ(FILE_PAGES, pc_cached_pages(self->fd))
		TH_LOG("folios cached before an uncached write stay cached");
	EXPECT_TRUE(verify_fd(self->fd, 5)) TH_LOG("and hold the new data");
}

TEST_F(fs, dsync_write)
{
	EXPECT_TRUE(write_all_uncached(self->fd, 6, RWF_DSYNC)) TH_LOG("RWF_UNCACHED|RWF_DSYNC write");
	EXPECT_EQ(0, pc_cached_pages(self->fd))
		TH_LOG("DSYNC uncached write returns with nothing cached");
	EXPECT_EQ(0, pc_cachestat(self->fd, 0, 0).nr_dirty)
		TH_LOG("DSYNC uncached write returns with the data on disk");
}

TEST_F(fs, direct)
{
	unsigned char *buf = alloc_buf(MiB);
	int fd = pc_open(self->path, O_RDWR | O_DIRECT);

	EXPECT_EQ(MiB, pc_rw2(false, fd, buf, MiB, 0, RWF_UNCACHED))
		TH_LOG("O_DIRECT read with RWF_UNCACHED is accepted");
	EXPECT_GT(0, pc_check(buf, 0, MiB, 1)) TH_LOG("O_DIRECT read with RWF_UNCACHED is right");
	pc_fill(buf, 0, MiB, 6);
	EXPECT_EQ(MiB, pc_rw2(true, fd, buf, MiB, 0, RWF_UNCACHED))
		TH_LOG("O_DIRECT write with RWF_UNCACHED is accepted");
	EXPECT_EQ(0, pc_cached_pages(fd)) TH_LOG("O_DIRECT leaves the cache empty as ever");
	free(buf);
	close(fd);
}

TEST_F(fs, io_uring)
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
	unsigned int seed = 7;

	/* Each read checks the data of the write before it */
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		if (ops[i].write)
			seed++;
		pc_drop_caches();
		EXPECT_TRUE(uring_all(ops[i].write, ops[i].vectored, ops[i].async, self->fd, seed))
			TH_LOG("io_uring %s with RWF_UNCACHED is right", ops[i].name);
		if (ops[i].write)
			fsync(self->fd);
		EXPECT_EQ(0, pc_cached_pages(self->fd))
			TH_LOG("io_uring %s leaves 0 pages cached", ops[i].name);
	}
}

/* The vmstat counters account for every page, read and written. */
TEST_F(fs, counters)
{
	long long before[NR_COUNTERS];

	if (!have_counters())
		SKIP(return, "no drop-behind counters in /proc/vmstat (core layer alone)");
	read_counters(before);
	EXPECT_TRUE(read_all_uncached(self->fd, 1)) TH_LOG("uncached read is right");
	expect_counters_moved(_metadata, before,
			      (long long[]){ FILE_PAGES, FILE_PAGES, 0, 0, 0, 0 },
			      "vmstat: a cold read marks the file's pages and drops them all after reading");
	read_counters(before);
	EXPECT_TRUE(write_all_uncached(self->fd, 1, 0)) TH_LOG("uncached overwrite");
	EXPECT_EQ(0, fsync(self->fd)) TH_LOG("fsync after the overwrite");
	expect_counters_moved(_metadata, before,
			      (long long[]){ FILE_PAGES, 0, FILE_PAGES, 0, 0, 0 },
			      "vmstat: an overwrite marks the file's pages and drops them all after writeback");
}

/*
 * A reader that moves less than a page per call keeps the folio its last
 * call ended in, for the next call, and reads the page after it ahead;
 * close() drops both.  The file is read
 * through a second descriptor, closed, and looked at through the fixture's.
 */
TEST_F(fs, read_tail_gone_after_close)
{
	unsigned char buf[1000];
	off_t off;
	int fd = pc_open(self->path, O_RDONLY);

	for (off = 0; off < 64 * (off_t)KiB; off += sizeof(buf))
		if (pc_rw2(false, fd, buf, sizeof(buf), off, RWF_UNCACHED) != sizeof(buf))
			pc_die("1000-byte uncached read");
	EXPECT_EQ(2, pc_cached_pages(self->fd))
		TH_LOG("while open, the folio the last read ended in stays for the next call, "
		       "and the page after it, read ahead");
	close(fd);
	EXPECT_EQ(0, pc_cached_pages(self->fd)) TH_LOG("after close, nothing stays");
}

/* A read of another kind, elsewhere, ends the kept folio too */
TEST_F(fs, read_tail_gone_after_other_read)
{
	unsigned char buf[1000], page[PAGE];
	unsigned char *res;

	EXPECT_EQ(sizeof(buf), pc_rw2(false, self->fd, buf, sizeof(buf), 0, RWF_UNCACHED));
	EXPECT_EQ(PAGE, pread(self->fd, page, PAGE, 4 * MiB)) TH_LOG("a plain read elsewhere");
	res = pc_residency(self->fd, FILE_SIZE);
	EXPECT_EQ(0, res[0]) TH_LOG("the folio the uncached read kept is gone");
	EXPECT_EQ(1, res[4 * MiB / PAGE]) TH_LOG("what the plain read brought in stays");
	free(res);
}

/*
 * A stream's second call reads its successor's range ahead: two 256 KiB
 * calls from 0 through a second descriptor leave nothing of their own
 * range cached, and the range after them read (or being read), marked.
 * Returns that descriptor.
 */
#define AHEAD_CALL (256 * KiB)
static int read_two_calls(struct __test_metadata *_metadata, const char *path)
{
	unsigned char *buf = alloc_buf(AHEAD_CALL);
	int fd = pc_open(path, O_RDONLY);

	EXPECT_EQ(AHEAD_CALL, pc_rw2(false, fd, buf, AHEAD_CALL, 0, RWF_UNCACHED));
	EXPECT_EQ(AHEAD_CALL, pc_rw2(false, fd, buf, AHEAD_CALL, AHEAD_CALL, RWF_UNCACHED));
	EXPECT_GT(0, pc_check(buf, AHEAD_CALL, AHEAD_CALL, 1)) TH_LOG("the second call's data");
	free(buf);
	return fd;
}

TEST_F(fs, sequential_read_reads_ahead)
{
	int fd = read_two_calls(_metadata, self->path);
	uint64_t ahead = pc_cachestat(self->fd, 2 * AHEAD_CALL, AHEAD_CALL).nr_cache;

	EXPECT_EQ(0, pc_cachestat(self->fd, 0, 2 * AHEAD_CALL).nr_cache)
		TH_LOG("the two calls' own range is gone");
	EXPECT_LT(0, ahead) TH_LOG("the second call read the next call's range ahead");
	EXPECT_EQ(ahead, pc_cached_pages(self->fd))
		TH_LOG("and nothing else: %llu pages of %llu cached are in that range",
		       (unsigned long long)ahead, (unsigned long long)pc_cached_pages(self->fd));
	close(fd);
}

TEST_F(fs, read_ahead_gone_after_close)
{
	close(read_two_calls(_metadata, self->path));
	EXPECT_EQ(0, pc_cached_pages(self->fd)) TH_LOG("after close, nothing read ahead stays");
}

TEST_F(fs, read_ahead_gone_after_other_read)
{
	unsigned char page[PAGE];
	int fd = read_two_calls(_metadata, self->path);

	EXPECT_EQ(PAGE, pread(fd, page, PAGE, 4 * MiB)) TH_LOG("a plain read elsewhere");
	EXPECT_EQ(0, pc_cachestat(self->fd, 0, MiB).nr_cache)
		TH_LOG("the range read ahead is gone");
	EXPECT_LT(0, pc_cachestat(self->fd, 4 * MiB, PAGE).nr_cache)
		TH_LOG("what the plain read brought in stays");
	close(fd);
}

/*
 * Reads leave how the file was opened alone: O_DIRECT can still be switched
 * on with fcntl() after a plain read and after an uncached read that kept
 * the folio it ended in (the file's mode bits say it can).
 */
TEST_F(fs, reads_keep_open_modes)
{
	unsigned char buf[1000];
	int fd = pc_open(self->path, O_RDONLY);
	int flags = fcntl(fd, F_GETFL);

	EXPECT_EQ(sizeof(buf), pread(fd, buf, sizeof(buf), 4 * MiB)) TH_LOG("a plain read");
	EXPECT_EQ(0, fcntl(fd, F_SETFL, flags | O_DIRECT))
		TH_LOG("then O_DIRECT can be set: %s", strerror(errno));
	close(fd);
	fd = pc_open(self->path, O_RDONLY);
	EXPECT_EQ(sizeof(buf), pc_rw2(false, fd, buf, sizeof(buf), 0, RWF_UNCACHED))
		TH_LOG("an uncached read that ends inside a folio");
	EXPECT_EQ(sizeof(buf), pc_rw2(false, fd, buf, sizeof(buf), MiB, RWF_UNCACHED))
		TH_LOG("and one elsewhere, which drops the folio the first kept");
	EXPECT_EQ(0, fcntl(fd, F_SETFL, flags | O_DIRECT))
		TH_LOG("then O_DIRECT can be set: %s", strerror(errno));
	close(fd);
}

/*
 * Small uncached appends made durable one by one keep the folio at the end
 * of the file while it is open for writing; the last writer's close() drops
 * it, and no other close does.
 */
TEST_F(fs, write_tail_gone_after_last_close)
{
	unsigned char buf[1000];
	int fd, other;

	close(self->fd);
	unlink(self->path);
	fd = pc_open(self->path, O_RDWR | O_CREAT);
	other = pc_open(self->path, O_RDWR);
	for (int i = 0; i < 10; i++) {
		pc_fill(buf, i * sizeof(buf), sizeof(buf), 8);
		if (pc_rw2(true, fd, buf, sizeof(buf), i * sizeof(buf), RWF_UNCACHED) !=
		    sizeof(buf) || fsync(fd))
			pc_die("uncached append + fsync");
	}
	EXPECT_EQ(1, pc_cached_pages(fd))
		TH_LOG("while open for writing, the folio at the end of the file stays");
	close(fd);
	EXPECT_EQ(1, pc_cached_pages(other)) TH_LOG("... while any writer has the file open");
	close(other);
	self->fd = pc_open(self->path, O_RDONLY);
	EXPECT_EQ(0, pc_cached_pages(self->fd)) TH_LOG("after the last writer's close, none stays");
}

/*
 * The debugfs knob switches to the 2019 strategy and back: page-sized reads
 * without readahead, writes waited for 16 pages at a time.
 */
TEST_F(fs, legacy_knob)
{
	const char *knob = "/sys/kernel/debug/rwf_uncached/legacy_2019";
	struct disk_stat before;
	unsigned long kib;

	if (access(knob, W_OK))
		SKIP(return, "no debugfs knob: the 2019 strategy knob");
	pc_write_file(knob, "1");
	before = disk_stat(self->path);
	EXPECT_TRUE(read_all_uncached(self->fd, 1)) TH_LOG("legacy_2019: uncached read is right");
	EXPECT_EQ(0, pc_cached_pages(self->fd)) TH_LOG("legacy_2019: ... and leaves nothing cached");
	kib = avg_io_kib(self->path, before, false);
	EXPECT_GE(8, kib) TH_LOG("legacy_2019: reads go a page at a time, no readahead (%lu KiB)", kib);
	before = disk_stat(self->path);
	EXPECT_TRUE(write_all_uncached(self->fd, 1, 0)) TH_LOG("legacy_2019: uncached write");
	EXPECT_EQ(0, pc_cached_pages(self->fd))
		TH_LOG("legacy_2019: each write returns with its batches written and dropped");
	kib = avg_io_kib(self->path, before, true);
	EXPECT_GE(64, kib) TH_LOG("legacy_2019: writeback goes 16 pages at a time (%lu KiB)", kib);
	pc_write_file(knob, "0");
	fsync(self->fd);
	before = disk_stat(self->path);
	write_all_uncached(self->fd, 1, 0);
	fsync(self->fd);
	kib = avg_io_kib(self->path, before, true);
	EXPECT_LT(64, kib)
		TH_LOG("knob off again: writeback of the whole range in large I/Os (%lu KiB)", kib);
}

TEST_F(fs, integrity)
{
	unsigned char *map;
	int dfd;

	write_all_uncached(self->fd, 9, 0);
	fsync(self->fd);
	EXPECT_TRUE(verify_fd(self->fd, 9)) TH_LOG("uncached write reads back through the page cache");
	dfd = pc_open(self->path, O_RDONLY | O_DIRECT);
	pc_drop_caches();
	EXPECT_TRUE(verify_fd(dfd, 9)) TH_LOG("... through O_DIRECT");
	close(dfd);
	map = mmap(NULL, FILE_SIZE, PROT_READ, MAP_SHARED, self->fd, 0);
	ASSERT_NE(MAP_FAILED, map) TH_LOG("mmap: %s", strerror(errno));
	EXPECT_GT(0, pc_check(map, 0, FILE_SIZE, 9)) TH_LOG("... through mmap");
	munmap(map, FILE_SIZE);
	close(self->fd);
	self->fd = -1;
	ASSERT_TRUE(pc_remount(variant->mnt)) TH_LOG("unmount and mount again");
	self->fd = pc_open(self->path, O_RDWR);
	EXPECT_TRUE(read_all_uncached(self->fd, 9)) TH_LOG("... and after remount");
}

TEST_HARNESS_MAIN

// SPDX-License-Identifier: GPL-2.0
/*
 * The drop-behind path under the conditions that break it: slow devices,
 * rewrites of data still being written, io_uring, memory cgroups, large
 * folios that get split or migrated, small sequential calls, and the races
 * between an uncached operation and an ordinary user.  Each test creates
 * the condition it is about (an io.max-throttled cgroup for a slow disk, a
 * memory cgroup for refaults, a debug-kernel race window) and checks the
 * outcome in the page cache, the kernel's counters or the disk's counters,
 * never in elapsed time: bounded waits below are hang guards only.
 *
 * One fixture variant per filesystem; the kselftest harness runs each test
 * in its own process, with a time limit.
 */
#include "suite.h"

#include <liburing.h>
#include <poll.h>
#include <pthread.h>
#include <sys/klog.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

/* The value of a "key value" line of a file such as memory.stat; -1 if none. */
static long long key_value(const char *file, const char *name)
{
	char key[64];
	long long value;
	FILE *f = fopen(file, "r");

	if (!f)
		return -1;
	while (fscanf(f, "%63s %lld", key, &value) == 2)
		if (!strcmp(key, name)) {
			fclose(f);
			return value;
		}
	fclose(f);
	return -1;
}

/* Write value to a sysctl, cgroup or debugfs file; false if it failed. */
static bool write_file(const char *file, const char *value)
{
	int fd = open(file, O_WRONLY);
	bool done;

	if (fd < 0)
		return false;
	done = write(fd, value, strlen(value)) == (ssize_t)strlen(value);
	close(fd);
	return done;
}

/* Field n (1-based) of the block device's stat file: 1 reads, 3 sectors read, 5 writes */
static long long disk_stat(dev_t dev, int field)
{
	char file[64];
	long long v[17];
	FILE *f;
	int got;

	snprintf(file, sizeof(file), "/sys/dev/block/%u:%u/stat", major(dev), minor(dev));
	f = fopen(file, "r");
	if (!f)
		return -1;
	got = fscanf(f, "%lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld", &v[1], &v[2],
		     &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9], &v[10], &v[11]);
	fclose(f);
	return got >= field ? v[field] : -1;
}

/*
 * The flusher kept out of the way: no periodic writeback, no expiry, and a
 * background threshold far above what a test dirties.  Whatever gets written
 * back is then written back because the kernel's uncached path asked for it.
 * Each limit is a pair (bytes, ratio) of which one is in force: the other
 * reads 0, and 0 cannot be written back, so the one in force is restored.
 */
static const char *const flusher_sysctls[] = {
	"dirty_bytes", "dirty_ratio", "dirty_background_bytes", "dirty_background_ratio",
	"dirty_expire_centisecs", "dirty_writeback_centisecs",
};
#define NR_FLUSHER_SYSCTLS (sizeof(flusher_sysctls) / sizeof(flusher_sysctls[0]))

struct quiet_flusher {
	char value[NR_FLUSHER_SYSCTLS][32];
};

static void read_sysctl(const char *name, char *buf, size_t len)
{
	char file[128];
	int fd;
	ssize_t n;

	snprintf(file, sizeof(file), "/proc/sys/vm/%s", name);
	fd = open(file, O_RDONLY);
	n = fd < 0 ? -1 : read(fd, buf, len - 1);
	buf[n > 0 ? n : 0] = '\0';
	if (fd >= 0)
		close(fd);
}

static void write_sysctl(const char *name, const char *value)
{
	char file[128];

	snprintf(file, sizeof(file), "/proc/sys/vm/%s", name);
	if (!write_file(file, value))
		pc_die(file);
}

static void quiet_flusher(struct quiet_flusher *saved)
{
	for (size_t i = 0; i < NR_FLUSHER_SYSCTLS; i++)
		read_sysctl(flusher_sysctls[i], saved->value[i], sizeof(saved->value[i]));
	write_sysctl("dirty_bytes", "201326592");
	write_sysctl("dirty_background_bytes", "134217728");
	write_sysctl("dirty_expire_centisecs", "360000");
	write_sysctl("dirty_writeback_centisecs", "0");
}

static void restore_flusher(const struct quiet_flusher *saved)
{
	for (size_t i = 0; i < NR_FLUSHER_SYSCTLS; i++)
		if (atoll(saved->value[i]))
			write_sysctl(flusher_sysctls[i], saved->value[i]);
	/* a zero interval is in force only when it was saved as such */
	write_sysctl("dirty_writeback_centisecs", saved->value[NR_FLUSHER_SYSCTLS - 1]);
}

/*
 * A child cgroup with the given controllers ("+io +memory": cgroup writeback
 * needs both for io.max to apply to writeback), entered by the caller.
 */
static bool cgroup_enter(const char *name, const char *controllers, char *dir, size_t len)
{
	char procs[160], pid[32];

	if (!write_file("/sys/fs/cgroup/cgroup.subtree_control", controllers))
		return false;
	snprintf(dir, len, "/sys/fs/cgroup/%s.%d", name, getpid());
	if (mkdir(dir, 0755) && errno != EEXIST)
		return false;
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", dir);
	snprintf(pid, sizeof(pid), "%d", getpid());
	return write_file(procs, pid);
}

static void cgroup_leave(const char *dir)
{
	char pid[32];

	snprintf(pid, sizeof(pid), "%d", getpid());
	write_file("/sys/fs/cgroup/cgroup.procs", pid);
	rmdir(dir);
}

/* Set a limit ("wbps=4096", "rbps=max") of the cgroup at dir on the disk dev */
static bool cgroup_io_max(const char *dir, dev_t dev, const char *limit)
{
	char file[160], rule[64];

	snprintf(file, sizeof(file), "%s/io.max", dir);
	snprintf(rule, sizeof(rule), "%u:%u %s", major(dev), minor(dev), limit);
	return write_file(file, rule);
}

/* Poll cachestat of fd until dirty and writeback are 0, for at most limit s */
static struct pclab_cachestat wait_clean(int fd, double limit)
{
	double end = pclab_now() + limit;
	struct pclab_cachestat cs;

	for (;;) {
		cs = pc_cachestat(fd, 0, 0);
		if ((!cs.nr_dirty && !cs.nr_writeback) || pclab_now() > end)
			return cs;
		sleep_ms(50);
	}
}

/* Write len bytes at off through io_uring, one request of up to req bytes at a time. */
static bool uring_write(int fd, const unsigned char *buf, size_t len, off_t off, size_t req)
{
	struct io_uring_cqe *cqe;
	struct io_uring ring;
	bool good = true;

	if (io_uring_queue_init(2, &ring, 0))
		return false;
	for (size_t done = 0; done < len && good;) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
		size_t n = len - done < req ? len - done : req;

		io_uring_prep_write(sqe, fd, buf + done, n, off + done);
		sqe->rw_flags = RWF_UNCACHED;
		good = io_uring_submit(&ring) == 1 && !io_uring_wait_cqe(&ring, &cqe) &&
		       cqe->res == (int)n;
		io_uring_cqe_seen(&ring, cqe);
		done += n;
	}
	io_uring_queue_exit(&ring);
	return good;
}

/*
 * Give the fixture's file len bytes of data on the disk and nothing in the
 * cache, so that writes into it are overwrites: xfs completes io_uring
 * overwrites inline, where a new file's allocation would be punted to a
 * worker thread.
 */
static void make_written(const char *path, int *fd, size_t len, unsigned int seed)
{
	close(*fd);
	pc_make_cold_file(path, len, seed);
	*fd = open(path, O_RDWR);
	if (*fd < 0)
		pc_die(path);
}

FIXTURE(fs) {
	char path[128];
	dev_t dev;
	int fd;
};

FIXTURE_VARIANT(fs) {
	const char *mnt;
	const char *other;	/* a filesystem on another disk */
	bool large_folios;
};

FIXTURE_VARIANT_ADD(fs, ext4) {
	.mnt = "/mnt/ext4",
	.other = "/mnt/xfs",
	.large_folios = false,
};

FIXTURE_VARIANT_ADD(fs, xfs) {
	.mnt = "/mnt/xfs",
	.other = "/mnt/ext4",
	.large_folios = true,
};

FIXTURE_SETUP(fs)
{
	struct stat st;

	pc_test_start(_metadata);
	self->fd = -1;
	if (!pc_mounted(variant->mnt) || stat(variant->mnt, &st))
		SKIP(return, "%s is not mounted", variant->mnt);
	self->dev = st.st_dev;
	snprintf(self->path, sizeof(self->path), "%s/dropbehind.%d", variant->mnt, getpid());
	self->fd = open(self->path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	ASSERT_LE(0, self->fd) TH_LOG("open %s: %s", self->path, strerror(errno));
}

FIXTURE_TEARDOWN(fs)
{
	if (self->fd >= 0)
		close(self->fd);
	unlink(self->path);
}

/*
 * Finding 3 of the review: io_uring's inline attempt at a buffered write
 * sets IOCB_NOWAIT, and an uncached write then must not block on starting
 * writeback.  It must still hand the range to writeback, or the data stays
 * dirty until the flusher comes (here: never).  xfs completes overwrites
 * inline when it can get the folios without waiting; ext4 always hands
 * buffered writes to an io_uring worker, which may block.
 */
TEST_F_TIMEOUT(fs, uring_write_starts_writeback, 200)
{
	size_t len = 16 * MiB;
	unsigned char *buf = malloc(len);
	struct quiet_flusher saved;
	struct pclab_cachestat cs;
	double t0;

	ASSERT_NE(NULL, buf);
	make_written(self->path, &self->fd, len, 2);
	pc_fill(buf, 0, len, 3);
	quiet_flusher(&saved);
	/* small requests: each folio's allocation succeeds without waiting */
	ASSERT_TRUE(uring_write(self->fd, buf, len, 0, 4096));
	cs = pc_cachestat(self->fd, 0, 0);
	TH_LOG("after the writes: %llu dirty, %llu under writeback",
	       (unsigned long long)cs.nr_dirty, (unsigned long long)cs.nr_writeback);
	t0 = pclab_now();
	cs = wait_clean(self->fd, 120);
	TH_LOG("clean after %.1f s", pclab_now() - t0);
	restore_flusher(&saved);
	EXPECT_EQ(0, cs.nr_dirty) TH_LOG("pages still dirty, writeback never started");
	EXPECT_EQ(0, cs.nr_writeback);
	EXPECT_EQ(0, pc_cached_pages(self->fd)) TH_LOG("written back but not dropped");
	free(buf);
}

/*
 * Finding 7: a rewrite of a folio whose writeback is in flight dirties it
 * again; WB_SYNC_NONE writeback skips folios under writeback, so the new
 * data must still get its writeback started once the old one completes.
 * The disk is made slow (io.max of this test's cgroup) so the first
 * writeback is surely in flight when the second write comes.
 */
TEST_F_TIMEOUT(fs, rewrite_during_writeback_is_written, 200)
{
	unsigned char buf[4096];
	struct quiet_flusher saved;
	struct pclab_cachestat cs;
	char cg[128];

	ASSERT_TRUE(cgroup_enter("pclab-slow", "+io +memory", cg, sizeof(cg)));
	ASSERT_TRUE(cgroup_io_max(cg, self->dev, "wbps=4096"));
	quiet_flusher(&saved);
	pc_fill(buf, 0, sizeof(buf), 4);
	ASSERT_EQ(4096, pc_rw2(true, self->fd, buf, sizeof(buf), 0, RWF_UNCACHED));
	/* the flusher starts the writeback, which the throttled disk keeps in flight */
	for (int i = 0; i < 600 && !pc_cachestat(self->fd, 0, 0).nr_writeback; i++)
		sleep_ms(100);
	cs = pc_cachestat(self->fd, 0, 0);
	EXPECT_EQ(1, cs.nr_writeback) TH_LOG("the first write's writeback is not in flight");
	pc_fill(buf, 0, sizeof(buf), 5);
	ASSERT_EQ(4096, pc_rw2(true, self->fd, buf, sizeof(buf), 0, RWF_UNCACHED));
	cs = wait_clean(self->fd, 120);
	restore_flusher(&saved);
	cgroup_leave(cg);
	EXPECT_EQ(0, cs.nr_dirty) TH_LOG("the rewrite stayed dirty: its writeback never started");
	EXPECT_EQ(0, cs.nr_writeback);
	EXPECT_EQ(0, pc_cached_pages(self->fd));
}

/*
 * A sequential uncached read reads its successor's range ahead, and a read
 * of the file elsewhere drops that range, waiting for the folios still
 * being read.  A read that must not wait (RWF_NOWAIT; io_uring's inline
 * attempts) must not wait for them either: it gets EAGAIN, or its data if
 * it needed no waiting, and a read that may wait drops the range after
 * all.  The disk is made slow for this test's reads (io.max) so that the
 * read-ahead stays in flight; a child does the NOWAIT read, and the
 * parent lifts the limit only after a hang guard: a read that waited for
 * the read-ahead ends only then.
 */
TEST_F_TIMEOUT(fs, nowait_read_elsewhere_waits_for_no_read_ahead, 200)
{
	size_t len = 8 * MiB;
	unsigned char *buf = malloc(MiB);
	struct { ssize_t n; int err; } nowait = { -1, 0 };
	struct pollfd done = { .events = POLLIN };
	int pipefd[2], fd, ready;
	char cg[128];
	pid_t child;

	ASSERT_NE(NULL, buf);
	make_written(self->path, &self->fd, len, 27);
	/* cache the second call's range and the NOWAIT read's, nothing else */
	fd = pc_open(self->path, O_RDONLY);
	posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);
	ASSERT_EQ(MiB, pread(fd, buf, MiB, MiB));
	ASSERT_EQ(MiB, pread(fd, buf, MiB, 6 * MiB));
	close(fd);
	ASSERT_EQ(0, pc_cachestat(self->fd, 2 * MiB, 4 * MiB).nr_cache)
		TH_LOG("the range to be read ahead is not cached yet");
	ASSERT_EQ(MiB, pc_rw2(false, self->fd, buf, MiB, 0, RWF_UNCACHED));
	ASSERT_TRUE(cgroup_enter("pclab-slow-read", "+io", cg, sizeof(cg)));
	ASSERT_TRUE(cgroup_io_max(cg, self->dev, "rbps=4096"));
	/* sequential: its data is cached, the read-ahead of [2, 3) MiB is not */
	EXPECT_EQ(MiB, pc_rw2(false, self->fd, buf, MiB, MiB, RWF_UNCACHED));
	EXPECT_LT(0, pc_cachestat(self->fd, 2 * MiB, MiB).nr_cache)
		TH_LOG("the second call started reading the next call's range");

	ASSERT_EQ(0, pipe(pipefd));
	child = fork();
	ASSERT_LE(0, child);
	if (child == 0) {
		nowait.n = pc_rw2(false, self->fd, buf, MiB, 6 * MiB, RWF_NOWAIT);
		nowait.err = errno;
		_exit(write(pipefd[1], &nowait, sizeof(nowait)) == sizeof(nowait) ? 0 : 1);
	}
	close(pipefd[1]);
	done.fd = pipefd[0];
	/* the hang guard: the read needs no I/O, milliseconds even under TCG */
	ready = poll(&done, 1, 30000);
	EXPECT_TRUE(cgroup_io_max(cg, self->dev, "rbps=max"));
	EXPECT_EQ(sizeof(nowait), read(pipefd[0], &nowait, sizeof(nowait)));
	close(pipefd[0]);
	waitpid(child, NULL, 0);
	cgroup_leave(cg);
	EXPECT_EQ(1, ready) TH_LOG("the NOWAIT read elsewhere waited for the read-ahead's I/O");
	EXPECT_TRUE(nowait.n == (ssize_t)MiB || (nowait.n < 0 && nowait.err == EAGAIN))
		TH_LOG("the NOWAIT read: %zd (%s)", nowait.n, strerror(nowait.err));

	EXPECT_EQ(MiB, pc_rw2(false, self->fd, buf, MiB, 6 * MiB, 0));
	EXPECT_GT(0, pc_check(buf, 6 * MiB, MiB, 27)) TH_LOG("the read elsewhere's data");
	EXPECT_EQ(0, pc_cachestat(self->fd, 2 * MiB, 4 * MiB).nr_cache)
		TH_LOG("a read that may wait drops the range read ahead");
	free(buf);
}

/*
 * Finding 4: an uncached read must not do refault detection.  Data that a
 * buffered reader cached and reclaim evicted leaves shadow entries; an
 * uncached read of it must not count refaults or activate its folios (it
 * drops them right away), in the cgroup or globally.
 */
TEST_F(fs, uncached_read_does_no_refault)
{
	size_t len = 160 * MiB, part = 32 * MiB;
	long long refaults, activations;
	unsigned char *buf = malloc(MiB);
	char cg[128], stat_file[160], limit[160];

	ASSERT_NE(NULL, buf);
	close(self->fd);
	pc_make_cold_file(self->path, len, 6);
	self->fd = open(self->path, O_RDONLY);
	ASSERT_LE(0, self->fd);
	ASSERT_TRUE(cgroup_enter("pclab-refault", "+memory", cg, sizeof(cg)));
	snprintf(limit, sizeof(limit), "%s/memory.max", cg);
	ASSERT_TRUE(write_file(limit, "67108864"));
	snprintf(stat_file, sizeof(stat_file), "%s/memory.stat", cg);
	/* a buffered pass in 64 MiB: the first part is evicted, with shadows */
	pc_warm(self->fd, len);
	refaults = key_value(stat_file, "workingset_refault_file");
	activations = key_value(stat_file, "workingset_activate_file");
	ASSERT_LE(0, refaults);
	for (size_t off = 0; off < part; off += MiB)
		ASSERT_EQ((ssize_t)MiB, pc_rw2(false, self->fd, buf, MiB, off, RWF_UNCACHED));
	refaults = key_value(stat_file, "workingset_refault_file") - refaults;
	activations = key_value(stat_file, "workingset_activate_file") - activations;
	cgroup_leave(cg);
	EXPECT_EQ(0, refaults) TH_LOG("an uncached read counted refaults");
	EXPECT_EQ(0, activations) TH_LOG("an uncached read activated folios it drops");
	free(buf);
}

/*
 * Finding 5: the mark must survive a split.  Truncating into a large folio
 * splits it; the pieces that stay are still the uncached operation's and
 * must still leave the page cache.  Two marked large folios on xfs: the
 * one an uncached read ends in, kept for the next call, and dirty ones of
 * io_uring overwrites of 64 KiB (some of which complete inline, dirty,
 * the writeback started by a worker).
 */
#define SPLIT_FILES 16

TEST_F(fs, mark_survives_split)
{
	size_t len = 256 * KiB, cut = 200 * KiB;
	char path[SPLIT_FILES][160];
	unsigned char *buf;
	int cached = 0;

	if (!variant->large_folios)
		SKIP(return, "no large folios on %s", variant->mnt);
	buf = malloc(MiB);
	ASSERT_NE(NULL, buf);
	/* the read ends inside its one 1 MiB folio, which stays, marked */
	make_written(self->path, &self->fd, MiB, 6);
	ASSERT_EQ((ssize_t)(MiB - 100), pc_rw2(false, self->fd, buf, MiB - 100, 0, RWF_UNCACHED));
	ASSERT_EQ(0, ftruncate(self->fd, 516 * KiB));
	ASSERT_EQ((ssize_t)(516 * KiB), pc_rw2(false, self->fd, buf, 516 * KiB, 0, RWF_UNCACHED));
	EXPECT_EQ(0, pc_cached_pages(self->fd)) TH_LOG("pieces of a split read folio stayed");
	for (int i = 0; i < SPLIT_FILES; i++) {
		int fd;

		snprintf(path[i], sizeof(path[i]), "%s.%d", self->path, i);
		pc_make_cold_file(path[i], len, i);
		fd = open(path[i], O_RDWR);
		ASSERT_LE(0, fd);
		pc_fill(buf, 0, len, 7);
		ASSERT_TRUE(uring_write(fd, buf, len, 0, 64 * KiB));
		ASSERT_EQ(0, ftruncate(fd, cut));
		ASSERT_EQ(0, fsync(fd));
		cached += pc_cached_pages(fd);
		close(fd);
		unlink(path[i]);
	}
	EXPECT_EQ(0, cached) TH_LOG("pieces of split written folios stayed");
	free(buf);
}

/*
 * Finding 5: the mark must survive migration.  Marked folios that sit in
 * the cache while compaction moves them must still be dropped afterwards:
 * small io_uring overwrites waiting for their writeback, and the last,
 * partly read folio that an uncached read keeps for the next call of the
 * same reader (one per file, so many files).  The test cannot choose what
 * compaction moves; it moves most of a small guest's movable memory.
 */
#define MIGRATION_FILES 256

/*
 * Cache len bytes of a new file, then punch out every other page: free
 * pages in holes between cached ones, which compaction moves pages to fill.
 * The file is unlinked; closing the returned descriptor frees the rest.
 */
static int fragment_memory(const char *near, size_t len)
{
	char path[160];
	int fd;

	snprintf(path, sizeof(path), "%s.fragments", near);
	pc_make_cold_file(path, len, 13);
	fd = open(path, O_RDWR);
	if (fd < 0)
		pc_die(path);
	unlink(path);
	pc_warm(fd, len);
	for (off_t off = 0; off < (off_t)len; off += 2 * PAGE)
		if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, off, PAGE))
			pc_die("fallocate");
	return fd;
}

TEST_F_TIMEOUT(fs, mark_survives_migration, 180)
{
	size_t len = 16 * MiB;
	unsigned char *buf = malloc(len);
	char path[MIGRATION_FILES][160];
	int fds[MIGRATION_FILES], fragments;
	long long migrated;
	int cached = 0;

	ASSERT_NE(NULL, buf);
	make_written(self->path, &self->fd, len, 8);
	for (int i = 0; i < MIGRATION_FILES; i++) {
		snprintf(path[i], sizeof(path[i]), "%s.%d", self->path, i);
		pc_make_cold_file(path[i], 8192, i);
		fds[i] = open(path[i], O_RDONLY);
		ASSERT_LE(0, fds[i]);
	}
	/* free memory in holes between cached pages, so compaction has work */
	fragments = fragment_memory(self->path, 48 * MiB);
	pc_fill(buf, 0, len, 9);
	ASSERT_TRUE(uring_write(self->fd, buf, len, 0, 4096));
	for (int i = 0; i < MIGRATION_FILES; i++)
		ASSERT_EQ(6000, pc_rw2(false, fds[i], buf, 6000, 0, RWF_UNCACHED));
	migrated = pclab_vmstat("pgmigrate_success");
	ASSERT_TRUE(write_file("/proc/sys/vm/compact_memory", "1"));
	migrated = pclab_vmstat("pgmigrate_success") - migrated;
	close(fragments);
	TH_LOG("compaction migrated %lld pages", migrated);
	ASSERT_LT(0, migrated) TH_LOG("nothing to migrate: the test proves nothing");
	ASSERT_EQ(0, fsync(self->fd));
	EXPECT_EQ(0, pc_cached_pages(self->fd)) TH_LOG("migrated written folios lost their mark");
	for (int i = 0; i < MIGRATION_FILES; i++) {
		/* the rest of the file: the kept folio is read to its end */
		ASSERT_EQ(8192 - 6000, pc_rw2(false, fds[i], buf, 8192 - 6000, 6000, RWF_UNCACHED));
		cached += pc_cached_pages(fds[i]) != 0;
		close(fds[i]);
		unlink(path[i]);
	}
	EXPECT_EQ(0, cached) TH_LOG("files whose kept folio lost its mark");
	free(buf);
}

/*
 * Finding 6, reads: sequential uncached reads of 1000 bytes must read each
 * page from the disk about once, not once per call that touches it.
 */
TEST_F_TIMEOUT(fs, small_sequential_reads_read_once, 120)
{
	size_t len = 8 * MiB;
	char buf[1000];
	long long sectors;
	double ratio;

	close(self->fd);
	pc_make_cold_file(self->path, len, 9);
	self->fd = open(self->path, O_RDONLY);
	ASSERT_LE(0, self->fd);
	sectors = disk_stat(self->dev, 3);
	ASSERT_LE(0, sectors);
	for (off_t off = 0; off < (off_t)len; off += sizeof(buf))
		ASSERT_LT(0, pc_rw2(false, self->fd, buf, sizeof(buf), off, RWF_UNCACHED));
	sectors = disk_stat(self->dev, 3) - sectors;
	ratio = sectors * 512.0 / len;
	TH_LOG("read %.2f times the file from the disk", ratio);
	EXPECT_GT(1.5, ratio) TH_LOG("each call re-read the page the last one dropped");
	EXPECT_GE(1, pc_cached_pages(self->fd)) TH_LOG("more than the last folio stayed");
}

/*
 * Finding 6, writes: small uncached appends, each made durable, must not
 * read the partial block at the end of the file back from the disk every
 * time (what a log or a write-ahead journal does).
 */
TEST_F_TIMEOUT(fs, small_appends_do_not_read_back, 120)
{
	long long reads;
	char rec[100];
	int afd;

	afd = open(self->path, O_WRONLY | O_APPEND);
	ASSERT_LE(0, afd);
	pc_drop_caches();
	reads = disk_stat(self->dev, 1);
	for (int i = 0; i < 300; i++) {
		memset(rec, 'a' + i % 26, sizeof(rec));
		ASSERT_EQ((ssize_t)sizeof(rec), pc_rw2(true, afd, rec, sizeof(rec), 0, RWF_UNCACHED));
		ASSERT_EQ(0, fdatasync(afd));
	}
	reads = disk_stat(self->dev, 1) - reads;
	close(afd);
	TH_LOG("300 appends read from the disk %lld times", reads);
	EXPECT_GT(10, reads) TH_LOG("each append read its block back");
	EXPECT_GE(1, pc_cached_pages(self->fd)) TH_LOG("more than the end of the file stayed");
}

/*
 * The test kernel's fault injection in the drop-behind path
 * (CONFIG_FAIL_DROPBEHIND): /sys/kernel/debug/fail_dropbehind_NAME with the
 * kernel's usual fault-injection attributes.  Armed for this task only
 * (task-filter and /proc/self/make-it-fail), or, for completions that run in
 * kernel workers, for the next times hits.
 */
#define FAIL_DIR "/sys/kernel/debug/fail_dropbehind_"

static bool fail_point(const char *name)
{
	char file[128];

	snprintf(file, sizeof(file), FAIL_DIR "%s/probability", name);
	return !access(file, W_OK);
}

static bool fail_attr(const char *name, const char *attr, const char *value)
{
	char file[128];

	snprintf(file, sizeof(file), FAIL_DIR "%s/%s", name, attr);
	return write_file(file, value);
}

/* Fail at point name every time, times times (-1: until disarmed), task filtered or not */
static bool fail_arm(const char *name, const char *times, bool this_task)
{
	if (this_task && !write_file("/proc/self/make-it-fail", "1"))
		return false;
	return fail_attr(name, "task-filter", this_task ? "Y" : "N") &&
	       fail_attr(name, "interval", "1") && fail_attr(name, "verbose", "0") &&
	       fail_attr(name, "times", times) && fail_attr(name, "probability", "100");
}

static void fail_disarm(const char *name)
{
	fail_attr(name, "probability", "0");
	fail_attr(name, "times", "1");
	write_file("/proc/self/make-it-fail", "0");
}

/*
 * Finding 8: an ordinary user that claims a marked folio after the drop has
 * checked it, just before the drop takes the mark.  Exactly one of them must
 * win: the folio is counted claimed or dropped, never both, and a claimed
 * folio stays cached.  The fault point makes the claim happen there, for
 * every folio of an uncached read.
 */
TEST_F_TIMEOUT(fs, claim_in_drop_window_wins, 120)
{
	long long marked, dropped, claimed;
	size_t len = 256 * KiB;
	unsigned char *buf;

	if (!fail_point("claim"))
		SKIP(return, "a kernel without CONFIG_FAIL_DROPBEHIND");
	buf = malloc(len);
	ASSERT_NE(NULL, buf);
	make_written(self->path, &self->fd, len, 10);
	marked = pclab_vmstat("dropbehind_marked");
	dropped = pclab_vmstat("dropbehind_read");
	claimed = pclab_vmstat("dropbehind_kept_claimed");
	ASSERT_TRUE(fail_arm("claim", "-1", true));
	EXPECT_EQ((ssize_t)len, pc_rw2(false, self->fd, buf, len, 0, RWF_UNCACHED));
	fail_disarm("claim");
	EXPECT_GT(0, pc_check(buf, 0, len, 10)) TH_LOG("the read's data");
	marked = pclab_vmstat("dropbehind_marked") - marked;
	dropped = pclab_vmstat("dropbehind_read") - dropped;
	claimed = pclab_vmstat("dropbehind_kept_claimed") - claimed;
	TH_LOG("marked %lld, dropped %lld, claimed %lld pages", marked, dropped, claimed);
	EXPECT_EQ((long long)(len / PAGE), marked);
	EXPECT_EQ(0, dropped) TH_LOG("a folio claimed in the window was dropped");
	EXPECT_EQ(marked, claimed) TH_LOG("a claim in the window was not counted");
	EXPECT_EQ(len / PAGE, pc_cached_pages(self->fd)) TH_LOG("claimed folios stay cached");
	free(buf);
}

/*
 * Review 2, T6: the batch drop of an uncached read must look at dirty again
 * under the page cache's lock: a folio dirtied after its checks (the fault
 * point dirties it there, as a writer that skipped the folio lock would)
 * must stay in the page cache with its data, not be removed dirty (which
 * also has the kernel warn).  The point dirties the folio the iomap way,
 * which needs no buffer heads: xfs only.
 */
TEST_F_TIMEOUT(fs, batch_drop_keeps_folio_dirtied_after_check, 120)
{
	size_t len = 64 * KiB;
	unsigned char *buf;
	struct pclab_cachestat cs;

	if (!variant->large_folios)
		SKIP(return, "the fault point dirties folios without buffer heads (xfs)");
	if (!fail_point("dirty"))
		SKIP(return, "a kernel without CONFIG_FAIL_DROPBEHIND");
	buf = malloc(len);
	ASSERT_NE(NULL, buf);
	make_written(self->path, &self->fd, len, 13);
	ASSERT_TRUE(fail_arm("dirty", "1", true));
	EXPECT_EQ((ssize_t)len, pc_rw2(false, self->fd, buf, len, 0, RWF_UNCACHED));
	fail_disarm("dirty");
	cs = pc_cachestat(self->fd, 0, len);
	EXPECT_LE(1, cs.nr_dirty) TH_LOG("the folio dirtied after its check is not in the cache");
	EXPECT_EQ(cs.nr_dirty, cs.nr_cache) TH_LOG("the clean folios should have been dropped");
	EXPECT_EQ(0, fsync(self->fd));
	pc_drop_caches();
	EXPECT_EQ((ssize_t)len, pread(self->fd, buf, len, 0));
	EXPECT_GT(0, pc_check(buf, 0, len, 13)) TH_LOG("the data after writeback");
	free(buf);
}

/*
 * A marked folio whose writeback ends in interrupt context cannot leave the
 * page cache there: it is kept, and fsync() drops it.  ext4 and xfs end such
 * writeback in task context, so the fault point makes the completion act as
 * if it were in interrupt context, for every folio of one overwrite.
 */
TEST_F_TIMEOUT(fs, irq_completion_kept_then_fsync_drops, 200)
{
	size_t len = 4 * MiB;
	unsigned char *buf;
	long long busy;
	int i;

	if (!fail_point("irq"))
		SKIP(return, "a kernel without CONFIG_FAIL_DROPBEHIND");
	buf = malloc(len);
	ASSERT_NE(NULL, buf);
	make_written(self->path, &self->fd, len, 14);
	pc_fill(buf, 0, len, 15);
	busy = pclab_vmstat("dropbehind_kept_busy");
	ASSERT_TRUE(fail_arm("irq", "-1", false));
	ASSERT_EQ((ssize_t)len, pc_rw2(true, self->fd, buf, len, 0, RWF_UNCACHED));
	/* the flusher writes the range back; its completions keep every folio */
	for (i = 0; i < 1200 && pc_cachestat(self->fd, 0, len).nr_dirty +
				pc_cachestat(self->fd, 0, len).nr_writeback; i++)
		sleep_ms(100);
	fail_disarm("irq");
	EXPECT_EQ(len / PAGE, pc_cached_pages(self->fd))
		TH_LOG("written back in \"interrupt context\": every folio stays");
	EXPECT_LE((long long)(len / PAGE), pclab_vmstat("dropbehind_kept_busy") - busy)
		TH_LOG("... counted as put off");
	EXPECT_EQ(0, fsync(self->fd));
	EXPECT_EQ(0, pc_cached_pages(self->fd)) TH_LOG("fsync() drops what the completions kept");
	pc_drop_caches();
	EXPECT_EQ((ssize_t)len, pread(self->fd, buf, len, 0));
	EXPECT_GT(0, pc_check(buf, 0, len, 15)) TH_LOG("the data");
	free(buf);
}

/*
 * Finding 9 (suspected in the first version): fsync() must return with
 * none of the written folios cached however completions and drops
 * interleave.  Four writers, each on its own file, each fsync followed by
 * a cachestat of the range it wrote.  fsync() now drops its own range
 * itself, under the folio locks, after waiting for the writeback, so no
 * window is left between a completion and the drop it schedules.
 */
#define FSYNC_WRITERS 4
#define FSYNC_ROUNDS 100

TEST_F_TIMEOUT(fs, fsync_leaves_nothing_under_concurrency, 300)
{
	int failures = 0, status;
	pid_t pids[FSYNC_WRITERS];

	for (int w = 0; w < FSYNC_WRITERS; w++) {
		pids[w] = fork();
		ASSERT_LE(0, pids[w]);
		if (!pids[w]) {
			unsigned char buf[64 * 1024];
			char path[160];
			int fd, left = 0;

			snprintf(path, sizeof(path), "%s.%d", self->path, w);
			fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
			if (fd < 0)
				_exit(100);
			for (int i = 0; i < FSYNC_ROUNDS; i++) {
				off_t off = (off_t)(i % 16) * sizeof(buf);

				pc_fill(buf, off, sizeof(buf), i);
				if (pc_rw2(true, fd, buf, sizeof(buf), off, RWF_UNCACHED) !=
				    (ssize_t)sizeof(buf) || fsync(fd))
					_exit(100);
				left += pc_cachestat(fd, off, sizeof(buf)).nr_cache != 0;
			}
			close(fd);
			unlink(path);
			_exit(left);
		}
	}
	for (int w = 0; w < FSYNC_WRITERS; w++) {
		ASSERT_EQ(pids[w], waitpid(pids[w], &status, 0));
		ASSERT_TRUE(WIFEXITED(status));
		ASSERT_NE(100, WEXITSTATUS(status)) TH_LOG("writer %d failed to write", w);
		failures += WEXITSTATUS(status);
	}
	EXPECT_EQ(0, failures) TH_LOG("fsyncs that returned with written pages cached");
}

/*
 * A trace instance of the test's own, for the tests below that count
 * events or function calls of one operation.
 */
#define INSTANCE "/sys/kernel/tracing/instances/pclab-dropbehind-test"

static bool instance_write(const char *file, const char *value)
{
	char p[256];

	snprintf(p, sizeof(p), INSTANCE "/%s", file);
	return write_file(p, value);
}

/* A fresh instance; false without tracefs */
static bool trace_open(void)
{
	rmdir(INSTANCE);
	return !mkdir(INSTANCE, 0755) || errno == EEXIST;
}

/* Empty the instance's buffer (an open with O_TRUNC does that) */
static void trace_clear(void)
{
	int fd = open(INSTANCE "/trace", O_WRONLY | O_TRUNC);

	if (fd < 0)
		pc_die("clear trace");
	close(fd);
}

/* Lines of the instance's buffer that hold needle; stops tracing first */
static long trace_count(const char *needle)
{
	char line[512];
	long n = 0;
	FILE *f;

	instance_write("tracing_on", "0");
	f = fopen(INSTANCE "/trace", "r");
	if (!f)
		pc_die("trace");
	while (fgets(line, sizeof(line), f))
		if (line[0] != '#' && strstr(line, needle))
			n++;
	fclose(f);
	return n;
}

static void trace_close(void)
{
	instance_write("tracing_on", "0");
	instance_write("current_tracer", "nop");
	instance_write("events/enable", "0");
	rmdir(INSTANCE);
}

/* How often the kernel log holds needle */
static int klog_count(const char *needle)
{
	int len = klogctl(10, NULL, 0), n = 0;	/* SYSLOG_ACTION_SIZE_BUFFER */
	char *buf = len > 0 ? malloc(len + 1) : NULL;

	if (!buf)
		return -1;
	len = klogctl(3, buf, len);		/* SYSLOG_ACTION_READ_ALL */
	if (len < 0)
		len = 0;
	buf[len] = '\0';
	for (char *at = buf; (at = strstr(at, needle)); at++)
		n++;
	free(buf);
	return n;
}

/*
 * Review 2, T1: khugepaged's collapse_file() (MADV_COLLAPSE of a read-only
 * mapping of an ordinary file, CONFIG_READ_ONLY_THP_FOR_FS) holds the folio
 * locks of the range when it calls filemap_write_and_wait().  The drop of
 * uncached writes' folios once sat there, waiting for those very locks: a
 * marked folio in the range (the folio a short uncached read ended in, kept
 * for the next call) left the task hung for good.  The collapse must
 * return.  collapse_file() reaches that call for mappings without large
 * folios: ext4.
 */
TEST_F_TIMEOUT(fs, collapse_with_marked_folio_returns, 120)
{
	size_t len = 4 * MiB, map = 2 * MiB;
	unsigned char buf[1000], *p, *area;
	int status, rfd, tries;
	pid_t pid;

	if (variant->large_folios)
		SKIP(return, "collapse_file() flushes mappings without large folios (ext4)");
	make_written(self->path, &self->fd, len, 16);
	/* one uncached append, then a short uncached read that keeps its folio */
	pc_fill(buf, len, sizeof(buf), 16);
	ASSERT_EQ((ssize_t)sizeof(buf), pc_rw2(true, self->fd, buf, sizeof(buf), len,
					       RWF_UNCACHED));
	ASSERT_EQ(0, fsync(self->fd));
	close(self->fd);
	self->fd = -1;
	rfd = open(self->path, O_RDONLY);
	ASSERT_LE(0, rfd);
	ASSERT_EQ((ssize_t)sizeof(buf), pc_rw2(false, rfd, buf, sizeof(buf), 0, RWF_UNCACHED));
	/* a 2 MiB aligned read-only mapping of the first 2 MiB, its pages cached */
	area = mmap(NULL, 2 * map, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, area);
	p = (unsigned char *)(((uintptr_t)area + map - 1) & ~(uintptr_t)(map - 1));
	ASSERT_EQ(p, mmap(p, map, PROT_READ, MAP_SHARED | MAP_FIXED, rfd, 0));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(madvise(p, map, MADV_COLLAPSE) ? (errno == EINVAL ? 2 : 1) : 0);
	/* a hang guard: the hung collapse never returns, and cannot be killed */
	for (tries = 0; tries < 600 && !waitpid(pid, &status, WNOHANG); tries++)
		sleep_ms(100);
	ASSERT_GT(600, tries) TH_LOG("MADV_COLLAPSE did not return: the collapse hangs");
	ASSERT_TRUE(WIFEXITED(status));
	if (WEXITSTATUS(status) == 2)
		SKIP(goto out, "MADV_COLLAPSE of a file mapping is not supported here");
	TH_LOG("MADV_COLLAPSE returned %s", WEXITSTATUS(status) ? "an error" : "0");
	EXPECT_GT(0, pc_check(p, 0, map, 16)) TH_LOG("the mapping's data");
out:
	munmap(area, 2 * map);
	close(rfd);
}

/*
 * Review 2, T2: a writeback kicked by an uncached write must not keep a
 * reference to the inode where unmount cannot see it ("VFS: Busy inodes
 * after unmount", then a use of the freed superblock).  io_uring's inline
 * attempt (NOWAIT) is the writer that kicked through a worker holding one;
 * unmount comes at once after close, cycle after cycle.
 */
TEST_F_TIMEOUT(fs, uring_write_then_unmount, 300)
{
	size_t len = 256 * KiB;
	unsigned char *buf = malloc(len);
	int busy = klog_count("Busy inodes");

	ASSERT_NE(NULL, buf);
	for (int i = 0; i < 30; i++) {
		make_written(self->path, &self->fd, len, 17);
		pc_fill(buf, 0, len, 18 + i);
		ASSERT_TRUE(uring_write(self->fd, buf, len, 0, 64 * 1024));
		close(self->fd);
		self->fd = -1;
		ASSERT_TRUE(pc_remount(variant->mnt)) TH_LOG("cycle %d: unmount and mount", i);
		self->fd = open(self->path, O_RDWR);
		ASSERT_LE(0, self->fd);
		ASSERT_EQ((ssize_t)len, pread(self->fd, buf, len, 0));
		ASSERT_GT(0, pc_check(buf, 0, len, 18 + i)) TH_LOG("cycle %d: the data", i);
	}
	EXPECT_EQ(busy, klog_count("Busy inodes")) TH_LOG("an unmount found busy inodes");
	free(buf);
}

/*
 * Review 2, T3: once a file has seen an uncached write, its fsync()s must
 * not cost more than before: the fsync drop once walked every cached folio
 * of the range at every fsync, for good.  Counted on the instruction path,
 * not timed: the calls fsync makes to filemap_get_folios(), the untagged
 * page cache walk (writeback and its wait walk by tags), around a 4 KiB
 * write + fsync of a file with 32 MiB cached, after one uncached append.
 */
TEST_F_TIMEOUT(fs, fsync_after_uncached_append_walks_nothing, 120)
{
	size_t len = 32 * MiB;
	unsigned char buf[4096];
	long calls;

	if (!trace_open() || !instance_write("set_ftrace_filter", "filemap_get_folios"))
		SKIP(return, "no function tracing of filemap_get_folios in a trace instance");
	make_written(self->path, &self->fd, len, 19);
	pc_warm(self->fd, len);
	pc_fill(buf, len, sizeof(buf), 19);
	ASSERT_EQ((ssize_t)sizeof(buf), pc_rw2(true, self->fd, buf, sizeof(buf), len,
					       RWF_UNCACHED));
	ASSERT_EQ(0, fsync(self->fd));
	ASSERT_TRUE(instance_write("current_tracer", "function"));
	trace_clear();
	instance_write("tracing_on", "1");
	pc_fill(buf, MiB, sizeof(buf), 20);
	ASSERT_EQ((ssize_t)sizeof(buf), pwrite(self->fd, buf, sizeof(buf), MiB));
	ASSERT_EQ(0, fsync(self->fd));
	calls = trace_count("filemap_get_folios");
	trace_close();
	TH_LOG("the fsync called filemap_get_folios() %ld times", calls);
	EXPECT_EQ(0, calls) TH_LOG("fsync walked the cached folios");
	EXPECT_EQ(len / PAGE, pc_cachestat(self->fd, 0, len).nr_cache)
		TH_LOG("the buffered file stays cached");
}

/*
 * Review 2, T7: ext4 must not send its uncached writes' completions through
 * the reserved conversion workqueue, which runs one work item at a time for
 * the whole filesystem: every appender's conversion would queue behind the
 * drops.  An overwrite of allocated blocks converts nothing, so nothing of
 * it should reach that workqueue.
 */
TEST_F_TIMEOUT(fs, uncached_overwrite_bypasses_conversion_queue, 120)
{
	size_t len = 8 * MiB;
	unsigned char *buf;
	long queued;

	if (variant->large_folios)
		SKIP(return, "ext4's reserved conversion workqueue");
	if (!trace_open() ||
	    !instance_write("events/workqueue/workqueue_queue_work/enable", "1"))
		SKIP(return, "no workqueue events in a trace instance");
	buf = malloc(len);
	ASSERT_NE(NULL, buf);
	make_written(self->path, &self->fd, len, 21);
	pc_fill(buf, 0, len, 22);
	trace_clear();
	instance_write("tracing_on", "1");
	ASSERT_EQ((ssize_t)len, pc_rw2(true, self->fd, buf, len, 0, RWF_UNCACHED));
	ASSERT_EQ(0, fsync(self->fd));
	queued = trace_count("workqueue=ext4-rsv-conversion");
	trace_close();
	EXPECT_EQ(0, queued) TH_LOG("uncached overwrite completions queued on ext4-rsv-conversion");
	EXPECT_EQ(0, pc_cached_pages(self->fd));
	free(buf);
}

/*
 * Review 2, T8: uncached writers ask the flusher for writeback, coalesced,
 * instead of submitting it each for its own range (or, when they may not
 * block, each through a work item of its own).  Sixteen writers of 64 KiB
 * calls: the flusher's runs for them (reason "dontcache") are fewer than
 * the writes, and the data is written back and dropped.
 */
#define KICK_WRITERS 16
#define KICK_CALLS 32

TEST_F_TIMEOUT(fs, writers_kick_the_flusher, 300)
{
	size_t chunk = 64 * KiB;
	long runs;
	int status;
	pid_t pids[KICK_WRITERS];

	if (!trace_open() ||
	    !instance_write("events/writeback/writeback_start/enable", "1"))
		SKIP(return, "no writeback events in a trace instance");
	trace_clear();
	instance_write("tracing_on", "1");
	for (int w = 0; w < KICK_WRITERS; w++) {
		pids[w] = fork();
		ASSERT_LE(0, pids[w]);
		if (!pids[w]) {
			unsigned char *buf = malloc(chunk);
			char path[160];
			int fd;

			snprintf(path, sizeof(path), "%s.%d", self->path, w);
			fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
			if (fd < 0 || !buf)
				_exit(1);
			for (int i = 0; i < KICK_CALLS; i++) {
				pc_fill(buf, i * chunk, chunk, w);
				if (pc_rw2(true, fd, buf, chunk, i * chunk, RWF_UNCACHED) !=
				    (ssize_t)chunk)
					_exit(1);
			}
			_exit(fsync(fd) || pc_cached_pages(fd) ? 1 : 0);
		}
	}
	for (int w = 0; w < KICK_WRITERS; w++) {
		ASSERT_EQ(pids[w], waitpid(pids[w], &status, 0));
		EXPECT_EQ(0, status) TH_LOG("writer %d: a write failed or pages stayed", w);
	}
	runs = trace_count("reason=dontcache");
	trace_close();
	for (int w = 0; w < KICK_WRITERS; w++) {
		char path[160];

		snprintf(path, sizeof(path), "%s.%d", self->path, w);
		unlink(path);
	}
	TH_LOG("%d writes, %ld flusher runs for them", KICK_WRITERS * KICK_CALLS, runs);
	EXPECT_LT(0, runs) TH_LOG("the flusher never ran for uncached writes");
	EXPECT_GT(KICK_WRITERS * KICK_CALLS / 2, runs) TH_LOG("the kicks did not coalesce");
}

/*
 * Review 2, 0004: a read that stops short (a fault in its buffer) must not
 * drop marked folios it did not reach: they may be another uncached
 * reader's.  The other reader's folio is the one its 1000-byte uncached
 * read ended in, which it keeps for its next call.
 */
TEST_F_TIMEOUT(fs, short_read_leaves_other_readers_folios, 120)
{
	size_t len = MiB, at = 512 * KiB;
	unsigned char *dst, rec[1000];
	unsigned char *res;
	int other;

	make_written(self->path, &self->fd, len, 23);
	other = open(self->path, O_RDONLY);
	ASSERT_LE(0, other);
	ASSERT_EQ((ssize_t)sizeof(rec), pc_rw2(false, other, rec, sizeof(rec), at, RWF_UNCACHED));
	ASSERT_EQ(1, pc_cached_pages(self->fd)) TH_LOG("the other reader keeps the folio it ended in");
	/* this reader's uncached read of the whole range faults on its second page */
	dst = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, dst);
	ASSERT_EQ(0, mprotect(dst + PAGE, len - PAGE, PROT_NONE));
	EXPECT_EQ((ssize_t)PAGE, pc_rw2(false, self->fd, dst, len, 0, RWF_UNCACHED))
		TH_LOG("the short read copies one page");
	munmap(dst, len);
	res = pc_residency(self->fd, len);
	EXPECT_EQ(1, res[at / PAGE]) TH_LOG("the short read dropped the other reader's folio");
	EXPECT_EQ(0, res[0]) TH_LOG("... and kept the page it copied");
	free(res);
	ASSERT_EQ((ssize_t)sizeof(rec), pc_rw2(false, other, rec, sizeof(rec), at + sizeof(rec),
					       RWF_UNCACHED));
	EXPECT_GT(0, pc_check(rec, at + sizeof(rec), sizeof(rec), 23)) TH_LOG("the other reader's data");
	close(other);
}

/*
 * Review 2, 0006: an uncached read tries large folios only as a chance; a
 * failed costly attempt must not wake kswapd for that order, whose work on
 * the page cache uncached I/O exists to spare.  Whether an attempt fails
 * depends on the state of the buddy lists, which a test cannot set; what
 * it can see is the request itself: the page allocator's event gives the
 * order and gfp flags of each allocation of this task.  The uncached read
 * of a cold xfs file must ask for folios above the costly order (else the
 * test shows nothing), and none of them with __GFP_KSWAPD_RECLAIM, the bit
 * that has a failed attempt wake kswapd.
 */
#define COSTLY_ORDER_FILTER_LEN 128

static long uncached_costly_allocations(struct __test_metadata *_metadata, int fd, size_t len,
					unsigned char *buf, const char *gfp_test)
{
	char filter[COSTLY_ORDER_FILTER_LEN];

	/* order > PAGE_ALLOC_COSTLY_ORDER, this task only */
	snprintf(filter, sizeof(filter), "order > 3 && common_pid == %d%s", (int)getpid(), gfp_test);
	if (!instance_write("events/kmem/mm_page_alloc/filter", filter) ||
	    !instance_write("events/kmem/mm_page_alloc/enable", "1"))
		return -1;
	pc_drop_caches();
	trace_clear();
	instance_write("tracing_on", "1");
	for (size_t off = 0; off < len; off += MiB)
		EXPECT_EQ((ssize_t)MiB, pc_rw2(false, fd, buf, MiB, off, RWF_UNCACHED));
	return trace_count("mm_page_alloc");
}

TEST_F_TIMEOUT(fs, large_folio_attempts_leave_kswapd_asleep, 300)
{
	size_t len = 64 * MiB;
	unsigned char *buf;
	long costly, waking;

	if (!variant->large_folios)
		SKIP(return, "large folios for uncached reads (xfs)");
	if (!trace_open())
		SKIP(return, "no trace instances");
	buf = malloc(MiB);
	ASSERT_NE(NULL, buf);
	make_written(self->path, &self->fd, len, 25);
	costly = uncached_costly_allocations(_metadata, self->fd, len, buf, "");
	/* ___GFP_KSWAPD_RECLAIM is bit 11 of gfp_t (include/linux/gfp_types.h) */
	waking = uncached_costly_allocations(_metadata, self->fd, len, buf, " && gfp_flags & 0x800");
	trace_close();
	if (costly < 0)
		SKIP(goto out, "no kmem events in a trace instance");
	TH_LOG("allocations above the costly order: %ld, %ld of them able to wake kswapd",
	       costly, waking);
	EXPECT_LT(0, costly) TH_LOG("the uncached read asked for no large folio: nothing tested");
	EXPECT_EQ(0, waking) TH_LOG("a costly attempt of an uncached read can wake kswapd");
	EXPECT_EQ(0, pc_cached_pages(self->fd));
out:
	free(buf);
}

TEST_HARNESS_MAIN

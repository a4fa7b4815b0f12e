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
#include "pclab.h"

#include <liburing.h>
#include <poll.h>
#include <pthread.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>

#define WINDOW_DIR "/sys/kernel/debug/dropbehind_races/"

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

static long long read_number(const char *file)
{
	char buf[64] = "";
	int fd = open(file, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n > 0 ? atoll(buf) : -1;
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

/* Limit writes of the cgroup at dir to the disk dev to bps bytes a second */
static bool cgroup_limit_writes(const char *dir, dev_t dev, long bps)
{
	char file[160], rule[64];

	snprintf(file, sizeof(file), "%s/io.max", dir);
	snprintf(rule, sizeof(rule), "%u:%u wbps=%ld", major(dev), minor(dev), bps);
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
	ASSERT_TRUE(cgroup_limit_writes(cg, self->dev, 4096));
	quiet_flusher(&saved);
	pc_fill(buf, 0, sizeof(buf), 4);
	ASSERT_EQ(4096, pc_rw2(true, self->fd, buf, sizeof(buf), 0, RWF_UNCACHED));
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
 * The debug kernel's race windows (CONFIG_DEBUG_DROPBEHIND_RACES): arm a
 * window, and the next task that reaches that point of the drop-behind
 * path waits there until released, so that a test can run the competing
 * operation exactly inside it.
 */
static bool window_arm(const char *name)
{
	return write_file(WINDOW_DIR "window", name);
}

/* Wait until race_waiting reads held (1: a task waits in the window); false after limit s */
static bool window_wait(int held, double limit)
{
	double end = pclab_now() + limit;

	while (read_number(WINDOW_DIR "waiting") != held)
		if (pclab_now() > end)
			return false;
		else
			sleep_ms(10);
	return true;
}

static bool window_release(void)
{
	return write_file(WINDOW_DIR "release", "1");
}

/*
 * Finding 8: an ordinary reader that claims a marked folio while the
 * uncached reader that created it is deciding to drop it.  Exactly one of
 * them must win: the folio is counted claimed or dropped, never both, and
 * a claimed folio stays cached.
 */
TEST_F_TIMEOUT(fs, claim_and_drop_count_once, 120)
{
	long long marked, dropped, claimed;
	unsigned char buf[4096];
	pid_t reader;
	int status;

	if (access(WINDOW_DIR "window", W_OK))
		SKIP(return, "a kernel without CONFIG_DEBUG_DROPBEHIND_RACES");
	close(self->fd);
	pc_make_cold_file(self->path, sizeof(buf), 10);
	self->fd = open(self->path, O_RDONLY);
	ASSERT_LE(0, self->fd);
	marked = pclab_vmstat("dropbehind_marked");
	dropped = pclab_vmstat("dropbehind_read");
	claimed = pclab_vmstat("dropbehind_kept_claimed");
	ASSERT_TRUE(window_arm("claim"));
	reader = fork();
	ASSERT_LE(0, reader);
	if (!reader)
		_exit(pc_rw2(false, self->fd, buf, sizeof(buf), 0, RWF_UNCACHED) ==
		      sizeof(buf) ? 0 : 1);
	EXPECT_TRUE(window_wait(1, 60)) TH_LOG("the uncached reader never reached the window");
	/* the ordinary reader claims the folio inside the window */
	EXPECT_EQ((ssize_t)sizeof(buf), pread(self->fd, buf, sizeof(buf), 0));
	EXPECT_TRUE(window_release());
	ASSERT_EQ(reader, waitpid(reader, &status, 0));
	EXPECT_EQ(0, status);
	marked = pclab_vmstat("dropbehind_marked") - marked;
	dropped = pclab_vmstat("dropbehind_read") - dropped;
	claimed = pclab_vmstat("dropbehind_kept_claimed") - claimed;
	TH_LOG("marked %lld, dropped %lld, claimed %lld", marked, dropped, claimed);
	EXPECT_EQ(1, marked);
	EXPECT_EQ(marked, dropped + claimed) TH_LOG("one folio counted twice");
	EXPECT_EQ(1, pc_cached_pages(self->fd)) TH_LOG("the claimed folio was dropped");
}

/*
 * Finding 2: the drop after writeback runs where nothing holds the file.
 * Once the folio has left the page cache, the inode may be evicted and
 * freed at any time; the drop must not touch the mapping after that.  The
 * window holds the dropper right after the removal while this test closes
 * and unlinks the file, and lets it go once the inode is freed, with the
 * freed inode's a_ops poisoned as if the memory had been reused, so that a
 * use of the mapping oopses at once.  xfs frees its inodes later, from a
 * background worker, so only ext4 shows it.
 */
TEST_F_TIMEOUT(fs, drop_after_writeback_outlives_inode, 120)
{
	unsigned char buf[4096];
	long long poisoned;

	if (variant->large_folios)
		SKIP(return, "xfs frees inodes later, from its reclaim worker");
	if (access(WINDOW_DIR "window", W_OK))
		SKIP(return, "a kernel without CONFIG_DEBUG_DROPBEHIND_RACES");
	poisoned = read_number(WINDOW_DIR "poisoned");
	pc_fill(buf, 0, sizeof(buf), 11);
	ASSERT_TRUE(window_arm("free"));
	ASSERT_EQ((ssize_t)sizeof(buf), pc_rw2(true, self->fd, buf, sizeof(buf), 0, RWF_UNCACHED));
	ASSERT_TRUE(window_wait(1, 60)) TH_LOG("no drop after writeback reached the window");
	close(self->fd);
	self->fd = -1;
	ASSERT_EQ(0, unlink(self->path));
	ASSERT_TRUE(window_release());
	/* the dropper goes on once the inode is freed; a use of it oopses */
	EXPECT_TRUE(window_wait(0, 60)) TH_LOG("the dropper never left the window");
	EXPECT_EQ(poisoned + 1, read_number(WINDOW_DIR "poisoned"))
		TH_LOG("the inode was not freed while the dropper was held");
}

/*
 * Finding 1: an fsync must not wait for the drops after writeback of
 * other files, let alone of other filesystems: a slow device, or a drop
 * that waits for a folio lock, would otherwise delay every fsync in the
 * system.  The window holds the task that drops this file's folio after
 * its writeback; meanwhile another file on the other filesystem is
 * written and fsynced, and must be done while the drop is still held.
 */
TEST_F_TIMEOUT(fs, fsync_independent_of_other_drops, 120)
{
	unsigned char buf[4096];
	char victim[160];
	int vfd;

	if (access(WINDOW_DIR "window", W_OK))
		SKIP(return, "a kernel without CONFIG_DEBUG_DROPBEHIND_RACES");
	if (!pc_mounted(variant->other))
		SKIP(return, "%s is not mounted", variant->other);
	snprintf(victim, sizeof(victim), "%s/fsync-victim.%d", variant->other, getpid());
	vfd = open(victim, O_RDWR | O_CREAT | O_TRUNC, 0644);
	ASSERT_LE(0, vfd);
	pc_fill(buf, 0, sizeof(buf), 12);
	ASSERT_TRUE(window_arm("free"));
	ASSERT_EQ((ssize_t)sizeof(buf), pc_rw2(true, self->fd, buf, sizeof(buf), 0, RWF_UNCACHED));
	ASSERT_TRUE(window_wait(1, 60)) TH_LOG("no drop after writeback reached the window");
	EXPECT_EQ((ssize_t)sizeof(buf), pwrite(vfd, buf, sizeof(buf), 0));
	EXPECT_EQ(0, fsync(vfd));
	EXPECT_EQ(1, read_number(WINDOW_DIR "waiting"))
		TH_LOG("the fsync returned only once the other file's drop was let go");
	EXPECT_TRUE(window_release());
	EXPECT_TRUE(window_wait(0, 60));
	close(vfd);
	unlink(victim);
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

TEST_HARNESS_MAIN

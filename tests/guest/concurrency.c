// SPDX-License-Identifier: GPL-2.0
/*
 * Processes and threads racing on one file with uncached and ordinary I/O,
 * an mmap reader among them, and a reader racing truncate; then the same
 * under a small memcg limit, so that reclaim runs beside drop-behind.
 *
 * Every 4 KiB block is self-describing (owner, block number, version and a
 * pattern derived from them).  Writers own disjoint blocks and publish a
 * sequence count per block around each write; a reader that sees the same
 * even count before and after its read must find exactly that version.
 * One fixture variant per filesystem, alone or in the small memcg.
 *
 * Usage: [PCLAB_SECONDS=SECONDS] concurrency [kselftest options]
 * (the environment, because the harness owns the command line)
 */
#include "suite.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/wait.h>
#include <time.h>

#define NBLOCKS 1024			/* 4 MiB file */
#define NWRITERS 4
#define NREADERS 2			/* processes, each with 2 threads */
#define MAGIC 0x70636c6162ull		/* "pclab" */

struct header {
	uint64_t magic, owner, block, version;
};

struct shared {
	atomic_uint seq[NBLOCKS];	/* odd while a write is in flight */
	atomic_int stop;
	atomic_ulong reads, writes, checked;
	atomic_int failed;
	char why[256];
};

static struct shared *sh;
static char path[256];		/* the file all workers share */
static int seconds = 8;

static void fill_block(unsigned char *b, uint64_t block, uint64_t version)
{
	struct header h = { MAGIC, block % NWRITERS, block, version };

	memcpy(b, &h, sizeof(h));
	for (size_t i = sizeof(h); i < PAGE; i++)
		b[i] = (unsigned char)((block * 131 + version * 7 + i) >> (i % 3));
}

/* True if b is exactly (block, version); version 0 is a block of zeros. */
static bool block_is(const unsigned char *b, uint64_t block, uint64_t version)
{
	unsigned char want[PAGE];

	if (version == 0) {
		for (size_t i = 0; i < PAGE; i++)
			if (b[i])
				return false;
		return true;
	}
	fill_block(want, block, version);
	return !memcmp(b, want, PAGE);
}

static void fail(const char *fmt, ...)
{
	va_list ap;

	if (atomic_exchange(&sh->failed, 1))
		return;
	va_start(ap, fmt);
	vsnprintf(sh->why, sizeof(sh->why), fmt, ap);
	va_end(ap);
	atomic_store(&sh->stop, 1);
}

static unsigned long long rnd(unsigned long long *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dull;
}

static void writer(int id)
{
	static const int flags[] = { RWF_UNCACHED, RWF_UNCACHED, 0, RWF_UNCACHED | RWF_DSYNC };
	unsigned long long s = 0x1234 + id;
	unsigned char b[PAGE];
	int fd = open(path, O_RDWR);

	if (fd < 0)
		_exit(1);
	while (!atomic_load(&sh->stop)) {
		uint64_t block = (rnd(&s) % (NBLOCKS / NWRITERS)) * NWRITERS + id;
		unsigned int seq = atomic_load(&sh->seq[block]);

		fill_block(b, block, seq / 2 + 1);
		atomic_store(&sh->seq[block], seq + 1);
		if (pwritev2(fd, &(struct iovec){ b, PAGE }, 1, block * PAGE,
			     flags[rnd(&s) % 4]) != PAGE)
			fail("writer %d: write of block %llu failed: %s", id,
			     (unsigned long long)block, strerror(errno));
		atomic_store(&sh->seq[block], seq + 2);
		atomic_fetch_add(&sh->writes, 1);
	}
	close(fd);
	_exit(0);
}

/* Check one block read while its writer may be busy: only stable reads count. */
static void check_read(const unsigned char *b, uint64_t block, unsigned int before,
		       const char *who)
{
	unsigned int after = atomic_load(&sh->seq[block]);

	if (before != after || (before & 1))
		return;
	atomic_fetch_add(&sh->checked, 1);
	if (!block_is(b, block, before / 2)) {
		const struct header *h = (const void *)b;

		fail("%s: block %llu should be version %u, holds magic %llx block %llu version %llu",
		     who, (unsigned long long)block, before / 2, (unsigned long long)h->magic,
		     (unsigned long long)h->block, (unsigned long long)h->version);
	}
}

static void *reader_thread(void *arg)
{
	unsigned long long s = (uintptr_t)arg;
	unsigned char *b = malloc(16 * PAGE);
	int fd = open(path, O_RDONLY);

	if (fd < 0 || !b) {
		fail("reader: open: %s", strerror(errno));
		free(b);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	while (!atomic_load(&sh->stop)) {
		uint64_t first = rnd(&s) % (NBLOCKS - 16), n = 1 + rnd(&s) % 16;
		unsigned int before[16];
		int flags = rnd(&s) % 3 ? RWF_UNCACHED : 0;

		for (uint64_t i = 0; i < n; i++)
			before[i] = atomic_load(&sh->seq[first + i]);
		if (preadv2(fd, &(struct iovec){ b, n * PAGE }, 1, first * PAGE, flags) !=
		    (ssize_t)(n * PAGE)) {
			fail("reader: short or failed read at block %llu: %s",
			     (unsigned long long)first, strerror(errno));
			break;
		}
		for (uint64_t i = 0; i < n; i++)
			check_read(b + i * PAGE, first + i, before[i], "reader");
		atomic_fetch_add(&sh->reads, 1);
	}
	close(fd);
	free(b);
	return NULL;
}

static void reader(int id)
{
	pthread_t t[2];

	for (uintptr_t i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, reader_thread, (void *)(0x9000 + id * 2 + i));
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	_exit(0);
}

static void mapper(void)
{
	unsigned long long s = 0x77;
	int fd = open(path, O_RDONLY);
	unsigned char *map = mmap(NULL, NBLOCKS * PAGE, PROT_READ, MAP_SHARED, fd, 0);
	unsigned char b[PAGE];

	if (map == MAP_FAILED)
		_exit(1);
	while (!atomic_load(&sh->stop)) {
		uint64_t block = rnd(&s) % NBLOCKS;
		unsigned int before = atomic_load(&sh->seq[block]);

		memcpy(b, map + block * PAGE, PAGE);
		check_read(b, block, before, "mmap reader");
	}
	_exit(0);
}

/* One process truncates a second file up and down while another reads it. */
static void truncate_race(const char *dir)
{
	char tpath[256];
	pid_t pid;
	int fd;

	snprintf(tpath, sizeof(tpath), "%s/concurrency-truncate", dir);
	fd = open(tpath, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		_exit(1);
	pid = fork();
	if (pid == 0) {
		unsigned long long s = 5;

		while (!atomic_load(&sh->stop))
			if (ftruncate(fd, (rnd(&s) % 256) * PAGE))
				_exit(1);
		_exit(0);
	}
	{
		unsigned char b[8 * PAGE];
		unsigned long long s = 9;

		while (!atomic_load(&sh->stop)) {
			off_t off = (rnd(&s) % 256) * PAGE;
			ssize_t n = preadv2(fd, &(struct iovec){ b, sizeof(b) }, 1, off, RWF_UNCACHED);

			if (n < 0)
				fail("truncate race: read failed: %s", strerror(errno));
			for (ssize_t i = 0; i < n; i++)
				if (b[i])
					fail("truncate race: nonzero byte in a file of holes");
			if (rnd(&s) % 4 == 0)
				pwritev2(fd, &(struct iovec){ (unsigned char[PAGE]){ 0 }, PAGE }, 1,
					 off, RWF_UNCACHED);
		}
	}
	waitpid(pid, NULL, 0);
	close(fd);
	unlink(tpath);
	_exit(0);
}

/* Buffered streaming over 32 MiB, to keep a small memcg reclaiming. */
static void streamer(const char *dir)
{
	char spath[256];
	unsigned char *b = malloc(MiB);
	int fd;

	snprintf(spath, sizeof(spath), "%s/concurrency-stream", dir);
	fd = open(spath, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || !b)
		_exit(1);
	memset(b, 0xa5, MiB);
	for (int i = 0; i < 32; i++)
		if (write(fd, b, MiB) != (ssize_t)MiB)
			_exit(1);
	while (!atomic_load(&sh->stop))
		for (off_t off = 0; off < 32 * (off_t)MiB && !atomic_load(&sh->stop); off += MiB)
			if (pread(fd, b, MiB, off) != (ssize_t)MiB)
				_exit(1);
	close(fd);
	unlink(spath);
	_exit(0);
}

static bool verify_final(void)
{
	unsigned char b[PAGE];
	int fd = open(path, O_RDONLY);
	bool good = true;

	pc_drop_caches();
	for (uint64_t block = 0; block < NBLOCKS && good; block++) {
		unsigned int seq = atomic_load(&sh->seq[block]);

		good = pread(fd, b, PAGE, block * PAGE) == PAGE && block_is(b, block, seq / 2);
		if (!good)
			ksft_print_msg("block %llu is not version %u on disk\n",
				       (unsigned long long)block, seq / 2);
	}
	close(fd);
	return good;
}

/* Move this process into a memcg limited to limit_mb MiB; false if none. */
static bool enter_memcg(const char *name, int limit_mb)
{
	char p[128], v[32];

	snprintf(p, sizeof(p), "/sys/fs/cgroup/%s", name);
	if (mkdir(p, 0755) && errno != EEXIST)
		return false;
	if (access("/sys/fs/cgroup/cgroup.subtree_control", W_OK) == 0)
		pc_write_file("/sys/fs/cgroup/cgroup.subtree_control", "+memory");
	snprintf(p, sizeof(p), "/sys/fs/cgroup/%s/memory.max", name);
	snprintf(v, sizeof(v), "%dM", limit_mb);
	pc_write_file(p, v);
	snprintf(p, sizeof(p), "/sys/fs/cgroup/%s/cgroup.procs", name);
	snprintf(v, sizeof(v), "%d", getpid());
	pc_write_file(p, v);
	return true;
}

static long long memcg_max_events(void)
{
	FILE *f = fopen("/sys/fs/cgroup/pclab-pressure/memory.events", "r");
	long long value = -1;
	char key[32];

	while (f && fscanf(f, "%31s %lld", key, &value) == 2)
		if (!strcmp(key, "max"))
			break;
	if (f)
		fclose(f);
	return value;
}

FIXTURE(fs) {
	long long max_events;	/* memory.events max before the run */
};

FIXTURE_VARIANT(fs) {
	const char *mnt;
	bool pressure;	/* in a 16 MiB memcg beside a 32 MiB buffered streamer */
};

FIXTURE_VARIANT_ADD(fs, ext4) {
	.mnt = "/mnt/ext4",
	.pressure = false,
};

FIXTURE_VARIANT_ADD(fs, xfs) {
	.mnt = "/mnt/xfs",
	.pressure = false,
};

FIXTURE_VARIANT_ADD(fs, ext4_memcg) {
	.mnt = "/mnt/ext4",
	.pressure = true,
};

FIXTURE_VARIANT_ADD(fs, xfs_memcg) {
	.mnt = "/mnt/xfs",
	.pressure = true,
};

FIXTURE_SETUP(fs)
{
	const char *s = getenv("PCLAB_SECONDS");
	int fd;

	pc_test_start(_metadata);
	if (!pc_mounted(variant->mnt))
		SKIP(return, "%s is not mounted", variant->mnt);
	/* The test process alone goes into the memcg; the harness stays out. */
	if (variant->pressure && !enter_memcg("pclab-pressure", 16))
		SKIP(return, "no memcg: the same under memory pressure");
	self->max_events = variant->pressure ? memcg_max_events() : 0;
	if (s && *s)
		seconds = atoi(s);
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		pc_die("mmap shared");
	memset(sh, 0, sizeof(*sh));
	snprintf(path, sizeof(path), "%s/concurrency-test", variant->mnt);
	fd = pc_open(path, O_RDWR | O_CREAT | O_TRUNC);
	if (ftruncate(fd, NBLOCKS * PAGE))
		pc_die(path);
	close(fd);
}

FIXTURE_TEARDOWN(fs)
{
	if (path[0])
		unlink(path);
}

/*
 * The workers run PCLAB_SECONDS (8 by default), then the whole file is read
 * back from the disk; the suite's 300 s default limit, meant for TCG, covers
 * both with room to spare.
 */
TEST_F(fs, racing_readers_and_writers)
{
	pid_t pids[NWRITERS + NREADERS + 3];
	int n = 0, status;
	time_t start = time(NULL);

	for (int i = 0; i < NWRITERS; i++)
		if ((pids[n++] = fork()) == 0)
			writer(i);
	for (int i = 0; i < NREADERS; i++)
		if ((pids[n++] = fork()) == 0)
			reader(i);
	if ((pids[n++] = fork()) == 0)
		mapper();
	if ((pids[n++] = fork()) == 0)
		truncate_race(variant->mnt);
	if (variant->pressure && (pids[n++] = fork()) == 0)
		streamer(variant->mnt);
	while (!atomic_load(&sh->stop) && time(NULL) - start < seconds)
		usleep(100 * 1000);
	atomic_store(&sh->stop, 1);
	for (int i = 0; i < n; i++) {
		waitpid(pids[i], &status, 0);
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			fail("worker %d ended with status %#x", i, status);
	}
	TH_LOG("%d writers, %d readers x2 threads, mmap reader, truncate race%s for %ds: "
	       "%lu writes, %lu reads, %lu stable blocks checked", NWRITERS, NREADERS,
	       variant->pressure ? ", buffered streamer" : "", seconds,
	       atomic_load(&sh->writes), atomic_load(&sh->reads), atomic_load(&sh->checked));
	EXPECT_EQ(0, atomic_load(&sh->failed)) TH_LOG("%s", sh->why);
	EXPECT_TRUE(verify_final()) TH_LOG("every block on disk is its last written version");
	if (variant->pressure) {
		EXPECT_LT(self->max_events, memcg_max_events())
			TH_LOG("reclaim ran in the memcg during the run (memory.events max)");
	}
}

TEST_HARNESS_MAIN

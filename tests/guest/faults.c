// SPDX-License-Identifier: GPL-2.0
/*
 * Injected faults during uncached I/O: page and slab allocation failures
 * aimed at the test process (fail_page_alloc, failslab with task-filter),
 * and a failing disk request during uncached writeback (fail_make_request).
 * Calls may fail or come up short; fsync must report the write error; no
 * data may be lost or made stale beyond what the calls reported; the
 * kernel log must stay free of warnings (the host checks it).  One fixture
 * variant: the disk that the guest mounts for fault injection.
 */
#include "suite.h"

#include <sys/sysmacros.h>
#include <sys/wait.h>

#define FILE_SIZE (2 * MiB)
#define DBG "/sys/kernel/debug/"
#define TIMES 1000000

static unsigned char *model;	/* shared with the child: what the file holds */

static void knob(const char *file, const char *value)
{
	pc_write_file(file, value);
}

static long knob_read(const char *file)
{
	FILE *f = fopen(file, "r");
	long v = -1;

	if (!f || fscanf(f, "%ld", &v) != 1)
		pc_die(file);
	fclose(f);
	return v;
}

static void arm(const char *dir, const char *probability)
{
	char p[128], times[32];

	snprintf(times, sizeof(times), "%d", TIMES);
#define SET(name, value) (snprintf(p, sizeof(p), DBG "%s/" name, dir), knob(p, value))
	SET("probability", probability);
	SET("interval", "1");
	SET("times", times);
	SET("verbose", "0");
	SET("task-filter", "Y");
	SET("ignore-gfp-wait", "N");
	if (!strcmp(dir, "fail_page_alloc")) {
		/* page cache folios are highmem-capable order-0 allocations */
		SET("ignore-gfp-highmem", "N");
		SET("min-order", "0");
	}
#undef SET
}

/* Turn failures on or off for this task; the write itself may be failed. */
static bool set_make_it_fail(const char *value)
{
	for (int tries = 0; tries < 1000; tries++) {
		int fd = open("/proc/self/make-it-fail", O_WRONLY);

		if (fd >= 0 && write(fd, value, 1) == 1) {
			close(fd);
			return true;
		}
		if (fd >= 0)
			close(fd);
	}
	return false;
}

static long injected(const char *dir)
{
	char p[128];

	snprintf(p, sizeof(p), DBG "%s/times", dir);
	return TIMES - knob_read(p);
}

/*
 * The child does uncached reads and writes with allocations failing at
 * random; every byte a write reports is recorded in the shared model, and
 * every byte a read returns must match it.
 */
static int child(const char *path)
{
	unsigned char *buf = malloc(256 * KiB), stack[16 * KiB];
	unsigned long long s = 42;
	int fd = open(path, O_RDWR), bad = 0;

	memset(stack, 0, sizeof(stack));	/* fault the stack in now */
	if (fd < 0 || !buf || mlockall(MCL_CURRENT | MCL_FUTURE))
		return 10;
	memset(buf, 0, 256 * KiB);
	if (!set_make_it_fail("1"))
		return 11;
	for (int i = 0; i < 300 && !bad; i++) {
		size_t off, len;
		ssize_t n;

		s ^= s << 13; s ^= s >> 7; s ^= s << 17;
		off = s % FILE_SIZE;
		len = 1 + (s >> 24) % (256 * KiB);
		if (off + len > FILE_SIZE)
			len = FILE_SIZE - off;
		if (i % 2) {
			for (size_t j = 0; j < len; j++)
				buf[j] = (unsigned char)(i + j);
			n = pwritev2(fd, &(struct iovec){ buf, len }, 1, off, RWF_UNCACHED);
			if (n > 0)
				memcpy(model + off, buf, n);
		} else {
			n = preadv2(fd, &(struct iovec){ buf, len }, 1, off, RWF_UNCACHED);
			if (n > 0 && memcmp(buf, model + off, n))
				bad = 1;
		}
		if (n < 0 && errno != ENOMEM && errno != EFAULT && errno != EIO && errno != EINTR)
			bad = 2;
	}
	if (!set_make_it_fail("0"))
		return 12;
	close(fd);
	return bad;
}

FIXTURE(faults) {
	char path[256];
};

FIXTURE_VARIANT(faults) {
	const char *mnt;
};

FIXTURE_VARIANT_ADD(faults, ext4_faults) {
	.mnt = "/mnt/ext4-faults",
};

FIXTURE_SETUP(faults)
{
	pc_test_start(_metadata);
	if (!pc_mounted(variant->mnt))
		SKIP(return, "%s is not mounted: no fault-injection disk", variant->mnt);
	if (access(DBG "fail_page_alloc", F_OK))
		SKIP(return, "no fault injection in debugfs");
	model = mmap(NULL, FILE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (model == MAP_FAILED)
		pc_die("mmap");
	snprintf(self->path, sizeof(self->path), "%s/faults-test", variant->mnt);
}

FIXTURE_TEARDOWN(faults)
{
	if (self->path[0])
		unlink(self->path);
}

/* kind: a directory of debugfs, fail_page_alloc or failslab */
static void alloc_failures(struct __test_metadata *_metadata, const char *path, const char *kind)
{
	unsigned char *disk = malloc(FILE_SIZE);
	char probability[128];
	int status, fd;
	pid_t pid;

	if (!disk)
		pc_die("malloc");
	pc_make_cold_file(path, FILE_SIZE, 1);
	fd = pc_open(path, O_RDONLY);
	if (pread(fd, model, FILE_SIZE, 0) != (ssize_t)FILE_SIZE)
		pc_die(path);
	close(fd);
	arm(kind, "10");
	pc_drop_caches();
	pid = fork();
	if (pid == 0)
		_exit(child(path));
	waitpid(pid, &status, 0);
	snprintf(probability, sizeof(probability), DBG "%s/probability", kind);
	knob(probability, "0");
	EXPECT_EQ(0, WIFEXITED(status) ? WEXITSTATUS(status) : -1)
		TH_LOG("%s at 10%% (%ld failures injected): 300 uncached reads and writes return "
		       "data, errors or short counts, never wrong data (status %#x: 1 wrong data, "
		       "2 an unexpected error)", kind, injected(kind), status);
	fd = pc_open(path, O_RDONLY);
	fsync(fd);
	pc_drop_caches();
	EXPECT_EQ(FILE_SIZE, pread(fd, disk, FILE_SIZE, 0)) TH_LOG("... the file reads back");
	EXPECT_EQ(0, memcmp(disk, model, FILE_SIZE))
		TH_LOG("... afterwards the file holds exactly what the calls reported");
	close(fd);
	free(disk);
}

TEST_F(faults, page_alloc_failures)
{
	alloc_failures(_metadata, self->path, "fail_page_alloc");
}

TEST_F(faults, slab_failures)
{
	alloc_failures(_metadata, self->path, "failslab");
}

/* The first request to the disk fails: the uncached write's writeback. */
TEST_F(faults, write_error)
{
	unsigned char *buf = malloc(MiB), *back = malloc(MiB);
	char sysfail[128];
	struct stat st;
	int fd, err;

	if (!buf || !back)
		pc_die("malloc");
	pc_make_cold_file(self->path, MiB, 1);
	if (stat(self->path, &st))
		pc_die(self->path);
	snprintf(sysfail, sizeof(sysfail), "/sys/dev/block/%u:%u/make-it-fail",
		 major(st.st_dev), minor(st.st_dev));
	fd = pc_open(self->path, O_RDWR);
	pc_fill(buf, 0, MiB, 2);
	knob(DBG "fail_make_request/probability", "100");
	knob(DBG "fail_make_request/interval", "1");
	knob(DBG "fail_make_request/times", "1");
	knob(DBG "fail_make_request/verbose", "0");
	knob(sysfail, "1");
	EXPECT_EQ(MiB, pc_rw2(true, fd, buf, MiB, 0, RWF_UNCACHED))
		TH_LOG("uncached write with the disk failing its next request");
	err = fsync(fd) ? errno : 0;
	knob(sysfail, "0");
	EXPECT_EQ(EIO, err) TH_LOG("... fsync reports the writeback error (%s)", strerror(err));
	EXPECT_EQ(0, fsync(fd)) TH_LOG("... once: the next fsync succeeds");
	EXPECT_EQ(0, pc_cached_pages(fd)) TH_LOG("... and the folios are gone from the cache");
	EXPECT_EQ(MiB, pc_rw2(true, fd, buf, MiB, 0, RWF_UNCACHED)) TH_LOG("writing again succeeds");
	EXPECT_EQ(0, fsync(fd)) TH_LOG("writing again succeeds, fsync included");
	pc_drop_caches();
	EXPECT_EQ(MiB, pread(fd, back, MiB, 0)) TH_LOG("... and the data reads back from disk");
	EXPECT_EQ(0, memcmp(back, buf, MiB)) TH_LOG("... the data it was written");
	close(fd);
	unlink(self->path);
	free(buf);
	free(back);
}

TEST_HARNESS_MAIN

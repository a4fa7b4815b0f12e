/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by pclab's in-guest C tests, which run on the kernel's
 * kselftest harness (included here): page-cache residency through
 * cachestat(2) (lib/'s) and mincore(2), test files with a known pattern, and
 * the RWF_UNCACHED flag from the patched UAPI headers.  Linked with lib/.
 */
#ifndef PCLAB_TEST_SUITE_H
#define PCLAB_TEST_SUITE_H

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "pclab/cachestat.h"
#include "pclab/clock.h"
#include "pclab/sysstat.h"
#include "pclab/uncached.h"

#include "kselftest_harness.h"

/*
 * The harness kills a test after 30 s by default.  The guest runs under
 * QEMU's emulator (TCG, no KVM on the machines that run the checks), 10 to
 * 50 times slower than hardware, where one test's 8 MiB of writes, fsyncs
 * and drop_caches already take seconds: a limit meant to catch a hang, not
 * a slow machine.  Tests with a limit of their own (longer, or shorter to
 * catch a hang early) give it with TEST_F_TIMEOUT.
 */
#undef TEST_TIMEOUT_DEFAULT
#define TEST_TIMEOUT_DEFAULT 300

#define KiB 1024ul
#define MiB (1024ul * 1024ul)
#define PAGE 4096ul

/*
 * The test running in this process: each fixture's setup (and each TEST)
 * calls pc_test_start(), so that a helper below that cannot go on fails
 * that test the way a failed ASSERT does, and the suite goes on.
 */
static struct __test_metadata *pc_running;

static inline void pc_test_start(struct __test_metadata *test)
{
	pc_running = test;
}

/*
 * Fail the running test: a "# file:line:test:" line like the harness's own,
 * then the longjmp of a failed ASSERT, so the fixture's teardown still runs.
 * Outside a test (no pc_test_start()), the process exits failed.
 */
#define pc_die(what) pc_fail(__FILE__, __LINE__, what)

static inline __attribute__((noreturn)) void pc_fail(const char *file, int line, const char *what)
{
	struct __test_metadata *test = pc_running;

	fprintf(stderr, "# %s:%d:%s:%s: %s\n", file, line, test ? test->name : "-", what,
		strerror(errno));
	if (!test)
		exit(KSFT_FAIL);
	test->exit_code = KSFT_FAIL;
	__bail(1, test);
	__builtin_unreachable();
}

/* open(2) of a file that must open */
static inline int pc_open(const char *path, int flags)
{
	int fd = open(path, flags, 0644);

	if (fd < 0)
		pc_die(path);
	return fd;
}

/* True if dir is a mount point: the scratch disks are at /mnt/NAME, or absent. */
static inline bool pc_mounted(const char *dir)
{
	char parent[256];
	struct stat st, pst;

	snprintf(parent, sizeof(parent), "%s/..", dir);
	return !stat(dir, &st) && !stat(parent, &pst) && st.st_dev != pst.st_dev;
}

/* Page-cache state of [off, off + len) of fd (len 0: to the end); fails the test if it cannot */
static inline struct pclab_cachestat pc_cachestat(int fd, off_t off, size_t len)
{
	struct pclab_cachestat cs;

	if (pclab_cachestat(fd, off, len, &cs))
		pc_die("cachestat");
	return cs;
}

static inline uint64_t pc_cached_pages(int fd)
{
	return pc_cachestat(fd, 0, 0).nr_cache;
}

/*
 * Waits for the pages an uncached write left in fd's cache to go, at most
 * 60 s; returns the seconds waited.  The drop comes with the completion of
 * their writeback, so once no page of fd has been dirty or under writeback
 * for 10 s the pages still cached are kept for good: a kernel that keeps
 * them fails in seconds rather than at the limit.
 */
static inline double pc_wait_written_dropped(int fd)
{
	int tenths, idle = 0;

	for (tenths = 0; tenths < 600 && idle < 100; tenths++) {
		struct pclab_cachestat cs = pc_cachestat(fd, 0, 0);

		if (!cs.nr_cache)
			break;
		idle = cs.nr_dirty || cs.nr_writeback ? 0 : idle + 1;
		usleep(100 * 1000);
	}
	return tenths / 10.0;
}

/* One byte per page of the first len bytes: 1 if resident.  Caller frees. */
static inline unsigned char *pc_residency(int fd, size_t len)
{
	size_t pages = (len + PAGE - 1) / PAGE;
	unsigned char *vec = malloc(pages);
	void *map;

	if (!vec)
		pc_die("malloc");
	/* mincore is only trustworthy when we could write the file */
	map = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		pc_die("mmap for mincore");
	if (mincore(map, len, vec))
		pc_die("mincore");
	munmap(map, len);
	for (size_t i = 0; i < pages; i++)
		vec[i] &= 1;
	return vec;
}

/* The errno of a call that should have failed, 0 if it succeeded. */
static inline int pc_refused(ssize_t ret)
{
	return ret < 0 ? errno : 0;
}

/* Write a short string to a sysfs/procfs/debugfs file. */
static inline void pc_write_file(const char *file, const char *value)
{
	int fd = open(file, O_WRONLY);

	if (fd < 0 || write(fd, value, strlen(value)) != (ssize_t)strlen(value))
		pc_die(file);
	close(fd);
}

static inline void pc_drop_caches(void)
{
	sync();
	pc_write_file("/proc/sys/vm/drop_caches", "3");
}

/*
 * Unmount the filesystem at dir and mount it again, so that what is read
 * next comes from the disk.  Raw system calls: glibc's <sys/mount.h> clashes
 * with <linux/fs.h>.
 */
static inline bool pc_remount(const char *dir)
{
	char dev[64], mnt[128], type[32];
	bool found = false;
	FILE *f = fopen("/proc/mounts", "r");

	while (f && fscanf(f, "%63s %127s %31s %*[^\n]", dev, mnt, type) == 3)
		if (!strcmp(mnt, dir)) {
			found = true;
			break;
		}
	if (f)
		fclose(f);
	return found && !syscall(SYS_umount2, dir, 0) &&
	       !syscall(SYS_mount, dev, dir, type, 0, NULL);
}

/* The byte at file offset off of a pattern file made with seed. */
static inline unsigned char pc_pattern(uint64_t off, unsigned int seed)
{
	uint64_t x = (off / 8) * 0x9e3779b97f4a7c15ull + seed;

	x ^= x >> 29;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 32;
	return (unsigned char)(x >> (8 * (off % 8)));
}

static inline void pc_fill(unsigned char *buf, uint64_t off, size_t len, unsigned int seed)
{
	for (size_t i = 0; i < len; i++)
		buf[i] = pc_pattern(off + i, seed);
}

/* Offset of the first byte of buf that differs from the pattern, or -1. */
static inline long pc_check(const unsigned char *buf, uint64_t off, size_t len,
			    unsigned int seed)
{
	for (size_t i = 0; i < len; i++)
		if (buf[i] != pc_pattern(off + i, seed))
			return (long)i;
	return -1;
}

/* Create path with len bytes of pattern, written back and not cached. */
static inline void pc_make_cold_file(const char *path, size_t len, unsigned int seed)
{
	unsigned char *buf = malloc(MiB);
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);

	if (fd < 0 || !buf)
		pc_die(path);
	for (size_t off = 0; off < len; off += MiB) {
		size_t n = len - off < MiB ? len - off : MiB;

		pc_fill(buf, off, n, seed);
		if (pwrite(fd, buf, n, off) != (ssize_t)n)
			pc_die("pwrite");
	}
	if (fsync(fd))
		pc_die("fsync");
	close(fd);
	free(buf);
	pc_drop_caches();
}

/*
 * The variants of fixture fs for a suite that runs on ext4 and on xfs:
 * variant->mnt is the scratch filesystem's mount point.
 */
#define PC_FS_VARIANTS_EXT4_XFS				\
	FIXTURE_VARIANT(fs) {				\
		const char *mnt;			\
	};						\
	FIXTURE_VARIANT_ADD(fs, ext4) {			\
		.mnt = "/mnt/ext4",			\
	};						\
	FIXTURE_VARIANT_ADD(fs, xfs) {			\
		.mnt = "/mnt/xfs",			\
	}

/* A fixture's test file mnt/name, len bytes, cold: its path and an O_RDWR fd. */
static inline int pc_fixture_file(char *path, size_t size, const char *mnt, const char *name,
				  size_t len)
{
	snprintf(path, size, "%s/%s", mnt, name);
	pc_make_cold_file(path, len, 1);
	return pc_open(path, O_RDWR);
}

/* Undoes pc_fixture_file(): fd -1 and an empty path are left alone. */
static inline void pc_fixture_done(int fd, const char *path)
{
	if (fd >= 0)
		close(fd);
	if (path[0])
		unlink(path);
}

/*
 * Fixture fs of a suite whose tests each get a cold test file of len bytes
 * (self->path, open O_RDWR as self->fd), on ext4 and on xfs; a test SKIPs
 * where its filesystem is not mounted.
 */
#define PC_FS_FILE_FIXTURE(name, len)						\
	FIXTURE(fs) {								\
		char path[256];							\
		int fd;								\
	};									\
	PC_FS_VARIANTS_EXT4_XFS;						\
	FIXTURE_SETUP(fs)							\
	{									\
		pc_test_start(_metadata);					\
		self->fd = -1;							\
		if (!pc_mounted(variant->mnt))					\
			SKIP(return, "%s is not mounted", variant->mnt);	\
		self->fd = pc_fixture_file(self->path, sizeof(self->path),	\
					   variant->mnt, name, len);		\
	}									\
	FIXTURE_TEARDOWN(fs)							\
	{									\
		pc_fixture_done(self->fd, self->path);				\
	}

/* Read all of fd (buffered) so that it is cached. */
static inline void pc_warm(int fd, size_t len)
{
	unsigned char *buf = malloc(MiB);

	if (!buf)
		pc_die("malloc");
	for (size_t off = 0; off < len; off += MiB)
		if (pread(fd, buf, MiB, off) < 0)
			pc_die("pread");
	free(buf);
}

/* preadv2/pwritev2 of one buffer, looping over short transfers. */
static inline ssize_t pc_rw2(bool write, int fd, void *buf, size_t len, off_t off, int flags)
{
	size_t done = 0;

	while (done < len) {
		struct iovec iov = { (char *)buf + done, len - done };
		ssize_t n = write ? pwritev2(fd, &iov, 1, off + done, flags)
				  : preadv2(fd, &iov, 1, off + done, flags);

		if (n < 0)
			return done ? (ssize_t)done : -1;
		if (n == 0)
			break;
		done += n;
	}
	return done;
}

#endif

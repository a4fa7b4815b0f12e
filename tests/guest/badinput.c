// SPDX-License-Identifier: GPL-2.0
/*
 * Hostile and odd input to RWF_UNCACHED calls, and what an unprivileged
 * user can do with the flag: each case returns the documented error or
 * result and leaves the page cache as docs/semantics.md says.  One fixture
 * variant per filesystem; each test starts from a fresh 1 MiB file of
 * pattern 1, on the disk and not cached.
 */
#include "suite.h"

#include <limits.h>
#include <sys/wait.h>

#define FILE_SIZE (1 * MiB)
#define FILE_PAGES (FILE_SIZE / PAGE)

PC_FS_FILE_FIXTURE("badinput-test", FILE_SIZE);

TEST_F(fs, bad_arguments)
{
	char buf[PAGE];
	struct iovec iov = { buf, sizeof(buf) };
	struct iovec *many;
	int fd = self->fd, err;
	ssize_t n;

	err = pc_refused(pwritev2(fd, &iov, 1, 0, RWF_UNCACHED | RWF_ATOMIC));
	EXPECT_TRUE(err == EOPNOTSUPP || err == EINVAL)
		TH_LOG("RWF_UNCACHED|RWF_ATOMIC on a buffered file is refused (%s)", strerror(err));
	err = pc_refused(preadv2(fd, &iov, 1, -2, RWF_UNCACHED));
	EXPECT_EQ(EINVAL, err) TH_LOG("negative offset: EINVAL (%s)", strerror(err));
	n = preadv2(fd, &iov, 1, LLONG_MAX - PAGE, RWF_UNCACHED);
	EXPECT_EQ(0, n) TH_LOG("read at an offset past s_maxbytes returns 0");
	err = pc_refused(pwritev2(fd, &iov, 1, LLONG_MAX - 100, RWF_UNCACHED));
	EXPECT_TRUE(err == EFBIG || err == EINVAL) TH_LOG("write beyond s_maxbytes: %s", strerror(err));
	iov.iov_len = 0;
	n = preadv2(fd, &iov, 1, 0, RWF_UNCACHED);
	EXPECT_EQ(0, n) TH_LOG("zero-length read returns 0");
	EXPECT_EQ(0, pc_cached_pages(fd)) TH_LOG("zero-length read caches nothing");
	n = pwritev2(fd, &iov, 1, 0, RWF_UNCACHED);
	EXPECT_EQ(0, n) TH_LOG("zero-length write returns 0");
	EXPECT_EQ(0, pc_cached_pages(fd)) TH_LOG("zero-length write caches nothing");
	many = calloc(IOV_MAX + 1, sizeof(*many));
	if (!many)
		pc_die("calloc");
	for (int i = 0; i <= IOV_MAX; i++)
		many[i] = (struct iovec){ buf, 1 };
	err = pc_refused(preadv2(fd, many, IOV_MAX + 1, 0, RWF_UNCACHED));
	EXPECT_EQ(EINVAL, err) TH_LOG("IOV_MAX + 1 iovecs: EINVAL (%s)", strerror(err));
	n = preadv2(fd, many, IOV_MAX, 0, RWF_UNCACHED);
	EXPECT_EQ(IOV_MAX, n) TH_LOG("IOV_MAX one-byte iovecs read IOV_MAX bytes");
	EXPECT_EQ(1, pc_cached_pages(fd))
		TH_LOG("IOV_MAX one-byte iovecs leave only the page they ended in, for the next call");
	/* the next uncached read, elsewhere, drops it */
	iov.iov_len = 1;
	n = preadv2(fd, &iov, 1, 3 * PAGE, RWF_UNCACHED);
	EXPECT_EQ(1, n) TH_LOG("a one-byte uncached read elsewhere");
	EXPECT_EQ(1, pc_cached_pages(fd)) TH_LOG("... leaves only its own page");
	EXPECT_EQ(0, pc_cachestat(fd, 0, PAGE).nr_cache)
		TH_LOG("... which the next uncached read, elsewhere, drops");
	free(many);
}

/* The user buffer's second half is not mapped: the copy stops half way. */
TEST_F(fs, faulting_buffer)
{
	int fd = self->fd;
	unsigned char *buf;
	ssize_t n;

	buf = mmap(NULL, 64 * KiB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED || mprotect(buf + 32 * KiB, 32 * KiB, PROT_NONE))
		pc_die("mmap");
	n = preadv2(fd, &(struct iovec){ buf, 64 * KiB }, 1, 0, RWF_UNCACHED);
	EXPECT_EQ(32 * KiB, n) TH_LOG("a buffer that faults half way gives a short read");
	if (n > 0) {
		EXPECT_GT(0, pc_check(buf, 0, n, 1)) TH_LOG("... of the right data");
	}
	/* what it read ahead and did not reach stays, marked, for whoever comes next */
	EXPECT_GE(8, pc_cached_pages(fd)) TH_LOG("... and nothing before the fault stays");
	n = preadv2(fd, &(struct iovec){ buf, 32 * KiB }, 1, 32 * KiB, RWF_UNCACHED);
	EXPECT_EQ(32 * KiB, n) TH_LOG("an uncached read of the rest");
	EXPECT_EQ(0, pc_cachestat(fd, 0, 64 * KiB).nr_cache)
		TH_LOG("... drops what was left: it was still marked");
	/* it continued the first read: it read the next 32 KiB ahead, for the next call */
	EXPECT_EQ(pc_cached_pages(fd), pc_cachestat(fd, 64 * KiB, 32 * KiB).nr_cache)
		TH_LOG("... and nothing but the range it read ahead stays");
	n = pwritev2(fd, &(struct iovec){ buf + 16 * KiB, 32 * KiB }, 1, 0, RWF_UNCACHED);
	fsync(fd);
	EXPECT_EQ(16 * KiB, n) TH_LOG("a write from a half-faulting buffer is short");
	EXPECT_EQ(0, pc_cachestat(fd, 0, 64 * KiB).nr_cache)
		TH_LOG("... and leaves nothing of its range cached");
	munmap(buf, 64 * KiB);
}

TEST_F(fs, eof_and_holes)
{
	unsigned char *buf = malloc(FILE_SIZE);
	int fd = self->fd;
	size_t nonzero = 0;
	ssize_t n;

	if (!buf)
		pc_die("malloc");
	n = preadv2(fd, &(struct iovec){ buf, PAGE }, 1, FILE_SIZE + 5 * PAGE, RWF_UNCACHED);
	EXPECT_EQ(0, n) TH_LOG("a read past EOF returns 0");
	EXPECT_EQ(0, pc_cached_pages(fd)) TH_LOG("a read past EOF caches nothing");
	n = preadv2(fd, &(struct iovec){ buf, 2 * PAGE }, 1, FILE_SIZE - PAGE, RWF_UNCACHED);
	EXPECT_EQ(PAGE, n) TH_LOG("a read across EOF returns the rest");
	EXPECT_EQ(0, pc_cached_pages(fd)) TH_LOG("a read across EOF caches nothing");
	/* A hole of FILE_SIZE after the data */
	if (ftruncate(fd, 2 * FILE_SIZE))
		pc_die("ftruncate");
	n = preadv2(fd, &(struct iovec){ buf, FILE_SIZE }, 1, FILE_SIZE, RWF_UNCACHED);
	for (ssize_t i = 0; i < n; i++)
		nonzero += buf[i] != 0;
	EXPECT_EQ(FILE_SIZE, n) TH_LOG("a read over a hole returns all of it");
	EXPECT_EQ(0, nonzero) TH_LOG("a read over a hole returns zeros");
	EXPECT_EQ(0, pc_cached_pages(fd)) TH_LOG("... and caches nothing");
	free(buf);
}

TEST_F(fs, append)
{
	unsigned char buf[PAGE];
	struct stat st;
	int fd = pc_open(self->path, O_RDWR | O_APPEND);

	pc_fill(buf, FILE_SIZE, PAGE, 1);
	EXPECT_EQ(PAGE, pwritev2(fd, &(struct iovec){ buf, PAGE }, 1, 0, RWF_UNCACHED))
		TH_LOG("O_APPEND uncached write of a page");
	ASSERT_EQ(0, fstat(fd, &st));
	EXPECT_EQ(FILE_SIZE + PAGE, st.st_size)
		TH_LOG("O_APPEND uncached write appends, whatever the offset");
	fsync(fd);
	EXPECT_EQ(0, pc_cached_pages(fd)) TH_LOG("... nothing stays cached");
	EXPECT_EQ(PAGE, pread(fd, buf, PAGE, FILE_SIZE)) TH_LOG("... the appended page reads back");
	EXPECT_GT(0, pc_check(buf, FILE_SIZE, PAGE, 1)) TH_LOG("... the appended data reads back");
	close(fd);
}

static bool remount(const char *dir, unsigned long flags)
{
	return !syscall(SYS_mount, NULL, dir, NULL, MS_REMOUNT | flags, NULL);
}

TEST_F(fs, read_only)
{
	unsigned char *buf = malloc(FILE_SIZE);
	int fd, err;

	if (!buf)
		pc_die("malloc");
	close(self->fd);
	self->fd = -1;
	if (!remount(variant->mnt, MS_RDONLY)) {
		free(buf);
		SKIP(return, "remount read-only failed: read-only mount");
	}
	fd = open(self->path, O_RDONLY);
	EXPECT_LE(0, fd) TH_LOG("read-only mount: open for reading (%s)", strerror(errno));
	EXPECT_EQ(FILE_SIZE, pc_rw2(false, fd, buf, FILE_SIZE, 0, RWF_UNCACHED))
		TH_LOG("read-only mount: uncached read works");
	EXPECT_GT(0, pc_check(buf, 0, FILE_SIZE, 1)) TH_LOG("read-only mount: uncached read is right");
	EXPECT_EQ(0, pc_cached_pages(fd)) TH_LOG("read-only mount: uncached read caches nothing");
	close(fd);
	fd = open(self->path, O_RDWR);
	err = fd < 0 ? errno : 0;
	EXPECT_EQ(EROFS, err) TH_LOG("... opening for write fails with EROFS (%s)", strerror(err));
	if (fd >= 0)
		close(fd);
	EXPECT_TRUE(remount(variant->mnt, 0)) TH_LOG("... and the filesystem goes back to read-write");
	free(buf);
}

/*
 * An unprivileged user cannot evict what root cached: residency of root's
 * file is the same before and after the user's uncached reads and writes.
 */
TEST_F(fs, unprivileged)
{
	unsigned char *before, *after;
	int fd = self->fd, status;
	pid_t pid;

	if (chmod(self->path, 0666))
		pc_die("chmod");
	/* root caches every other 64 KiB */
	for (size_t off = 0; off < FILE_SIZE; off += 128 * KiB) {
		unsigned char chunk[64 * KiB];

		posix_fadvise(fd, off, sizeof(chunk), POSIX_FADV_WILLNEED);
		if (pread(fd, chunk, sizeof(chunk), off) != (ssize_t)sizeof(chunk))
			pc_die("pread");
	}
	before = pc_residency(fd, FILE_SIZE);
	pid = fork();
	if (pid == 0) {
		unsigned char *buf = malloc(FILE_SIZE);
		int ufd;

		if (setgid(1000) || setuid(1000) || !buf)
			_exit(10);
		ufd = open(self->path, O_RDWR);
		if (ufd < 0)
			_exit(11);
		if (pc_rw2(false, ufd, buf, FILE_SIZE, 0, RWF_UNCACHED) != (ssize_t)FILE_SIZE ||
		    pc_check(buf, 0, FILE_SIZE, 1) >= 0)
			_exit(12);
		if (pc_rw2(true, ufd, buf, FILE_SIZE, 0, RWF_UNCACHED) != (ssize_t)FILE_SIZE ||
		    fsync(ufd))
			_exit(13);
		_exit(0);
	}
	waitpid(pid, &status, 0);
	EXPECT_EQ(0, WIFEXITED(status) ? WEXITSTATUS(status) : -1)
		TH_LOG("uid 1000 reads and writes root's file uncached (status %#x)", status);
	after = pc_residency(fd, FILE_SIZE);
	EXPECT_EQ(0, memcmp(before, after, FILE_PAGES))
		TH_LOG("... and root's cached pages are exactly as cached as before");
	free(before);
	free(after);
}

/* cachestat and mincore on a file the user may not write (documented rule) */
TEST_F(fs, residency_permissions)
{
	int status;
	pid_t pid;

	if (chmod(self->path, 0644))
		pc_die("chmod");
	pid = fork();
	if (pid == 0) {
		struct pclab_cachestat cs;
		unsigned char vec[FILE_PAGES];
		void *map;
		int fd;

		if (setgid(1000) || setuid(1000))
			_exit(10);
		fd = open(self->path, O_RDONLY);
		if (fd < 0)
			_exit(11);
		if (pclab_cachestat(fd, 0, 0, &cs) != -1 || errno != EPERM)
			_exit(12);	/* cachestat refuses: EPERM */
		map = mmap(NULL, FILE_SIZE, PROT_READ, MAP_SHARED, fd, 0);
		if (map == MAP_FAILED || mincore(map, FILE_SIZE, vec))
			_exit(13);
		for (size_t i = 0; i < FILE_PAGES; i++)
			if (!(vec[i] & 1))
				_exit(14);	/* mincore says "all resident" */
		_exit(0);
	}
	waitpid(pid, &status, 0);
	EXPECT_EQ(0, WIFEXITED(status) ? WEXITSTATUS(status) : -1)
		TH_LOG("for a file uid 1000 cannot write, cachestat says EPERM and mincore "
		       "reports every page resident, though none is (status %#x: 12 cachestat, "
		       "14 mincore)", status);
}

TEST_HARNESS_MAIN

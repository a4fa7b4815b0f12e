// SPDX-License-Identifier: GPL-2.0
/*
 * Hostile and odd input to RWF_UNCACHED calls, and what an unprivileged
 * user can do with the flag: each case returns the documented error or
 * result and leaves the page cache as docs/semantics.md says.
 */
#include "pclab.h"
#include "tap.h"

#include <limits.h>
#include <sys/wait.h>

#define FILE_SIZE (1 * MiB)
#define FILE_PAGES (FILE_SIZE / PAGE)

static const char *fs_name;
static char path[256];

static int open_cold(void)
{
	int fd;

	pc_make_cold_file(path, FILE_SIZE, 1);
	fd = open(path, O_RDWR);
	if (fd < 0)
		pc_die(path);
	return fd;
}

static void test_bad_arguments(void)
{
	char buf[PAGE];
	struct iovec iov = { buf, sizeof(buf) };
	struct iovec *many;
	int fd = open_cold(), err;
	ssize_t n;

	err = pc_refused(pwritev2(fd, &iov, 1, 0, RWF_UNCACHED | RWF_ATOMIC));
	tap_ok(err == EOPNOTSUPP || err == EINVAL,
	       "%s: RWF_UNCACHED|RWF_ATOMIC on a buffered file is refused (%s)", fs_name,
	       strerror(err));
	err = pc_refused(preadv2(fd, &iov, 1, -2, RWF_UNCACHED));
	tap_ok(err == EINVAL, "%s: negative offset: EINVAL (%s)", fs_name, strerror(err));
	n = preadv2(fd, &iov, 1, LLONG_MAX - PAGE, RWF_UNCACHED);
	tap_ok(n == 0, "%s: read at an offset past s_maxbytes returns 0 (%zd)", fs_name, n);
	err = pc_refused(pwritev2(fd, &iov, 1, LLONG_MAX - 100, RWF_UNCACHED));
	tap_ok(err == EFBIG || err == EINVAL, "%s: write beyond s_maxbytes: %s", fs_name,
	       strerror(err));
	iov.iov_len = 0;
	n = preadv2(fd, &iov, 1, 0, RWF_UNCACHED);
	tap_ok(n == 0 && pc_cached_pages(fd) == 0, "%s: zero-length read returns 0, caches nothing",
	       fs_name);
	n = pwritev2(fd, &iov, 1, 0, RWF_UNCACHED);
	tap_ok(n == 0 && pc_cached_pages(fd) == 0, "%s: zero-length write returns 0, caches nothing",
	       fs_name);
	many = calloc(IOV_MAX + 1, sizeof(*many));
	if (!many)
		pc_die("calloc");
	for (int i = 0; i <= IOV_MAX; i++)
		many[i] = (struct iovec){ buf, 1 };
	err = pc_refused(preadv2(fd, many, IOV_MAX + 1, 0, RWF_UNCACHED));
	tap_ok(err == EINVAL, "%s: IOV_MAX + 1 iovecs: EINVAL (%s)", fs_name, strerror(err));
	n = preadv2(fd, many, IOV_MAX, 0, RWF_UNCACHED);
	tap_ok(n == IOV_MAX && pc_cached_pages(fd) == 1,
	       "%s: IOV_MAX one-byte iovecs read %zd bytes and leave only the page they "
	       "ended in, for the next call (%llu)", fs_name, n,
	       (unsigned long long)pc_cached_pages(fd));
	/* the next uncached read, elsewhere, drops it */
	iov.iov_len = 1;
	n = preadv2(fd, &iov, 1, 3 * PAGE, RWF_UNCACHED);
	tap_ok(n == 1 && pc_cached_pages(fd) == 1 && pc_cachestat(fd, 0, PAGE).nr_cache == 0,
	       "%s: ... which the next uncached read, elsewhere, drops (%zd)", fs_name, n);
	free(many);
	close(fd);
}

/* The user buffer's second half is not mapped: the copy stops half way. */
static void test_faulting_buffer(void)
{
	int fd = open_cold();
	unsigned char *buf;
	ssize_t n;

	buf = mmap(NULL, 64 * KiB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED || mprotect(buf + 32 * KiB, 32 * KiB, PROT_NONE))
		pc_die("mmap");
	n = preadv2(fd, &(struct iovec){ buf, 64 * KiB }, 1, 0, RWF_UNCACHED);
	tap_ok(n == 32 * KiB && pc_check(buf, 0, n, 1) < 0,
	       "%s: a buffer that faults half way gives a short read of the right data (%zd)",
	       fs_name, n);
	tap_ok(pc_cached_pages(fd) == 0,
	       "%s: ... and the folios read ahead but not copied are dropped too (%llu cached)",
	       fs_name, (unsigned long long)pc_cached_pages(fd));
	n = pwritev2(fd, &(struct iovec){ buf + 16 * KiB, 32 * KiB }, 1, 0, RWF_UNCACHED);
	fsync(fd);
	tap_ok(n == 16 * KiB && pc_cached_pages(fd) == 0,
	       "%s: a write from a half-faulting buffer is short (%zd) and leaves nothing cached",
	       fs_name, n);
	munmap(buf, 64 * KiB);
	close(fd);
}

static void test_eof_and_holes(void)
{
	unsigned char *buf = malloc(FILE_SIZE);
	int fd = open_cold();
	bool zeros = true;
	ssize_t n;

	n = preadv2(fd, &(struct iovec){ buf, PAGE }, 1, FILE_SIZE + 5 * PAGE, RWF_UNCACHED);
	tap_ok(n == 0 && pc_cached_pages(fd) == 0, "%s: a read past EOF returns 0, caches nothing",
	       fs_name);
	n = preadv2(fd, &(struct iovec){ buf, 2 * PAGE }, 1, FILE_SIZE - PAGE, RWF_UNCACHED);
	tap_ok(n == PAGE && pc_cached_pages(fd) == 0,
	       "%s: a read across EOF returns the rest (%zd), caches nothing", fs_name, n);
	/* A hole of FILE_SIZE after the data */
	if (ftruncate(fd, 2 * FILE_SIZE))
		pc_die("ftruncate");
	n = preadv2(fd, &(struct iovec){ buf, FILE_SIZE }, 1, FILE_SIZE, RWF_UNCACHED);
	for (ssize_t i = 0; i < n; i++)
		zeros &= buf[i] == 0;
	tap_ok(n == (ssize_t)FILE_SIZE && zeros, "%s: a read over a hole returns zeros", fs_name);
	tap_ok(pc_cached_pages(fd) == 0, "%s: ... and caches nothing (%llu)", fs_name,
	       (unsigned long long)pc_cached_pages(fd));
	free(buf);
	close(fd);
}

static void test_append(void)
{
	unsigned char buf[PAGE];
	struct stat st;
	int fd;

	pc_make_cold_file(path, FILE_SIZE, 1);
	fd = open(path, O_RDWR | O_APPEND);
	pc_fill(buf, FILE_SIZE, PAGE, 1);
	tap_ok(pwritev2(fd, &(struct iovec){ buf, PAGE }, 1, 0, RWF_UNCACHED) == PAGE &&
	       fstat(fd, &st) == 0 && st.st_size == (off_t)(FILE_SIZE + PAGE),
	       "%s: O_APPEND uncached write appends, whatever the offset", fs_name);
	fsync(fd);
	tap_ok(pc_cached_pages(fd) == 0 && pread(fd, buf, PAGE, FILE_SIZE) == PAGE &&
	       pc_check(buf, FILE_SIZE, PAGE, 1) < 0,
	       "%s: ... the appended data reads back and nothing stays cached", fs_name);
	close(fd);
}

static bool remount(const char *dir, unsigned long flags)
{
	return !syscall(SYS_mount, NULL, dir, NULL, MS_REMOUNT | flags, NULL);
}

static void test_read_only(const char *dir)
{
	unsigned char *buf = malloc(FILE_SIZE);
	int fd, err;

	pc_make_cold_file(path, FILE_SIZE, 1);
	if (!remount(dir, MS_RDONLY)) {
		tap_skip("remount read-only failed", "%s: read-only mount", fs_name);
		free(buf);
		return;
	}
	fd = open(path, O_RDONLY);
	tap_ok(fd >= 0 && pc_rw2(false, fd, buf, FILE_SIZE, 0, RWF_UNCACHED) == (ssize_t)FILE_SIZE &&
	       pc_check(buf, 0, FILE_SIZE, 1) < 0 && pc_cached_pages(fd) == 0,
	       "%s: read-only mount: uncached read works and caches nothing", fs_name);
	close(fd);
	fd = open(path, O_RDWR);
	err = fd < 0 ? errno : 0;
	tap_ok(err == EROFS, "%s: ... opening for write fails with EROFS (%s)", fs_name,
	       strerror(err));
	if (fd >= 0)
		close(fd);
	tap_ok(remount(dir, 0), "%s: ... and the filesystem goes back to read-write", fs_name);
	free(buf);
}

/*
 * An unprivileged user cannot evict what root cached: residency of root's
 * file is the same before and after the user's uncached reads and writes.
 */
static void test_unprivileged(void)
{
	unsigned char *before, *after;
	int fd, status;
	pid_t pid;

	pc_make_cold_file(path, FILE_SIZE, 1);
	if (chmod(path, 0666))
		pc_die("chmod");
	fd = open(path, O_RDWR);
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
		ufd = open(path, O_RDWR);
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
	tap_ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	       "%s: uid 1000 reads and writes root's file uncached (status %d)", fs_name,
	       WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	after = pc_residency(fd, FILE_SIZE);
	tap_ok(!memcmp(before, after, FILE_PAGES),
	       "%s: ... and root's cached pages are exactly as cached as before", fs_name);
	free(before);
	free(after);
	close(fd);
}

/* cachestat and mincore on a file the user may not write (documented rule) */
static void test_residency_permissions(void)
{
	int status;
	pid_t pid;

	pc_make_cold_file(path, FILE_SIZE, 1);
	if (chmod(path, 0644))
		pc_die("chmod");
	pid = fork();
	if (pid == 0) {
		struct pclab_cachestat cs;
		unsigned char vec[FILE_PAGES];
		void *map;
		int fd;

		if (setgid(1000) || setuid(1000))
			_exit(10);
		fd = open(path, O_RDONLY);
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
	tap_ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	       "%s: for a file uid 1000 cannot write, cachestat says EPERM and mincore "
	       "reports every page resident, though none is (status %d)", fs_name,
	       WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

int main(void)
{
	const char *dirs[] = { "/mnt/ext4", "/mnt/xfs" };

	for (size_t d = 0; d < sizeof(dirs) / sizeof(dirs[0]); d++) {
		fs_name = dirs[d] + strlen("/mnt/");
		snprintf(path, sizeof(path), "%s/badinput-test", dirs[d]);
		test_bad_arguments();
		test_faulting_buffer();
		test_eof_and_holes();
		test_append();
		test_read_only(dirs[d]);
		test_unprivileged();
		test_residency_permissions();
		unlink(path);
	}
	return tap_done(0);
}

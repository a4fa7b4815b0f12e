// SPDX-License-Identifier: GPL-2.0
/*
 * Seeded random-operation integrity tester for RWF_UNCACHED (fsx-like):
 * reads and writes with and without RWF_UNCACHED (also with RWF_NOWAIT and
 * RWF_DSYNC), readv/writev, O_DIRECT, mmap reads and writes, truncate,
 * fallocate, fsync, drop_caches and io_uring, every read checked against an
 * in-memory model of the file; at the end the filesystem is unmounted,
 * mounted again and the whole file compared.  On a mismatch it prints the
 * seed, the last operations and the first differing byte.  One fixture
 * variant per filesystem and block size.
 *
 * Usage: [PCLAB_SEED=SEED] [PCLAB_OPS=OPS] integrity [kselftest options]
 * (the environment, because the harness owns the command line)
 */
#include "suite.h"

#include <liburing.h>
#include <stdarg.h>
#include <time.h>
#include <linux/falloc.h>

#define MAX_SIZE (4 * MiB)
#define MAX_IO (256 * KiB)
#define LOG_LEN 32

static unsigned char *model;	/* what the file must contain */
static size_t model_size;
static unsigned char *buf, *dbuf;	/* I/O buffers; dbuf is aligned for O_DIRECT */
static unsigned long long rng_state;
static char log_lines[LOG_LEN][96];
static unsigned long op_count;
static struct io_uring ring;

static unsigned long long rnd(void)
{
	/* xorshift64*: reproducible from the seed alone */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

static size_t rnd_below(size_t n)
{
	return n ? rnd() % n : 0;
}

static void logop(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(log_lines[op_count % LOG_LEN], sizeof(log_lines[0]), fmt, ap);
	va_end(ap);
}

static void dump_log(void)
{
	unsigned long first = op_count >= LOG_LEN ? op_count - LOG_LEN + 1 : 0;

	for (unsigned long i = first; i <= op_count; i++)
		ksft_print_msg("op %lu: %s\n", i, log_lines[i % LOG_LEN]);
}

/* Compare what was read at off with the model; false and a report if not. */
static bool check(const unsigned char *got, size_t off, size_t len, const char *how)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char want = off + i < model_size ? model[off + i] : 0;

		if (got[i] != want) {
			ksft_print_msg("%s: byte %zu is 0x%02x, expected 0x%02x (file size %zu)\n", how,
				 off + i, got[i], want, model_size);
			dump_log();
			return false;
		}
	}
	return true;
}

static void model_write(size_t off, const unsigned char *data, size_t len)
{
	if (off > model_size)
		memset(model + model_size, 0, off - model_size);
	if (off + len > model_size)
		model_size = off + len;
	memcpy(model + off, data, len);
}

static void model_truncate(size_t size)
{
	if (size > model_size)
		memset(model + model_size, 0, size - model_size);
	model_size = size;
}

static void fill_random(unsigned char *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		p[i] = (unsigned char)(rnd() >> 56);
}

static int rw_flags(void)
{
	static const int choices[] = {
		0, RWF_UNCACHED, RWF_UNCACHED, RWF_UNCACHED | RWF_NOWAIT, RWF_UNCACHED | RWF_DSYNC,
	};

	return choices[rnd_below(sizeof(choices) / sizeof(choices[0]))];
}

/* One random operation on fd (buffered) / dfd (O_DIRECT); false on a mismatch. */
static bool one_op(int fd, int dfd)
{
	size_t off = rnd_below(MAX_SIZE), len = 1 + rnd_below(MAX_IO);
	unsigned int op = rnd_below(100);
	int flags = rw_flags();
	ssize_t n;

	if (off + len > MAX_SIZE)
		len = MAX_SIZE - off;
	if (op < 25) {				/* pread/preadv2 */
		logop("read %zu+%zu flags %#x", off, len, flags);
		n = pc_rw2(false, fd, buf, len, off, flags);
		if (n < 0 && (errno == EAGAIN || errno == EOPNOTSUPP))
			return true;
		if (n < 0) {
			ksft_print_msg("read failed: %s\n", strerror(errno));
			return false;
		}
		return check(buf, off, n, "read");
	} else if (op < 50) {			/* pwrite/pwritev2 */
		fill_random(buf, len);
		logop("write %zu+%zu flags %#x", off, len, flags);
		n = pc_rw2(true, fd, buf, len, off, flags);
		if (n < 0 && (errno == EAGAIN || errno == EOPNOTSUPP))
			return true;	/* NOWAIT may refuse; nothing was written */
		if (n < 0) {
			ksft_print_msg("write failed: %s\n", strerror(errno));
			return false;
		}
		model_write(off, buf, n);
	} else if (op < 57) {			/* readv/writev with several iovecs */
		struct iovec iov[4];
		size_t part = len / 4 + 1, done = 0;
		int cnt = 0;

		for (; cnt < 4 && done < len; cnt++) {
			iov[cnt].iov_base = buf + done;
			iov[cnt].iov_len = done + part > len ? len - done : part;
			done += iov[cnt].iov_len;
		}
		if (rnd_below(2)) {
			logop("writev %zu+%zu x%d uncached", off, len, cnt);
			fill_random(buf, len);
			n = pwritev2(fd, iov, cnt, off, RWF_UNCACHED);
			if (n > 0)
				model_write(off, buf, n);
		} else {
			logop("readv %zu+%zu x%d uncached", off, len, cnt);
			n = preadv2(fd, iov, cnt, off, RWF_UNCACHED);
			if (n > 0)
				return check(buf, off, n, "readv");
		}
		if (n < 0) {
			ksft_print_msg("vectored I/O failed: %s\n", strerror(errno));
			return false;
		}
	} else if (op < 65) {			/* O_DIRECT, aligned */
		off &= ~(PAGE - 1);
		len = (len + PAGE - 1) & ~(PAGE - 1);
		if (off + len > MAX_SIZE)
			len = MAX_SIZE - off;
		if (!len)
			return true;
		if (rnd_below(2)) {
			fill_random(dbuf, len);
			logop("direct write %zu+%zu", off, len);
			n = pwrite(dfd, dbuf, len, off);
			if (n > 0)
				model_write(off, dbuf, n);
		} else {
			logop("direct read %zu+%zu", off, len);
			n = pread(dfd, dbuf, len, off);
			if (n > 0)
				return check(dbuf, off, n, "direct read");
		}
		if (n < 0) {
			ksft_print_msg("direct I/O failed: %s\n", strerror(errno));
			return false;
		}
	} else if (op < 73) {			/* mmap read or write inside the file */
		size_t size = model_size;
		unsigned char *map;

		if (!size)
			return true;
		off = rnd_below(size);
		if (off + len > size)
			len = size - off;
		map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (map == MAP_FAILED) {
			ksft_print_msg("mmap failed: %s\n", strerror(errno));
			return false;
		}
		if (rnd_below(2)) {
			logop("mmap write %zu+%zu", off, len);
			fill_random(buf, len);
			memcpy(map + off, buf, len);
			model_write(off, buf, len);
			if (rnd_below(2))
				msync(map, size, MS_SYNC);
		} else {
			logop("mmap read %zu+%zu", off, len);
			if (!check(map + off, off, len, "mmap read")) {
				munmap(map, size);
				return false;
			}
		}
		munmap(map, size);
	} else if (op < 79) {			/* truncate up or down */
		size_t size = rnd_below(MAX_SIZE);

		logop("truncate %zu", size);
		if (ftruncate(fd, size)) {
			ksft_print_msg("truncate failed: %s\n", strerror(errno));
			return false;
		}
		model_truncate(size);
	} else if (op < 86) {			/* fallocate: allocate, punch, zero */
		static const int modes[] = {
			0, FALLOC_FL_KEEP_SIZE, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			FALLOC_FL_ZERO_RANGE,
		};
		int mode = modes[rnd_below(4)];

		logop("fallocate mode %#x %zu+%zu", mode, off, len);
		if (fallocate(fd, mode, off, len)) {
			if (errno == EOPNOTSUPP)
				return true;
			ksft_print_msg("fallocate failed: %s\n", strerror(errno));
			return false;
		}
		if (mode & (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE)) {
			size_t end = off + len < model_size ? off + len : model_size;

			if (off < end)
				memset(model + off, 0, end - off);
		}
		if (!(mode & FALLOC_FL_KEEP_SIZE) && off + len > model_size)
			model_truncate(off + len);
	} else if (op < 90) {			/* fsync / fdatasync */
		logop("fsync");
		if (rnd_below(2) ? fsync(fd) : fdatasync(fd)) {
			ksft_print_msg("fsync failed: %s\n", strerror(errno));
			return false;
		}
	} else if (op < 92) {
		logop("drop_caches");
		pc_drop_caches();
	} else {				/* io_uring with RWF_UNCACHED */
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
		struct io_uring_cqe *cqe;
		bool write = rnd_below(2);

		if (write) {
			fill_random(buf, len);
			io_uring_prep_write(sqe, fd, buf, len, off);
		} else {
			io_uring_prep_read(sqe, fd, buf, len, off);
		}
		sqe->rw_flags = RWF_UNCACHED;
		if (rnd_below(2))
			sqe->flags |= IOSQE_ASYNC;
		logop("io_uring %s %zu+%zu", write ? "write" : "read", off, len);
		if (io_uring_submit(&ring) != 1 || io_uring_wait_cqe(&ring, &cqe))
			pc_die("io_uring");
		n = cqe->res;
		io_uring_cqe_seen(&ring, cqe);
		if (n < 0) {
			ksft_print_msg("io_uring failed: %s\n", strerror(-n));
			return false;
		}
		if (write)
			model_write(off, buf, n);
		else
			return check(buf, off, n, "io_uring read");
	}
	return true;
}

/* Whole-file comparison after unmount and mount. */
static bool verify_after_remount(const char *dir, const char *path)
{
	unsigned char *disk = malloc(MAX_SIZE);
	struct stat st;
	bool good;
	int fd;

	if (!pc_remount(dir)) {
		ksft_print_msg("remount of %s failed: %s\n", dir, strerror(errno));
		free(disk);
		return false;
	}
	fd = open(path, O_RDONLY);
	if (fd < 0 || fstat(fd, &st)) {
		ksft_print_msg("reopen failed: %s\n", strerror(errno));
		free(disk);
		return false;
	}
	good = (size_t)st.st_size == model_size &&
	       pread(fd, disk, model_size, 0) == (ssize_t)model_size &&
	       check(disk, 0, model_size, "after remount");
	if ((size_t)st.st_size != model_size)
		ksft_print_msg("size after remount %lld, expected %zu\n", (long long)st.st_size, model_size);
	close(fd);
	free(disk);
	return good;
}

/* A number from the environment, or def */
static unsigned long long env_number(const char *name, unsigned long long def)
{
	const char *v = getenv(name);

	return v && *v ? strtoull(v, NULL, 0) : def;
}

FIXTURE(fs) {
	char path[256];
	unsigned long long seed;
	unsigned long ops;
	int fd, dfd;
};

FIXTURE_VARIANT(fs) {
	const char *mnt;
	unsigned int index;	/* a different random sequence on each */
};

FIXTURE_VARIANT_ADD(fs, ext4) {
	.mnt = "/mnt/ext4",
	.index = 0,
};

FIXTURE_VARIANT_ADD(fs, xfs) {
	.mnt = "/mnt/xfs",
	.index = 1,
};

FIXTURE_VARIANT_ADD(fs, ext4_1k) {
	.mnt = "/mnt/ext4-1k",
	.index = 2,
};

FIXTURE_VARIANT_ADD(fs, xfs_1k) {
	.mnt = "/mnt/xfs-1k",
	.index = 3,
};

FIXTURE_SETUP(fs)
{
	pc_test_start(_metadata);
	self->fd = self->dfd = -1;
	if (!pc_mounted(variant->mnt))
		SKIP(return, "%s is not mounted", variant->mnt);
	self->seed = env_number("PCLAB_SEED", 0);
	if (!self->seed)
		self->seed = (unsigned long long)time(NULL);
	self->ops = env_number("PCLAB_OPS", 3000);
	model = calloc(1, MAX_SIZE + MAX_IO);
	buf = malloc(MAX_IO);
	if (!model || !buf || posix_memalign((void **)&dbuf, PAGE, MAX_IO) ||
	    io_uring_queue_init(4, &ring, 0))
		pc_die("setup");
	snprintf(self->path, sizeof(self->path), "%s/integrity-test", variant->mnt);
	self->fd = pc_open(self->path, O_RDWR | O_CREAT | O_TRUNC);
	self->dfd = pc_open(self->path, O_RDWR | O_DIRECT);
}

FIXTURE_TEARDOWN(fs)
{
	if (self->fd >= 0)
		close(self->fd);
	if (self->dfd >= 0)
		close(self->dfd);
	if (self->path[0])
		unlink(self->path);
}

/*
 * 3000 operations take about 30 s under the emulator (TCG); the soak runs
 * them round after round on a busier guest, so more than the suite default.
 */
TEST_F_TIMEOUT(fs, random_ops, 900)
{
	bool good = true;

	rng_state = self->seed ^ (unsigned long long)variant->index * 0x9e3779b97f4a7c15ull;
	if (!rng_state)
		rng_state = 1;
	model_size = 0;
	TH_LOG("seed %llu (PCLAB_SEED=%llu repeats this run)", self->seed, self->seed);
	for (op_count = 0; op_count < self->ops && good; op_count++)
		good = one_op(self->fd, self->dfd);
	ASSERT_TRUE(good)
		TH_LOG("%lu random operations match the model (seed %llu)", op_count, self->seed);
	fsync(self->fd);
	close(self->fd);
	close(self->dfd);
	self->fd = self->dfd = -1;
	EXPECT_TRUE(verify_after_remount(variant->mnt, self->path))
		TH_LOG("after unmount and mount the file matches the model (%zu bytes)", model_size);
}

TEST_HARNESS_MAIN

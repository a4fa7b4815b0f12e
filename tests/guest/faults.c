// SPDX-License-Identifier: GPL-2.0
/*
 * Injected faults during uncached I/O: page and slab allocation failures
 * aimed at the test process (fail_page_alloc, failslab with task-filter),
 * and a failing disk request during uncached writeback (fail_make_request).
 * Calls may fail or come up short; fsync must report the write error; no
 * data may be lost or made stale beyond what the calls reported; the
 * kernel log must stay free of warnings (the host checks it).
 */
#include "pclab.h"
#include "tap.h"

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

static void test_alloc_failures(const char *dir)
{
	static const char *const kinds[] = { "fail_page_alloc", "failslab" };
	char path[256];
	int status, fd;
	pid_t pid;

	snprintf(path, sizeof(path), "%s/faults-test", dir);
	pc_make_cold_file(path, FILE_SIZE, 1);
	fd = open(path, O_RDONLY);
	if (fd < 0 || pread(fd, model, FILE_SIZE, 0) != (ssize_t)FILE_SIZE)
		pc_die(path);
	close(fd);
	for (size_t k = 0; k < 2; k++) {
		unsigned char *disk = malloc(FILE_SIZE);

		arm(kinds[k], "10");
		pc_drop_caches();
		pid = fork();
		if (pid == 0)
			_exit(child(path));
		waitpid(pid, &status, 0);
		knob(kinds[k] == kinds[0] ? DBG "fail_page_alloc/probability" :
		     DBG "failslab/probability", "0");
		tap_ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		       "%s: %s at 10%% (%ld failures injected): 300 uncached reads and writes "
		       "return data, errors or short counts, never wrong data (status %#x)",
		       dir, kinds[k], injected(kinds[k]), status);
		fd = open(path, O_RDONLY);
		fsync(fd);
		pc_drop_caches();
		tap_ok(fd >= 0 && pread(fd, disk, FILE_SIZE, 0) == (ssize_t)FILE_SIZE &&
		       !memcmp(disk, model, FILE_SIZE),
		       "%s: ... afterwards the file holds exactly what the calls reported", dir);
		close(fd);
		free(disk);
	}
	unlink(path);
}

/* The first request to the disk fails: the uncached write's writeback. */
static void test_write_error(const char *dir)
{
	unsigned char *buf = malloc(MiB), *back = malloc(MiB);
	char path[256], sysfail[128];
	struct stat st;
	int fd, err;

	snprintf(path, sizeof(path), "%s/faults-io", dir);
	pc_make_cold_file(path, MiB, 1);
	if (stat(path, &st))
		pc_die(path);
	snprintf(sysfail, sizeof(sysfail), "/sys/dev/block/%u:%u/make-it-fail",
		 major(st.st_dev), minor(st.st_dev));
	fd = open(path, O_RDWR);
	pc_fill(buf, 0, MiB, 2);
	knob(DBG "fail_make_request/probability", "100");
	knob(DBG "fail_make_request/interval", "1");
	knob(DBG "fail_make_request/times", "1");
	knob(DBG "fail_make_request/verbose", "0");
	knob(sysfail, "1");
	tap_ok(pc_rw2(true, fd, buf, MiB, 0, RWF_UNCACHED) == (ssize_t)MiB,
	       "%s: uncached write with the disk failing its next request", dir);
	err = fsync(fd) ? errno : 0;
	knob(sysfail, "0");
	tap_ok(err == EIO, "%s: ... fsync reports the writeback error (%s)", dir, strerror(err));
	tap_ok(fsync(fd) == 0, "%s: ... once: the next fsync succeeds", dir);
	tap_ok(pc_cached_pages(fd) == 0, "%s: ... and the folios are gone from the cache", dir);
	tap_ok(pc_rw2(true, fd, buf, MiB, 0, RWF_UNCACHED) == (ssize_t)MiB && fsync(fd) == 0,
	       "%s: writing again succeeds", dir);
	pc_drop_caches();
	tap_ok(pread(fd, back, MiB, 0) == (ssize_t)MiB && !memcmp(back, buf, MiB),
	       "%s: ... and the data reads back from disk", dir);
	close(fd);
	unlink(path);
	free(buf);
	free(back);
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : "/mnt/ext4-faults";
	struct stat st;

	if (stat(dir, &st) || access(DBG "fail_page_alloc", F_OK)) {
		tap_skip("no fault-injection disk or debugfs", "fault injection");
		return tap_done(0);
	}
	model = mmap(NULL, FILE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (model == MAP_FAILED)
		pc_die("mmap");
	test_alloc_failures(dir);
	test_write_error(dir);
	return tap_done(0);
}

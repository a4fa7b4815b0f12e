// SPDX-License-Identifier: GPL-2.0
/*
 * iolab: the labs' workload tool.  Reads or writes a file sequentially or
 * at random in one of several I/O modes, prints throughput once a second,
 * and ends with a summary: MB/s, IOPS, latency percentiles, CPU, kswapd's
 * CPU, the page cache at start/peak/end and the page-cache counters.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/fs.h>
#include <liburing.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "tool.h"

enum mode { BUFFERED, DIRECT, UNCACHED, FADVISE, URING_BUFFERED, URING_UNCACHED, URING_DIRECT, MMAP };
static const char *const mode_names[] = {
	"buffered", "direct", "uncached", "fadvise",
	"uring-buffered", "uring-uncached", "uring-direct", "mmap",
};

struct options {
	enum mode mode;
	bool write, random, json;
	long long bs, size;
	double seconds;
	int qd;
	const char *file;
};

/* Latency histogram: 8 buckets per power of two of nanoseconds. */
#define HBUCKETS (64 * 8)
static unsigned long hist[HBUCKETS];

static int bucket(uint64_t ns)
{
	int log = 63 - __builtin_clzll(ns | 1);
	int sub = log >= 3 ? (int)((ns >> (log - 3)) & 7) : 0;

	return log * 8 + sub;
}

static uint64_t bucket_ns(int b)
{
	int log = b / 8, sub = b % 8;

	return log >= 3 ? ((8ull + sub) << (log - 3)) : (1ull << log);
}

static uint64_t percentile(double p, unsigned long total)
{
	unsigned long want = (unsigned long)(p / 100.0 * total), seen = 0;

	for (int b = 0; b < HBUCKETS; b++) {
		seen += hist[b];
		if (seen > want)
			return bucket_ns(b);
	}
	return 0;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A counter from /proc/vmstat or a line of /proc/meminfo (in KiB) */
static long long proc_value(const char *file, const char *key)
{
	char k[64];
	long long v;
	FILE *f = fopen(file, "r");

	while (f && fscanf(f, "%63s %lld%*[^\n]", k, &v) == 2) {
		size_t n = strlen(k);

		if (k[n - 1] == ':')
			k[n - 1] = 0;
		if (!strcmp(k, key)) {
			fclose(f);
			return v;
		}
	}
	if (f)
		fclose(f);
	return -1;
}

/* CPU ticks used so far by all kswapd threads */
static long long kswapd_ticks(void)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	long long total = 0;

	while (d && (e = readdir(d))) {
		char path[300], comm[64], buf[1024];
		unsigned long long ut, st;
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%s/comm", e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (!fgets(comm, sizeof(comm), f) || strncmp(comm, "kswapd", 6)) {
			fclose(f);
			continue;
		}
		fclose(f);
		snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
		f = fopen(path, "r");
		if (f && fgets(buf, sizeof(buf), f)) {
			char *p = strrchr(buf, ')');

			if (p && sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
					&ut, &st) == 2)
				total += ut + st;
		}
		if (f)
			fclose(f);
	}
	if (d)
		closedir(d);
	return total;
}

static void usage(FILE *out, int status)
{
	fprintf(out,
		"Usage: iolab [options] FILE\n"
		"Read (or write) FILE and report throughput, latency, CPU and page-cache use.\n\n"
		"  -m, --mode MODE     buffered (default), direct, uncached, fadvise, mmap,\n"
		"                      uring-buffered, uring-uncached, uring-direct\n"
		"  -w, --write         write instead of read\n"
		"  -r, --random        random block offsets instead of sequential\n"
		"  -b, --bs SIZE       bytes per I/O (default 64K)\n"
		"  -s, --size SIZE     data set size (default: the file's size; needed to write)\n"
		"  -t, --time SECONDS  stop after this long (default: one pass over the data)\n"
		"  -q, --qd N          queue depth for uring modes (default 4)\n"
		"  -j, --json          summary as one JSON object\n"
		"  -h, --help          this help\n");
	exit(status);
}

static void parse(int argc, char **argv, struct options *o)
{
	static const struct option opts[] = {
		{ "mode", required_argument, NULL, 'm' }, { "write", no_argument, NULL, 'w' },
		{ "random", no_argument, NULL, 'r' }, { "bs", required_argument, NULL, 'b' },
		{ "size", required_argument, NULL, 's' }, { "time", required_argument, NULL, 't' },
		{ "qd", required_argument, NULL, 'q' }, { "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	int c;

	*o = (struct options){ .bs = 64 << 10, .size = -1, .qd = 4 };
	while ((c = getopt_long(argc, argv, "m:wrb:s:t:q:jh", opts, NULL)) != -1) {
		switch (c) {
		case 'm': {
			size_t i;

			for (i = 0; i < sizeof(mode_names) / sizeof(mode_names[0]); i++)
				if (!strcmp(optarg, mode_names[i]))
					break;
			if (i == sizeof(mode_names) / sizeof(mode_names[0]))
				die("--mode", "unknown mode (see --help)");
			o->mode = i;
			break;
		}
		case 'w': o->write = true; break;
		case 'r': o->random = true; break;
		case 'b': o->bs = parse_size(optarg, "--bs"); break;
		case 's': o->size = parse_size(optarg, "--size"); break;
		case 't': o->seconds = atof(optarg); break;
		case 'q': o->qd = atoi(optarg); break;
		case 'j': o->json = true; break;
		case 'h': usage(stdout, 0); break;
		default: usage(stderr, 2);
		}
	}
	if (optind != argc - 1)
		usage(stderr, 2);
	o->file = argv[optind];
	if (o->bs < 512 || o->bs > (64 << 20))
		die("--bs", "give 512 bytes to 64M");
	if (o->qd < 1 || o->qd > 256)
		die("--qd", "give 1 to 256");
	if ((o->mode == DIRECT || o->mode == URING_DIRECT) && o->bs % 4096)
		die("--bs", "O_DIRECT needs a multiple of the logical block size; use a multiple "
		    "of 4K (the kernel would answer EINVAL)");
	if (o->mode == MMAP && o->write)
		die("--mode mmap", "only reads");
}

static struct options o;

/* Pages of this file in the page cache (cachestat(2)), or -1 */
static long long file_cached_pages(int fd)
{
	struct { uint64_t off, len; } range = { 0, 0 };
	uint64_t cs[5];

	return syscall(451, fd, &range, cs, 0) ? -1 : (long long)cs[0];
}

static void io_error(bool direct, bool uncached)
{
	if (errno == EOPNOTSUPP && uncached)
		die(o.file, "RWF_UNCACHED is not supported here (pclab kernel, ext4 or xfs?)");
	if (errno == EINVAL && direct)
		die(o.file, "O_DIRECT refused the I/O: EINVAL means an offset, size or buffer "
		    "not aligned to the device's logical block size");
	die(o.file, strerror(errno));
}
static long long nblocks, next_block, ops, bytes;

/* The next block to do, or -1 when the run is over. */
static long long next(double start)
{
	if ((o.seconds > 0 && now() - start >= o.seconds) || (o.seconds <= 0 && next_block >= nblocks))
		return -1;
	next_block++;
	return o.random ? random() % nblocks : (next_block - 1) % nblocks;
}

static void account(double t0, long long n)
{
	hist[bucket((uint64_t)((now() - t0) * 1e9))]++;
	ops++;
	bytes += n;
}

/* Once a second: a throughput line, and the page-cache peak. */
static void tick(double start, double *last, long long *last_bytes, long long *cached_peak)
{
	long long c;

	if (now() - *last < 1.0)
		return;
	c = proc_value("/proc/meminfo", "Cached");
	if (c > *cached_peak)
		*cached_peak = c;
	if (!o.json)
		printf("%6.1fs %9.1f MB/s  cache %7.1f MiB\n", now() - start,
		       (bytes - *last_bytes) / 1e6 / (now() - *last), c / 1024.0);
	fflush(stdout);
	*last_bytes = bytes;
	*last = now();
}

struct slot {
	double t0;
	unsigned char *buf;
};

static void uring_submit(struct io_uring *ring, struct slot *sl, int fd, long long block,
			 bool uncached)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	if (o.write)
		io_uring_prep_write(sqe, fd, sl->buf, o.bs, block * o.bs);
	else
		io_uring_prep_read(sqe, fd, sl->buf, o.bs, block * o.bs);
	sqe->rw_flags = uncached ? RWF_UNCACHED : 0;
	io_uring_sqe_set_data(sqe, sl);
	sl->t0 = now();
}

int main(int argc, char **argv)
{
	bool direct, uring, uncached;
	long long last_bytes = 0;
	long long cached0, cached_peak, in0, out0, marked0, kswapd0;
	double start, last, elapsed;
	struct rusage ru;
	struct io_uring ring;
	unsigned char *buf, *map = NULL;
	int fd, flags;

	parse(argc, argv, &o);
	direct = o.mode == DIRECT || o.mode == URING_DIRECT;
	uring = o.mode >= URING_BUFFERED && o.mode <= URING_DIRECT;
	uncached = o.mode == UNCACHED || o.mode == URING_UNCACHED;
	flags = (o.write ? O_RDWR | O_CREAT : O_RDONLY) | (direct ? O_DIRECT : 0);
	fd = open(o.file, flags, 0644);
	if (fd < 0)
		die(o.file, strerror(errno));
	if (o.size < 0) {
		struct stat st;

		if (o.write || fstat(fd, &st))
			die("--size", "give the data set size to write");
		o.size = st.st_size;
	}
	nblocks = o.size / o.bs;
	if (nblocks < 1)
		die(o.file, "smaller than one block");
	if (posix_memalign((void **)&buf, 4096, o.bs * o.qd))
		die("memory", strerror(errno));
	memset(buf, 0x5a, o.bs * o.qd);
	if (o.mode == MMAP) {
		map = mmap(NULL, o.size, PROT_READ, MAP_SHARED, fd, 0);
		if (map == MAP_FAILED)
			die("mmap", strerror(errno));
	}
	if (uring && io_uring_queue_init(o.qd, &ring, 0))
		die("io_uring", "cannot set up a ring");

	srandom(1);
	cached0 = cached_peak = proc_value("/proc/meminfo", "Cached");
	in0 = proc_value("/proc/vmstat", "pgpgin");
	out0 = proc_value("/proc/vmstat", "pgpgout");
	marked0 = proc_value("/proc/vmstat", "dropbehind_marked");
	kswapd0 = kswapd_ticks();
	start = last = now();

	if (uring) {
		struct slot *slots = calloc(o.qd, sizeof(*slots));
		int inflight = 0;

		for (int i = 0; i < o.qd; i++) {
			long long block = next(start);

			slots[i].buf = buf + i * o.bs;
			if (block < 0)
				break;
			uring_submit(&ring, &slots[i], fd, block, uncached);
			inflight++;
		}
		io_uring_submit(&ring);
		while (inflight) {
			struct io_uring_cqe *cqe;
			struct slot *sl;
			long long block;
			int res;

			if (io_uring_wait_cqe(&ring, &cqe))
				die("io_uring", "wait failed");
			sl = io_uring_cqe_get_data(cqe);
			res = cqe->res;
			io_uring_cqe_seen(&ring, cqe);
			inflight--;
			if (res < 0) {
				errno = -res;
				io_error(direct, uncached);
			}
			account(sl->t0, res);
			block = next(start);
			if (block >= 0) {
				uring_submit(&ring, sl, fd, block, uncached);
				io_uring_submit(&ring);
				inflight++;
			}
			tick(start, &last, &last_bytes, &cached_peak);
		}
		free(slots);
	} else {
		long long block;

		while ((block = next(start)) >= 0) {
			double t0 = now();
			long long n;

			if (o.mode == MMAP) {
				memcpy(buf, map + block * o.bs, o.bs);
				n = o.bs;
			} else {
				struct iovec iov = { buf, o.bs };
				int rwf = uncached ? RWF_UNCACHED : 0;

				n = o.write ? pwritev2(fd, &iov, 1, block * o.bs, rwf)
					    : preadv2(fd, &iov, 1, block * o.bs, rwf);
				if (n > 0 && o.mode == FADVISE)
					posix_fadvise(fd, block * o.bs, o.bs, POSIX_FADV_DONTNEED);
			}
			if (n < 0)
				io_error(direct, uncached);
			account(t0, n);
			tick(start, &last, &last_bytes, &cached_peak);
		}
	}
	if (o.write && o.mode != FADVISE)
		fsync(fd);
	elapsed = now() - start;
	getrusage(RUSAGE_SELF, &ru);
	{
		long long cached1 = proc_value("/proc/meminfo", "Cached");
		double hz = sysconf(_SC_CLK_TCK);
		double kswapd = (kswapd_ticks() - kswapd0) / hz / elapsed * 100;
		double usr = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
		double sys = ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
		long long marked = proc_value("/proc/vmstat", "dropbehind_marked");

		if (cached1 > cached_peak)
			cached_peak = cached1;
		if (o.json) {
			printf("{\"mode\":\"%s\",\"op\":\"%s\",\"pattern\":\"%s\",\"bs\":%lld,"
			       "\"bytes\":%lld,\"seconds\":%.3f,\"mb_s\":%.1f,\"iops\":%.0f,"
			       "\"lat_us\":{\"p50\":%.1f,\"p99\":%.1f,\"p999\":%.1f},"
			       "\"cpu_user_s\":%.2f,\"cpu_sys_s\":%.2f,\"kswapd_cpu_pct\":%.1f,"
			       "\"cache_kib\":{\"start\":%lld,\"peak\":%lld,\"end\":%lld},"
			       "\"pgpgin_kib\":%lld,\"pgpgout_kib\":%lld,\"dropbehind_marked\":%lld,"
			       "\"file_cached_pages\":%lld}\n",
			       mode_names[o.mode], o.write ? "write" : "read",
			       o.random ? "random" : "sequential", o.bs, bytes, elapsed,
			       bytes / 1e6 / elapsed, ops / elapsed, percentile(50, ops) / 1e3,
			       percentile(99, ops) / 1e3, percentile(99.9, ops) / 1e3, usr, sys, kswapd,
			       cached0, cached_peak, cached1,
			       proc_value("/proc/vmstat", "pgpgin") - in0,
			       proc_value("/proc/vmstat", "pgpgout") - out0,
			       marked < 0 ? -1 : marked - marked0, file_cached_pages(fd));
		} else {
			printf("iolab: %s %s %s, %lld-byte blocks: %.1f MB in %.2f s = %.1f MB/s, "
			       "%.0f IOPS\n", mode_names[o.mode], o.random ? "random" : "sequential",
			       o.write ? "write" : "read", o.bs, bytes / 1e6, elapsed,
			       bytes / 1e6 / elapsed, ops / elapsed);
			printf("iolab: latency p50 %.1f us, p99 %.1f us, p99.9 %.1f us\n",
			       percentile(50, ops) / 1e3, percentile(99, ops) / 1e3,
			       percentile(99.9, ops) / 1e3);
			printf("iolab: CPU user %.2f s, system %.2f s; kswapd %.1f%% of a CPU\n", usr,
			       sys, kswapd);
			printf("iolab: page cache %.1f MiB at start, %.1f peak, %.1f at end; "
			       "read %lld KiB, wrote %lld KiB from/to disk\n", cached0 / 1024.0,
			       cached_peak / 1024.0, cached1 / 1024.0,
			       proc_value("/proc/vmstat", "pgpgin") - in0,
			       proc_value("/proc/vmstat", "pgpgout") - out0);
		}
	}
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of iolab's kernel-free parts: option parsing, the latency
 * histogram's percentiles, the PSI parser and the counter sums.  Run by tests/host/iolab.sh.
 * lib/'s size and /proc parsers are tested by lib/tests/lib-unit.c.
 */
#define _GNU_SOURCE
#include <string.h>

#include "../iolab.h"
#include "tap.h"

/* Parses a command line given as one string of words. */
static enum iolab_parse_result parse(const char *line, struct iolab_options *o, char *err)
{
	static char buf[512];
	char *argv[32], *save = NULL;
	int argc = 0;

	snprintf(buf, sizeof(buf), "iolab %s", line);
	for (char *w = strtok_r(buf, " ", &save); w && argc < 31; w = strtok_r(NULL, " ", &save))
		argv[argc++] = w;
	argv[argc] = NULL;
	err[0] = 0;
	return iolab_parse(argc, argv, o, err, 256);
}

static void test_options(void)
{
	static const struct {
		const char *line, *why;
	} refused[] = {
		{ "-m nosuch f", "--mode" },
		{ "-b 100 f", "--bs" },
		{ "-b 65M f", "--bs" },
		{ "-b 12X f", "--bs" },
		{ "-s 0 f", "--size" },
		{ "-s -5 f", "--size" },
		{ "-t 0 f", "--time" },
		{ "-t abc f", "--time" },
		{ "-t inf f", "--time" },
		{ "-q 0 f", "--qd" },
		{ "-q 257 f", "--qd" },
		{ "-q 2.5 f", "--qd" },
		{ "-R -1 f", "--rate" },
		{ "-R 1e-12 f", "--rate" },
		{ "-i 0.05 f", "--interval" },
		{ "-i 61 f", "--interval" },
		{ "-i x f", "--interval" },
		{ "-w -s 18014398509481985k f", "--size" },
		{ "-w -s 9223372036854775808 f", "--size" },
		{ "-w -s 8589934592G f", "--size" },
		{ "-b +4K f", "--bs" },
		{ "-m mmap -w -s 1M f", "--mode mmap" },
		{ "-H -m direct f", "--hits" },
		{ "-H -w -s 1M f", "--hits" },
		{ "-H -m uring-buffered f", "--hits" },
		{ "-S f", "--fsync" },
		{ "-S -w -s 1M -m uring-uncached f", "--fsync" },
		{ "-S -w -s 1M -m fadvise f", "--fsync" },
		{ "-w f", "--size" },
	};
	struct iolab_options o;
	char err[256];

	EXPECT_TRUE(parse("f", &o, err) == IOLAB_RUN && o.mode == BUFFERED && o.bs == 65536 &&
			 o.size == -1 && o.qd == 4 && !o.write && !o.random && o.seconds == 0 &&
			 o.interval == 1 &&
			 !strcmp(o.file, "f"), "defaults: buffered sequential 64K reads of the whole file");
	EXPECT_TRUE(parse("-m uring-uncached -w -r -b 1M -s 2G -t 1.5 -q 32 -R 250 -j -l log -i 0.25 f",
			 &o, err) == IOLAB_RUN && o.interval == 0.25 && o.mode == URING_UNCACHED && o.write && o.random &&
			 o.bs == 1 << 20 && o.size == 2LL << 30 && o.seconds == 1.5 && o.qd == 32 &&
			 o.rate == 250 && o.json && !strcmp(o.log, "log"),
			 "every option is parsed, sizes with suffixes");
	EXPECT_TRUE(parse("-w -S -s 4K -m uncached f", &o, err) == IOLAB_RUN && o.fsync_each &&
			 parse("-w -s 4K f", &o, err) == IOLAB_RUN && !o.fsync_each,
			 "--fsync after each write, off by default");
	EXPECT_TRUE(parse("--mode=fadvise --hits --bs=4k file", &o, err) == IOLAB_RUN &&
			 o.mode == FADVISE && o.hits && o.bs == 4096, "long options, lower-case suffix");
	EXPECT_TRUE(iolab_direct(&(struct iolab_options){ .mode = URING_DIRECT }) &&
			 iolab_uncached(&(struct iolab_options){ .mode = UNCACHED }) &&
			 !iolab_uncached(&(struct iolab_options){ .mode = FADVISE }) &&
			 iolab_uring(&(struct iolab_options){ .mode = URING_BUFFERED }) &&
			 !iolab_uring(&(struct iolab_options){ .mode = MMAP }),
			 "mode predicates");
	EXPECT_EQ(IOLAB_RUN, parse("-m direct -b 1000 f", &o, err),
		     "a misaligned O_DIRECT size is left to the kernel (which the lab shows)");
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
		EXPECT_TRUE(parse(refused[i].line, &o, err) == IOLAB_USAGE &&
				 !strncmp(err, refused[i].why, strlen(refused[i].why)),
				 "'%s' is refused, naming %s (%s)", refused[i].line, refused[i].why, err);
	EXPECT_TRUE(parse("-w -s 18014398509481985k f", &o, err) == IOLAB_USAGE &&
			 strstr(err, "'18014398509481985k'"), "the message quotes the size it refused (%s)", err);
	EXPECT_TRUE(parse("", &o, err) == IOLAB_USAGE && !strcmp(err, "no FILE given"),
			 "no file is a usage error (%s)", err);
	EXPECT_TRUE(parse("a b", &o, err) == IOLAB_USAGE && strstr(err, "'b' is one too many"),
			 "two files are a usage error (%s)", err);
	/* every way getopt can refuse, each said in one line (lib/cli.c) */
	static const struct {
		const char *line, *why;
	} getopt_errors[] = {
		{ "--nosuch f", "unknown option '--nosuch'" },
		{ "--nosuch=1 f", "unknown option '--nosuch'" },
		{ "-wz f", "unknown option '-z'" },
		{ "f -b", "option '-b' needs a value" },
		{ "f -wb", "option '-b' needs a value" },
		{ "f --bs", "option '--bs' needs a value" },
		{ "--json=yes f", "option '--json' takes no value" },
	};
	for (size_t i = 0; i < sizeof(getopt_errors) / sizeof(getopt_errors[0]); i++)
		EXPECT_TRUE(parse(getopt_errors[i].line, &o, err) == IOLAB_USAGE &&
				 !strcmp(err, getopt_errors[i].why),
				 "'%s' is a usage error: %s (%s)", getopt_errors[i].line, getopt_errors[i].why,
				 err);
	EXPECT_EQ(IOLAB_HELP, parse("-h", &o, err), "-h asks for help");
	EXPECT_TRUE(parse("--version", &o, err) == IOLAB_VERSION && parse("-V", &o, err) == IOLAB_VERSION,
			 "-V, --version asks for the version");
}

static void test_histogram(void)
{
	static struct hist h;
	uint64_t p50, p99;

	memset(&h, 0, sizeof(h));
	EXPECT_EQ(0, hist_percentile(&h, 50), "an empty histogram has no percentiles");
	/* 1..10000 us: p50 about 5 ms, p99 about 9.9 ms */
	for (uint64_t us = 1; us <= 10000; us++)
		hist_add(&h, us * 1000);
	p50 = hist_percentile(&h, 50);
	p99 = hist_percentile(&h, 99);
	EXPECT_EQ(10000, h.total, "every sample counted");
	EXPECT_TRUE(p50 <= 5000000 && p50 >= 5000000 * 7 / 8, "p50 %llu ns within one bucket below 5 ms",
			 (unsigned long long)p50);
	EXPECT_TRUE(p99 <= 9900000 && p99 >= 9900000 * 7 / 8, "p99 %llu ns within one bucket below 9.9 ms",
			 (unsigned long long)p99);
	EXPECT_TRUE(hist_percentile(&h, 99.9) >= p99 && p99 >= p50, "percentiles are monotonic");
	memset(&h, 0, sizeof(h));
	hist_add(&h, 0);
	hist_add(&h, UINT64_MAX);
	EXPECT_TRUE(hist_percentile(&h, 0) == 1 && hist_percentile(&h, 100) == 0xfULL << 60,
			 "0 ns and the largest time land in the first and last buckets");
	memset(&h, 0, sizeof(h));
	for (int i = 0; i < 100; i++)
		hist_add(&h, i < 99 ? 1024 : 1000000);
	EXPECT_TRUE(hist_percentile(&h, 98) == 1024 && hist_percentile(&h, 99.5) == 1000000 - 1000000 % 65536,
			 "one slow I/O in 100 shows at p99.5, not p98 (%llu)",
			 (unsigned long long)hist_percentile(&h, 99.5));
}

static void test_psi(void)
{
	static const char pressure[] = "some avg10=1.50 avg60=0.30 avg300=0.06 total=1234567\n"
				       "full avg10=0.00 avg60=0.00 avg300=0.00 total=99\n";
	static const char vmstat[] = "nr_free_pages 100\npgpgin 42\n";
	FILE *f;

	f = fmemopen((void *)pressure, sizeof(pressure) - 1, "r");
	EXPECT_EQ(1234567, psi_some_total(f), "pressure: the some line's total, not the full one's");
	fclose(f);
	f = fmemopen((void *)vmstat, sizeof(vmstat) - 1, "r");
	EXPECT_EQ(-1, psi_some_total(f), "pressure: none in another file is -1");
	fclose(f);
}

static void test_counters_sum(void)
{
	static const long long scanned[] = { 120, 30, 0 }, lacking[] = { 120, -1, 5 };

	EXPECT_EQ(150, counters_sum(scanned, 3), "counters: the changes added up");
	EXPECT_EQ(-1, counters_sum(lacking, 3), "counters: one the kernel lacks makes the sum -1");
	EXPECT_EQ(0, counters_sum(scanned, 0), "counters: none add up to 0");
}

int main(void)
{
	test_options();
	test_histogram();
	test_psi();
	test_counters_sum();
	return tap_done(0);
}

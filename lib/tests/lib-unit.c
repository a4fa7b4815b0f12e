// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of lib/, what pcviz, the tools and the C tests share: size
 * parsing, /proc/meminfo and /proc/vmstat parsing, the kswapd definition
 * on a fake procfs, CSV and JSON writing, the clock, cachestat(2) and
 * which filesystems are pseudo-filesystems.
 * Run by tests/host/lib.sh.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pclab/cachestat.h"
#include "pclab/clock.h"
#include "pclab/json.h"
#include "pclab/pseudofs.h"
#include "pclab/size.h"
#include "pclab/sysstat.h"
#include "pclab/table.h"
#include "tap.h"

static char scratch[] = "/tmp/pclab-lib-unit.XXXXXX";

/* s with its control characters as \xNN, so that a TAP line stays one line */
static const char *shown(const char *s, char *buf, size_t len)
{
	size_t used = 0;

	for (; *s && used + 5 < len; s++)
		used += (size_t)snprintf(buf + used, len - used, (unsigned char)*s < 0x20 ? "\\x%02x" : "%c",
					 (unsigned char)*s);
	buf[used] = 0;
	return buf;
}

static void test_size(void)
{
	static const struct {
		const char *text;
		long long bytes;	/* -1: refused */
	} sizes[] = {
		{ "0", 0 }, { "4096", 4096 }, { "4k", 4096 }, { "4K", 4096 }, { "1M", 1 << 20 },
		{ "1m", 1 << 20 }, { "2G", 2LL << 30 }, { "2g", 2LL << 30 },
		{ "8589934591G", 8589934591LL << 30 }, { "9223372036854775807", LLONG_MAX },
		{ "9007199254740991k", 9007199254740991LL << 10 },
		{ "8589934592G", -1 }, { "18014398509481985k", -1 }, { "9223372036854775808", -1 },
		{ "99999999999999999999", -1 }, { "-5", -1 }, { "+5", -1 }, { " 5", -1 },
		{ "", -1 }, { "k", -1 }, { "5T", -1 }, { "5kk", -1 }, { "5 k", -1 }, { "5k ", -1 },
		{ "0x10", -1 }, { "1.5M", -1 },
	};

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		long long v = -1;
		bool ok = pclab_parse_size(sizes[i].text, &v);

		if (sizes[i].bytes < 0)
			EXPECT_TRUE(!ok, "size '%s' is refused", sizes[i].text);
		else
			EXPECT_TRUE(ok && v == sizes[i].bytes, "size '%s' is %lld bytes (got %lld)",
				    sizes[i].text, sizes[i].bytes, v);
	}
}

static void test_proc_values(void)
{
	static const char meminfo[] = "MemTotal:         250000 kB\nSwapCached:           7 kB\n"
				      "Cached:            1234 kB\nActive(file):        40 kB\n"
				      "Dirty:                0 kB\nWritebackTmp:         9 kB\n"
				      "Writeback:          11 kB\n";
	static const char vmstat[] = "nr_free_pages 100\npgpgin_extra 9\npgpgin 42\n"
				     "workingset_refault_file 17\npgpgout 18446744073709551615\nbroken\n"
				     "pgsteal_kswapd";
	const char *const mkeys[] = { "Cached", "Active(file)", "Dirty", "Writeback", "Shmem" };
	const char *const vkeys[] = { "pgpgin", "workingset_refault", "pgsteal_kswapd",
				      "workingset_refault_file", "nr_free_pages" };
	const char *const vkeys_big[] = { "pgpgout" };
	long long v[5];
	char path[sizeof(scratch) + 16];
	FILE *f;
	int n;

	n = pclab_proc_values(meminfo, mkeys, v, 5);
	EXPECT_EQ(4, n, "meminfo: four of five keys found (%d)", n);
	EXPECT_EQ(1234, v[0], "meminfo: Cached is 1234, not SwapCached's 7 (%lld)", v[0]);
	EXPECT_EQ(40, v[1], "meminfo: a key with parentheses, Active(file) (%lld)", v[1]);
	EXPECT_EQ(0, v[2], "meminfo: a zero value is found, not taken as absent (%lld)", v[2]);
	EXPECT_EQ(11, v[3], "meminfo: Writeback, not WritebackTmp (%lld)", v[3]);
	EXPECT_EQ(-1, v[4], "meminfo: an absent key is -1 (%lld)", v[4]);
	n = pclab_proc_values(vmstat, vkeys, v, 5);
	EXPECT_EQ(42, v[0], "vmstat: pgpgin exactly, not pgpgin_extra before it (%lld)", v[0]);
	EXPECT_TRUE(v[1] == -1 && v[3] == 17,
		    "vmstat: workingset_refault is not a prefix of workingset_refault_file");
	EXPECT_EQ(-1, v[2], "vmstat: a key without a value (cut-off text) is absent");
	EXPECT_TRUE(v[4] == 100 && n == 3, "vmstat: the first line counts too; three found (%d)", n);
	n = pclab_proc_values(vmstat, &vkeys_big[0], v, 1);
	EXPECT_TRUE(n == 0 && v[0] == -1, "vmstat: a value past LLONG_MAX is refused, not wrapped (%lld)",
		    v[0]);
	n = pclab_proc_values("workingset_refault 5\n", &vkeys[3], v, 1);
	EXPECT_TRUE(n == 0 && v[0] == -1,
		    "vmstat: an old kernel's workingset_refault is not workingset_refault_file");
	EXPECT_TRUE(pclab_proc_values("", mkeys, v, 5) == 0 && v[0] == -1, "empty text: nothing found");

	snprintf(path, sizeof(path), "%s/vmstat", scratch);
	f = fopen(path, "w");
	/* longer than any first guess of a buffer: the last key must still be read */
	for (int i = 0; i < 5000 && f; i++)
		fprintf(f, "filler_counter_%d %d\n", i, i);
	if (f) {
		fprintf(f, "nr_free_pages 7\n");
		fclose(f);
	}
	n = pclab_read_proc_values(path, &vkeys[4], v, 1);
	EXPECT_TRUE(n == 1 && v[0] == 7, "a file of 100 KiB is read to its last line (%lld)", v[0]);
	snprintf(path, sizeof(path), "%s/missing", scratch);
	v[0] = 5;
	n = pclab_read_proc_values(path, vkeys, v, 2);
	EXPECT_TRUE(n == -1 && errno == ENOENT && v[0] == -1 && v[1] == -1,
		    "an unreadable file: -1, ENOENT, every value -1");
	EXPECT_TRUE(pclab_meminfo("MemTotal") > 0 && pclab_vmstat("pgpgin") >= 0 &&
		    pclab_vmstat("no_such_counter") == -1,
		    "this host's /proc/meminfo and /proc/vmstat are read");
}

static void put(const char *dir, const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", scratch, dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%s/%s", scratch, dir, name);
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void test_kswapd(void)
{
	static const struct {
		const char *comm;
		bool kswapd;
	} comms[] = {
		{ "kswapd0\n", true }, { "kswapd0", true }, { "kswapd12\n", true },
		{ "kswapd\n", false }, { "kswapdx\n", false }, { "kswapd0x\n", false },
		{ "kcompactd0\n", false }, { "xkswapd0\n", false }, { "", false },
		{ "kswapd0\n\n", false },
	};
	struct pclab_kswapd k;
	char proc[sizeof(scratch) + 8];
	int n;

	for (size_t i = 0; i < sizeof(comms) / sizeof(comms[0]); i++) {
		char comm[64];

		EXPECT_EQ(comms[i].kswapd, pclab_is_kswapd(comms[i].comm), "comm '%s' is %sa kswapd",
			  shown(comms[i].comm, comm, sizeof(comm)), comms[i].kswapd ? "" : "not ");
	}

	/* a fake procfs: kswapd of two nodes, a kcompactd, and noise */
	put("proc", "meminfo", "MemTotal: 1 kB\n");
	put("proc/1", "comm", "init\n");
	put("proc/1", "stat", "1 (init) S 0 1 1 0 -1 4194560 0 0 0 0 500 500 0 0 20 0 1\n");
	put("proc/57", "comm", "kswapd0\n");
	put("proc/57", "stat", "57 (kswapd0) S 2 0 0 0 -1 2129984 0 0 0 0 40 2 0 0 20 0 1\n");
	put("proc/58", "comm", "kswapd1\n");
	put("proc/58", "stat", "58 (kswapd1) S 2 0 0 0 -1 2129984 0 0 0 0 10 5 0 0 20 0 1\n");
	put("proc/60", "comm", "kcompactd0\n");
	put("proc/60", "stat", "60 (kcompactd0) S 2 0 0 0 -1 2129984 0 0 0 0 900 9 0 0 20 0 1\n");
	put("proc/61", "comm", "kswapd2\n");	/* a thread gone before its stat is read */
	snprintf(proc, sizeof(proc), "%s/proc", scratch);
	n = pclab_kswapd_find(&k, proc);
	EXPECT_EQ(3, n, "fake procfs: the three kswapd threads, every node's (%d)", n);
	EXPECT_EQ(57, pclab_kswapd_ticks(&k),
		  "fake procfs: kswapd CPU is the sum over nodes, 42 + 15 ticks (%lld)",
		  pclab_kswapd_ticks(&k));
	snprintf(proc, sizeof(proc), "%s/proc/1", scratch);
	n = pclab_kswapd_find(&k, proc);
	EXPECT_TRUE(n == 0 && pclab_kswapd_ticks(&k) == -1, "no kswapd threads: no CPU time, -1");
	EXPECT_TRUE(pclab_kswapd_find(&k, NULL) >= 0 && !strcmp(k.proc, "/proc"),
		    "the real /proc by default (%d kswapd threads here)", k.nr);

	EXPECT_EQ(42, pclab_stat_ticks("57 (kswapd 0) (x)) S 2 0 0 0 -1 2129984 0 0 0 0 40 2 0 0 20 0 1"),
		  "/proc/PID/stat: utime + stime after a comm with spaces and parentheses");
	EXPECT_TRUE(pclab_stat_ticks("garbage") == -1 && pclab_stat_ticks("1 (x) S 2") == -1,
		    "/proc/PID/stat: garbage and a cut-off line are refused");
}

/* What a writer printed, as a string; the caller frees it.  The call may be a block. */
#define CAPTURE(buf, ...)                                                                \
	do {                                                                             \
		size_t len_;                                                             \
		FILE *out = open_memstream(&(buf), &len_);                               \
		__VA_ARGS__;                                                             \
		fclose(out);                                                             \
	} while (0)

static void expect(const char *got, const char *want, const char *what)
{
	char g[512], w[512];

	if (!EXPECT_STREQ(want, got, "%s", what))
		tap_diag("got  [%s]\n# want [%s]", shown(got, g, sizeof(g)), shown(want, w, sizeof(w)));
}

/* s as a whole JSON text: the string and the newline that ends a top-level value */
static void json_line_string(FILE *out, const char *s)
{
	struct pclab_json j;

	pclab_json_init(&j, out);
	pclab_json_string(&j, NULL, s);
}

static void test_csv_json(void)
{
	static const struct {
		const char *text, *csv, *json, *what;
	} texts[] = {
		{ "plain text", "plain text", "\"plain text\"\n", "plain text" },
		{ "a,b", "\"a,b\"", "\"a,b\"\n", "a comma" },
		{ "say \"hi\"", "\"say \"\"hi\"\"\"", "\"say \\\"hi\\\"\"\n", "double quotes" },
		{ "two\nlines", "\"two\nlines\"", "\"two\\u000alines\"\n", "a newline" },
		{ "cr\r", "\"cr\r\"", "\"cr\\u000d\"\n", "a carriage return" },
		{ "back\\slash", "back\\slash", "\"back\\\\slash\"\n", "a backslash" },
		{ "", "", "\"\"\n", "an empty text" },
		{ "caf\xc3\xa9", "caf\xc3\xa9", "\"caf\xc3\xa9\"\n", "valid UTF-8" },
		{ "bad\xff", "bad\xff", "\"bad\\udcff\"\n", "a byte that is not UTF-8" },
		{ "\xed\xa0\x80", "\xed\xa0\x80", "\"\\udced\\udca0\\udc80\"\n", "an encoded surrogate" },
		{ "tab\t\x01\x1f", "tab\t\x01\x1f", "\"tab\\u0009\\u0001\\u001f\"\n", "control characters" },
		{ "\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80", "\"\xf0\x9f\x98\x80\"\n", "a 4-byte character" },
		{ "\xc0\x80", "\xc0\x80", "\"\\udcc0\\udc80\"\n", "an overlong form" },
		{ "\xf4\x90\x80\x80", "\xf4\x90\x80\x80", "\"\\udcf4\\udc90\\udc80\\udc80\"\n",
		  "a character past U+10FFFF" },
		{ "cut\xe2\x82", "cut\xe2\x82", "\"cut\\udce2\\udc82\"\n", "a character cut short" },
	};
	struct pclab_value v[16];
	struct pclab_table t;
	char *buf = NULL;

	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		char what[64];

		CAPTURE(buf, pclab_csv_text(out, texts[i].text));
		snprintf(what, sizeof(what), "CSV field with %s", texts[i].what);
		expect(buf, texts[i].csv, what);
		free(buf);
		CAPTURE(buf, json_line_string(out, texts[i].text));
		snprintf(what, sizeof(what), "JSON string with %s", texts[i].what);
		expect(buf, texts[i].json, what);
		free(buf);
	}

	pclab_table_init(&t, v, 16);
	pclab_add_text(&t, "mode", "buffered");
	pclab_add_int(&t, "bytes", -1);
	pclab_add_object(&t, "lat_us", 2);
	pclab_add_real(&t, "p50", 1, 12.34);
	pclab_add_real(&t, "p99", 0, 99.5);
	pclab_add_uint(&t, "pages", UINT64_MAX);
	pclab_add_null(&t, "unknown");
	pclab_add_real(&t, "rate", 3, NAN);
	pclab_add_text(&t, "why", "a, b");
	pclab_add_object(&t, "empty", 0);
	pclab_table_add(&t, PCLAB_UINT, "ev_%s", "add")->u = 3;
	CAPTURE(buf, pclab_csv_header(out, &t));
	expect(buf, "mode,bytes,lat_us_p50,lat_us_p99,pages,unknown,rate,why,ev_add\n",
	       "CSV header: object members prefixed with the object's name");
	free(buf);
	CAPTURE(buf, pclab_csv_row(out, &t));
	expect(buf, "buffered,-1,12.3,100,18446744073709551615,,,\"a, b\",3\n",
	       "CSV row: decimals per value, unknown and NaN empty, text quoted");
	free(buf);
	CAPTURE(buf, pclab_table_json_object(out, &t));
	expect(buf, "{\"mode\":\"buffered\",\"bytes\":-1,\"lat_us\":{\"p50\":12.3,\"p99\":100},"
	       "\"pages\":18446744073709551615,\"unknown\":null,\"rate\":null,\"why\":\"a, b\","
	       "\"empty\":{},\"ev_add\":3}\n",
	       "JSON object: nested object, null for unknown and NaN");
	free(buf);
	EXPECT_TRUE(!t.overflow && t.n == 11, "eleven values, no overflow");
	pclab_table_init(&t, v, 1);
	pclab_add_uint(&t, "a", 1);
	pclab_add_uint(&t, "b", 2);
	EXPECT_TRUE(t.overflow && t.n == 1, "a value past the table's room is counted as an overflow");
}

/* Nesting, numbers, keys and misuse of the streaming writer, pclab/json.h */
static void test_json(void)
{
	struct pclab_json j;
	FILE *unwritable;
	char *buf = NULL;
	bool ok;

	CAPTURE(buf, {
		pclab_json_init(&j, out);
		pclab_json_begin_object(&j, NULL);
		pclab_json_begin_array(&j, "a");
		pclab_json_uint(&j, NULL, 1);
		pclab_json_begin_object(&j, NULL);
		pclab_json_begin_array(&j, "b");
		pclab_json_end(&j);
		pclab_json_end(&j);
		pclab_json_begin_array(&j, NULL);
		pclab_json_end(&j);
		pclab_json_end(&j);
		pclab_json_begin_object(&j, "c");
		pclab_json_end(&j);
		pclab_json_end(&j);
		pclab_json_string(&j, NULL, "next line");
		ok = pclab_json_ok(&j);
	});
	expect(buf, "{\"a\":[1,{\"b\":[]},[]],\"c\":{}}\n\"next line\"\n",
	       "JSON writer: nested objects and arrays, commas and closing; a line per top-level value");
	EXPECT_TRUE(ok, "JSON writer: a balanced text is ok");
	free(buf);

	CAPTURE(buf, {
		pclab_json_init(&j, out);
		pclab_json_begin_object(&j, NULL);
		pclab_json_int(&j, "i", -5);
		pclab_json_int(&j, "min", LLONG_MIN);
		pclab_json_uint(&j, "u", UINT64_MAX);
		pclab_json_real(&j, "r", 3, 2.5);
		pclab_json_real(&j, "r0", 0, 99.5);
		pclab_json_real(&j, "neg", 1, -0.25);
		pclab_json_real(&j, "nan", 3, NAN);
		pclab_json_real(&j, "inf", 3, INFINITY);
		pclab_json_real(&j, "-inf", 3, -INFINITY);
		pclab_json_bool(&j, "t", true);
		pclab_json_bool(&j, "f", false);
		pclab_json_null(&j, "n");
		pclab_json_string(&j, "k\"ey\n", "v");
		pclab_json_end(&j);
		ok = pclab_json_ok(&j);
	});
	expect(buf, "{\"i\":-5,\"min\":-9223372036854775808,\"u\":18446744073709551615,"
	       "\"r\":2.500,\"r0\":100,\"neg\":-0.2,\"nan\":null,\"inf\":null,\"-inf\":null,"
	       "\"t\":true,\"f\":false,\"n\":null,\"k\\\"ey\\u000a\":\"v\"}\n",
	       "JSON writer: integers to their limits, decimals per value, null for NaN and "
	       "infinities, booleans, keys escaped");
	EXPECT_TRUE(ok, "JSON writer: NaN and infinities are no misuse");
	free(buf);

	CAPTURE(buf, {
		pclab_json_init(&j, out);
		pclab_json_end(&j);
		ok = pclab_json_ok(&j);
	});
	EXPECT_TRUE(!ok && !*buf, "JSON writer: an end with nothing open is a misuse and writes nothing");
	free(buf);

	CAPTURE(buf, {
		pclab_json_init(&j, out);
		pclab_json_begin_object(&j, NULL);
		pclab_json_uint(&j, NULL, 1);
		pclab_json_uint(&j, "a", 2);
		pclab_json_end(&j);
		ok = pclab_json_ok(&j);
	});
	EXPECT_TRUE(!ok, "JSON writer: a value without its key in an object is a misuse");
	expect(buf, "{\"a\":2}\n", "JSON writer: a value without its key is left out");
	free(buf);

	CAPTURE(buf, {
		pclab_json_init(&j, out);
		pclab_json_begin_array(&j, NULL);
		pclab_json_uint(&j, "a", 1);
		pclab_json_uint(&j, NULL, 2);
		pclab_json_end(&j);
		ok = pclab_json_ok(&j);
	});
	EXPECT_TRUE(!ok, "JSON writer: a key in an array is a misuse");
	expect(buf, "[2]\n", "JSON writer: a value with a key in an array is left out");
	free(buf);

	CAPTURE(buf, {
		pclab_json_init(&j, out);
		pclab_json_string(&j, "top", "x");
		ok = pclab_json_ok(&j);
	});
	EXPECT_TRUE(!ok && !*buf, "JSON writer: a key at the top level is a misuse");
	free(buf);

	CAPTURE(buf, {
		pclab_json_init(&j, out);
		pclab_json_begin_object(&j, NULL);
		ok = pclab_json_ok(&j);
		pclab_json_end(&j);
		ok = !ok && pclab_json_ok(&j);
	});
	EXPECT_TRUE(ok, "JSON writer: not ok while an object is open, ok once it is closed");
	free(buf);

	CAPTURE(buf, {
		pclab_json_init(&j, out);
		for (int i = 0; i <= PCLAB_JSON_DEPTH; i++)
			pclab_json_begin_array(&j, NULL);
		for (int i = 0; i < PCLAB_JSON_DEPTH; i++)
			pclab_json_end(&j);
		ok = pclab_json_ok(&j);
	});
	EXPECT_TRUE(!ok, "JSON writer: nesting past PCLAB_JSON_DEPTH is a misuse");
	EXPECT_EQ(2 * PCLAB_JSON_DEPTH + 1, strlen(buf),
		  "JSON writer: the array past PCLAB_JSON_DEPTH is left out, the others closed");
	free(buf);

	unwritable = fopen("/dev/null", "r");
	if (!unwritable) {
		tap_skip(strerror(errno), "JSON writer: an error of the FILE is not ok");
		return;
	}
	pclab_json_init(&j, unwritable);
	pclab_json_null(&j, NULL);
	EXPECT_TRUE(!pclab_json_ok(&j), "JSON writer: an error of the FILE is not ok");
	fclose(unwritable);
}

static void test_clock(void)
{
	double t0 = pclab_now(), t1 = pclab_now();
	struct timespec ts = pclab_timespec(1.25), neg = pclab_timespec(-3);

	EXPECT_TRUE(t0 > 0 && t1 >= t0, "the monotonic clock does not go back");
	EXPECT_TRUE(ts.tv_sec == 1 && ts.tv_nsec == 250000000, "1.25 s is 1 s and 250000000 ns");
	EXPECT_TRUE(neg.tv_sec == 0 && neg.tv_nsec == 0, "a negative time is no time");
}

static int remove_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	return remove(path);
}

static void test_cachestat(void)
{
	char path[sizeof(scratch) + 16], page[4096];
	struct pclab_cachestat cs;
	int fd;

	snprintf(path, sizeof(path), "%s/cached", scratch);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	memset(page, 'x', sizeof(page));
	for (int i = 0; i < 3; i++)
		if (write(fd, page, sizeof(page)) != (ssize_t)sizeof(page))
			tap_diag("write: %s", strerror(errno));
	if (pclab_cachestat(fd, 0, 0, &cs) && errno == ENOSYS) {
		tap_skip("this kernel has no cachestat(2)", "cachestat of a new file");
	} else {
		EXPECT_EQ(3, cs.nr_cache, "cachestat: a file just written has its 3 pages cached (%llu)",
			  (unsigned long long)cs.nr_cache);
		EXPECT_TRUE(!pclab_cachestat(fd, 4096, 4096, &cs) && cs.nr_cache == 1,
			    "cachestat: a range of one page");
	}
	close(fd);
	EXPECT_TRUE(pclab_cachestat(-1, 0, 0, &cs) == -1 && (errno == EBADF || errno == ENOSYS),
		    "cachestat: a bad descriptor is refused with errno");
}

/* the name pclab_pseudo_fs() gives the file at path ("" for none), or "unopened" */
static const char *pseudo_fs_of(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	const char *fs;

	if (fd < 0)
		return "unopened";
	fs = pclab_pseudo_fs(fd);
	close(fd);
	return fs ? fs : "";
}

static void test_pseudo_fs(void)
{
	char path[sizeof(scratch) + 16];
	int fd;

	EXPECT_STREQ("proc", pseudo_fs_of("/proc/meminfo"), "/proc/meminfo is on proc (%s)",
		     pseudo_fs_of("/proc/meminfo"));
	EXPECT_STREQ("sysfs", pseudo_fs_of("/sys/kernel/mm"), "/sys/kernel/mm is on sysfs (%s)",
		     pseudo_fs_of("/sys/kernel/mm"));
	snprintf(path, sizeof(path), "%s/plain", scratch);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd >= 0)
		close(fd);
	EXPECT_STREQ("", pseudo_fs_of(path), "a file of the scratch directory is on no "
		     "pseudo-filesystem (%s)", pseudo_fs_of(path));
	EXPECT_TRUE(!pclab_pseudo_fs(-1), "a bad descriptor: no pseudo-filesystem named");
}

int main(void)
{
	if (!mkdtemp(scratch)) {
		printf("Bail out! mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	test_size();
	test_proc_values();
	test_kswapd();
	test_csv_json();
	test_json();
	test_clock();
	test_cachestat();
	test_pseudo_fs();
	nftw(scratch, remove_one, 16, FTW_DEPTH | FTW_PHYS);
	return tap_done(0);
}

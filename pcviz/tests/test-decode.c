// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of pcviz's event decoder (TAP): formats with missing or
 * unreadable fields, and records too short for the fields they should
 * carry.  Run by tests/host/pcviz-unit.sh.  The formats are text, as a
 * trace.dat or tracefs hands them over; nothing is traced.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "decode.h"
#include "tap.h"

#define COMMON \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

/* mm_filemap_add_to_page_cache as Linux 6.12 describes it */
#define ADD_FIELDS \
	"\tfield:unsigned long pfn;\toffset:8;\tsize:8;\tsigned:0;\n" \
	"\tfield:unsigned long i_ino;\toffset:16;\tsize:8;\tsigned:0;\n" \
	"\tfield:unsigned long index;\toffset:24;\tsize:8;\tsigned:0;\n" \
	"\tfield:dev_t s_dev;\toffset:32;\tsize:4;\tsigned:0;\n" \
	"\tfield:unsigned char order;\toffset:36;\tsize:1;\tsigned:0;\n"
#define PRINT "\nprint fmt: \"ino %lx\", REC->i_ino\n"

static const char add_format[] = "name: mm_filemap_add_to_page_cache\nID: 500\nformat:\n" COMMON
	ADD_FIELDS PRINT;

/* A tep with the format of add events, edited: from is replaced by to. */
static struct tep_handle *tep_with(const char *from, const char *to)
{
	struct tep_handle *tep = tep_alloc();
	char text[sizeof(add_format) + 64];
	const char *at = from ? strstr(add_format, from) : NULL;

	if (at)
		snprintf(text, sizeof(text), "%.*s%s%s", (int)(at - add_format), add_format, to,
			 at + strlen(from));
	else
		snprintf(text, sizeof(text), "%s", add_format);
	tep_set_long_size(tep, 8);
	tep_parse_event(tep, text, strlen(text), "filemap");
	return tep;
}

static void test_formats(void)
{
	static const struct {
		const char *from, *to, *what, *problem;
	} broken[] = {
		{ "dev_t s_dev;", "dev_t x_dev;", "a renamed field (s_dev)", "no usable field s_dev" },
		{ "long pfn;", "long pfx;", "the first field renamed", "no usable field pfn" },
		{ "unsigned char order;", "unsigned char ordre;", "the last field renamed",
		  "no usable field order" },
		{ "s_dev;\toffset:32;\tsize:4", "s_dev;\toffset:32;\tsize:3", "a field of 3 bytes",
		  "no usable field s_dev" },
		{ "short common_type;", "short common_typo;", "no common_type",
		  "no usable field common_type" },
	};
	struct pcv_decoder d;
	struct tep_handle *tep = tep_with(NULL, NULL);

	EXPECT_TRUE(pcv_decoder_init(&d, tep) == 1 && d.ev[0].id == 500 && !d.problem[0],
		    "the 6.12 format of mm_filemap_add_to_page_cache decodes");
	tep_free(tep);
	for (size_t i = 0; i < sizeof(broken) / sizeof(broken[0]); i++) {
		tep = tep_with(broken[i].from, broken[i].to);
		EXPECT_TRUE(pcv_decoder_init(&d, tep) == 0 && d.ev[0].id == -1 &&
			    strstr(d.problem, "filemap:mm_filemap_add_to_page_cache") &&
			    strstr(d.problem, broken[i].problem),
			    "%s: the event is not used, and the decoder says why: %s", broken[i].what,
			    d.problem);
		tep_free(tep);
	}
}

static void test_records(void)
{
	struct tep_handle *tep = tep_with(NULL, NULL);
	struct pcv_decoder d;
	unsigned char data[40] = { 0 };
	uint16_t type = 500;
	uint64_t ino = 12, index = 7;
	uint32_t dev = 8 << 20 | 1;
	struct tep_record rec = { .ts = 2000000000, .data = data, .size = sizeof(data) };
	struct pcv_event ev;
	bool decoded;

	pcv_decoder_init(&d, tep);
	memcpy(data, &type, 2);
	memcpy(data + 16, &ino, 8);
	memcpy(data + 24, &index, 8);
	memcpy(data + 32, &dev, 4);
	data[36] = 2;
	EXPECT_TRUE(pcv_decode(&d, &rec, &ev) && ev.kind == PCV_EV_ADD && ev.ino == 12 && ev.index == 7 &&
		    ev.dev == dev && ev.nr_pages == 4 && ev.ts == 2.0,
		    "a record decodes: ino, index, dev, order 2 is 4 pages, time in seconds");
	data[36] = 32;
	decoded = pcv_decode(&d, &rec, &ev);
	EXPECT_TRUE(decoded && ev.nr_pages == 1ull << 32, "order 32 is 2^32 pages, not order 0 (%llu)",
		    (unsigned long long)ev.nr_pages);
	data[36] = 200;
	decoded = pcv_decode(&d, &rec, &ev);
	EXPECT_TRUE(decoded && ev.nr_pages == UINT64_MAX,
		    "order 200, no folio's: it claims all pages (%llu)", (unsigned long long)ev.nr_pages);
	data[36] = 2;
	rec.size = 36;
	EXPECT_TRUE(!pcv_decode(&d, &rec, &ev), "a record too short for its last field is not decoded");
	rec.size = 1;
	EXPECT_TRUE(!pcv_decode(&d, &rec, &ev), "a record too short for its type is not decoded");
	type = 501;
	memcpy(data, &type, 2);
	rec.size = sizeof(data);
	EXPECT_TRUE(!pcv_decode(&d, &rec, &ev), "a record of another event is not decoded");
	tep_free(tep);
}

static void put(unsigned char *data, size_t at, uint64_t v, size_t size)
{
	memcpy(data + at, &v, size);	/* little-endian host: the low bytes */
}

/* mm_filemap_dropbehind_end and _call as the series lays them out on x86_64 */
#define END_FIELDS \
	"\tfield:dev_t s_dev;\toffset:8;\tsize:4;\tsigned:0;\n" \
	"\tfield:unsigned long i_ino;\toffset:16;\tsize:8;\tsigned:0;\n" \
	"\tfield:unsigned long index;\toffset:24;\tsize:8;\tsigned:0;\n" \
	"\tfield:unsigned int nr_pages;\toffset:32;\tsize:4;\tsigned:0;\n" \
	"\tfield:int when;\toffset:36;\tsize:4;\tsigned:1;\n" \
	"\tfield:int result;\toffset:40;\tsize:4;\tsigned:1;\n"
static const char end_format[] = "name: mm_filemap_dropbehind_end\nID: 520\nformat:\n" COMMON
	END_FIELDS PRINT;
static const char old_end_format[] = "name: dropbehind_end\nID: 530\nformat:\n" COMMON
	END_FIELDS PRINT;
static const char call_format[] = "name: mm_filemap_dropbehind_call\nID: 521\nformat:\n" COMMON
	"\tfield:dev_t s_dev;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned long i_ino;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:loff_t pos;\toffset:24;\tsize:8;\tsigned:1;\n"
	"\tfield:size_t bytes;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\tfield:bool write;\toffset:40;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned int marked;\toffset:44;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int served;\toffset:48;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int dropped;\toffset:52;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int kept;\toffset:56;\tsize:4;\tsigned:0;\n" PRINT;

/* The spec of a kind */
static int spec(enum pcv_kind kind)
{
	int i = 0;

	while (i < PCV_NSPECS - 1 && pcv_specs[i].kind != kind)
		i++;
	return i;
}

/* A tep with the given formats of the filemap system */
static struct tep_handle *tep_filemap(const char *const *formats, size_t n)
{
	struct tep_handle *tep = tep_alloc();

	tep_set_long_size(tep, 8);
	for (size_t i = 0; i < n; i++)
		tep_parse_event(tep, formats[i], strlen(formats[i]), "filemap");
	return tep;
}

/*
 * The drop-behind events under their names (mm_filemap_ prefix, the new
 * moment close, the call's counts), and under the names older pclab
 * kernels gave them, which a trace recorded there carries.
 */
static void test_dropbehind(void)
{
	const char *const both[] = { end_format, call_format, old_end_format };
	struct tep_handle *tep = tep_filemap(both, 2);
	int end = spec(PCV_EV_DB_END), call = spec(PCV_EV_DB_CALL);
	unsigned char data[64] = { 0 };
	struct tep_record rec = { .ts = 1000000000, .data = data, .size = 44 };
	struct pcv_decoder d;
	struct pcv_event ev;

	EXPECT_TRUE(pcv_decoder_init(&d, tep) == 2 && d.ev[end].id == 520 && d.ev[call].id == 521 &&
		    !strcmp(d.ev[end].name, "mm_filemap_dropbehind_end") && !d.problem[0],
		    "mm_filemap_dropbehind_end and _call decode");
	put(data, 0, 520, 2);
	put(data, 8, 254 << 20 | 16, 4);
	put(data, 16, 12, 8);
	put(data, 24, 7, 8);
	put(data, 32, 1, 4);
	put(data, 36, PCV_DB_CLOSE, 4);
	put(data, 40, PCV_DB_DROPPED, 4);
	EXPECT_TRUE(pcv_decode(&d, &rec, &ev) && ev.kind == PCV_EV_DB_END && ev.ino == 12 &&
		    ev.index == 7 && ev.nr_pages == 1 && ev.arg[0] == PCV_DB_CLOSE &&
		    !strcmp(pcv_db_when[ev.arg[0]], "close") && ev.arg[1] == PCV_DB_DROPPED,
		    "an end decodes: page 7 of ino 12, after close: dropped");
	memset(data, 0, sizeof(data));
	put(data, 0, 521, 2);
	put(data, 8, 254 << 20 | 16, 4);
	put(data, 16, 12, 8);
	put(data, 24, 1 << 20, 8);
	put(data, 32, 1 << 20, 8);
	put(data, 44, 256, 4);
	put(data, 48, 2, 4);
	put(data, 52, 255, 4);
	put(data, 56, 1, 4);
	rec.size = 60;
	EXPECT_TRUE(pcv_decode(&d, &rec, &ev) && ev.kind == PCV_EV_DB_CALL && ev.index == 1 << 20 &&
		    ev.nr_pages == 1 << 20 && ev.arg[0] == 0 && ev.arg[1] == 256 && ev.arg[2] == 2 &&
		    ev.arg[3] == 255 && ev.arg[4] == 1,
		    "a call decodes: a read of 1 MiB at 1 MiB, 256 marked, 2 served, 255 dropped, 1 kept");
	rec.size = 56;
	EXPECT_TRUE(!pcv_decode(&d, &rec, &ev), "a call too short for kept is not decoded");
	tep_free(tep);

	tep = tep_filemap(both + 2, 1);
	EXPECT_TRUE(pcv_decoder_init(&d, tep) == 1 && d.ev[end].id == 530 &&
		    !strcmp(d.ev[end].name, "dropbehind_end"),
		    "a trace of an older kernel: dropbehind_end decodes as mm_filemap_dropbehind_end");
	memset(data, 0, sizeof(data));
	put(data, 0, 530, 2);
	put(data, 36, 3, 4);
	put(data, 40, 2, 4);
	rec.size = 44;
	EXPECT_TRUE(pcv_decode(&d, &rec, &ev) && ev.kind == PCV_EV_DB_END && ev.arg[0] == 3 &&
		    ev.arg[1] == 2, "... its records as ends: after fsync, claimed");
	tep_free(tep);

	tep = tep_filemap(both, 3);
	EXPECT_TRUE(pcv_decoder_init(&d, tep) == 2 && d.ev[end].id == 520,
		    "both names in one trace: the new name's event is the one decoded");
	tep_free(tep);
}

/* The workingset events as the series describes them (offsets as x86_64 lays them out) */
static const char evict_format[] = "name: mm_workingset_eviction\nID: 600\nformat:\n" COMMON
	"\tfield:dev_t s_dev;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int nr_pages;\toffset:12;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned long i_ino;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:pgoff_t index;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:bool workingset;\toffset:32;\tsize:1;\tsigned:0;\n"
	"\tfield:u64 memcg;\toffset:40;\tsize:8;\tsigned:0;\n"
	"\tfield:u64 target;\toffset:48;\tsize:8;\tsigned:0;\n"
	"\tfield:u64 reclaimer;\toffset:56;\tsize:8;\tsigned:0;\n" PRINT;
static const char refault_format[] = "name: mm_workingset_refault\nID: 601\nformat:\n" COMMON
	"\tfield:dev_t s_dev;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int nr_pages;\toffset:12;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned long i_ino;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:pgoff_t index;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long distance;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\tfield:bool activate;\toffset:40;\tsize:1;\tsigned:0;\n"
	"\tfield:bool workingset;\toffset:41;\tsize:1;\tsigned:0;\n"
	"\tfield:u64 memcg;\toffset:48;\tsize:8;\tsigned:0;\n" PRINT;

/* A tep with the workingset events, the eviction's text edited: from replaced by to */
static struct tep_handle *tep_workingset(const char *from, const char *to)
{
	struct tep_handle *tep = tep_alloc();
	char text[sizeof(evict_format) + 64];
	const char *at = from ? strstr(evict_format, from) : NULL;

	if (at)
		snprintf(text, sizeof(text), "%.*s%s%s", (int)(at - evict_format), evict_format, to,
			 at + strlen(from));
	else
		snprintf(text, sizeof(text), "%s", evict_format);
	tep_set_long_size(tep, 8);
	tep_parse_event(tep, text, strlen(text), "workingset");
	tep_parse_event(tep, refault_format, strlen(refault_format), "workingset");
	return tep;
}

static void test_workingset(void)
{
	struct tep_handle *tep = tep_workingset(NULL, NULL);
	unsigned char data[64] = { 0 };
	struct tep_record rec = { .ts = 3000000000, .data = data, .size = sizeof(data) };
	struct pcv_decoder d;
	struct pcv_event ev;

	EXPECT_TRUE(pcv_decoder_init(&d, tep) == 2 && !d.problem[0],
		    "the workingset eviction and refault formats decode");
	put(data, 0, 600, 2);
	put(data, 4, 321, 4);		/* common_pid */
	put(data, 8, 8 << 20 | 1, 4);
	put(data, 12, 4, 4);
	put(data, 16, 12, 8);
	put(data, 24, 40, 8);
	data[32] = 1;
	put(data, 40, 77, 8);
	put(data, 48, 1, 8);
	put(data, 56, 300, 8);
	EXPECT_TRUE(pcv_decode(&d, &rec, &ev) && ev.kind == PCV_EV_EVICT && ev.pid == 321 &&
		    ev.dev == (8 << 20 | 1) && ev.ino == 12 && ev.index == 40 && ev.nr_pages == 4 &&
		    ev.arg[0] == 1 && ev.memcg == 77 && ev.target == 1 && ev.reclaimer == 300 &&
		    !ev.comm[0],
		    "an eviction decodes: pid, file, folio of 4 pages, workingset, the three cgroups");
	rec.size = 60;
	EXPECT_TRUE(!pcv_decode(&d, &rec, &ev), "an eviction too short for reclaimer is not decoded");
	memset(data, 0, sizeof(data));
	put(data, 0, 601, 2);
	put(data, 8, 8 << 20 | 1, 4);
	put(data, 12, 1, 4);
	put(data, 16, 12, 8);
	put(data, 24, 41, 8);
	put(data, 32, UINT64_MAX, 8);
	data[40] = 1;
	put(data, 48, 77, 8);
	rec.size = 56;
	EXPECT_TRUE(pcv_decode(&d, &rec, &ev) && ev.kind == PCV_EV_REFAULT && ev.index == 41 &&
		    ev.arg[0] == 1 && ev.arg[1] == 0 && ev.memcg == 77 &&
		    ev.distance == PCV_DISTANCE_UNKNOWN,
		    "a refault decodes: activated, not workingset, distance unknown");
	tep_free(tep);
	tep = tep_workingset("u64 reclaimer;", "u64 reclaimed;");
	EXPECT_TRUE(pcv_decoder_init(&d, tep) == 1 && d.ev[2].id == -1 &&
		    strstr(d.problem, "workingset:mm_workingset_eviction has no usable field reclaimer"),
		    "an eviction without reclaimer is not used (the refault still is): %s", d.problem);
	tep_free(tep);
}

/* mm_vmscan_wakeup_kswapd as this kernel describes it (include/trace/events/vmscan.h) */
static const char waker_format[] = "name: mm_vmscan_wakeup_kswapd\nID: 700\nformat:\n" COMMON
	"\tfield:int nid;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:int zid;\toffset:12;\tsize:4;\tsigned:1;\n"
	"\tfield:int order;\toffset:16;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned long gfp_flags;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\nprint fmt: \"nid=%d order=%d\", REC->nid, REC->order\n";

/* kswapd's waker: the event runs in the task whose allocation wakes kswapd */
static void test_waker(void)
{
	struct tep_handle *tep = tep_alloc();
	unsigned char data[32] = { 0 };
	struct tep_record rec = { .ts = 5000000000, .data = data, .size = sizeof(data) };
	struct pcv_decoder d;
	struct pcv_event ev;
	char text[sizeof(waker_format)];
	char *at;

	tep_set_long_size(tep, 8);
	tep_parse_event(tep, waker_format, strlen(waker_format), "vmscan");
	EXPECT_TRUE(pcv_decoder_init(&d, tep) == 1 && !d.problem[0] && d.pid,
		    "the kswapd wake-up format decodes, with its common_pid");
	put(data, 0, 700, 2);
	put(data, 4, 812, 4);		/* common_pid: the waker */
	put(data, 8, 1, 4);
	put(data, 12, 2, 4);
	put(data, 16, 3, 4);
	put(data, 24, 0xcc0, 8);
	EXPECT_TRUE(pcv_decode(&d, &rec, &ev) && ev.kind == PCV_EV_KSWAPD_WAKER && ev.pid == 812 &&
		    ev.arg[0] == 3 && ev.arg[1] == 1 && ev.arg[2] == 2 && !ev.reclaimer && !ev.comm[0] &&
		    ev.ts == 5.0,
		    "a wake-up decodes: the waker's pid, order 3, node 1, zone 2, cgroup not yet known");
	rec.size = 16;
	EXPECT_TRUE(!pcv_decode(&d, &rec, &ev), "a wake-up too short for order is not decoded");
	tep_free(tep);
	/* a kernel whose event has no nid: left out, named */
	snprintf(text, sizeof(text), "%s", waker_format);
	at = strstr(text, "int nid;");
	memcpy(at, "int nod;", 8);
	tep = tep_alloc();
	tep_set_long_size(tep, 8);
	tep_parse_event(tep, text, strlen(text), "vmscan");
	EXPECT_TRUE(pcv_decoder_init(&d, tep) == 0 &&
		    strstr(d.problem, "vmscan:mm_vmscan_wakeup_kswapd has no usable field nid"),
		    "a wake-up without nid is not used: %s", d.problem);
	tep_free(tep);
}

int main(void)
{
	tep_set_loglevel(TEP_LOG_NONE);
	test_formats();
	test_records();
	test_dropbehind();
	test_workingset();
	test_waker();
	return tap_done(0);
}

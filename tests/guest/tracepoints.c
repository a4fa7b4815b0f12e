// SPDX-License-Identifier: GPL-2.0
/*
 * The drop-behind trace events (docs/tracepoints.md) reconcile exactly with
 * the page cache's own add/delete events and with each other, for one test
 * file at a time (in-kernel filter on i_ino), on ext4 and xfs.  One fixture
 * variant per filesystem; each test starts from a fresh 8 MiB file of
 * pattern 1, on the disk and not cached, and a trace instance of its own.
 */
#include "suite.h"

#define FILE_SIZE (8 * MiB)
#define FILE_PAGES (FILE_SIZE / PAGE)
#define INSTANCE "/sys/kernel/tracing/instances/pclab-tracepoints-test"
/* test kernels: a marked folio's writeback ends as if in interrupt context */
#define FAIL_IRQ "/sys/kernel/debug/fail_dropbehind_irq/"

enum { EV_MARK, EV_SERVE, EV_CLAIM, EV_END, EV_CALL, EV_ADD, EV_DELETE, NR_EVENTS };
static const char *const events[NR_EVENTS] = {
	[EV_MARK] = "mm_filemap_dropbehind_mark",
	[EV_SERVE] = "mm_filemap_dropbehind_serve",
	[EV_CLAIM] = "mm_filemap_dropbehind_claim",
	[EV_END] = "mm_filemap_dropbehind_end",
	[EV_CALL] = "mm_filemap_dropbehind_call",
	[EV_ADD] = "mm_filemap_add_to_page_cache",
	[EV_DELETE] = "mm_filemap_delete_from_page_cache",
};

/* What one traced operation produced, in pages unless said otherwise */
struct tally {
	long events[NR_EVENTS];		/* number of events of each kind */
	long mark, serve, claim;
	long dropped_read, dropped_wb, dropped_fsync, dropped_close, irq_ends, kept, tails;
	long added, deleted;
	long calls, call_bytes, call_marked, call_served, call_dropped, call_kept;
	long end_folios_dropped, end_folios_kept, lost;
};

static void instance_write(const char *file, const char *value)
{
	char p[256];

	snprintf(p, sizeof(p), INSTANCE "/%s", file);
	pc_write_file(p, value);
}

/* Empty the instance's buffer (only an open with O_TRUNC does that). */
static void trace_clear(void)
{
	int fd = open(INSTANCE "/trace", O_WRONLY | O_TRUNC);

	if (fd < 0)
		pc_die("clear trace");
	close(fd);
}

/* Enable every event, filtered to one inode, and empty the buffer. */
static void trace_start(unsigned long ino)
{
	char p[128], filter[64];

	snprintf(filter, sizeof(filter), "i_ino == %lu", ino);
	for (size_t i = 0; i < NR_EVENTS; i++) {
		snprintf(p, sizeof(p), "events/filemap/%s/filter", events[i]);
		instance_write(p, filter);
		snprintf(p, sizeof(p), "events/filemap/%s/enable", events[i]);
		instance_write(p, "1");
	}
	trace_clear();
}

static long field(const char *line, const char *key)
{
	const char *at = strstr(line, key);

	return at ? strtol(at + strlen(key), NULL, 10) : 0;
}

/* Stop tracing and add up what the buffer holds. */
static struct tally trace_stop(void)
{
	struct tally t = { 0 };
	char line[512];
	FILE *f;

	instance_write("tracing_on", "0");
	f = fopen(INSTANCE "/trace", "r");
	if (!f)
		pc_die("trace");
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#')
			continue;
		if (strstr(line, "LOST"))
			t.lost++;
		for (size_t i = 0; i < NR_EVENTS; i++) {
			char tag[64];

			snprintf(tag, sizeof(tag), " %s: ", events[i]);
			if (strstr(line, tag))
				t.events[i]++;
		}
		if (strstr(line, " mm_filemap_dropbehind_mark: "))
			t.mark += field(line, " pages ");
		else if (strstr(line, " mm_filemap_dropbehind_serve: "))
			t.serve += field(line, " pages ");
		else if (strstr(line, " mm_filemap_dropbehind_claim: "))
			t.claim += field(line, " pages ");
		else if (strstr(line, " mm_filemap_dropbehind_end: ")) {
			long pages = field(line, " pages ");

			if (strstr(line, "after irq-writeback:"))
				t.irq_ends++;
			if (strstr(line, ": dropped")) {
				t.end_folios_dropped++;
				if (strstr(line, "after read:"))
					t.dropped_read += pages;
				else if (strstr(line, "after fsync:"))
					t.dropped_fsync += pages;
				else if (strstr(line, "after close:"))
					t.dropped_close += pages;
				else
					t.dropped_wb += pages;
			} else if (strstr(line, ": claimed") || strstr(line, ": mapped")) {
				/* kept for good; other results are put off, decided later */
				t.end_folios_kept++;
				t.kept += pages;
			} else if (strstr(line, ": tail")) {
				t.tails += pages;
			}
		} else if (strstr(line, " mm_filemap_dropbehind_call: ")) {
			t.calls++;
			t.call_bytes += field(line, " bytes ");
			t.call_marked += field(line, " marked ");
			t.call_served += field(line, " served ");
			t.call_dropped += field(line, " dropped ");
			t.call_kept += field(line, " kept ");
		} else if (strstr(line, " mm_filemap_add_to_page_cache: ")) {
			t.added += 1L << field(line, " order=");
		} else if (strstr(line, " mm_filemap_delete_from_page_cache: ")) {
			t.deleted += 1L << field(line, " order=");
		}
	}
	fclose(f);
	trace_clear();
	instance_write("tracing_on", "1");
	return t;
}

static unsigned long file_ino(const char *path)
{
	struct stat st;

	if (stat(path, &st))
		pc_die(path);
	return st.st_ino;
}

static void rw_all(int fd, bool write, int flags)
{
	unsigned char *buf = malloc(MiB);

	if (!buf)
		pc_die("malloc");
	for (size_t off = 0; off < FILE_SIZE; off += MiB) {
		pc_fill(buf, off, MiB, 1);
		if (pc_rw2(write, fd, buf, MiB, off, flags) != (ssize_t)MiB)
			pc_die(write ? "pwritev2" : "preadv2");
	}
	free(buf);
}

FIXTURE(fs) {
	char path[256];
	bool traced;
	int fd;
};

PC_FS_VARIANTS_EXT4_XFS;

FIXTURE_SETUP(fs)
{
	pc_test_start(_metadata);
	self->fd = -1;
	if (access("/sys/kernel/tracing/events/filemap/mm_filemap_dropbehind_end", F_OK))
		SKIP(return, "kernel has no drop-behind trace events");
	if (!pc_mounted(variant->mnt))
		SKIP(return, "%s is not mounted", variant->mnt);
	if (mkdir(INSTANCE, 0755) && errno != EEXIST)
		pc_die(INSTANCE);
	self->traced = true;
	instance_write("buffer_size_kb", "8192");
	self->fd = pc_fixture_file(self->path, sizeof(self->path), variant->mnt, "tracepoints-test",
				   FILE_SIZE);
}

FIXTURE_TEARDOWN(fs)
{
	pc_fixture_done(self->fd, self->path);
	if (!access(FAIL_IRQ "probability", F_OK))
		pc_write_file(FAIL_IRQ "probability", "0");
	if (!self->traced)
		return;
	for (size_t i = 0; i < NR_EVENTS; i++) {
		char p[128];

		snprintf(p, sizeof(p), "events/filemap/%s/enable", events[i]);
		instance_write(p, "0");
	}
	EXPECT_EQ(0, rmdir(INSTANCE)) TH_LOG("rmdir " INSTANCE ": %s", strerror(errno));
}

TEST_F(fs, cold_read)
{
	struct tally t;

	trace_start(file_ino(self->path));
	rw_all(self->fd, false, RWF_UNCACHED);
	t = trace_stop();
	EXPECT_EQ(0, t.lost) TH_LOG("no events lost");
	EXPECT_EQ(FILE_PAGES, t.dropped_read)
		TH_LOG("cold 8 MiB uncached read: drop events cover exactly the file's pages");
	EXPECT_EQ(0, t.kept) TH_LOG("cold 8 MiB uncached read: no page kept");
	EXPECT_EQ(FILE_PAGES, t.mark) TH_LOG("... mark events cover the same pages");
	EXPECT_EQ(FILE_PAGES, t.added) TH_LOG("... matching mm_filemap add events");
	EXPECT_EQ(FILE_PAGES, t.deleted) TH_LOG("... matching mm_filemap delete events");
	EXPECT_EQ(t.events[EV_MARK], t.events[EV_ADD]) TH_LOG("... a mark event per folio added");
	EXPECT_EQ(8, t.calls) TH_LOG("... one call event per read call");
	EXPECT_EQ(FILE_SIZE, t.call_bytes) TH_LOG("... their bytes add up");
	/* the per-call summaries agree with the per-folio events */
	EXPECT_EQ(t.events[EV_MARK], t.call_marked) TH_LOG("... calls' marked = mark events");
	EXPECT_EQ(t.end_folios_dropped, t.call_dropped) TH_LOG("... calls' dropped = folios dropped");
	EXPECT_EQ(t.end_folios_kept, t.call_kept) TH_LOG("... calls' kept = folios kept");
	EXPECT_EQ(0, t.call_served) TH_LOG("... nothing served from the cache");
}

/* A buffered read's folios stay, and no drop-behind event speaks of them */
TEST_F(fs, buffered_read)
{
	struct tally t;

	trace_start(file_ino(self->path));
	rw_all(self->fd, false, 0);
	t = trace_stop();
	EXPECT_EQ(0, t.lost) TH_LOG("no events lost");
	EXPECT_EQ(FILE_PAGES, t.added) TH_LOG("cold buffered read: adds cover the file's pages");
	EXPECT_EQ(0, t.events[EV_MARK] + t.events[EV_END] + t.events[EV_CALL])
		TH_LOG("... no mark, end or call event");
}

TEST_F(fs, warm_read)
{
	struct tally t;

	pc_warm(self->fd, FILE_SIZE);
	trace_start(file_ino(self->path));
	rw_all(self->fd, false, RWF_UNCACHED);
	t = trace_stop();
	EXPECT_EQ(FILE_PAGES, t.serve) TH_LOG("warm uncached read: every page 'served from cache'");
	EXPECT_EQ(t.events[EV_SERVE], t.call_served) TH_LOG("... calls' served = serve events");
	EXPECT_EQ(0, t.mark) TH_LOG("... and no mark event");
	EXPECT_EQ(0, t.end_folios_dropped) TH_LOG("... no drop event");
	EXPECT_EQ(0, t.deleted) TH_LOG("... no delete event");
	EXPECT_EQ(0, t.added) TH_LOG("... no add event");
}

TEST_F(fs, write)
{
	struct tally t;

	trace_start(file_ino(self->path));
	rw_all(self->fd, true, RWF_UNCACHED);
	fsync(self->fd);
	t = trace_stop();
	EXPECT_EQ(FILE_PAGES, t.mark) TH_LOG("uncached overwrite: all pages marked");
	EXPECT_EQ(FILE_PAGES, t.dropped_wb + t.dropped_fsync)
		TH_LOG("... all dropped by fsync's return (%ld when their writeback ended, %ld by "
		       "fsync itself)", t.dropped_wb, t.dropped_fsync);
	EXPECT_EQ(0, t.kept) TH_LOG("... none kept");
	EXPECT_EQ(0, t.irq_ends)
		TH_LOG("... the filesystem ended their writeback in task context (ends in "
		       "interrupt context counted)");
	EXPECT_EQ(FILE_PAGES, t.added) TH_LOG("... matching add events");
	EXPECT_EQ(FILE_PAGES, t.deleted) TH_LOG("... matching delete events");
	EXPECT_EQ(8, t.calls) TH_LOG("... one call event per write");
	/*
	 * a write's call counts the folios of its range still marked when it
	 * returns: the flusher may have written back and dropped some already
	 */
	EXPECT_LT(0, t.call_marked) TH_LOG("... the calls count marked folios");
	EXPECT_GE(t.events[EV_MARK], t.call_marked) TH_LOG("... no more than were marked");
	EXPECT_EQ(0, t.call_dropped + t.call_kept) TH_LOG("... writes decide later, not in the call");
}

/*
 * Writeback that ends in interrupt context, where a folio cannot leave the
 * page cache: the test kernel's fault point (fail_dropbehind_irq) has the
 * completion act as if it ran there.  Every folio is kept (irq), still
 * marked; the fsync that follows then drops them all.
 */
TEST_F(fs, irq_write)
{
	struct tally t;

	if (access(FAIL_IRQ "probability", W_OK))
		SKIP(return, "not a test kernel (CONFIG_FAIL_DROPBEHIND)");
	trace_start(file_ino(self->path));
	pc_write_file(FAIL_IRQ "task-filter", "N");
	pc_write_file(FAIL_IRQ "interval", "1");
	pc_write_file(FAIL_IRQ "times", "-1");
	pc_write_file(FAIL_IRQ "probability", "100");
	rw_all(self->fd, true, RWF_UNCACHED);
	/* the flusher's writeback first, all of it ending "in interrupt context" */
	for (int i = 0; i < 1200 && (pc_cachestat(self->fd, 0, 0).nr_dirty ||
				     pc_cachestat(self->fd, 0, 0).nr_writeback); i++)
		usleep(100 * 1000);
	pc_write_file(FAIL_IRQ "probability", "0");
	fsync(self->fd);
	t = trace_stop();
	EXPECT_EQ(0, t.lost) TH_LOG("no events lost");
	EXPECT_EQ(FILE_PAGES, t.mark) TH_LOG("uncached overwrite: all pages marked");
	EXPECT_EQ(t.events[EV_MARK], t.irq_ends)
		TH_LOG("... every folio's writeback ended in interrupt context (%ld)", t.irq_ends);
	EXPECT_EQ(0, t.dropped_wb) TH_LOG("... none dropped there");
	EXPECT_EQ(FILE_PAGES, t.dropped_fsync) TH_LOG("... fsync dropped them all");
	EXPECT_EQ(0, t.kept) TH_LOG("... none kept for good");
	EXPECT_EQ(0, pc_cached_pages(self->fd));
}

/*
 * Small appends keep the folio at the end of the file while it is open for
 * writing (a tail, fsync too keeps it); the last writer's close() drops it.
 */
TEST_F(fs, close_drops_write_tail)
{
	unsigned char buf[1000];
	struct tally t;

	trace_start(file_ino(self->path));
	pc_fill(buf, FILE_SIZE, sizeof(buf), 1);
	EXPECT_EQ(sizeof(buf), pc_rw2(true, self->fd, buf, sizeof(buf), FILE_SIZE, RWF_UNCACHED));
	fsync(self->fd);
	close(self->fd);
	self->fd = -1;
	t = trace_stop();
	EXPECT_EQ(1, t.mark) TH_LOG("the append's page, marked");
	/* at its writeback's end, and again in fsync() if fsync met it */
	EXPECT_LE(1, t.tails) TH_LOG("... kept as the end of the file while open");
	EXPECT_EQ(1, t.dropped_close) TH_LOG("... dropped by the last writer's close");
	self->fd = pc_open(self->path, O_RDONLY);
	EXPECT_EQ(0, pc_cached_pages(self->fd));
}

/* Reading into a mapping of the same range: every folio claimed, kept. */
TEST_F(fs, claim)
{
	size_t len = 256 * KiB;
	unsigned char *map;
	struct tally t;

	map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, self->fd, 0);
	if (map == MAP_FAILED)
		pc_die("mmap");
	trace_start(file_ino(self->path));
	pc_rw2(false, self->fd, map, len, 0, RWF_UNCACHED);
	t = trace_stop();
	EXPECT_EQ(len / PAGE, t.claim)
		TH_LOG("a folio faulted by another user during the read: 'claim' events for all "
		       "pages");
	EXPECT_EQ(0, t.end_folios_dropped) TH_LOG("... and no drop");
	munmap(map, len);
}

TEST_HARNESS_MAIN

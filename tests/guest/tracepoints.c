// SPDX-License-Identifier: GPL-2.0
/*
 * The drop-behind trace events (docs/tracepoints.md) reconcile exactly with
 * the page cache's own add/delete events and with each other, for one test
 * file at a time (in-kernel filter on i_ino), on ext4 and xfs.  One fixture
 * variant per filesystem; each test starts from a fresh 8 MiB file of
 * pattern 1, on the disk and not cached, and a trace instance of its own.
 */
#include "pclab.h"

#define FILE_SIZE (8 * MiB)
#define FILE_PAGES (FILE_SIZE / PAGE)
#define INSTANCE "/sys/kernel/tracing/instances/pclab-tracepoints-test"
/* test kernels: ext4 ends marked folios' writeback in interrupt context */
#define IRQ_WRITEBACK "/sys/kernel/debug/dropbehind_races/irq_writeback"

enum { EV_MARK, EV_SERVE, EV_CLAIM, EV_END, EV_CALL, EV_ADD, EV_DELETE,
       EV_TWIN_ADD, EV_TWIN_DELETE, EV_TWIN_MARK, EV_TWIN_END, NR_EVENTS };
static const char *const events[NR_EVENTS] = {
	[EV_MARK] = "dropbehind_mark", [EV_SERVE] = "dropbehind_serve",
	[EV_CLAIM] = "dropbehind_claim", [EV_END] = "dropbehind_end",
	[EV_CALL] = "dropbehind_call",
	[EV_ADD] = "mm_filemap_add_to_page_cache",
	[EV_DELETE] = "mm_filemap_delete_from_page_cache",
	/* the twins that leave out what the drop-behind events count */
	[EV_TWIN_ADD] = "uncounted_mm_filemap_add_to_page_cache",
	[EV_TWIN_DELETE] = "uncounted_mm_filemap_delete_from_page_cache",
	[EV_TWIN_MARK] = "uncounted_dropbehind_mark",
	[EV_TWIN_END] = "uncounted_dropbehind_end",
};

/* What one traced operation produced, in pages unless said otherwise */
struct tally {
	long events[NR_EVENTS];		/* number of events of each kind */
	long mark, serve, claim;
	long dropped_read, dropped_wb, dropped_fsync, irq_ends, kept;
	long added, deleted;
	/* the page cache's events that say drop-behind, and LRU insertions flagged D */
	long added_db, deleted_db, lru_db;
	long lru_db_twin;		/* LRU insertions flagged D of the twin */
	long calls, call_bytes, call_marked, call_served, call_dropped, call_kept;
	long call_created, call_created_pages, call_dropped_pages;
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
	/* no inode to filter on: the drop-behind flag (D) only; this test alone does uncached I/O */
	instance_write("events/pagemap/mm_lru_insertion/filter", "flags & 128");
	instance_write("events/pagemap/mm_lru_insertion/enable", "1");
	instance_write("events/pagemap/uncounted_mm_lru_insertion/filter", "flags & 128");
	instance_write("events/pagemap/uncounted_mm_lru_insertion/enable", "1");
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
		if (strstr(line, " dropbehind_mark: "))
			t.mark += field(line, " pages ");
		else if (strstr(line, " dropbehind_serve: "))
			t.serve += field(line, " pages ");
		else if (strstr(line, " dropbehind_claim: "))
			t.claim += field(line, " pages ");
		else if (strstr(line, " dropbehind_end: ")) {
			long pages = field(line, " pages ");

			if (strstr(line, "after irq-writeback:"))
				t.irq_ends++;
			if (strstr(line, ": dropped")) {
				t.end_folios_dropped++;
				if (strstr(line, "after read:"))
					t.dropped_read += pages;
				else if (strstr(line, "after fsync:"))
					t.dropped_fsync += pages;
				else
					t.dropped_wb += pages;
			} else if (strstr(line, ": claimed") || strstr(line, ": mapped")) {
				/* kept for good; other results are put off, decided later */
				t.end_folios_kept++;
				t.kept += pages;
			}
		} else if (strstr(line, " dropbehind_call: ")) {
			t.calls++;
			t.call_bytes += field(line, " bytes ");
			t.call_marked += field(line, " marked ");
			t.call_served += field(line, " served ");
			t.call_dropped += field(line, " dropped ");
			t.call_kept += field(line, " kept ");
			t.call_created += field(line, " created ");
			if (strstr(line, "pages: ")) {
				t.call_created_pages += field(strstr(line, "pages: "), " created ");
				t.call_dropped_pages += field(strstr(line, "pages: "), " dropped ");
			}
		} else if (strstr(line, " mm_filemap_add_to_page_cache: ")) {
			t.added += 1L << field(line, " order=");
			if (strstr(line, " dropbehind\n"))
				t.added_db += 1L << field(line, " order=");
		} else if (strstr(line, " mm_filemap_delete_from_page_cache: ")) {
			t.deleted += 1L << field(line, " order=");
			if (strstr(line, " dropbehind\n"))
				t.deleted_db += 1L << field(line, " order=");
		} else if (strstr(line, " mm_lru_insertion: ")) {
			t.lru_db++;
		} else if (strstr(line, " uncounted_mm_lru_insertion: ")) {
			t.lru_db_twin++;
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
	if (access("/sys/kernel/tracing/events/filemap/dropbehind_end", F_OK))
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
	if (!access(IRQ_WRITEBACK, F_OK))
		pc_write_file(IRQ_WRITEBACK, "0");
	if (!self->traced)
		return;
	for (size_t i = 0; i < NR_EVENTS; i++) {
		char p[128];

		snprintf(p, sizeof(p), "events/filemap/%s/enable", events[i]);
		instance_write(p, "0");
	}
	instance_write("events/pagemap/mm_lru_insertion/enable", "0");
	instance_write("events/pagemap/uncounted_mm_lru_insertion/enable", "0");
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
	EXPECT_EQ(FILE_PAGES, t.added_db) TH_LOG("... every add event says dropbehind");
	EXPECT_EQ(FILE_PAGES, t.deleted_db) TH_LOG("... every delete event says dropbehind");
	/* an insertion drained after its folio's drop shows no D: most, not all */
	EXPECT_LT(0, t.lru_db) TH_LOG("... LRU insertions flagged D (%ld)", t.lru_db);
	EXPECT_GE(FILE_PAGES, t.lru_db) TH_LOG("... at most one per page (%ld)", t.lru_db);
	EXPECT_EQ(8, t.calls) TH_LOG("... one dropbehind_call per read call");
	EXPECT_EQ(FILE_SIZE, t.call_bytes) TH_LOG("... their bytes add up");
	/* the per-call summaries agree with the per-folio events */
	EXPECT_EQ(t.events[EV_MARK], t.call_marked) TH_LOG("... calls' marked = mark events");
	EXPECT_EQ(t.end_folios_dropped, t.call_dropped) TH_LOG("... calls' dropped = folios dropped");
	EXPECT_EQ(t.end_folios_kept, t.call_kept) TH_LOG("... calls' kept = folios kept");
	EXPECT_EQ(0, t.call_served) TH_LOG("... nothing served from the cache");
	/* what a tracer that filters the folios' events out counts them from */
	EXPECT_EQ(t.events[EV_MARK], t.call_created) TH_LOG("... calls' created = mark events");
	EXPECT_EQ(t.mark, t.call_created_pages) TH_LOG("... their pages = marked pages");
	EXPECT_EQ(t.dropped_read, t.call_dropped_pages)
		TH_LOG("... calls' dropped pages = pages dropped after read");
	/* which the twins leave out, every one */
	EXPECT_EQ(0, t.events[EV_TWIN_ADD]) TH_LOG("... no uncounted add event");
	EXPECT_EQ(0, t.events[EV_TWIN_DELETE]) TH_LOG("... no uncounted delete event");
	EXPECT_EQ(0, t.events[EV_TWIN_MARK]) TH_LOG("... no uncounted mark event");
	EXPECT_EQ(0, t.events[EV_TWIN_END]) TH_LOG("... no uncounted end event");
	EXPECT_EQ(0, t.lru_db_twin) TH_LOG("... no uncounted LRU insertion flagged D");
}

/* A buffered read's folios stay: the twins fire for each, as the events they copy */
TEST_F(fs, buffered_read)
{
	struct tally t;

	trace_start(file_ino(self->path));
	rw_all(self->fd, false, 0);
	t = trace_stop();
	EXPECT_EQ(0, t.lost) TH_LOG("no events lost");
	EXPECT_EQ(FILE_PAGES, t.added) TH_LOG("cold buffered read: adds cover the file's pages");
	EXPECT_EQ(t.events[EV_ADD], t.events[EV_TWIN_ADD]) TH_LOG("... an uncounted add each");
	EXPECT_EQ(0, t.added_db) TH_LOG("... none says dropbehind");
	EXPECT_EQ(0, t.events[EV_TWIN_MARK] + t.events[EV_TWIN_END])
		TH_LOG("... no uncounted mark or end event");
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
	EXPECT_EQ(0, t.added_db) TH_LOG("... no add event says dropbehind");
	EXPECT_EQ(0, t.lru_db) TH_LOG("... no LRU insertion flagged D");
	EXPECT_EQ(0, t.call_created) TH_LOG("... the calls created nothing");
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
	EXPECT_EQ(FILE_PAGES, t.deleted) TH_LOG("... matching delete events");
	EXPECT_EQ(FILE_PAGES, t.added_db) TH_LOG("... every add event says dropbehind");
	/* drops after writeback go through invalidate_complete_folio2(), which cannot tell */
	EXPECT_EQ(0, t.deleted_db) TH_LOG("... no delete event says dropbehind");
	EXPECT_EQ(8, t.calls) TH_LOG("... one dropbehind_call per write");
	EXPECT_EQ(t.events[EV_MARK], t.call_marked) TH_LOG("... marked folios agree");
	EXPECT_EQ(0, t.call_created) TH_LOG("... writes report no created folios");
	/* a write's marks and ends are not counted elsewhere: the twins fire for them */
	EXPECT_EQ(t.events[EV_MARK], t.events[EV_TWIN_MARK]) TH_LOG("... an uncounted mark each");
	EXPECT_EQ(t.events[EV_END], t.events[EV_TWIN_END]) TH_LOG("... an uncounted end each");
	EXPECT_EQ(t.events[EV_DELETE], t.events[EV_TWIN_DELETE])
		TH_LOG("... an uncounted delete each");
	EXPECT_EQ(0, t.events[EV_TWIN_ADD]) TH_LOG("... but no uncounted add: they are marked");
}

/*
 * Writeback that ends in interrupt context, where a folio cannot leave the
 * page cache: test kernels have ext4 end it there on request (the series'
 * irq_writeback switch).  Every folio is kept (irq), still marked; the
 * fsync that waited for their writeback then drops them all.
 */
TEST_F(fs, irq_write)
{
	struct tally t;

	if (strcmp(variant->mnt, "/mnt/ext4"))
		SKIP(return, "the switch is ext4's");
	if (access(IRQ_WRITEBACK, F_OK))
		SKIP(return, "not a test kernel (CONFIG_DEBUG_DROPBEHIND_RACES)");
	trace_start(file_ino(self->path));
	pc_write_file(IRQ_WRITEBACK, "1");
	rw_all(self->fd, true, RWF_UNCACHED);
	fsync(self->fd);
	pc_write_file(IRQ_WRITEBACK, "0");
	t = trace_stop();
	EXPECT_EQ(0, t.lost) TH_LOG("no events lost");
	EXPECT_EQ(FILE_PAGES, t.mark) TH_LOG("uncached overwrite: all pages marked");
	EXPECT_EQ(FILE_PAGES, t.irq_ends)
		TH_LOG("... every folio's writeback ended in interrupt context (%ld)", t.irq_ends);
	EXPECT_EQ(0, t.dropped_wb) TH_LOG("... none dropped there");
	EXPECT_EQ(FILE_PAGES, t.dropped_fsync) TH_LOG("... fsync dropped them all");
	EXPECT_EQ(0, t.kept) TH_LOG("... none kept for good");
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

// SPDX-License-Identifier: GPL-2.0
/*
 * The drop-behind trace events (docs/tracepoints.md) reconcile exactly with
 * the page cache's own add/delete events and with each other, for one test
 * file at a time (in-kernel filter on i_ino), on ext4 and xfs.
 */
#include "pclab.h"
#include "tap.h"

#define FILE_SIZE (8 * MiB)
#define FILE_PAGES (FILE_SIZE / PAGE)
#define INSTANCE "/sys/kernel/tracing/instances/pclab-tracepoints-test"

static const char *const events[] = {
	"dropbehind_mark", "dropbehind_serve", "dropbehind_claim",
	"dropbehind_end", "dropbehind_call",
	"mm_filemap_add_to_page_cache", "mm_filemap_delete_from_page_cache",
};
#define NR_EVENTS (sizeof(events) / sizeof(events[0]))

static const char *fs_name;
static char path[256];

/* What one traced operation produced, in pages unless said otherwise */
struct tally {
	long events[NR_EVENTS];		/* number of events of each kind */
	long mark, serve, claim;
	long dropped_read, dropped_wb, dropped_fsync, irq_ends, kept;
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

static unsigned long file_ino(void)
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

static void test_cold_read(void)
{
	int fd = open(path, O_RDWR);
	struct tally t;

	pc_drop_caches();
	trace_start(file_ino());
	rw_all(fd, false, RWF_UNCACHED);
	t = trace_stop();
	tap_ok(t.lost == 0, "%s: no events lost", fs_name);
	tap_ok(t.dropped_read == FILE_PAGES && t.kept == 0,
	       "%s: cold 8 MiB uncached read: drop events cover exactly %lu pages (%ld, %ld kept)",
	       fs_name, FILE_PAGES, t.dropped_read, t.kept);
	tap_ok(t.mark == FILE_PAGES, "%s: ... mark events cover the same %lu pages (%ld)", fs_name,
	       FILE_PAGES, t.mark);
	tap_ok(t.added == FILE_PAGES && t.deleted == FILE_PAGES,
	       "%s: ... matching mm_filemap add (%ld) and delete (%ld) events", fs_name, t.added,
	       t.deleted);
	tap_ok(t.calls == 8 && t.call_bytes == (long)FILE_SIZE,
	       "%s: ... one dropbehind_call per read call (%ld), bytes add up (%ld)", fs_name,
	       t.calls, t.call_bytes);
	tap_ok(t.call_marked == t.events[0] && t.call_dropped == t.end_folios_dropped &&
	       t.call_kept == t.end_folios_kept && t.call_served == 0,
	       "%s: ... the per-call summaries agree with the per-folio events "
	       "(marked %ld/%ld, dropped %ld/%ld)", fs_name, t.call_marked, t.events[0],
	       t.call_dropped, t.end_folios_dropped);
	close(fd);
}

static void test_warm_read(void)
{
	int fd = open(path, O_RDWR);
	struct tally t;

	pc_drop_caches();
	pc_warm(fd, FILE_SIZE);
	trace_start(file_ino());
	rw_all(fd, false, RWF_UNCACHED);
	t = trace_stop();
	tap_ok(t.serve == FILE_PAGES && t.call_served == t.events[1],
	       "%s: warm uncached read: every page 'served from cache' (%ld)", fs_name, t.serve);
	tap_ok(t.mark == 0 && t.end_folios_dropped == 0 && t.deleted == 0,
	       "%s: ... and no mark, drop or delete event", fs_name);
	close(fd);
}

static void test_write(void)
{
	int fd = open(path, O_RDWR);
	struct tally t;

	pc_drop_caches();
	trace_start(file_ino());
	rw_all(fd, true, RWF_UNCACHED);
	fsync(fd);
	t = trace_stop();
	tap_ok(t.mark == FILE_PAGES, "%s: uncached overwrite: %ld pages marked", fs_name, t.mark);
	tap_ok(t.dropped_wb + t.dropped_fsync == FILE_PAGES && t.kept == 0,
	       "%s: ... all dropped by fsync's return (%ld when their writeback ended, %ld by "
	       "fsync itself)", fs_name, t.dropped_wb, t.dropped_fsync);
	tap_ok(t.irq_ends == 0,
	       "%s: ... the filesystem ended their writeback in task context (%ld ends in "
	       "interrupt context)", fs_name, t.irq_ends);
	tap_ok(t.deleted == FILE_PAGES, "%s: ... matching delete events (%ld)", fs_name, t.deleted);
	tap_ok(t.calls == 8 && t.call_marked == t.events[0],
	       "%s: ... one dropbehind_call per write, marked folios agree (%ld/%ld)", fs_name,
	       t.call_marked, t.events[0]);
	close(fd);
}

/* Reading into a mapping of the same range: every folio claimed, kept. */
static void test_claim(void)
{
	size_t len = 256 * KiB;
	int fd = open(path, O_RDWR);
	unsigned char *map;
	struct tally t;

	pc_drop_caches();
	map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		pc_die("mmap");
	trace_start(file_ino());
	pc_rw2(false, fd, map, len, 0, RWF_UNCACHED);
	t = trace_stop();
	tap_ok(t.claim == (long)(len / PAGE) && t.end_folios_dropped == 0,
	       "%s: a folio faulted by another user during the read: 'claim' events for all "
	       "%zu pages (%ld), no drop", fs_name, len / PAGE, t.claim);
	munmap(map, len);
	close(fd);
}

int main(void)
{
	const char *dirs[] = { "/mnt/ext4", "/mnt/xfs" };

	if (access("/sys/kernel/tracing/events/filemap/dropbehind_end", F_OK)) {
		tap_skip("kernel has no drop-behind trace events", "trace event reconciliation");
		return tap_done(0);
	}
	if (mkdir(INSTANCE, 0755) && errno != EEXIST)
		pc_die(INSTANCE);
	instance_write("buffer_size_kb", "8192");
	for (size_t d = 0; d < sizeof(dirs) / sizeof(dirs[0]); d++) {
		fs_name = dirs[d] + strlen("/mnt/");
		snprintf(path, sizeof(path), "%s/tracepoints-test", dirs[d]);
		pc_make_cold_file(path, FILE_SIZE, 1);
		test_cold_read();
		test_warm_read();
		test_write();
		test_claim();
		unlink(path);
	}
	for (size_t i = 0; i < NR_EVENTS; i++) {
		char p[128];

		snprintf(p, sizeof(p), "events/filemap/%s/enable", events[i]);
		instance_write(p, "0");
	}
	if (rmdir(INSTANCE))
		pc_die("rmdir " INSTANCE);
	return tap_done(0);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The reference tests of the kernel track's testing exercise: a test for
 * each of three rules of docs/semantics.md, which catch the bugs the
 * grader plants (the patches of labs/kernel-exercises/).
 */
#include "suite.h"

#define FILE_SIZE (8 * MiB)
#define FILE_PAGES (FILE_SIZE / PAGE)

PC_FS_FILE_FIXTURE("selftest-file", FILE_SIZE);

/* Uncached read of all of fd in 1 MiB calls; true if every call was whole. */
static bool read_uncached(int fd, void *buf)
{
	for (size_t off = 0; off < FILE_SIZE; off += MiB)
		if (pc_rw2(false, fd, (char *)buf + off, MiB, off, RWF_UNCACHED) != (ssize_t)MiB)
			return false;
	return true;
}

/* Rule: a folio that was cached before an uncached read stays cached. */
TEST_F(fs, cached_pages_stay)
{
	unsigned char *buf = malloc(FILE_SIZE);

	ASSERT_NE(NULL, buf);
	pc_warm(self->fd, FILE_SIZE);
	ASSERT_EQ(FILE_PAGES, pc_cached_pages(self->fd));
	EXPECT_TRUE(read_uncached(self->fd, buf));
	EXPECT_GT(0, pc_check(buf, 0, FILE_SIZE, 1)) TH_LOG("the data is right");
	EXPECT_EQ(FILE_PAGES, pc_cached_pages(self->fd)) TH_LOG("the cached file is still cached");
	free(buf);
}

/* Rule: what an uncached write brought in is gone once written back. */
TEST_F(fs, written_pages_go_after_writeback)
{
	unsigned char *buf = malloc(FILE_SIZE);
	double waited;

	ASSERT_NE(NULL, buf);
	pc_fill(buf, 0, FILE_SIZE, 2);
	ASSERT_EQ((ssize_t)FILE_SIZE, pc_rw2(true, self->fd, buf, FILE_SIZE, 0, RWF_UNCACHED));
	waited = pc_wait_written_dropped(self->fd);
	EXPECT_EQ(0, pc_cached_pages(self->fd)) TH_LOG("written pages left after %.1f s", waited);
	free(buf);
}

/* Rule: a folio mapped during an uncached read into that mapping stays, written back too. */
TEST_F(fs, mapped_pages_stay)
{
	size_t len = 256 * KiB;
	unsigned char *map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, self->fd, 0);

	ASSERT_NE(MAP_FAILED, map);
	EXPECT_EQ((ssize_t)len, pc_rw2(false, self->fd, map, len, 0, RWF_UNCACHED));
	EXPECT_EQ(len / PAGE, pc_cachestat(self->fd, 0, len).nr_cache)
		TH_LOG("the pages the read faulted in through the mapping stay cached");
	/* the copy dirtied them: their writeback must not drop them either */
	EXPECT_EQ(0, fsync(self->fd));
	EXPECT_EQ(len / PAGE, pc_cachestat(self->fd, 0, len).nr_cache)
		TH_LOG("pages still mapped stay cached after fsync wrote them back");
	munmap(map, len);
}

TEST_HARNESS_MAIN

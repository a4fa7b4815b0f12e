// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel track's testing exercise (labs/kernel-exercises/README.md,
 * "selftest"): write tests, on the kernel's kselftest harness, for the
 * rules of docs/semantics.md.  `make grade-selftest` runs them on the
 * series' kernel, where they must pass, and on kernels with bugs planted
 * in the drop-behind code, which you do not see: a point for each bug your
 * tests catch (fail on).
 *
 * Each TEST_F(fs, NAME) runs on ext4 and on xfs with a cold 8 MiB test file
 * of pattern 1: self->fd (open O_RDWR), FILE_SIZE bytes.  The helpers of
 * tests/lib/guest/suite.h are yours: pc_rw2() (a preadv2/pwritev2 with
 * flags, RWF_UNCACHED among them), pc_cached_pages(), pc_cachestat(),
 * pc_residency(), pc_warm(), pc_check(), pc_fill(); the kselftest
 * harness's EXPECT_* and ASSERT_* check.  tests/guest/uncached.c shows
 * them at work.
 */
#include "suite.h"

#define FILE_SIZE (8 * MiB)

PC_FS_FILE_FIXTURE("selftest-file", FILE_SIZE);

/*
 * TODO: one TEST_F per rule you test.  Name it for what it expects, check
 * what the rule says with EXPECT_*, and make it pass on the series' kernel
 * (make shell KERNEL=debug, then /extra/bin/selftest, or make
 * grade-selftest).  A test that expects nothing catches nothing.
 */
TEST_F(fs, nothing_yet)
{
}

TEST_HARNESS_MAIN

// SPDX-License-Identifier: GPL-2.0
/*
 * fs-shutdown: a crash, as the file system sees one, for the hidden tests
 * of durability (labs/hidden-tests/): shuts down the ext4 or xfs file
 * system that holds PATH without flushing its log, as xfstests' godown
 * does.  What was not committed to the disk (a new file nobody fsync()ed,
 * its size, its name) is gone once the file system is unmounted and
 * mounted again, which replays only the log on the disk.
 *
 *   fs-shutdown PATH
 *
 * Exit status 0, or 1 with a message.  Needs CAP_SYS_ADMIN.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/ext4.h>	/* EXT4_IOC_SHUTDOWN, xfs's XFS_IOC_GOINGDOWN by number */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	/* the log neither written nor flushed: the crash of a power cut */
	uint32_t how = EXT4_GOING_FLAGS_NOLOGFLUSH;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "Usage: fs-shutdown PATH   (PATH on ext4 or xfs)\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || ioctl(fd, EXT4_IOC_SHUTDOWN, &how)) {
		fprintf(stderr, "fs-shutdown: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	close(fd);
	return 0;
}

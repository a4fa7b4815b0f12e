// SPDX-License-Identifier: GPL-2.0
/* Which filesystems have no page cache to show; see pclab/pseudofs.h. */
#define _GNU_SOURCE
#include <linux/magic.h>
#include <stddef.h>
#include <sys/vfs.h>

#include "pclab/pseudofs.h"

static const struct {
	unsigned long magic;
	const char *name;
} pseudo_fs[] = {
	{ PROC_SUPER_MAGIC, "proc" }, { SYSFS_MAGIC, "sysfs" }, { DEBUGFS_MAGIC, "debugfs" },
	{ TRACEFS_MAGIC, "tracefs" }, { SECURITYFS_MAGIC, "securityfs" },
	{ CGROUP_SUPER_MAGIC, "cgroup" }, { CGROUP2_SUPER_MAGIC, "cgroup2" },
	{ BPF_FS_MAGIC, "bpf" }, { PSTOREFS_MAGIC, "pstore" }, { EFIVARFS_MAGIC, "efivarfs" },
	{ BINFMTFS_MAGIC, "binfmt_misc" }, { SELINUX_MAGIC, "selinuxfs" },
	{ DEVPTS_SUPER_MAGIC, "devpts" },
};

const char *pclab_pseudo_fs(int fd)
{
	struct statfs sf;

	if (fstatfs(fd, &sf))
		return NULL;
	for (size_t i = 0; i < sizeof(pseudo_fs) / sizeof(pseudo_fs[0]); i++)
		if ((unsigned long)sf.f_type == pseudo_fs[i].magic)
			return pseudo_fs[i].name;
	return NULL;
}

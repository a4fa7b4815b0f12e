// SPDX-License-Identifier: GPL-2.0
/*
 * System counters into pcviz's model: /proc/meminfo, /proc/vmstat and
 * kswapd's CPU through lib/ (pclab/sysstat.h), MGLRU from sysfs.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "procfs.h"

/* The meminfo lines pcviz shows, in KiB, and where they go in pcv_system */
static const char *const meminfo_keys[] = {
	"MemFree", "Cached", "Active(file)", "Inactive(file)", "Dirty", "Writeback",
};
#define NR_MEMINFO (sizeof(meminfo_keys) / sizeof(meminfo_keys[0]))

int pcv_parse_meminfo(const char *text, struct pcv_system *s)
{
	uint64_t *const fields[NR_MEMINFO] = {
		&s->mem_free, &s->cached, &s->active_file, &s->inactive_file, &s->dirty, &s->writeback,
	};
	long long v[NR_MEMINFO];
	int found = pclab_proc_values(text, meminfo_keys, v, NR_MEMINFO);

	for (size_t i = 0; i < NR_MEMINFO; i++)
		if (v[i] >= 0)
			*fields[i] = (uint64_t)v[i];
	return found;
}

int pcv_parse_vmstat(const char *text, struct pcv_system *s)
{
	/* pcv_vm_name[], then kernels before 5.9's one "workingset_refault" */
	const char *keys[PCV_VM_N + 1];
	long long v[PCV_VM_N + 1];
	int found = 0;

	memcpy(keys, pcv_vm_name, sizeof(pcv_vm_name));
	keys[PCV_VM_N] = "workingset_refault";
	pclab_proc_values(text, keys, v, PCV_VM_N + 1);
	if (v[PCV_VM_REFAULT_FILE] < 0)
		v[PCV_VM_REFAULT_FILE] = v[PCV_VM_N];
	for (int i = 0; i < PCV_VM_N; i++) {
		s->vm_valid[i] = v[i] >= 0;
		if (s->vm_valid[i]) {
			s->vm[i] = (uint64_t)v[i];
			found++;
		}
	}
	return found;
}

int pcv_parse_mglru(const char *text)
{
	char *end;
	unsigned long v = strtoul(text, &end, 0);

	if (end == text)
		return -1;
	return v ? 1 : 0;
}

void pcv_read_system(struct pcv_system *s, const struct pclab_kswapd *kswapd)
{
	static char buf[65536];

	s->known = true;
	if (pclab_read_file("/proc/meminfo", buf, sizeof(buf)) > 0)
		pcv_parse_meminfo(buf, s);
	if (pclab_read_file("/proc/vmstat", buf, sizeof(buf)) > 0)
		pcv_parse_vmstat(buf, s);
	s->kswapd_ticks = pclab_kswapd_ticks(kswapd);
	s->ticks_per_s = sysconf(_SC_CLK_TCK);
	s->mglru = pclab_read_file("/sys/kernel/mm/lru_gen/enabled", buf, sizeof(buf)) > 0
			   ? pcv_parse_mglru(buf)
			   : -1;
}

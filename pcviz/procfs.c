// SPDX-License-Identifier: GPL-2.0
/* System counters: /proc/meminfo, /proc/vmstat, kswapd's CPU, MGLRU. */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "procfs.h"

static const char *next_line(const char *line)
{
	line = strchr(line, '\n');
	return line ? line + 1 : NULL;
}

int pcv_parse_meminfo(const char *text, struct pcv_system *s)
{
	static const struct {
		const char *name;
		size_t off;
	} fields[] = {
		{ "MemFree:", offsetof(struct pcv_system, mem_free) },
		{ "Cached:", offsetof(struct pcv_system, cached) },
		{ "Active(file):", offsetof(struct pcv_system, active_file) },
		{ "Inactive(file):", offsetof(struct pcv_system, inactive_file) },
		{ "Dirty:", offsetof(struct pcv_system, dirty) },
		{ "Writeback:", offsetof(struct pcv_system, writeback) },
	};
	int found = 0;

	for (const char *line = text; line && *line; line = next_line(line)) {
		for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
			size_t n = strlen(fields[i].name);

			if (strncmp(line, fields[i].name, n))
				continue;
			*(uint64_t *)((char *)s + fields[i].off) = strtoull(line + n, NULL, 10);
			found++;
		}
	}
	return found;
}

int pcv_parse_vmstat(const char *text, struct pcv_system *s)
{
	int found = 0;

	memset(s->vm_valid, 0, sizeof(s->vm_valid));
	for (const char *line = text; line && *line; line = next_line(line)) {
		const char *sp = strchr(line, ' ');
		size_t n;

		if (!sp)
			continue;
		n = (size_t)(sp - line);
		for (int v = 0; v < PCV_VM_N; v++) {
			/* kernels before 5.9 have one "workingset_refault" */
			bool match = (strlen(pcv_vm_name[v]) == n && !strncmp(line, pcv_vm_name[v], n)) ||
				     (v == PCV_VM_REFAULT_FILE && n == 18 &&
				      !strncmp(line, "workingset_refault", n));

			if (!match)
				continue;
			s->vm[v] = strtoull(sp + 1, NULL, 10);
			s->vm_valid[v] = true;
			found++;
		}
	}
	return found;
}

long long pcv_parse_stat_ticks(const char *text)
{
	const char *p = strrchr(text, ')');
	unsigned long long utime, stime;

	/*
	 * after "(comm)": state ppid pgrp session tty tpgid flags minflt
	 * cminflt majflt cmajflt utime stime
	 */
	if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &utime,
			 &stime) != 2)
		return -1;
	return (long long)(utime + stime);
}

int pcv_parse_mglru(const char *text)
{
	char *end;
	unsigned long v = strtoul(text, &end, 0);

	if (end == text)
		return -1;
	return v ? 1 : 0;
}

int pcv_read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t got = 0;
	ssize_t n;

	if (fd < 0)
		return -1;
	while (got + 1 < len && (n = read(fd, buf + got, len - 1 - got)) > 0)
		got += (size_t)n;
	close(fd);
	buf[got] = 0;
	return (int)got;
}

int pcv_find_kswapd(void)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int pid = -1;

	if (!d)
		return -1;
	while (pid < 0 && (e = readdir(d))) {
		char path[300], comm[32];

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", e->d_name);
		if (pcv_read_file(path, comm, sizeof(comm)) > 0 && !strcmp(comm, "kswapd0\n"))
			pid = atoi(e->d_name);
	}
	closedir(d);
	return pid;
}

void pcv_read_system(struct pcv_system *s, int kswapd_pid)
{
	static char buf[16384];
	char path[64];

	s->known = true;
	if (pcv_read_file("/proc/meminfo", buf, sizeof(buf)) > 0)
		pcv_parse_meminfo(buf, s);
	if (pcv_read_file("/proc/vmstat", buf, sizeof(buf)) > 0)
		pcv_parse_vmstat(buf, s);
	s->kswapd_ticks = -1;
	if (kswapd_pid > 0) {
		snprintf(path, sizeof(path), "/proc/%d/stat", kswapd_pid);
		if (pcv_read_file(path, buf, sizeof(buf)) > 0)
			s->kswapd_ticks = pcv_parse_stat_ticks(buf);
	}
	s->ticks_per_s = sysconf(_SC_CLK_TCK);
	s->mglru = pcv_read_file("/sys/kernel/mm/lru_gen/enabled", buf, sizeof(buf)) > 0
			   ? pcv_parse_mglru(buf)
			   : -1;
}

// SPDX-License-Identifier: GPL-2.0
/* /proc/meminfo, /proc/vmstat and kswapd's CPU time; see pclab/sysstat.h. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pclab/sysstat.h"

int pclab_read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t got = 0;
	ssize_t n = 0;

	if (fd < 0)
		return -1;
	while (got + 1 < len && (n = read(fd, buf + got, len - 1 - got)) > 0)
		got += (size_t)n;
	close(fd);
	buf[got] = 0;
	return n < 0 ? -1 : (int)got;
}

static const char *next_line(const char *line)
{
	line = strchr(line, '\n');
	return line ? line + 1 : NULL;
}

int pclab_proc_values(const char *text, const char *const *keys, long long *values, int n)
{
	int found = 0;

	for (int i = 0; i < n; i++)
		values[i] = -1;
	for (const char *line = text; line && *line && found < n; line = next_line(line)) {
		size_t len = strcspn(line, ": \t\n");
		const char *p = line + len + (line[len] == ':');
		long long v;
		char *end;

		p += strspn(p, " \t");
		if (*p < '0' || *p > '9')
			continue;
		errno = 0;
		v = strtoll(p, &end, 10);
		if (errno)
			continue;
		for (int i = 0; i < n; i++) {
			/* the first line of a key counts; procfs repeats none */
			if (values[i] < 0 && strlen(keys[i]) == len && !strncmp(line, keys[i], len)) {
				values[i] = v;
				found++;
			}
		}
	}
	return found;
}

/*
 * The whole of a /proc file, which may be longer than any fixed buffer
 * (vmstat grows with every kernel); the caller frees it.
 */
static char *read_all(const char *path)
{
	size_t len = 16384;
	char *buf = NULL;

	for (;;) {
		char *bigger = realloc(buf, len);
		int n;

		if (!bigger) {
			free(buf);
			return NULL;
		}
		buf = bigger;
		n = pclab_read_file(path, buf, len);
		if (n < 0) {
			free(buf);
			return NULL;
		}
		if ((size_t)n + 1 < len)
			return buf;
		len *= 2;
	}
}

int pclab_read_proc_values(const char *path, const char *const *keys, long long *values, int n)
{
	char *text = read_all(path);
	int found;

	if (!text) {
		int err = errno;

		for (int i = 0; i < n; i++)
			values[i] = -1;
		errno = err;
		return -1;
	}
	found = pclab_proc_values(text, keys, values, n);
	free(text);
	return found;
}

long long pclab_meminfo(const char *key)
{
	long long v;

	pclab_read_proc_values("/proc/meminfo", &key, &v, 1);
	return v;
}

long long pclab_vmstat(const char *key)
{
	long long v;

	pclab_read_proc_values("/proc/vmstat", &key, &v, 1);
	return v;
}

bool pclab_is_kswapd(const char *comm)
{
	const char *p = comm + 6;

	if (strncmp(comm, "kswapd", 6) || *p < '0' || *p > '9')
		return false;
	p += strspn(p, "0123456789");
	return !*p || !strcmp(p, "\n");
}

int pclab_kswapd_find(struct pclab_kswapd *k, const char *proc)
{
	DIR *d;
	struct dirent *e;

	k->proc = proc ? proc : "/proc";
	k->nr = 0;
	d = opendir(k->proc);
	if (!d)
		return 0;
	while ((e = readdir(d)) && k->nr < PCLAB_MAX_KSWAPD) {
		char path[4096], comm[64];

		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "%s/%s/comm", k->proc, e->d_name);
		if (pclab_read_file(path, comm, sizeof(comm)) > 0 && pclab_is_kswapd(comm))
			k->pid[k->nr++] = atoi(e->d_name);
	}
	closedir(d);
	return k->nr;
}

long long pclab_stat_ticks(const char *text)
{
	/* comm may hold spaces and parentheses: the fields start after the last ')' */
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

long long pclab_kswapd_ticks(const struct pclab_kswapd *k)
{
	long long total = 0;

	if (!k->nr)
		return -1;
	for (int i = 0; i < k->nr; i++) {
		char path[4096], stat[1024];
		long long t;

		snprintf(path, sizeof(path), "%s/%d/stat", k->proc, k->pid[i]);
		if (pclab_read_file(path, stat, sizeof(stat)) <= 0)
			continue;
		t = pclab_stat_ticks(stat);
		if (t > 0)
			total += t;
	}
	return total;
}

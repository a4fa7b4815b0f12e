// SPDX-License-Identifier: GPL-2.0
/* The live source: watched files (cachestat), /proc, tracefs events. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "procfs.h"
#include "residency.h"
#include "source.h"
#include "tracing.h"

struct live {
	int fd[PCV_MAX_FILES];
	bool mincore;
	int kswapd;
	bool tracing;
};

static int add_file(struct pcv_model *m, struct live *l, const char *path, char *err, size_t len)
{
	struct stat st;
	int fd, i;

	if (m->nfiles == PCV_MAX_FILES)
		return 0;	/* the first PCV_MAX_FILES only (pcviz(1)) */
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		snprintf(err, len, "%s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (pcv_model_find_file(m, pcv_kdev(st.st_dev), st.st_ino) >= 0) {
		close(fd);	/* named twice */
		return 0;
	}
	i = pcv_model_add_file(m, path, pcv_kdev(st.st_dev), st.st_ino, (uint64_t)st.st_size);
	if (i < 0) {
		close(fd);
		snprintf(err, len, "%s: out of memory", path);
		return -1;
	}
	l->fd[i] = fd;
	return 0;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The regular files directly in dir, sorted by name. */
static int add_dir(struct pcv_model *m, struct live *l, const char *dir, char *err, size_t len)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0;
	int status = 0, before = m->nfiles;

	if (!d) {
		snprintf(err, len, "%s: %s", dir, strerror(errno));
		return -1;
	}
	while ((e = readdir(d))) {
		char path[4096], **more;
		struct stat st;

		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (stat(path, &st) || !S_ISREG(st.st_mode))
			continue;
		more = realloc(names, (n + 1) * sizeof(*names));
		if (!more || !(more[n] = strdup(path))) {
			names = more ? more : names;
			status = -1;
			snprintf(err, len, "%s: out of memory", dir);
			break;
		}
		names = more;
		n++;
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_names);
	for (size_t i = 0; i < n; i++) {
		if (!status)
			status = add_file(m, l, names[i], err, len);
		free(names[i]);
	}
	free(names);
	if (!status && m->nfiles == before) {
		snprintf(err, len, "%s: no regular files in this directory", dir);
		status = -1;
	}
	return status;
}

static int live_refresh(struct pcv_source *s, struct pcv_model *m, double dt)
{
	struct live *l = s->priv;
	double t0 = pcv_monotonic();
	bool used_mincore = false;

	(void)dt;
	for (int i = 0; i < m->nfiles; i++) {
		struct pcv_file *f = &m->files[i];
		struct stat st;

		if (fstat(l->fd[i], &st) == 0) {
			pcv_file_set_size(f, (uint64_t)st.st_size);
			if (st.st_nlink == 0 && f->state != PCV_FILE_DELETED) {
				f->state = PCV_FILE_DELETED;
				snprintf(f->note, sizeof(f->note), "deleted while watched");
			}
		}
		if (pcv_residency_refresh(f, l->fd[i], l->mincore, &used_mincore)) {
			f->state = PCV_FILE_ERROR;
			snprintf(f->note, sizeof(f->note), "residency: %s", strerror(errno));
		}
	}
	snprintf(m->res_source, sizeof(m->res_source), "%s", used_mincore ? "mincore" : "cachestat");
	pcv_read_system(&m->sys, l->kswapd);
	if (l->tracing)
		pcv_trace_poll(m);
	m->refresh_us = (pcv_monotonic() - t0) * 1e6;
	pcv_model_tick(m, pcv_monotonic());
	return 0;
}

static void live_drain(struct pcv_source *s, struct pcv_model *m)
{
	struct live *l = s->priv;

	if (l->tracing)
		pcv_trace_poll(m);
}

static void live_close(struct pcv_source *s, struct pcv_model *m)
{
	struct live *l = s->priv;

	if (l->tracing)
		pcv_trace_stop();
	for (int i = 0; i < m->nfiles; i++)
		close(l->fd[i]);
	free(l);
}

int pcv_live_open(struct pcv_source *s, struct pcv_model *m, const struct pcv_options *o,
		  char *err, size_t len)
{
	struct live *l = calloc(1, sizeof(*l));

	if (!l) {
		snprintf(err, len, "out of memory");
		return -1;
	}
	for (int i = 0; i < o->npaths; i++) {
		struct stat st;
		int status;

		if (stat(o->paths[i], &st)) {
			snprintf(err, len, "%s: %s", o->paths[i], strerror(errno));
			status = -1;
		} else if (S_ISDIR(st.st_mode)) {
			status = add_dir(m, l, o->paths[i], err, len);
		} else if (S_ISREG(st.st_mode)) {
			status = add_file(m, l, o->paths[i], err, len);
		} else {
			snprintf(err, len, "%s: not a regular file or a directory", o->paths[i]);
			status = -1;
		}
		if (status) {
			s->priv = l;
			live_close(s, m);
			return -1;
		}
	}
	l->mincore = o->mincore;
	l->kswapd = pcv_find_kswapd();
	s->name = "live";
	s->sample = live_refresh;
	s->close = live_close;
	s->drain = live_drain;
	s->realtime = true;
	s->priv = l;
	if (!o->events) {
		snprintf(m->events_why, sizeof(m->events_why), "--no-events given");
	} else {
		char why[sizeof(m->events_why)];

		l->tracing = !pcv_trace_start(m, o->events, o->buffer_kb, why, sizeof(why));
		snprintf(m->events_why, sizeof(m->events_why), "%s", why);
	}
	return 0;
}

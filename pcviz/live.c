// SPDX-License-Identifier: GPL-2.0
/* The live source: watched files (cachestat), /proc, tracefs events. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <limits.h>
#include <sys/inotify.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "memcg.h"
#include "message.h"
#include "pclab/clock.h"
#include "pclab/pseudofs.h"
#include "procfs.h"
#include "residency.h"
#include "source.h"
#include "tracing.h"

struct live {
	int fd[PCV_MAX_FILES];
	bool mincore_tells[PCV_MAX_FILES];	/* see pcv_residency_refresh() */
	bool mincore;
	struct pclab_kswapd kswapd;
	bool tracing;
	/* cgroup2's mount, NULL when there is none (memcg_why says so) */
	const char *memcg_root;
	char memcg_why[128];
	/* the directories named on the command line, followed with inotify */
	int inotify_fd;
	int ndirs;
	int *dir_wd;
	char **dir_path;
};

/* -1 with a message in err when fd is on a pseudo-filesystem */
static int refuse_pseudo(int fd, const char *path, char *err, size_t len)
{
	const char *fs = pclab_pseudo_fs(fd);

	if (!fs)
		return 0;	/* another filesystem, or unknown: let cachestat say */
	pcv_path_error(err, len, path, "on a pseudo-filesystem (%s): it has no page cache to show",
		       fs);
	return -1;
}

/*
 * Where cgroup2 is: /sys/fs/cgroup, or /sys/fs/cgroup/unified in the
 * hybrid layout of systemd.  cgroup v1's memory.stat is another file
 * ("cache" for "file", no pgscan, totals under other names), so cgroup
 * v1 is not read.
 */
static const char *memcg_root(char *why, size_t len)
{
	static const char *const roots[] = { "/sys/fs/cgroup", "/sys/fs/cgroup/unified" };
	struct statfs sf;

	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++)
		if (!statfs(roots[i], &sf) && (unsigned long)sf.f_type == CGROUP2_SUPER_MAGIC)
			return roots[i];
	snprintf(why, len, "no cgroup2 at /sys/fs/cgroup (cgroup v1 is not read)");
	return NULL;
}

/* What a path that is no regular file or directory is, in words */
static const char *kind_of(mode_t mode)
{
	return S_ISCHR(mode) ? "a character device" : S_ISBLK(mode) ? "a block device" :
	       S_ISFIFO(mode) ? "a FIFO" : S_ISSOCK(mode) ? "a socket" : "a special file";
}

/*
 * Watches the regular file at path.  Beyond --max-files it is only counted.
 * In a directory scan (in_dir) a file that is gone by the time it is
 * opened is skipped: directories change while pcviz starts.
 */
static int add_file(struct pcv_model *m, struct live *l, const char *path, bool in_dir,
		    char *err, size_t len)
{
	struct stat st;
	int fd, i;

	if (m->nfiles >= m->max_files) {
		m->unwatched++;
		return 0;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 && in_dir && errno == ENOENT)
		return 0;
	if (fd < 0 || fstat(fd, &st)) {
		pcv_path_error(err, len, path, "%s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode) || refuse_pseudo(fd, path, err, len)) {
		if (!S_ISREG(st.st_mode))
			pcv_path_error(err, len, path, "%s, not a regular file", kind_of(st.st_mode));
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
		pcv_path_error(err, len, path, "out of memory");
		return -1;
	}
	l->fd[i] = fd;
	m->files[i].grows = true;
	/* mincore(2)'s rule: the owner, or whoever may write the file (and root) */
	l->mincore_tells[i] = geteuid() == 0 || st.st_uid == geteuid() ||
			      !faccessat(AT_FDCWD, path, W_OK, AT_EACCESS);
	return 0;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Is the entry e of directory d a regular file (or a link to one)? */
static bool regular(DIR *d, const struct dirent *e)
{
	struct stat st;

	if (e->d_type == DT_REG)
		return true;
	if (e->d_type != DT_UNKNOWN && e->d_type != DT_LNK)
		return false;
	return !fstatat(dirfd(d), e->d_name, &st, 0) && S_ISREG(st.st_mode);
}

/* The regular files directly in dir, sorted by name. */
static int add_dir(struct pcv_model *m, struct live *l, const char *dir, char *err, size_t len)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, cap = 0;
	int status = 0, before = m->nfiles;
	long unwatched = m->unwatched;

	if (!d) {
		pcv_path_error(err, len, dir, "%s", strerror(errno));
		return -1;
	}
	if (refuse_pseudo(dirfd(d), dir, err, len)) {
		closedir(d);
		return -1;
	}
	while ((e = readdir(d))) {
		size_t size = strlen(dir) + strlen(e->d_name) + 2;

		if (!regular(d, e))
			continue;
		if (n == cap) {
			size_t more_cap = cap ? 2 * cap : 64;
			char **more = realloc(names, more_cap * sizeof(*names));

			if (!more)
				break;
			names = more;
			cap = more_cap;
		}
		names[n] = malloc(size);
		if (!names[n])
			break;
		snprintf(names[n++], size, "%s/%s", dir, e->d_name);
	}
	if (e) {
		pcv_path_error(err, len, dir, "out of memory");
		status = -1;
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_names);
	for (size_t i = 0; i < n; i++) {
		if (!status)
			status = add_file(m, l, names[i], true, err, len);
		free(names[i]);
	}
	free(names);
	if (!status && m->nfiles == before && m->unwatched == unwatched) {
		pcv_path_error(err, len, dir, "no regular files in this directory");
		status = -1;
	}
	return status;
}

/*
 * Follows a directory named on the command line, so that files created in
 * it or renamed into it later are watched too (up to --max-files, beyond
 * which they are counted as unwatched, as at the start).  Without inotify
 * (no memory, too many watches) the directory is what it was at the start.
 */
static void watch_dir(struct live *l, const char *dir)
{
	int *wd = realloc(l->dir_wd, (size_t)(l->ndirs + 1) * sizeof(*wd));
	char **path;

	if (!wd)
		return;
	l->dir_wd = wd;
	path = realloc(l->dir_path, (size_t)(l->ndirs + 1) * sizeof(*path));
	if (!path)
		return;
	l->dir_path = path;
	if (l->inotify_fd < 0)
		l->inotify_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (l->inotify_fd < 0)
		return;
	wd[l->ndirs] = inotify_add_watch(l->inotify_fd, dir, IN_CREATE | IN_MOVED_TO | IN_ONLYDIR);
	path[l->ndirs] = strdup(dir);
	if (wd[l->ndirs] >= 0 && path[l->ndirs])
		l->ndirs++;
	else
		free(path[l->ndirs]);
}

/*
 * A new name in a followed directory: a file renamed within the watched
 * ones takes its new name; a new regular file is watched.  Returns whether
 * the model gained a file.
 */
static bool follow_name(struct pcv_model *m, struct live *l, const char *path)
{
	char err[256];
	struct stat st;
	int i, before = m->nfiles;

	if (stat(path, &st) || !S_ISREG(st.st_mode))
		return false;
	i = pcv_model_find_file(m, pcv_kdev(st.st_dev), st.st_ino);
	if (i >= 0) {
		if (strcmp(m->files[i].path, path))
			pcv_file_rename(&m->files[i], path);
		return false;
	}
	/* a file that cannot be watched (gone already, refused) is left out */
	add_file(m, l, path, true, err, sizeof(err));
	return m->nfiles > before;
}

/* Reads what inotify has queued; the kernel filters follow new files. */
static void follow_dirs(struct pcv_model *m, struct live *l)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	bool added = false;
	ssize_t n;

	if (l->inotify_fd < 0)
		return;
	while ((n = read(l->inotify_fd, buf, sizeof(buf))) > 0) {
		for (char *p = buf; p < buf + n;) {
			const struct inotify_event *e = (const struct inotify_event *)p;
			char path[PATH_MAX];

			p += sizeof(*e) + e->len;
			if (!e->len || e->mask & IN_ISDIR)
				continue;
			for (int d = 0; d < l->ndirs; d++)
				if (l->dir_wd[d] == e->wd &&
				    snprintf(path, sizeof(path), "%s/%s", l->dir_path[d], e->name) <
					    (int)sizeof(path))
					added |= follow_name(m, l, path);
		}
	}
	if (added && l->tracing)
		pcv_trace_refilter(m);
}

/*
 * The files' sizes, and whether they were deleted, at each refresh.  The
 * events are read more often: a write event past the size read last is
 * the file growing (struct pcv_file's grows).
 */
static void stat_files(struct pcv_model *m, const struct live *l)
{
	for (int i = 0; i < m->nfiles; i++) {
		struct pcv_file *f = &m->files[i];
		struct stat st;

		if (fstat(l->fd[i], &st))
			continue;
		pcv_file_set_size(f, (uint64_t)st.st_size);
		if (st.st_nlink == 0 && f->state != PCV_FILE_DELETED) {
			f->state = PCV_FILE_DELETED;
			snprintf(f->note, sizeof(f->note), "deleted while watched");
		}
	}
}

static int live_refresh(struct pcv_source *s, struct pcv_model *m, double dt)
{
	struct live *l = s->priv;
	double t0 = pclab_now();
	bool used_mincore = false;

	(void)dt;
	follow_dirs(m, l);
	stat_files(m, l);
	for (int i = 0; i < m->nfiles; i++) {
		struct pcv_file *f = &m->files[i];

		f->unknown = pcv_residency_refresh(f, l->fd[i], l->mincore, l->mincore_tells[i],
						   &used_mincore) != 0;
		if (!f->unknown)
			continue;
		f->total = (struct pcv_res){ .pages = f->pages };	/* nothing stale */
		if (errno == EPERM)
			snprintf(f->why, sizeof(f->why),
				 "%s: you neither own the file nor may write it",
				 used_mincore ? "mincore cannot tell" : "cachestat refused");
		else
			snprintf(f->why, sizeof(f->why), "%s: %s",
				 used_mincore ? "mincore" : "cachestat", strerror(errno));
	}
	snprintf(m->res_source, sizeof(m->res_source), "%s", used_mincore ? "mincore" : "cachestat");
	pcv_read_system(&m->sys, &l->kswapd);
	if (l->memcg_root) {
		pcv_read_memcgs(&m->memcgs, l->memcg_root);
	} else {
		m->memcgs.known = true;
		snprintf(m->memcgs.why, sizeof(m->memcgs.why), "%s", l->memcg_why);
	}
	if (l->tracing)
		pcv_trace_poll(m);
	m->refresh_us = (pclab_now() - t0) * 1e6;
	pcv_model_tick(m, pclab_now());
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
	if (l->inotify_fd >= 0)
		close(l->inotify_fd);
	for (int d = 0; d < l->ndirs; d++)
		free(l->dir_path[d]);
	free(l->dir_path);
	free(l->dir_wd);
	free(l);
}

/* Room for an fd per watched file beside the trace's, up to the hard limit */
static void raise_fd_limit(int files)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur >= (rlim_t)files + 256)
		return;
	rl.rlim_cur = rl.rlim_max < (rlim_t)files + 256 ? rl.rlim_max : (rlim_t)files + 256;
	setrlimit(RLIMIT_NOFILE, &rl);
}

int pcv_live_open(struct pcv_source *s, struct pcv_model *m, const struct pcv_options *o,
		  char *err, size_t len)
{
	struct live *l = calloc(1, sizeof(*l));

	if (!l) {
		snprintf(err, len, "out of memory");
		return -1;
	}
	l->inotify_fd = -1;
	m->max_files = o->max_files;
	raise_fd_limit(o->max_files);
	for (int i = 0; i < o->npaths; i++) {
		struct stat st;
		int status;

		if (stat(o->paths[i], &st)) {
			pcv_path_error(err, len, o->paths[i], "%s", strerror(errno));
			status = -1;
		} else if (S_ISDIR(st.st_mode)) {
			status = add_dir(m, l, o->paths[i], err, len);
			if (!status)
				watch_dir(l, o->paths[i]);
		} else if (S_ISREG(st.st_mode)) {
			status = add_file(m, l, o->paths[i], false, err, len);
		} else {
			pcv_path_error(err, len, o->paths[i], "%s, not a regular file or a directory",
				       kind_of(st.st_mode));
			status = -1;
		}
		if (status) {
			s->priv = l;
			live_close(s, m);
			return -1;
		}
	}
	l->mincore = o->mincore;
	pclab_kswapd_find(&l->kswapd, NULL);
	l->memcg_root = memcg_root(l->memcg_why, sizeof(l->memcg_why));
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

/* SPDX-License-Identifier: MIT */
/*
 * Other names of protected files (R37): see alias.h.  Two walks, neither following a symlink
 * (every directory is opened relative to its parent with O_NOFOLLOW|O_DIRECTORY):
 *  1. the protected trees, for regular files with more than one link on a device of a writable
 *     area (the writable areas inside a protected tree are left to walk 2);
 *  2. only when walk 1 found some, the writable areas, for other names of those files.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include "host/alias.h"
#include "util/util.h"

/* A protected file with other names: its identity, its link count, how many of its names are
 * accounted for, and its protected names. */
struct linked {
	uint64_t dev, ino, nlink, found;
	struct cf_strv names;
};

struct aw {
	const struct cf_alias_query *q;
	struct cf_aliases *out;
	struct confine_error *err;
	struct timespec deadline;
	unsigned tick;
	uint64_t devs[16]; /* the devices of the writable roots */
	size_t ndevs;
	struct linked *v; /* walk 1's finds, sorted by (dev, ino) for walk 2 */
	size_t n, cap;
	uint64_t *inos; /* their inode numbers, sorted (walk 2's look at a listing) */
	uint64_t left;	/* names still unaccounted for: walk 2 stops at 0 */
	bool second;	/* walk 2 */
	struct cf_buf path;
	struct {
		uint64_t dev;
		bool dino; /* the directory listing's inode numbers are the files' */
	} fs[8];
	size_t nfs;
};

void cf_aliases_release(struct cf_aliases *a)
{
	for (size_t i = 0; i < a->n; i++) {
		free(a->v[i].alias);
		free(a->v[i].original);
	}
	free(a->v);
	memset(a, 0, sizeof(*a));
}

static int add_alias(struct aw *w, const char *alias, const char *original)
{
	struct cf_aliases *a = w->out;
	size_t max = w->q->budget->max_matches;
	if (a->n >= max) {
		cf_err(w->err, CONFINE_E_SCAN, "search for other names of protected files failed",
		       alias,
		       "more than %zu names inside the writable areas are hard links of "
		       "protected files (the match budget)",
		       max);
		cf_err_hint(w->err, "remove those hard links (find -samefile shows them); "
				    "nothing was run");
		return CONFINE_E_SCAN;
	}
	if (a->n == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 8;
		struct cf_alias *v =
		    cap > SIZE_MAX / sizeof(*v) ? NULL : realloc(a->v, cap * sizeof(*v));
		if (!v)
			return cf_nomem(w->err);
		a->v = v;
		a->cap = cap;
	}
	char *x = cf_strdup(alias), *o = cf_strdup(original);
	if (!x || !o) {
		free(x);
		free(o);
		return cf_nomem(w->err);
	}
	a->v[a->n++] = (struct cf_alias){x, o};
	return 0;
}

static bool over_time(struct aw *w)
{
	if ((++w->tick & 255) != 0)
		return false;
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec > w->deadline.tv_sec ||
	       (now.tv_sec == w->deadline.tv_sec && now.tv_nsec > w->deadline.tv_nsec);
}

static bool on_writable_dev(const struct aw *w, uint64_t dev)
{
	for (size_t i = 0; i < w->ndevs; i++)
		if (w->devs[i] == dev)
			return true;
	return false;
}

/* Whether the inode numbers of a listing of this file system are the files' own: on the local
 * file systems named here; elsewhere (overlayfs, where they may differ, network file systems)
 * every regular file is looked at. */
static bool dino_trusted(struct aw *w, int dfd, uint64_t dev)
{
	for (size_t i = 0; i < w->nfs; i++)
		if (w->fs[i].dev == dev)
			return w->fs[i].dino;
	struct statfs sf;
	bool t = false;
	if (fstatfs(dfd, &sf) == 0)
		switch ((unsigned long)sf.f_type) {
		case 0xEF53UL:	   /* ext2, ext3, ext4 */
		case 0x58465342UL: /* xfs */
		case 0x9123683EUL: /* btrfs */
		case 0x01021994UL: /* tmpfs */
		case 0xF2F52010UL: /* f2fs */
			t = true;
		}
	if (w->nfs < sizeof(w->fs) / sizeof(w->fs[0])) {
		w->fs[w->nfs].dev = dev;
		w->fs[w->nfs++].dino = t;
	}
	return t;
}

static int cmp_id(uint64_t dev, uint64_t ino, const struct linked *e)
{
	if (dev != e->dev)
		return dev < e->dev ? -1 : 1;
	return ino < e->ino ? -1 : ino > e->ino ? 1 : 0;
}

static int cmp_linked(const void *a, const void *b)
{
	const struct linked *y = b;
	const struct linked *x = a;
	return cmp_id(x->dev, x->ino, y);
}

static struct linked *find(const struct aw *w, uint64_t dev, uint64_t ino)
{
	size_t lo = 0, hi = w->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = cmp_id(dev, ino, &w->v[mid]);
		if (c == 0)
			return &w->v[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

/* Whether any file walk 1 found has this inode number (a listing's d_ino, before a stat). */
static bool ino_wanted(const struct aw *w, uint64_t ino)
{
	size_t lo = 0, hi = w->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (w->inos[mid] == ino)
			return true;
		if (w->inos[mid] < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Walk 1: a protected regular file at w->path with more than one link. */
static int note_protected(struct aw *w, const struct stat *st)
{
	const struct cf_alias_query *q = w->q;
	if (st->st_nlink < 2 || !on_writable_dev(w, (uint64_t)st->st_dev) ||
	    !q->is_protected(q->ctx, w->path.s))
		return 0;
	for (size_t i = 0; i < w->n; i++) {
		struct linked *e = &w->v[i];
		if (e->dev != (uint64_t)st->st_dev || e->ino != (uint64_t)st->st_ino)
			continue;
		if (cf_strv_contains(&e->names, w->path.s))
			return 0;
		e->found++;
		w->left--;
		return cf_strv_add(&e->names, w->path.s) < 0 ? cf_nomem(w->err) : 0;
	}
	if (w->n == w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 16;
		struct linked *v =
		    cap > SIZE_MAX / sizeof(*v) ? NULL : realloc(w->v, cap * sizeof(*v));
		if (!v)
			return cf_nomem(w->err);
		w->v = v;
		w->cap = cap;
	}
	struct linked *e = &w->v[w->n];
	*e = (struct linked){.dev = (uint64_t)st->st_dev,
			     .ino = (uint64_t)st->st_ino,
			     .nlink = (uint64_t)st->st_nlink,
			     .found = 1};
	if (cf_strv_add(&e->names, w->path.s) < 0)
		return cf_nomem(w->err);
	w->n++;
	w->left += e->nlink - 1;
	return 0;
}

/* Walk 2: a name in a writable area of a file walk 1 found. */
static int note_other(struct aw *w, struct linked *e)
{
	const struct cf_alias_query *q = w->q;
	/* A protected name was counted by walk 1 (when it lies in a protected tree). */
	if (!q->is_protected(q->ctx, w->path.s) && e->found < e->nlink) {
		e->found++;
		w->left--;
	}
	for (size_t i = 0; i < e->names.n; i++) {
		if (q->covers(q->ctx, w->path.s, e->names.v[i]))
			continue;
		int r = add_alias(w, w->path.s, e->names.v[i]);
		if (r < 0)
			return r;
	}
	return 0;
}

static int walk_dir(struct aw *w, int dfd, int depth);

/* One entry of the directory w->path (open at dfd). */
static int entry(struct aw *w, int dfd, bool dino, const struct dirent *d, int depth)
{
	const char *name = d->d_name;
	if (name[0] == '.' && (!name[1] || (name[1] == '.' && !name[2])))
		return 0;
	unsigned char type = d->d_type;
	if (type != DT_DIR && type != DT_REG && type != DT_UNKNOWN)
		return 0; /* a symlink is not followed; sockets, FIFOs and devices hold no content
			   */
	/* Walk 2 looks only at the regular files walk 1 found, by the listing's inode number. */
	if (w->second && type == DT_REG && dino && !ino_wanted(w, (uint64_t)d->d_ino))
		return 0;
	size_t base = w->path.len;
	if (w->path.len > 1)
		cf_buf_addc(&w->path, '/');
	cf_buf_add(&w->path, name);
	if (w->path.oom)
		return cf_nomem(w->err);
	int r = 0;
	struct stat st;
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		/* gone since it was listed */
	} else if (S_ISREG(st.st_mode)) {
		struct linked *e;
		if (!w->second)
			r = note_protected(w, &st);
		else if (st.st_nlink > 1 && (e = find(w, (uint64_t)st.st_dev, (uint64_t)st.st_ino)))
			r = note_other(w, e);
	} else if (S_ISDIR(st.st_mode) && on_writable_dev(w, (uint64_t)st.st_dev) &&
		   (w->second || !cf_strv_contains(w->q->writable_roots, w->path.s))) {
		int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0) {
			r = walk_dir(w, fd, depth + 1);
			close(fd);
		} else if (errno != EACCES && errno != EPERM && errno != ENOENT && errno != ELOOP &&
			   errno != ENOTDIR) {
			r = cf_err_os(w->err, CONFINE_E_SCAN,
				      "search for other names of protected files failed", w->path.s,
				      "openat", errno);
		}
	}
	w->path.len = base;
	w->path.s[base] = '\0';
	return r;
}

static int walk_dir(struct aw *w, int dfd, int depth)
{
	if (depth > w->q->budget->max_depth) {
		cf_err(w->err, CONFINE_E_SCAN, "search for other names of protected files failed",
		       w->path.s, "the tree is deeper than %d directories (the depth budget)",
		       w->q->budget->max_depth);
		cf_err_hint(w->err, "remove that tree or move it out of the workspace (a command "
				    "may have made it to stop later runs); nothing was run");
		return CONFINE_E_SCAN;
	}
	int dup_fd = fcntl(dfd, F_DUPFD_CLOEXEC, 0);
	DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
	if (!d) {
		int e = errno;
		if (dup_fd >= 0)
			close(dup_fd);
		return cf_err_os(w->err, CONFINE_E_SCAN,
				 "search for other names of protected files failed", w->path.s,
				 "fdopendir", e);
	}
	/* The file system of this directory decides for the whole listing. */
	struct stat ds;
	bool dino = w->second && fstat(dfd, &ds) == 0 && dino_trusted(w, dfd, (uint64_t)ds.st_dev);
	int r = 0;
	for (;;) {
		if (w->second && w->left == 0)
			break; /* every other name is accounted for */
		if (over_time(w)) {
			r = cf_err(w->err, CONFINE_E_SCAN,
				   "search for other names of protected files failed", w->path.s,
				   "it took more than %g s (the time budget of the glob scan)",
				   w->q->budget->seconds);
			break;
		}
		errno = 0;
		struct dirent *e = readdir(d);
		if (!e) {
			if (errno)
				r = cf_err_os(w->err, CONFINE_E_SCAN,
					      "search for other names of protected files failed",
					      w->path.s, "readdir", errno);
			break;
		}
		if ((r = entry(w, dfd, dino, e, depth)) < 0)
			break;
	}
	closedir(d);
	return r;
}

/* Walks one root: a file is looked at, a directory walked. */
static int walk_root(struct aw *w, const char *root)
{
	struct stat st;
	cf_buf_release(&w->path);
	cf_buf_add(&w->path, root);
	if (w->path.oom)
		return cf_nomem(w->err);
	if (lstat(root, &st) < 0 || !on_writable_dev(w, (uint64_t)st.st_dev))
		return 0;
	if (S_ISREG(st.st_mode) && !w->second)
		return note_protected(w, &st);
	struct linked *e;
	if (S_ISREG(st.st_mode))
		return st.st_nlink > 1 && (e = find(w, (uint64_t)st.st_dev, (uint64_t)st.st_ino))
			   ? note_other(w, e)
			   : 0;
	if (!S_ISDIR(st.st_mode))
		return 0;
	int fd = open(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return 0; /* unreadable, or swapped for a symlink: nothing to look at */
	int r = walk_dir(w, fd, 0);
	close(fd);
	return r;
}

static int cmp_path(const void *a, const void *b)
{
	return cf_path_cmp(*(char *const *)a, *(char *const *)b);
}

/* The roots sorted, each one not within another (walked with it). */
static int outermost(const struct cf_strv *in, struct cf_strv *out)
{
	for (size_t i = 0; i < in->n; i++)
		if (cf_strv_add(out, in->v[i]) < 0)
			return -1;
	if (out->n > 1)
		qsort(out->v, out->n, sizeof(*out->v), cmp_path);
	size_t k = 0;
	for (size_t i = 0; i < out->n; i++) {
		if (k && cf_path_within(out->v[i], out->v[k - 1])) {
			free(out->v[i]);
			continue;
		}
		out->v[k++] = out->v[i];
	}
	out->n = k;
	return 0;
}

int cf_host_find_aliases(const struct cf_alias_query *q, struct cf_aliases *out,
			 struct confine_error *err)
{
	struct aw w = {.q = q, .out = out, .err = err};
	struct cf_strv prot = {0}, writ = {0};
	int r = 0;
	cf_buf_init(&w.path);
	if (outermost(q->protected_roots, &prot) < 0 || outermost(q->writable_roots, &writ) < 0) {
		r = cf_nomem(err);
		goto out;
	}
	for (size_t i = 0; i < writ.n; i++) {
		struct stat st;
		if (lstat(writ.v[i], &st) == 0 && !on_writable_dev(&w, (uint64_t)st.st_dev) &&
		    w.ndevs < sizeof(w.devs) / sizeof(w.devs[0]))
			w.devs[w.ndevs++] = (uint64_t)st.st_dev;
	}
	clock_gettime(CLOCK_MONOTONIC, &w.deadline);
	double secs = q->budget->seconds > 0 ? q->budget->seconds : 0;
	w.deadline.tv_sec += (time_t)secs;
	w.deadline.tv_nsec += (long)((secs - (double)(time_t)secs) * 1e9);
	if (w.deadline.tv_nsec >= 1000000000L) {
		w.deadline.tv_sec++;
		w.deadline.tv_nsec -= 1000000000L;
	}
	for (size_t i = 0; i < prot.n && r == 0; i++)
		r = walk_root(&w, prot.v[i]);
	if (r < 0 || w.left == 0)
		goto out;
	qsort(w.v, w.n, sizeof(*w.v), cmp_linked);
	if (!(w.inos = calloc(w.n, sizeof(*w.inos)))) {
		r = cf_nomem(err);
		goto out;
	}
	for (size_t i = 0; i < w.n; i++)
		w.inos[i] = w.v[i].ino;
	qsort(w.inos, w.n, sizeof(*w.inos), cmp_u64);
	w.second = true;
	for (size_t i = 0; i < writ.n && r == 0 && w.left > 0; i++)
		r = walk_root(&w, writ.v[i]);
out:
	for (size_t i = 0; i < w.n; i++)
		cf_strv_release(&w.v[i].names);
	free(w.v);
	free(w.inos);
	cf_buf_release(&w.path);
	cf_strv_release(&prot);
	cf_strv_release(&writ);
	return r;
}

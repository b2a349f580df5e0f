/* SPDX-License-Identifier: MIT */
/*
 * The directories of the glob scan (R14, R32; host/scan.c has the patterns): each one is read,
 * or, when its record of the scan before still holds (scan_cache.h), reused for the cost of
 * one fstatat.  A directory is read in full before its subdirectories are walked, so that its
 * record is complete.  Directories are opened relative to their parent with
 * O_NOFOLLOW|O_DIRECTORY (or beneath the root with no symlink on the way), so a symlink is
 * never followed even when a directory is swapped for one during the walk.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __linux__
#include <linux/openat2.h>
#include <sys/syscall.h>
#endif

#include "util/nofollow.h"
#include "host/hostfs.h"
#include "host/scan_walker.h"
#include "util/util.h"

/* The directory right below the scan's root on the way to w->path: the tree responsible. */
static void top_below_root(const struct walker *w, char *out, size_t cap)
{
	size_t rl = strlen(w->root);
	const char *rest = w->path.s + rl;
	while (*rest == '/')
		rest++;
	size_t n = strcspn(rest, "/");
	snprintf(out, cap, "%.*s", (int)(rest - w->path.s + n), w->path.s);
}

/* An unreadable directory is skipped and recorded (R14): the plan hides it.  Returns 0, or
 * CONFINE_E_NOMEM. */
static int skip_unreadable(struct walker *w)
{
	if (!cf_strv_contains(&w->out->skipped, w->path.s) &&
	    cf_strv_add(&w->out->skipped, w->path.s) < 0)
		return cf_nomem(w->err);
	return 0;
}

/* ---------------------------------------------------------------------------------------- */
/* The records this scan makes (scan_cache.h). */

/* Past the bound of a cache file, nothing is kept for the caller (scan_cache.h). */
static void check_bound(struct walker *w)
{
	if (cf_scan_cache_bytes(w->next) > CF_SCAN_CACHE_MAX_BYTES - 4096)
		w->keep = false;
}

static uint32_t new_dir(struct walker *w, const struct cf_scan_dir *d)
{
	uint32_t idx = cf_scan_rec_dir(w->next, d);
	if (idx == CF_SCAN_NONE)
		w->oom = true;
	return idx;
}

static bool new_kid(struct walker *w, const char *name, size_t n, enum cf_kind kind, uint8_t flags)
{
	if (!cf_scan_rec_kid(w->next, name, n, kind))
		w->oom = true;
	else
		w->next->kids[w->next->nkids - 1].flags = flags;
	return !w->oom;
}

/* The record the previous scan made of the entry `name` of its directory `old`, or NONE. */
static uint32_t old_child(const struct walker *w, uint32_t old, const char *name, size_t n)
{
	if (!w->prev || old == CF_SCAN_NONE)
		return CF_SCAN_NONE;
	return cf_scan_rec_child(w->prev, old, name, n);
}

/* File systems whose timestamps confine trusts (cf_scan_fs_trusted), per device. */
static bool fs_trusted(struct walker *w, int fd, uint64_t dev)
{
	for (size_t i = 0; i < w->nfs; i++)
		if (w->fs[i].dev == dev)
			return w->fs[i].trusted;
	bool t = cf_scan_fs_trusted(fd);
	if (w->nfs < sizeof(w->fs) / sizeof(w->fs[0])) {
		w->fs[w->nfs].dev = dev;
		w->fs[w->nfs++].trusted = t;
	}
	return t;
}

/* w->path relative to the walk's root ("" for the root itself). */
static const char *rel_path(const struct walker *w)
{
	const char *s = w->path.s + w->rootlen;
	while (*s == '/')
		s++;
	return s;
}

/* The last component of w->path (w->path moves as the walk goes: never keep this pointer). */
static const char *last_name(const struct walker *w)
{
	return strrchr(w->path.s, '/') + 1;
}

/* lstat of w->path: relative to pfd when the parent is open, else to the root. */
static int stat_at(const struct walker *w, int pfd, struct stat *st)
{
	if (pfd >= 0)
		return fstatat(pfd, last_name(w), st, AT_SYMLINK_NOFOLLOW);
	const char *rel = rel_path(w);
	if (!*rel)
		return fstat(w->rootfd, st);
	return fstatat(w->rootfd, rel, st, AT_SYMLINK_NOFOLLOW);
}

/* Opens w->path as a directory, never following a symlink: relative to its open parent, or,
 * when the parent's listing was reused (never opened), beneath the root with no symlink
 * anywhere on the way. */
static int open_dir_at(const struct walker *w, int pfd)
{
	const int flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
	if (pfd >= 0)
		return openat(pfd, last_name(w), flags);
	const char *rel = rel_path(w);
	if (!*rel)
		return fcntl(w->rootfd, F_DUPFD_CLOEXEC, 0);
	return cf_open_nofollow(w->rootfd, rel, flags, CF_NOFOLLOW_BENEATH, NULL);
}

static int visit(struct walker *w, int pfd, int depth, uint32_t old, uint32_t *made);

/* Appends "/name" to w->path; false on out-of-memory. */
static bool path_push(struct walker *w, const char *name, size_t n)
{
	if (w->path.len > 1 || w->path.s[0] != '/')
		cf_buf_addc(&w->path, '/');
	cf_buf_addn(&w->path, name, n);
	return !w->path.oom;
}

static void path_pop(struct walker *w, size_t base)
{
	w->path.len = base;
	w->path.s[base] = '\0';
}

/* Walks into every subdirectory among the entries kids[first, first + n) of the record `idx`
 * (the directory w->path at `depth`, open at fd, or -1) that a pattern is alive below
 * (CF_SCAN_KID_DIVE); `old` is its record in the previous scan.  Below a directory that was
 * read (`stepped`) the states are stepped to each subdirectory; below a reused one they are
 * not (ensure_states computes them if a descendant needs them). */
static int descend_all(struct walker *w, int fd, bool stepped, int depth, uint32_t idx,
		       uint32_t old)
{
	struct cf_scan_cache *c = w->next;
	uint32_t first = c->dirs[idx].first, n = c->dirs[idx].n;
	size_t base = w->path.len;
	int rc = 0, mine = w->lv_ok;
	for (uint32_t i = 0; i < n && rc == 0; i++) {
		const struct cf_scan_kid k = c->kids[first + i];
		if (!(k.flags & CF_SCAN_KID_DIVE) || k.kind != CF_KIND_DIR)
			continue;
		const char *name = c->names + k.name;
		w->lv_ok = mine < depth ? mine : depth;
		if (stepped) {
			if (!cf_scan_w_advance(w, depth, name, k.len)) {
				rc = cf_nomem(w->err);
				break;
			}
			w->lv_ok = depth + 1;
		}
		uint32_t was = old_child(w, old, name, k.len);
		if (!path_push(w, name, k.len)) {
			rc = cf_nomem(w->err);
			break;
		}
		uint32_t made = CF_SCAN_NONE;
		rc = visit(w, fd, depth + 1, was, &made);
		if (w->keep)
			c->kids[first + i].dir = made;
		path_pop(w, base);
	}
	w->lv_ok = mine;
	return rc;
}

/* What a reused directory added to the matches and the records, to take back when it must be
 * read instead. */
struct undo_mark {
	size_t matches, nmatches, dirs, kids, names;
};

static struct undo_mark mark_now(const struct walker *w)
{
	const struct cf_scan_cache *c = w->next;
	return (struct undo_mark){w->out->n, w->nmatches, c->ndirs, c->nkids, c->nnames};
}

static void undo_to(struct walker *w, const struct undo_mark *u)
{
	for (size_t j = u->matches; j < w->out->n; j++)
		free(w->out->v[j].path);
	w->out->n = u->matches;
	w->nmatches = u->nmatches;
	w->next->ndirs = u->dirs;
	w->next->nkids = u->kids;
	w->next->nnames = u->names;
}

/* A reused directory's subdirectories are looked at relative to it (one component each, not
 * the whole path from the root), through an O_PATH descriptor opened without following a
 * symlink, which must be the directory the record `od` is of (else it is read); when it cannot
 * be opened, from the root as before.  Sets *fd (-1 when it has no subdirectory to walk or
 * could not be opened; the root's own descriptor at depth 0) and returns 0, or returns 1 when
 * the directory was swapped since it was looked at. */
static int open_for_dives(const struct walker *w, int pfd, int depth, const struct cf_scan_dir *od,
			  int *fd)
{
	const struct cf_scan_cache *p = w->prev;
	bool dives = false;
	*fd = -1;
	for (uint32_t i = 0; i < od->n && !dives; i++)
		dives = (p->kids[od->first + i].flags & CF_SCAN_KID_DIVE) != 0;
	if (!dives)
		return 0;
	if (depth == 0) {
		*fd = w->rootfd;
		return 0;
	}
	int d = pfd >= 0
		    ? openat(pfd, last_name(w), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
		    : openat(w->rootfd, rel_path(w), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct stat fst;
	if (d >= 0 && (fstat(d, &fst) < 0 || (uint64_t)fst.st_dev != od->dev ||
		       (uint64_t)fst.st_ino != od->ino)) {
		close(d);
		return 1; /* swapped since it was looked at */
	}
	*fd = d;
	return 0;
}

/* The entry `k` of a reused listing, which matched: matched again with the states computed for
 * this directory, its identity taken now (one lstat).  Returns 0, 1 when it is not what the
 * listing says, or a negative code. */
static int rematch(struct walker *w, int depth, const struct cf_scan_kid *k, const char *name)
{
	size_t base = w->path.len;
	int rc = 0;
	if (!cf_scan_w_ensure_states(w, depth) || !cf_scan_w_advance(w, depth, name, k->len))
		return cf_nomem(w->err);
	struct stat st;
	if (!path_push(w, name, k->len))
		return cf_nomem(w->err);
	bool same = w->matched.n && stat_at(w, -1, &st) == 0 &&
		    cf_kind_of_mode(st.st_mode) == (enum cf_kind)k->kind;
	if (same)
		rc = cf_scan_w_add_matched(w, (enum cf_kind)k->kind, &st);
	path_pop(w, base);
	if (rc)
		return rc;
	return same ? 0 : 1;
}

/* The entries of the reused listing `od`, recorded again (and the matches matched again).
 * Returns 0, 1 when a match is not what the listing says (what this directory added is then
 * taken back to `u`), or a negative code. */
static int reuse_kids(struct walker *w, int depth, const struct cf_scan_dir *od,
		      const struct undo_mark *u)
{
	const struct cf_scan_cache *p = w->prev;
	for (uint32_t i = 0; i < od->n; i++) {
		const struct cf_scan_kid *k = &p->kids[od->first + i];
		const char *name = p->names + k->name;
		if ((++w->tick & 255) == 0 && cf_scan_w_over_time(w))
			return cf_scan_w_time_budget(w);
		if (k->flags & CF_SCAN_KID_MATCH) {
			int rc = rematch(w, depth, k, name);
			if (rc == 1)
				undo_to(w, u); /* undo this directory and read it */
			if (rc)
				return rc;
		}
		if (!new_kid(w, name, k->len, (enum cf_kind)k->kind, k->flags))
			return cf_nomem(w->err);
	}
	return 0;
}

/*
 * Reuses the previous scan's listing of w->path (record `old`, found unchanged): the entries
 * that matched are matched again, with the states computed for this directory (their rules are
 * named), and their identities taken now, one lstat each (R34 compares them before the command
 * starts); the subdirectories are visited.  Returns 1 when a match is not what the listing
 * says (a mount over it, say): the directory is then read instead.
 */
static int reuse(struct walker *w, int pfd, int depth, uint32_t old, uint32_t *made)
{
	struct cf_scan_cache *c = w->next;
	const struct cf_scan_dir od = w->prev->dirs[old];
	const struct undo_mark u = mark_now(w);
	int fd = -1;
	if (open_for_dives(w, pfd, depth, &od, &fd))
		return 1;
	uint32_t idx = new_dir(w, &od);
	int rc = idx == CF_SCAN_NONE ? cf_nomem(w->err) : reuse_kids(w, depth, &od, &u);
	if (rc == 0) {
		c->dirs[idx].n = (uint32_t)(c->nkids - c->dirs[idx].first);
		w->stats->dirs_reused++;
		rc = descend_all(w, fd, false, depth, idx, old);
		*made = idx;
	}
	if (fd >= 0 && fd != w->rootfd)
		close(fd);
	return rc;
}

/* Reads the directory w->path (see open_dir_at) and records what of it matters; `old` is its
 * record in the previous scan, if any (for its subdirectories). */
/* One entry of the directory w->path (open at dfd) being read: matched, recorded. */
static int entry(struct walker *w, int dfd, int depth, const char *ename, unsigned char type)
{
	if (ename[0] == '.' && (!ename[1] || (ename[1] == '.' && !ename[2])))
		return 0;
	if ((++w->tick & 255) == 0 && cf_scan_w_over_time(w))
		return cf_scan_w_time_budget(w);
	size_t nlen = strlen(ename), base = w->path.len;
	if (!cf_scan_w_advance(w, depth, ename, nlen))
		return cf_nomem(w->err);
	bool alive = w->lv[depth + 1].n > 0;
	if (!w->matched.n && !alive)
		return 0;
	enum cf_kind kind = cf_kind_of_entry(dfd, ename, type);
	if (kind == CF_KIND_MISSING)
		return 0; /* gone since it was listed */
	if (w->matched.n) {
		struct stat mst;
		bool known = fstatat(dfd, ename, &mst, AT_SYMLINK_NOFOLLOW) == 0;
		if (!path_push(w, ename, nlen))
			return cf_nomem(w->err);
		int rc = cf_scan_w_add_matched(w, kind, known ? &mst : NULL);
		path_pop(w, base);
		if (rc)
			return rc;
	}
	uint8_t flags = (uint8_t)((w->matched.n ? CF_SCAN_KID_MATCH : 0) |
				  (alive && kind == CF_KIND_DIR ? CF_SCAN_KID_DIVE : 0));
	if (flags && !new_kid(w, ename, nlen, kind, flags))
		return cf_nomem(w->err);
	return 0;
}

/* Every entry of the directory open at fd.  On Linux straight from getdents64 into the
 * walker's buffer (the whole directory is read before any subdirectory is walked, so one
 * buffer serves every level): fdopendir would fstat the descriptor and call fcntl twice more,
 * three system calls a directory that the record's own fstat makes useless. */
static int entries(struct walker *w, int fd, int depth)
{
#if defined(__linux__)
	for (;;) {
		ssize_t n = getdents64(fd, w->dbuf, CF_SCAN_DBUF);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return cf_err_os(w->err, CONFINE_E_SCAN, "glob scan failed", w->path.s,
					 "getdents64", errno);
		if (n == 0)
			return 0;
		for (ssize_t off = 0; off < n;) {
			const struct dirent64 *e = (const struct dirent64 *)(void *)(w->dbuf + off);
			if (e->d_reclen == 0 || off + e->d_reclen > n)
				return cf_err(w->err, CONFINE_E_SCAN, "glob scan failed", w->path.s,
					      "getdents64 returned a malformed record");
			int rc = entry(w, fd, depth, e->d_name, e->d_type);
			if (rc)
				return rc;
			off += e->d_reclen;
		}
	}
#else
	int dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
	if (!d) {
		int rc = cf_err_os(w->err, CONFINE_E_SCAN, "glob scan failed", w->path.s,
				   "fdopendir", errno);
		if (dup_fd >= 0)
			close(dup_fd);
		return rc;
	}
	int rc = 0;
	for (;;) {
		errno = 0;
		struct dirent *e = readdir(d);
		if (!e) {
			if (errno)
				rc = cf_err_os(w->err, CONFINE_E_SCAN, "glob scan failed",
					       w->path.s, "readdir", errno);
			break;
		}
		if ((rc = entry(w, fd, depth, e->d_name, e->d_type)))
			break;
	}
	closedir(d);
	return rc;
#endif
}

/* Reads the directory w->path (see open_dir_at) and records what of it matters; `old` is its
 * record in the previous scan, if any (for its subdirectories). */
static int read_dir(struct walker *w, int pfd, int depth, uint32_t old, uint32_t *made)
{
	struct cf_scan_cache *c = w->next;
	int rc = 0;
	if (!cf_scan_w_ensure_states(w, depth))
		return cf_nomem(w->err);
	int fd = open_dir_at(w, pfd);
	if (fd < 0) {
		/* Gone, or swapped for a symlink or a file since it was listed: nothing to walk. */
		if (errno == ENOENT || errno == ELOOP || errno == ENOTDIR || errno == EXDEV)
			return 0;
		if (errno == EACCES || errno == EPERM)
			return skip_unreadable(w);
		return cf_err_os(w->err, CONFINE_E_SCAN, "cannot read directory in the glob scan",
				 w->path.s, "openat", errno);
	}
	struct stat st;
	if (fstat(fd, &st) < 0) {
		rc = cf_err_os(w->err, CONFINE_E_SCAN, "glob scan failed", w->path.s, "fstat",
			       errno);
		close(fd);
		return rc;
	}
	struct cf_scan_dir rec;
	cf_scan_dir_init(&rec, &st, fs_trusted(w, fd, (uint64_t)st.st_dev));
	if (old != CF_SCAN_NONE && w->prev && w->prev->dirs[old].dev == rec.dev &&
	    w->prev->dirs[old].ino == rec.ino && w->prev->dirs[old].mtime == rec.mtime &&
	    w->prev->dirs[old].ctime == rec.ctime)
		w->stats->dirs_recent++;
	uint32_t idx = new_dir(w, &rec);
	if (idx == CF_SCAN_NONE) {
		close(fd);
		return cf_nomem(w->err);
	}
	w->stats->dirs_read++;
	rc = entries(w, fd, depth);
	if (rc == 0) {
		c->dirs[idx].n = (uint32_t)(c->nkids - c->dirs[idx].first);
		cf_scan_rec_sort(c, idx);
		rc = descend_all(w, fd, true, depth, idx, old);
	}
	close(fd);
	*made = idx;
	return rc;
}

/* Walks the directory w->path (relative to its parent open at pfd, or -1: see stat_at), whose
 * pattern states are in w->lv[depth]: with the previous scan's listing when it still holds,
 * else by reading it. */
static int visit(struct walker *w, int pfd, int depth, uint32_t old, uint32_t *made)
{
	struct cf_scan_cache *c = w->next;
	size_t d0 = c->ndirs, k0 = c->nkids, n0 = c->nnames;
	int rc = 1;
	*made = CF_SCAN_NONE;
	if (depth > w->budget->max_depth) {
		char top[4096];
		top_below_root(w, top, sizeof(top));
		cf_err(w->err, CONFINE_E_SCAN, "glob scan failed", top,
		       "the tree under it is deeper than %d directories (the depth budget of the "
		       "scan of '%s'), at '%s'",
		       w->budget->max_depth, w->root, w->path.s);
		cf_err_hint(w->err,
			    "remove that tree or move it out of the workspace (a command may have "
			    "made it to stop later runs); nothing was run");
		return CONFINE_E_SCAN;
	}
	if (depth > 0 && cf_scan_w_over_time(w))
		return cf_scan_w_time_budget(w);
	if (old != CF_SCAN_NONE && w->prev && (w->prev->dirs[old].flags & CF_SCAN_TRUSTED)) {
		enum cf_scan_pre_verdict v = cf_scan_pre_get(w->pre, old);
		struct stat st;
		if (v != CF_SCAN_PRE_UNKNOWN)
			w->stats->dirs_prechecked++;
		if (v == CF_SCAN_PRE_SAME ||
		    (v == CF_SCAN_PRE_UNKNOWN && stat_at(w, pfd, &st) == 0 &&
		     cf_scan_dir_unchanged(&w->prev->dirs[old], &st)))
			rc = reuse(w, pfd, depth, old, made);
	}
	if (rc > 0)
		rc = read_dir(w, pfd, depth, old, made);
	if (!w->keep) {
		/* Walked: its records are not needed any more. */
		c->ndirs = d0;
		c->nkids = k0;
		c->nnames = n0;
		*made = CF_SCAN_NONE;
	} else {
		check_bound(w);
	}
	return rc;
}

int cf_scan_w_visit(struct walker *w, int pfd, int depth, uint32_t old, uint32_t *made)
{
	return visit(w, pfd, depth, old, made);
}

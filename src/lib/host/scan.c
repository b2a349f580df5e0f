/* SPDX-License-Identifier: MIT */
/*
 * The glob scan of R14.  Every glob pattern is an automaton over path components: its state is
 * the set of pattern components it may be at, and each directory entry moves every active
 * pattern one step.  The walk keeps, per directory level, the states of the patterns still
 * alive there, so
 *  - patterns whose roots nest share one walk of the outermost root (each pattern starts with
 *    the states it reaches on the root's own components);
 *  - a directory is entered only when some pattern is still alive below it, which prunes the
 *    walk to what the patterns can reach (a pattern rooted at the workspace never walks $HOME);
 *  - names are matched once per entry, with no string building and no stat unless a pattern
 *    needs the entry's kind (d_type answers that almost always).
 * Directories are opened relative to their parent with O_NOFOLLOW|O_DIRECTORY, so a symlink is
 * never followed even when a directory is swapped for one during the walk.
 *
 * Incremental (R32, scan_cache.h): each directory the walk reads leaves a record (identity,
 * timestamps, when it was read, the entries that mattered); the next scan costs one fstatat
 * per directory whose record still holds, and reads only the others.  A directory is read in
 * full before its subdirectories are walked, so that its record is complete; its matches are
 * found in the read (or, reused, looked up again with one lstat each, so that their identities
 * are the ones of now).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <linux/openat2.h>
#include <sys/syscall.h>
#endif

#include "host/hostfs.h"
#include "host/scan.h"
#include "host/scan_cache.h"
#include "rules/pattern.h"
#include "util/util.h"

struct comp {
	const char *s;
	size_t n;
	bool globstar;
};

struct pat {
	size_t rule;	   /* index in the ruleset */
	char *root;	   /* wildcard-free leading directory */
	bool fold;	   /* match names case-insensitively (the credential guards) */
	struct comp *comp; /* components of the whole absolute pattern */
	uint32_t ncomp;
};

/* Growable array of uint32_t.  A level holds records [pattern, count, state...]. */
struct u32v {
	uint32_t *v;
	size_t n, cap;
};

struct walker {
	const struct cf_scan_budget *budget;
	struct cf_matches *out;
	struct confine_error *err;
	struct pat *pats;
	struct u32v *lv; /* max_depth + 2 levels */
	int lv_ok; /* lv[0..lv_ok] hold the states of w->path's prefixes (see ensure_states) */
	struct u32v matched;
	struct cf_buf path;
	const char *root;
	size_t rootlen;
	int rootfd; /* the root of the current walk, open */
	struct timespec deadline;
	size_t nmatches;
	unsigned tick;
	bool oom;
	/* R32: the records of the previous scan (NULL: none) and the ones this scan makes.  When
	 * `keep` is false (no caller wants them, or they grew past the bound), a directory's
	 * records are dropped once it is walked: the walk needs them only while it is in it. */
	const struct cf_scan_cache *prev;
	struct cf_scan_cache *next;
	bool keep;
	struct cf_scan_stats *stats;
	struct {
		uint64_t dev;
		bool trusted;
	} fs[8];
	size_t nfs;
};

static bool push(struct walker *w, struct u32v *a, uint32_t x)
{
	if (a->n == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 64;
		uint32_t *v = realloc(a->v, cap * sizeof(*v));
		if (!v) {
			w->oom = true;
			return false;
		}
		a->v = v;
		a->cap = cap;
	}
	a->v[a->n++] = x;
	return true;
}

/* Appends state s and what "**" components let it reach without consuming anything, keeping
 * the record sorted and free of duplicates (`first` is where the record's states start). */
static bool add_closed(struct walker *w, struct u32v *a, size_t first, const struct pat *p,
		       uint32_t s)
{
	if (a->n > first && a->v[a->n - 1] >= s)
		return true; /* already there, with its closure */
	for (;;) {
		if (!push(w, a, s))
			return false;
		if (s >= p->ncomp || !p->comp[s].globstar)
			return true;
		s++;
	}
}

/* Moves pattern p from `states` over the component `name`; appends the record to `out`, or
 * nothing when no state survives.  Returns whether the pattern now matches. */
static bool step(struct walker *w, uint32_t pi, const uint32_t *states, uint32_t k,
		 const char *name, size_t nlen, struct u32v *out)
{
	const struct pat *p = &w->pats[pi];
	size_t head = out->n;
	if (!push(w, out, pi) || !push(w, out, 0))
		return false;
	size_t first = out->n;
	/* s -> s for "**", s -> s + 1 for a component that matches: non-decreasing in s, so
	 * the record stays sorted. */
	for (uint32_t i = 0; i < k; i++) {
		uint32_t s = states[i];
		if (s >= p->ncomp)
			continue;
		const struct comp *c = &p->comp[s];
		if (c->globstar)
			add_closed(w, out, first, p, s);
		else if (cf_component_match(c->s, c->n, name, nlen, p->fold))
			add_closed(w, out, first, p, s + 1);
	}
	uint32_t n = (uint32_t)(out->n - first);
	if (n == 0 || w->oom) {
		out->n = head;
		return false;
	}
	out->v[head + 1] = n;
	return out->v[out->n - 1] == p->ncomp;
}

/* Moves every pattern alive at `depth` over the entry `name`: the patterns it matches go to
 * w->matched, the states alive below it to w->lv[depth + 1].  A match is not descended for its
 * pattern: what is below it is covered already.  Returns false on out-of-memory. */
static bool advance(struct walker *w, int depth, const char *name, size_t nlen)
{
	struct u32v *cur = &w->lv[depth], *next = &w->lv[depth + 1];
	next->n = 0;
	w->matched.n = 0;
	for (size_t i = 0; i < cur->n;) {
		uint32_t pi = cur->v[i], k = cur->v[i + 1];
		size_t head = next->n;
		if (step(w, pi, cur->v + i + 2, k, name, nlen, next)) {
			next->n = head;
			push(w, &w->matched, pi);
		}
		i += 2 + k;
	}
	return !w->oom;
}

/*
 * A directory whose listing is reused costs no pattern work: the flags of its entries say which
 * matched and which the walk goes into (the patterns are the same, so are the answers).  The
 * states of the patterns are computed only where they are needed, a directory to read or a
 * match whose rules must be named, by stepping from the root along w->path (the directory at
 * `depth`): lv[0..depth] then hold them.  Returns false on out-of-memory.
 */
static bool ensure_states(struct walker *w, int depth)
{
	if (w->lv_ok >= depth)
		return true;
	const char *s = w->path.s + w->rootlen;
	for (int level = 0; level < depth; level++) {
		while (*s == '/')
			s++;
		size_t n = strcspn(s, "/");
		if (level >= w->lv_ok && !advance(w, level, s, n))
			return false;
		s += n;
	}
	w->lv_ok = depth;
	return true;
}

static bool over_time(struct walker *w)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec > w->deadline.tv_sec ||
	       (now.tv_sec == w->deadline.tv_sec && now.tv_nsec > w->deadline.tv_nsec);
}

static int time_budget(struct walker *w)
{
	return cf_err(w->err, CONFINE_E_SCAN, "glob scan failed", w->path.s,
		      "the scan of '%s' took more than %g s (the time budget)", w->root,
		      w->budget->seconds);
}

static enum cf_kind kind_of(int dirfd, const char *name, unsigned char type)
{
	switch (type) {
	case DT_DIR:
		return CF_KIND_DIR;
	case DT_REG:
		return CF_KIND_FILE;
	case DT_LNK:
		return CF_KIND_SYMLINK;
	case DT_UNKNOWN:
		break;
	default:
		return CF_KIND_OTHER;
	}
	/* Some file systems leave d_type empty; ask without following a symlink. */
	struct stat st;
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return CF_KIND_MISSING;
	return cf_kind_of_mode(st.st_mode);
}

/* st: the match's identity (NULL: unknown), compared again before the command starts (R34). */
static int add_match(struct walker *w, enum cf_kind kind, size_t rule, const struct stat *st)
{
	if (w->nmatches >= w->budget->max_matches) {
		cf_err(w->err, CONFINE_E_SCAN, "glob scan failed", w->path.s,
		       "more than %zu matches under '%s' (the match budget)",
		       w->budget->max_matches, w->root);
		return CONFINE_E_SCAN;
	}
	w->nmatches++;
	if (cf_matches_add(w->out, w->path.s, kind, rule) < 0)
		return cf_nomem(w->err);
	if (st) {
		w->out->v[w->out->n - 1].dev = (uint64_t)st->st_dev;
		w->out->v[w->out->n - 1].ino = (uint64_t)st->st_ino;
	}
	return 0;
}

/* Adds every pattern of w->matched as a match of w->path. */
static int add_matched(struct walker *w, enum cf_kind kind, const struct stat *st)
{
	int rc = 0;
	for (size_t i = 0; i < w->matched.n && rc == 0; i++)
		rc = add_match(w, kind, w->pats[w->matched.v[i]].rule, st);
	return rc;
}

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
#ifdef __linux__
	struct open_how how = {.flags = (uint64_t)flags,
			       .resolve =
				   RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS};
	for (int i = 0; i < 4; i++) {
		int fd = (int)syscall(SYS_openat2, w->rootfd, rel, &how, sizeof(how));
		/* EAGAIN: a rename elsewhere raced the lookup; ask again. */
		if (fd >= 0 || (errno != EAGAIN && errno != ENOSYS))
			return fd;
		if (errno == ENOSYS)
			break;
	}
#endif
	return openat(w->rootfd, rel, flags);
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
			if (!advance(w, depth, name, k.len)) {
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

/*
 * Reuses the previous scan's listing of w->path (record `old`, found unchanged): the entries
 * that matched are matched again, with the states computed for this directory (their rules are
 * named), and their identities taken now, one lstat each (R34 compares them before the command
 * starts); the subdirectories are visited.  Returns 1 when a match is not what the listing
 * says (a mount over it, say): the directory is then read instead.
 */
static int reuse(struct walker *w, int pfd, int depth, uint32_t old, uint32_t *made)
{
	const struct cf_scan_cache *p = w->prev;
	struct cf_scan_cache *c = w->next;
	const struct cf_scan_dir od = p->dirs[old];
	size_t m0 = w->out->n, nm0 = w->nmatches, d0 = c->ndirs, k0 = c->nkids, n0 = c->nnames;
	size_t base = w->path.len;
	int rc = 0;
	/* Its subdirectories are looked at relative to it (one component each, not the whole
	 * path from the root), through an O_PATH descriptor opened without following a symlink,
	 * which must be the directory the record is of (else it is read); when it cannot be
	 * opened, from the root as before. */
	int fd = -1;
	bool dives = false;
	for (uint32_t i = 0; i < od.n && !dives; i++)
		dives = (p->kids[od.first + i].flags & CF_SCAN_KID_DIVE) != 0;
	if (dives && depth == 0) {
		fd = w->rootfd;
	} else if (dives) {
		fd = pfd >= 0
			 ? openat(pfd, last_name(w), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
			 : openat(w->rootfd, rel_path(w),
				  O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		struct stat fst;
		if (fd >= 0 && (fstat(fd, &fst) < 0 || (uint64_t)fst.st_dev != od.dev ||
				(uint64_t)fst.st_ino != od.ino)) {
			close(fd);
			return 1; /* swapped since it was looked at */
		}
	}
	uint32_t idx = new_dir(w, &od);
	if (idx == CF_SCAN_NONE) {
		if (fd >= 0 && fd != w->rootfd)
			close(fd);
		return cf_nomem(w->err);
	}
	for (uint32_t i = 0; i < od.n; i++) {
		const struct cf_scan_kid *k = &p->kids[od.first + i];
		const char *name = p->names + k->name;
		if ((++w->tick & 255) == 0 && over_time(w)) {
			rc = time_budget(w);
			break;
		}
		if (k->flags & CF_SCAN_KID_MATCH) {
			if (!ensure_states(w, depth) || !advance(w, depth, name, k->len)) {
				rc = cf_nomem(w->err);
				break;
			}
			struct stat st;
			if (!path_push(w, name, k->len)) {
				rc = cf_nomem(w->err);
				break;
			}
			bool same = w->matched.n && stat_at(w, -1, &st) == 0 &&
				    cf_kind_of_mode(st.st_mode) == (enum cf_kind)k->kind;
			if (same)
				rc = add_matched(w, (enum cf_kind)k->kind, &st);
			path_pop(w, base);
			if (rc)
				break;
			if (!same) {
				/* Undo this directory and read it. */
				for (size_t j = m0; j < w->out->n; j++)
					free(w->out->v[j].path);
				w->out->n = m0;
				w->nmatches = nm0;
				c->ndirs = d0;
				c->nkids = k0;
				c->nnames = n0;
				rc = 1;
				break;
			}
		}
		if (!new_kid(w, name, k->len, (enum cf_kind)k->kind, k->flags)) {
			rc = cf_nomem(w->err);
			break;
		}
	}
	if (rc) {
		if (fd >= 0 && fd != w->rootfd)
			close(fd);
		return rc;
	}
	c->dirs[idx].n = (uint32_t)(c->nkids - c->dirs[idx].first);
	w->stats->dirs_reused++;
	rc = descend_all(w, fd, false, depth, idx, old);
	if (fd >= 0 && fd != w->rootfd)
		close(fd);
	*made = idx;
	return rc;
}

/* Reads the directory w->path (see open_dir_at) and records what of it matters; `old` is its
 * record in the previous scan, if any (for its subdirectories). */
static int read_dir(struct walker *w, int pfd, int depth, uint32_t old, uint32_t *made)
{
	struct cf_scan_cache *c = w->next;
	int rc = 0;
	if (!ensure_states(w, depth))
		return cf_nomem(w->err);
	int fd = open_dir_at(w, pfd);
	if (fd < 0) {
		/* Gone, or swapped for a symlink or a file since readdir: nothing to walk. */
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
	DIR *d = idx == CF_SCAN_NONE ? NULL : fdopendir(fd);
	if (!d) {
		rc = idx == CF_SCAN_NONE ? cf_nomem(w->err)
					 : cf_err_os(w->err, CONFINE_E_SCAN, "glob scan failed",
						     w->path.s, "fdopendir", errno);
		close(fd);
		return rc;
	}
	w->stats->dirs_read++;
	size_t base = w->path.len;
	for (;;) {
		errno = 0;
		struct dirent *e = readdir(d);
		if (!e) {
			if (errno)
				rc = cf_err_os(w->err, CONFINE_E_SCAN, "glob scan failed",
					       w->path.s, "readdir", errno);
			break;
		}
		const char *ename = e->d_name;
		if (ename[0] == '.' && (!ename[1] || (ename[1] == '.' && !ename[2])))
			continue;
		if ((++w->tick & 255) == 0 && over_time(w)) {
			rc = time_budget(w);
			break;
		}
		size_t nlen = strlen(ename);
		if (!advance(w, depth, ename, nlen)) {
			rc = cf_nomem(w->err);
			break;
		}
		bool alive = w->lv[depth + 1].n > 0;
		if (!w->matched.n && !alive)
			continue;
		enum cf_kind kind = kind_of(dirfd(d), ename, e->d_type);
		if (kind == CF_KIND_MISSING)
			continue; /* gone since readdir */
		if (w->matched.n) {
			struct stat mst;
			bool known = fstatat(dirfd(d), ename, &mst, AT_SYMLINK_NOFOLLOW) == 0;
			if (!path_push(w, ename, nlen)) {
				rc = cf_nomem(w->err);
				break;
			}
			rc = add_matched(w, kind, known ? &mst : NULL);
			path_pop(w, base);
			if (rc)
				break;
		}
		uint8_t flags = (uint8_t)((w->matched.n ? CF_SCAN_KID_MATCH : 0) |
					  (alive && kind == CF_KIND_DIR ? CF_SCAN_KID_DIVE : 0));
		if (flags && !new_kid(w, ename, nlen, kind, flags)) {
			rc = cf_nomem(w->err);
			break;
		}
	}
	if (rc == 0) {
		c->dirs[idx].n = (uint32_t)(c->nkids - c->dirs[idx].first);
		cf_scan_rec_sort(c, idx);
		rc = descend_all(w, dirfd(d), true, depth, idx, old);
	}
	closedir(d);
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
	if (depth > 0 && over_time(w))
		return time_budget(w);
	if (old != CF_SCAN_NONE && w->prev && (w->prev->dirs[old].flags & CF_SCAN_TRUSTED)) {
		struct stat st;
		if (stat_at(w, pfd, &st) == 0 && cf_scan_dir_unchanged(&w->prev->dirs[old], &st))
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

static void release_pats(struct pat *pats, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(pats[i].root);
		free(pats[i].comp);
	}
	free(pats);
}

/* Splits the absolute pattern into components. */
static int compile(struct pat *p, const char *path)
{
	size_t n = 0;
	for (const char *s = path; *s; s++)
		if (*s != '/' && (s == path || s[-1] == '/'))
			n++;
	p->comp = calloc(n ? n : 1, sizeof(*p->comp));
	if (!p->comp)
		return -1;
	p->root = cf_strndup(path, cf_pattern_literal_prefix(path));
	if (!p->root)
		return -1;
	size_t i = 0;
	for (const char *s = path; *s;) {
		while (*s == '/')
			s++;
		if (!*s)
			break;
		const char *e = s;
		while (*e && *e != '/')
			e++;
		p->comp[i].s = s;
		p->comp[i].n = (size_t)(e - s);
		p->comp[i].globstar = cf_is_globstar(s, p->comp[i].n);
		i++;
		s = e;
	}
	p->ncomp = (uint32_t)i;
	return 0;
}

static int cmp_pat(const void *a, const void *b)
{
	return cf_path_cmp(((const struct pat *)a)->root, ((const struct pat *)b)->root);
}

/* Walks `root` for pats[0..n), whose roots all lie within it. */
static int walk_root(struct walker *w, const char *root, size_t from, size_t to)
{
	struct u32v *lv0 = &w->lv[0];
	lv0->n = 0;
	w->matched.n = 0;
	w->root = root;
	cf_buf_release(&w->path);
	cf_buf_add(&w->path, root);
	if (w->path.oom)
		return cf_nomem(w->err);

	/* Start each pattern at {0} and feed it the root's own components. */
	struct u32v a = {0}, b = {0};
	int rc = 0;
	for (size_t pi = from; pi < to; pi++) {
		const struct pat *p = &w->pats[pi];
		a.n = 0;
		if (!push(w, &a, (uint32_t)pi) || !push(w, &a, 0) || !add_closed(w, &a, 2, p, 0))
			break;
		a.v[1] = (uint32_t)(a.n - 2);
		bool alive = true, matched = a.v[a.n - 1] == p->ncomp;
		for (const char *s = root; *s && alive && !w->oom;) {
			while (*s == '/')
				s++;
			if (!*s)
				break;
			const char *e = s;
			while (*e && *e != '/')
				e++;
			b.n = 0;
			matched = step(w, (uint32_t)pi, a.v + 2, a.v[1], s, (size_t)(e - s), &b);
			alive = b.n > 0;
			struct u32v t = a;
			a = b;
			b = t;
			s = e;
		}
		if (w->oom)
			break;
		if (!alive)
			continue;
		if (matched) {
			push(w, &w->matched, (uint32_t)pi);
			continue;
		}
		for (size_t i = 0; i < a.n; i++)
			push(w, lv0, a.v[i]);
	}
	free(a.v);
	free(b.v);
	if (w->oom)
		return cf_nomem(w->err);

	if (w->matched.n) {
		struct stat st;
		if (lstat(root, &st) == 0) {
			enum cf_kind kind = S_ISDIR(st.st_mode)	  ? CF_KIND_DIR
					    : S_ISREG(st.st_mode) ? CF_KIND_FILE
					    : S_ISLNK(st.st_mode) ? CF_KIND_SYMLINK
								  : CF_KIND_OTHER;
			for (size_t i = 0; i < w->matched.n && rc == 0; i++)
				rc = add_match(w, kind, w->pats[w->matched.v[i]].rule, &st);
			if (rc)
				return rc;
		}
	}
	if (!lv0->n)
		return 0;
	int fd = open(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		/* A missing root is not an error: there is nothing to protect there yet. */
		if (errno == ENOENT || errno == ENOTDIR || errno == ELOOP)
			return 0;
		if ((errno == EACCES || errno == EPERM) &&
		    !cf_strv_contains(&w->out->skipped, root))
			return cf_strv_add(&w->out->skipped, root) < 0 ? cf_nomem(w->err) : 0;
		if (errno == EACCES || errno == EPERM)
			return 0;
		return cf_err_os(w->err, CONFINE_E_SCAN, "cannot read directory in the glob scan",
				 root, "open", errno);
	}
	w->rootfd = fd;
	w->rootlen = strlen(root);
	w->lv_ok = 0;
	uint32_t old = CF_SCAN_NONE, made = CF_SCAN_NONE;
	for (size_t i = 0; w->prev && i < w->prev->nroots && old == CF_SCAN_NONE; i++) {
		const struct cf_scan_root *pr = &w->prev->roots[i];
		if (pr->len == w->rootlen && !memcmp(w->prev->names + pr->name, root, pr->len))
			old = pr->dir;
	}
	rc = visit(w, -1, 0, old, &made);
	close(fd);
	w->rootfd = -1;
	if (rc == 0 && w->keep && made != CF_SCAN_NONE &&
	    !cf_scan_rec_root(w->next, root, w->rootlen, made))
		return cf_nomem(w->err);
	return rc;
}

int cf_scan_globs(const struct cf_ruleset *rules, const struct cf_scan_budget *budget,
		  struct cf_matches *out, struct confine_error *err)
{
	return cf_scan_globs_cached(rules, budget, NULL, NULL, out, NULL, err);
}

int cf_scan_globs_cached(const struct cf_ruleset *rules, const struct cf_scan_budget *budget,
			 const struct cf_scan_cache *prev, struct cf_scan_cache **next,
			 struct cf_matches *out, struct cf_scan_stats *stats,
			 struct confine_error *err)
{
	static const struct cf_scan_budget defaults = CF_SCAN_BUDGET_DEFAULT;
	struct cf_scan_stats local = {0};
	int rc = 0;
	struct walker w = {.budget = budget ? budget : &defaults,
			   .out = out,
			   .err = err,
			   .rootfd = -1,
			   .keep = next != NULL,
			   .stats = stats ? stats : &local};
	size_t n = 0, nlv = 0;
	if (next)
		*next = NULL;
	memset(w.stats, 0, sizeof(*w.stats));
	/* The records of this scan, which the walk needs as it goes (and the caller may keep). */
	if (!(w.next = calloc(1, sizeof(*w.next))))
		return cf_nomem(err);
	cf_scan_cache_key(rules, w.next->key);
	snprintf(w.next->kind, sizeof(w.next->kind), "scan");
	if (prev && !strcmp(prev->key, w.next->key))
		w.prev = prev;

	for (size_t i = 0; i < rules->n; i++)
		if (rules->v[i].glob && rules->v[i].path)
			n++;
	if (n == 0)
		goto out;
	if (n > w.budget->max_patterns) {
		rc = cf_err(err, CONFINE_E_SCAN, "glob scan failed", "",
			    "%zu glob patterns, more than %zu (the pattern budget)", n,
			    w.budget->max_patterns);
		goto out;
	}

	w.pats = calloc(n, sizeof(*w.pats));
	nlv = (size_t)(w.budget->max_depth > 0 ? w.budget->max_depth : 0) + 2;
	w.lv = calloc(nlv, sizeof(*w.lv));
	if (!w.pats || !w.lv)
		goto nomem;
	size_t k = 0;
	for (size_t i = 0; i < rules->n; i++) {
		const struct cf_rule *r = &rules->v[i];
		if (!r->glob || !r->path)
			continue;
		w.pats[k].rule = i;
		w.pats[k].fold = r->fold_case;
		if (compile(&w.pats[k++], r->path) < 0)
			goto nomem;
		if (r->path[0] != '/') {
			rc = cf_err(err, CONFINE_E_SCAN, "glob scan failed", r->path,
				    "the pattern is not absolute");
			goto out;
		}
	}
	/* Parents sort before children, so the patterns of one walk are contiguous. */
	qsort(w.pats, n, sizeof(*w.pats), cmp_pat);

	clock_gettime(CLOCK_MONOTONIC, &w.deadline);
	double secs = w.budget->seconds > 0 ? w.budget->seconds : 0;
	w.deadline.tv_sec += (time_t)secs;
	w.deadline.tv_nsec += (long)((secs - (double)(time_t)secs) * 1e9);
	if (w.deadline.tv_nsec >= 1000000000L) {
		w.deadline.tv_sec++;
		w.deadline.tv_nsec -= 1000000000L;
	}

	for (size_t from = 0; from < n && rc == 0;) {
		size_t to = from + 1;
		while (to < n && cf_path_within(w.pats[to].root, w.pats[from].root))
			to++;
		rc = walk_root(&w, w.pats[from].root, from, to);
		from = to;
	}
	goto out;
nomem:
	rc = cf_nomem(err);
out:
	if (w.lv)
		for (size_t i = 0; i < nlv; i++)
			free(w.lv[i].v);
	free(w.lv);
	free(w.matched.v);
	cf_buf_release(&w.path);
	if (w.pats)
		release_pats(w.pats, n);
	if (rc == 0 && w.keep && !w.oom && next)
		*next = w.next;
	else
		cf_scan_cache_free(w.next);
	return rc;
}

/* SPDX-License-Identifier: MIT */
/* R34: see settle.h. */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util/nofollow.h"
#include "exec/linux/bwrap/settle.h"
#include "host/hostfs.h"
#include "util/procfs.h"
#include "util/util.h"

void cf_idents_release(struct cf_idents *ids)
{
	for (size_t i = 0; i < ids->n; i++) {
		free(ids->v[i].path);
		free(ids->v[i].link);
	}
	free(ids->v);
	memset(ids, 0, sizeof(*ids));
}

static bool known(const struct cf_idents *ids, const char *path)
{
	for (size_t i = ids->n; i-- > 0;)
		if (!strcmp(ids->v[i].path, path))
			return true;
	return false;
}

struct lookup {
	bool (*ident)(void *ctx, const char *path, uint64_t *dev, uint64_t *ino,
		      enum cf_kind *kind);
	void *ctx;
};

static bool lstat_ident(void *ctx, const char *path, uint64_t *dev, uint64_t *ino,
			enum cf_kind *kind)
{
	struct stat st;
	bool there = lstat(path, &st) == 0;
	*dev = there ? (uint64_t)st.st_dev : 0;
	*ino = there ? (uint64_t)st.st_ino : 0;
	*kind = there ? cf_kind_of_mode(st.st_mode) : CF_KIND_MISSING;
	return there;
}

/* Records path's identity; a missing path is recorded as (0, 0): it must stay missing. */
static int record(struct cf_idents *ids, const char *path, const struct lookup *lk)
{
	if (known(ids, path))
		return 0;
	if (ids->n == ids->cap) {
		size_t cap;
		struct cf_ident *v = cf_grow_array(ids->v, ids->cap, 32, sizeof(*v), &cap);
		if (!v)
			return CONFINE_E_NOMEM;
		ids->v = v;
		ids->cap = cap;
	}
	uint64_t dev, ino;
	enum cf_kind kind;
	lk->ident(lk->ctx, path, &dev, &ino, &kind);
	char *p = cf_strdup(path);
	if (!p)
		return CONFINE_E_NOMEM;
	char target[4096];
	ssize_t n = kind == CF_KIND_SYMLINK ? readlink(path, target, sizeof(target) - 1) : -1;
	char *link = NULL;
	if (n >= 0) {
		target[n] = '\0';
		if (!(link = cf_strdup(target))) {
			free(p);
			return CONFINE_E_NOMEM;
		}
	}
	ids->v[ids->n++] =
	    (struct cf_ident){.path = p, .dev = dev, .ino = ino, .kind = kind, .link = link};
	return 0;
}

/* Whether path is what id recorded (a missing path matches a missing record). */
static bool same(const struct cf_ident *id)
{
	struct stat st;
	if (lstat(id->path, &st) < 0)
		return id->ino == 0 && id->kind == CF_KIND_MISSING;
	if ((uint64_t)st.st_dev != id->dev || (uint64_t)st.st_ino != id->ino ||
	    cf_kind_of_mode(st.st_mode) != id->kind)
		return false;
	if (id->stamped &&
	    ((uint64_t)st.st_size != id->size ||
	     (int64_t)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec != id->mtime ||
	     (int64_t)st.st_ctim.tv_sec * 1000000000LL + st.st_ctim.tv_nsec != id->ctime))
		return false;
	if (!S_ISLNK(st.st_mode))
		return true;
	char target[4096];
	ssize_t n = readlink(id->path, target, sizeof(target) - 1);
	if (n < 0 || !id->link)
		return false;
	target[n] = '\0';
	return !strcmp(target, id->link);
}

int cf_idents_record_public(const struct cf_matches *m, struct cf_idents *out)
{
	for (size_t i = 0; i < m->n_pub; i++) {
		const struct cf_public_match *p = &m->pub[i];
		if (known(out, p->path))
			continue;
		if (out->n == out->cap) {
			size_t cap;
			struct cf_ident *v = cf_grow_array(out->v, out->cap, 32, sizeof(*v), &cap);
			if (!v)
				return CONFINE_E_NOMEM;
			out->v = v;
			out->cap = cap;
		}
		char *path = cf_strdup(p->path);
		if (!path)
			return CONFINE_E_NOMEM;
		out->v[out->n++] = (struct cf_ident){.path = path,
						     .dev = p->dev,
						     .ino = p->ino,
						     .kind = CF_KIND_FILE,
						     .stamped = true,
						     .size = p->size,
						     .mtime = p->mtime,
						     .ctime = p->ctime};
	}
	return 0;
}

int cf_idents_record_paths(const struct cf_strv *paths, struct cf_idents *out)
{
	const struct lookup lk = {lstat_ident, NULL};
	for (size_t i = 0; i < paths->n; i++)
		if (record(out, paths->v[i], &lk) < 0)
			return CONFINE_E_NOMEM;
	return 0;
}

bool cf_ident_same(const struct cf_ident *id)
{
	return same(id);
}

/* The writable root of a guarded mount: the nearest RW bind above it that is not a pin. */
static bool is_writable_root(const struct cf_plan *plan, const char *path)
{
	for (size_t i = 0; i < plan->n_mounts; i++) {
		const struct cf_mount *m = &plan->mounts[i];
		if (m->op == CF_MNT_RW_BIND && !m->pin && !strcmp(m->path, path))
			return true;
	}
	return false;
}

int cf_idents_record(const struct cf_plan *plan, const struct cf_matches *launch,
		     struct cf_idents *out, char **changed)
{
	return cf_idents_record_with(plan, launch, lstat_ident, NULL, out, changed);
}

int cf_idents_record_with(const struct cf_plan *plan, const struct cf_matches *launch,
			  bool (*ident)(void *ctx, const char *path, uint64_t *dev, uint64_t *ino,
					enum cf_kind *kind),
			  void *ctx, struct cf_idents *out, char **changed)
{
	const struct lookup lk = {ident, ctx};
	*changed = NULL;
	/* What the scan saw is the reference for glob matches: a directory swapped between the
	 * scan and now shows here. */
	for (size_t i = 0; launch && i < launch->n; i++) {
		const struct cf_match *m = &launch->v[i];
		uint64_t dev, ino;
		enum cf_kind kind;
		if (!m->ino)
			continue;
		if (!ident(ctx, m->path, &dev, &ino, &kind) || dev != m->dev || ino != m->ino ||
		    kind != m->kind) {
			*changed = cf_strdup(m->path);
			return *changed ? 1 : CONFINE_E_NOMEM;
		}
	}
	for (size_t i = 0; i < plan->n_mounts; i++) {
		const struct cf_mount *m = &plan->mounts[i];
		if (!m->guarded)
			continue;
		if (record(out, m->path, &lk) < 0)
			return CONFINE_E_NOMEM;
		char *a = cf_path_dirname(m->path);
		while (a && strcmp(a, "/")) {
			if (record(out, a, &lk) < 0) {
				free(a);
				return CONFINE_E_NOMEM;
			}
			if (is_writable_root(plan, a))
				break;
			char *up = cf_path_dirname(a);
			free(a);
			a = up;
		}
		if (!a)
			return CONFINE_E_NOMEM;
		free(a);
	}
	/* A protected path that was missing must still be missing when the command starts: one
	 * that a rename brings in meanwhile would not be hidden. */
	for (size_t i = 0; i < plan->missing.n; i++)
		if (record(out, plan->missing.v[i], &lk) < 0)
			return CONFINE_E_NOMEM;
	return 0;
}

/*
 * After a sandbox that did not settle is gone: bwrap creates a missing mount destination (an
 * empty file or directory) through a writable bind, on the host.  A guarded destination whose
 * object is not the recorded one, and is an empty file or directory made since `since`, is
 * that residue (or an empty decoy of the other process): it is removed.  Never through a
 * symlink, never anything with content.
 */
void cf_settle_cleanup(const struct cf_plan *plan, const struct cf_idents *ids, time_t since)
{
	for (size_t i = plan->n_mounts; i-- > 0;) {
		const struct cf_mount *m = &plan->mounts[i];
		if (!m->guarded && !m->pin)
			continue;
		const struct cf_ident *id = NULL;
		for (size_t k = 0; k < ids->n && !id; k++)
			if (!strcmp(ids->v[k].path, m->path))
				id = &ids->v[k];
		struct stat st;
		if (!id || lstat(m->path, &st) < 0 || same(id))
			continue;
		if (st.st_ctime < since || !(S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)) ||
		    (S_ISREG(st.st_mode) && st.st_size != 0))
			continue;
		char *parent = cf_path_dirname(m->path);
		const char *name = strrchr(m->path, '/');
		int dfd =
		    parent ? cf_open_nofollow(AT_FDCWD, parent, O_PATH | O_DIRECTORY, 0, NULL) : -1;
		if (dfd >= 0 && name)
			unlinkat(dfd, name + 1, S_ISDIR(st.st_mode) ? AT_REMOVEDIR : 0);
		if (dfd >= 0)
			close(dfd);
		free(parent);
	}
}

/* Undoes the octal escapes of /proc/PID/mountinfo (\040 for a space, \011, \012, \134). */
static void unescape(char *s)
{
	char *w = s;
	for (char *r = s; *r;) {
		if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' && r[2] <= '7' &&
		    r[3] >= '0' && r[3] <= '7') {
			*w++ = (char)((r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0'));
			r += 4;
		} else {
			*w++ = *r++;
		}
	}
	*w = '\0';
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The mount points of pid's mount namespace, sorted; false when the table cannot be read. */
static bool mount_points(pid_t pid, struct cf_strv *out)
{
	char *text = cf_proc_read_all(AT_FDCWD, pid, "mountinfo", NULL);
	if (!text)
		return false;
	bool ok = true;
	for (char *save = NULL, *line = strtok_r(text, "\n", &save); line && ok;
	     line = strtok_r(NULL, "\n", &save)) {
		/* "ID PARENT MAJ:MIN ROOT MOUNTPOINT ..." */
		char *f = line;
		for (int k = 0; k < 4 && f; k++) {
			f = strchr(f, ' ');
			if (f)
				f++;
		}
		if (!f)
			continue;
		char *end = strchr(f, ' ');
		if (end)
			*end = '\0';
		unescape(f);
		ok = cf_strv_add(out, f) == 0;
	}
	free(text);
	if (ok && out->n)
		qsort(out->v, out->n, sizeof(*out->v), cmp_str);
	return ok;
}

static bool mounted(const struct cf_strv *points, const char *path)
{
	return points->n &&
	       bsearch(&path, points->v, points->n, sizeof(*points->v), cmp_str) != NULL;
}

/* Looked up in the mount table (the fallback of in_place_lookup).  The path that differs goes
 * to changed_path (CF_SETTLE_PATH bytes, the caller's: no buffer is shared between runs). */
static bool in_place_table(const struct cf_plan *plan, const bool *skip, pid_t pid,
			   char *changed_path)
{
	struct cf_strv points = {0};
	bool ok = mount_points(pid, &points);
	if (!ok)
		snprintf(changed_path, CF_SETTLE_PATH, "/proc/%d/mountinfo", (int)pid);
	for (size_t i = 0; ok && i < plan->n_mounts; i++) {
		const struct cf_mount *m = &plan->mounts[i];
		if ((m->guarded || m->pin) && !(skip && skip[i]) && !mounted(&points, m->path)) {
			snprintf(changed_path, CF_SETTLE_PATH, "%s", m->path);
			ok = false;
		}
	}
	cf_strv_release(&points);
	return ok;
}

/*
 * The same question, path by path: each protected path, looked up from the sandbox's own root
 * (/proc/PID/root) with no symlink followed anywhere on the way, must be the root of a mount
 * there (STATX_ATTR_MOUNT_ROOT, Linux 5.8).  A few microseconds a path, where the kernel takes
 * about a quarter of a millisecond to print a mount table of 60 mounts, and this is asked
 * twice per launch.  Stricter than the table, too: a mount hidden under a later one does not
 * count.  1: in place; 0: not (changed_path says which); -1: this kernel cannot answer (no
 * openat2, or statx without the attribute), ask the table.
 */
static int in_place_lookup(const struct cf_plan *plan, const bool *skip, pid_t pid,
			   char *changed_path)
{
	char root[64];
	snprintf(root, sizeof(root), "/proc/%d/root", (int)pid);
	int rfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rfd < 0)
		return -1;
	int r = 1;
	for (size_t i = 0; r == 1 && i < plan->n_mounts; i++) {
		const struct cf_mount *m = &plan->mounts[i];
		if (!(m->guarded || m->pin) || (skip && skip[i]))
			continue;
		const char *rel = m->path;
		while (*rel == '/')
			rel++;
		int fd = *rel ? cf_open_nofollow(rfd, rel, O_PATH, CF_NOFOLLOW_BENEATH, NULL)
			      : fcntl(rfd, F_DUPFD_CLOEXEC, 0);
		if (fd < 0) {
			/* Gone, or reached only through a symlink: not where the plan put it. */
			if (errno == ENOENT || errno == ENOTDIR || errno == ELOOP || errno == EXDEV)
				r = 0;
			else
				r = -1;
		} else {
			struct statx sx;
			if (statx(fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, STATX_TYPE, &sx) <
				0 ||
			    !(sx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT))
				r = -1;
			else if (!(sx.stx_attributes & STATX_ATTR_MOUNT_ROOT))
				r = 0;
			close(fd);
		}
		if (r == 0)
			snprintf(changed_path, CF_SETTLE_PATH, "%s", m->path);
	}
	close(rfd);
	return r;
}

static bool mounts_in_place(const struct cf_plan *plan, const bool *skip, pid_t pid,
			    char *changed_path)
{
	int r = in_place_lookup(plan, skip, pid, changed_path);
	return r < 0 ? in_place_table(plan, skip, pid, changed_path) : r == 1;
}

static bool idents_same(const struct cf_idents *ids, char *changed_path)
{
	for (size_t i = 0; i < ids->n; i++) {
		if (!same(&ids->v[i])) {
			snprintf(changed_path, CF_SETTLE_PATH, "%s", ids->v[i].path);
			return false;
		}
	}
	return true;
}

bool cf_settled(const struct cf_plan *plan, const bool *skip, const struct cf_idents *ids,
		pid_t pid, char changed[CF_SETTLE_PATH])
{
	changed[0] = '\0';
	return mounts_in_place(plan, skip, pid, changed) && idents_same(ids, changed) &&
	       mounts_in_place(plan, skip, pid, changed);
}

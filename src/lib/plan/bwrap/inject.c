/* SPDX-License-Identifier: MIT */
/*
 * Placing read-only file injections in a Linux plan (SPEC 6, R21).  Pure apart from the
 * host->kind callback.
 *
 * bwrap's --ro-bind-data copies the sealed content into bwrap's own tmpfs and binds that copy
 * read-only at the target, so no file of the content exists on the host.  What remains is the
 * mount point: bwrap creates a missing one (and its missing parents) in whatever the sandbox
 * shows at that place.  In the sandbox's private tmpfs that is harmless; in a bind of the host
 * it would be a file or directory created on the host, which confine never does.  So:
 *  - in a private tmpfs (/tmp, $TMPDIR) every missing directory on the way becomes a small tmpfs
 *    of its own, so that nothing of the way can be renamed (a mount point cannot: EBUSY) and,
 *    once the files are in, it is remounted read-only;
 *  - in a bind of the host the target must be an existing regular file and its parents real
 *    directories (no symlink on the way: bwrap would follow it, possibly into the workspace);
 *    in a writable bind each parent below the bind's root is bound onto itself, so that the
 *    command cannot rename a parent away and put its own file at the same path;
 *  - a target the rules hide, or in the sandbox's own /proc or /dev, is refused.
 * Each file is mounted after every other mount of the plan, so no later mount shadows it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/bwrap/plan.h"
#include "policy/inject.h"
#include "util/util.h"

/* The injection directories only hold (empty) mount points: bwrap keeps the content in its own
 * tmpfs. */
#define INJECT_DIR_SIZE 65536

void cf_plan_injects_release(struct cf_plan *plan)
{
	for (size_t i = 0; i < plan->n_injects; i++) {
		free(plan->injects[i].where);
		free(plan->injects[i].path);
		free(plan->injects[i].record);
	}
	free(plan->injects);
	plan->injects = NULL;
	plan->n_injects = 0;
}

/* Inserts a mount at index `at`, taking `why` (NULL: none; a failed allocation of it is
 * reported by the caller passing need_why). */
static int insert_mount(struct cf_plan *plan, size_t at, enum cf_mount_op op, const char *path,
			enum cf_kind kind, uint64_t size, char *why, bool need_why,
			struct confine_error *err)
{
	char *p = cf_strdup(path);
	if (!p || (need_why && !why))
		goto oom;
	if (plan->n_mounts == plan->cap_mounts) {
		size_t cap;
		struct cf_mount *v =
		    cf_grow_array(plan->mounts, plan->cap_mounts, 32, sizeof(*v), &cap);
		if (!v)
			goto oom;
		plan->mounts = v;
		plan->cap_mounts = cap;
	}
	memmove(plan->mounts + at + 1, plan->mounts + at,
		(plan->n_mounts - at) * sizeof(*plan->mounts));
	plan->mounts[at] =
	    (struct cf_mount){.op = op, .path = p, .kind = kind, .size = size, .why = why};
	plan->n_mounts++;
	return 0;
oom:
	free(p);
	free(why);
	return cf_nomem(err);
}

/* The deepest mount that shows `path`: the last one in the (parent before child) list whose
 * path contains it.  Remounts change flags, not content, and do not count. */
static size_t cover_of(const struct cf_plan *plan, const char *path)
{
	size_t cover = 0;
	for (size_t i = 0; i < plan->n_mounts; i++)
		if (plan->mounts[i].op != CF_MNT_REMOUNT_RO &&
		    cf_path_within(path, plan->mounts[i].path))
			cover = i;
	return cover;
}

/* Where a mount for directory `dir` must go so that every later mount beneath it stays on top:
 * before the first one after `from` that lies within it. */
static size_t slot_for(const struct cf_plan *plan, size_t from, const char *dir)
{
	for (size_t i = from + 1; i < plan->n_mounts; i++)
		if (cf_path_within(plan->mounts[i].path, dir))
			return i;
	return plan->n_mounts;
}

static const char *what_of(const struct cf_plan_inject *in)
{
	return in->placement == CONFINE_INJECT_ENV ? "cannot place env-pointer injection"
						   : "cannot place injection";
}

/* The n-th ancestor of `path` below `top` (the first component after top, then the next...),
 * written into buf; false when the next one is `path` itself. */
static bool next_ancestor(const char *top, const char *path, size_t *pos, char *buf, size_t cap)
{
	size_t len = strlen(path);
	size_t i = *pos ? *pos : (strcmp(top, "/") ? strlen(top) : 0);
	/* skip the separator, then the component */
	i++;
	while (i < len && path[i] != '/')
		i++;
	if (i >= len || i >= cap)
		return false;
	memcpy(buf, path, i);
	buf[i] = '\0';
	*pos = i;
	return true;
}

/* A target in a private tmpfs: each missing directory on the way becomes an injection
 * directory of its own. */
static int place_private(struct cf_plan *plan, size_t *cover_io, const struct cf_plan_inject *in,
			 struct cf_strv *dirs, struct confine_error *err)
{
	size_t cover = *cover_io;
	const struct cf_mount *below = NULL;
	for (size_t i = 0; i < plan->n_mounts && !below; i++)
		if (plan->mounts[i].op != CF_MNT_REMOUNT_RO &&
		    cf_path_within(plan->mounts[i].path, in->path) &&
		    strcmp(plan->mounts[i].path, in->path))
			below = &plan->mounts[i];
	if (below || !strcmp(plan->mounts[cover].path, in->path)) {
		cf_err(err, CONFINE_E_PLAN, what_of(in), in->path,
		       "it is a directory in the sandbox (it holds the mount of '%s')",
		       below ? below->path : in->path);
		cf_err_hint(err, "name a file path");
		return CONFINE_E_PLAN;
	}
	char dir[4096];
	size_t pos = 0;
	int r;
	while (next_ancestor(plan->mounts[cover].path, in->path, &pos, dir, sizeof(dir))) {
		char *why =
		    cf_asprintf("injection: directory of '%s', private and read-only", in->path);
		size_t at = slot_for(plan, cover, dir);
		if ((r = insert_mount(plan, at, CF_MNT_INJECT_DIR, dir, CF_KIND_DIR,
				      INJECT_DIR_SIZE, why, true, err)) < 0)
			return r;
		if (cf_strv_add(dirs, dir) < 0)
			return cf_nomem(err);
		cover = at;
	}
	*cover_io = cover;
	return 0;
}

static const char *kind_name(enum cf_kind k)
{
	switch (k) {
	case CF_KIND_DIR:
		return "a directory";
	case CF_KIND_SYMLINK:
		return "a symlink";
	case CF_KIND_OTHER:
		return "a socket, FIFO or device";
	case CF_KIND_FILE:
		return "a regular file";
	case CF_KIND_MISSING:
		break;
	}
	return "missing";
}

/* A target in a bind of the host (read-only or writable): everything on the way exists and is
 * what it seems; in a writable bind each parent is pinned onto itself. */
static int place_host(struct cf_plan *plan, const struct cf_host *h, size_t cover,
		      const struct cf_plan_inject *in, bool writable, struct confine_error *err)
{
	const char *top = plan->mounts[cover].path;
	const char *where = writable ? "a writable bind of the host" : "read-only host content";
	char dir[4096];
	size_t pos = 0;
	int r;

	if (!strcmp(top, in->path)) {
		if (plan->mounts[cover].kind == CF_KIND_DIR) {
			cf_err(err, CONFINE_E_PLAN, what_of(in), in->path, "it is a directory");
			cf_err_hint(err, "name a file path");
			return CONFINE_E_PLAN;
		}
		return 0; /* a bound file: the injection is mounted over the bind */
	}
	while (next_ancestor(top, in->path, &pos, dir, sizeof(dir))) {
		enum cf_kind k = h->kind(h->ctx, dir);
		if (k == CF_KIND_DIR)
			continue;
		if (k == CF_KIND_MISSING) {
			cf_err(err, CONFINE_E_PLAN, what_of(in), in->path,
			       "its parent '%s' does not exist in the sandbox, and it cannot be "
			       "created there: it would be in %s ('%s'), and confine never creates "
			       "a mount point on the host",
			       dir, where, top);
			cf_err_hint(err,
				    "create '%s' on the host first (the injection is mounted over "
				    "a file there, which is never changed), or use --inject-env",
				    in->path);
			return CONFINE_E_PLAN;
		}
		cf_err(err, CONFINE_E_PLAN, what_of(in), in->path,
		       "'%s' on the way is %s on the host, not a directory%s", dir, kind_name(k),
		       k == CF_KIND_SYMLINK ? ": the mount would follow it elsewhere" : "");
		if (k == CF_KIND_SYMLINK)
			cf_err_hint(err, "name the path the symlink resolves to");
		return CONFINE_E_PLAN;
	}
	enum cf_kind k = h->kind(h->ctx, in->path);
	if (k == CF_KIND_MISSING) {
		cf_err(err, CONFINE_E_PLAN, what_of(in), in->path,
		       "it does not exist, and it lies in %s ('%s'): bwrap would create the "
		       "mount point on the host, which confine never does",
		       where, top);
		cf_err_hint(err,
			    "create the file on the host first (its content is never read or "
			    "changed: the injection is mounted over it), or use a path under /tmp");
		return CONFINE_E_PLAN;
	}
	if (k != CF_KIND_FILE) {
		cf_err(err, CONFINE_E_PLAN, what_of(in), in->path,
		       "it is %s on the host; an injection replaces a regular file", kind_name(k));
		if (k == CF_KIND_SYMLINK)
			cf_err_hint(err, "name the path the symlink resolves to");
		return CONFINE_E_PLAN;
	}
	if (!writable)
		return 0; /* nothing below a read-only mount can be renamed */
	pos = 0;
	while (next_ancestor(top, in->path, &pos, dir, sizeof(dir))) {
		if (cover_of(plan, dir) != cover) /* already a mount of its own */
			continue;
		char *why = cf_asprintf("injection: parent of '%s' bound onto itself (a mount "
					"point cannot be renamed)",
					in->path);
		size_t at = slot_for(plan, cover, dir);
		if ((r = insert_mount(plan, at, CF_MNT_RW_BIND, dir, CF_KIND_DIR, 0, why, true,
				      err)) < 0)
			return r;
		cover = at;
	}
	return 0;
}

static int place(struct cf_plan *plan, const struct cf_host *h, size_t idx, struct cf_strv *dirs,
		 struct confine_error *err)
{
	const struct cf_plan_inject *in = &plan->injects[idx];
	int r;
	if (cf_path_within(in->path, "/proc") || cf_path_within(in->path, "/dev")) {
		cf_err(err, CONFINE_E_PLAN, what_of(in), in->path,
		       "it lies in the sandbox's own /proc or /dev");
		return CONFINE_E_PLAN;
	}
	size_t cover = cover_of(plan, in->path);
	const struct cf_mount *m = &plan->mounts[cover];
	/* What the host has at the target: a file confine mounts over, or nothing (a private
	 * place); the executor checks the former again just before the launch. */
	enum cf_kind on_host = CF_KIND_FILE;
	switch (m->op) {
	case CF_MNT_TMPFS:
	case CF_MNT_INJECT_DIR:
		r = place_private(plan, &cover, in, dirs, err);
		on_host = CF_KIND_MISSING;
		break;
	case CF_MNT_RO_ROOT:
	case CF_MNT_RO_BIND:
		r = place_host(plan, h, cover, in, false, err);
		break;
	case CF_MNT_RW_BIND:
		r = place_host(plan, h, cover, in, true, err);
		break;
	case CF_MNT_HIDE_DIR:
	case CF_MNT_HIDE_FILE:
		cf_err(err, CONFINE_E_PLAN, what_of(in), in->path,
		       "it lies in '%s', which the rules hide (%s)", m->path,
		       m->why ? m->why : "kernel interface");
		cf_err_hint(err, "choose a target the command can read");
		return CONFINE_E_PLAN;
	default:
		cf_err(err, CONFINE_E_PLAN, what_of(in), in->path,
		       "it lies in '%s', which the sandbox does not take from the host", m->path);
		return CONFINE_E_PLAN;
	}
	if (r < 0)
		return r;
	/*
	 * In an injection directory (read-only at the end) the file is written into that tmpfs
	 * (bwrap's --file): no mount per file.  bwrap re-reads /proc/self/mountinfo and remounts
	 * for every bind, so 128 --ro-bind-data took some 60 ms more than 128 copies; the
	 * guarantees are the same (a read-only tmpfs of confine's, no host file).  Elsewhere (over
	 * a host file, or directly in the writable /tmp) the file must be a mount of its own:
	 * --ro-bind-data.  The directory's size cap holds what is copied into it.
	 */
	bool copy = plan->mounts[cover].op == CF_MNT_INJECT_DIR;
	if (copy)
		plan->mounts[cover].size += (in->size + 4095) / 4096 * 4096;
	char *why = cf_strdup(in->record);
	if ((r = insert_mount(plan, plan->n_mounts, copy ? CF_MNT_INJECT_FILE : CF_MNT_INJECT,
			      in->path, on_host, 0, why, true, err)) < 0)
		return r;
	plan->mounts[plan->n_mounts - 1].inject = idx;
	return 0;
}

int cf_plan_add_injections(struct cf_plan *plan, const struct cf_host *h,
			   const struct cf_plan_inject_in *in, size_t n, struct confine_error *err)
{
	struct cf_strv dirs = {0};
	int r = 0;
	if (n == 0)
		return 0;
	if (!(plan->injects = calloc(n, sizeof(*plan->injects))))
		return cf_nomem(err);
	for (size_t i = 0; i < n; i++) {
		struct cf_plan_inject *p = &plan->injects[i];
		plan->n_injects++;
		p->placement = in[i].placement;
		p->size = in[i].size;
		snprintf(p->hash, sizeof(p->hash), "%s", in[i].hash);
		p->where = cf_strdup(in[i].where);
		p->path = in[i].placement == CONFINE_INJECT_ENV ? cf_inject_env_path(in[i].where)
								: cf_strdup(in[i].where);
		p->record = cf_inject_record(in[i].placement, in[i].where, in[i].hash);
		if (!p->where || !p->path || !p->record)
			goto oom;
	}
	for (size_t i = 0; i < n && r == 0; i++)
		r = place(plan, h, i, &dirs, err);
	/* The injection directories become read-only once every mount point in them exists. */
	for (size_t i = 0; i < dirs.n && r == 0; i++)
		r = insert_mount(plan, plan->n_mounts, CF_MNT_REMOUNT_RO, dirs.v[i], CF_KIND_DIR, 0,
				 NULL, false, err);
	cf_strv_release(&dirs);
	return r;
oom:
	cf_strv_release(&dirs);
	return cf_nomem(err);
}

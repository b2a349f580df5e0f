/* SPDX-License-Identifier: MIT */
/* Write allows of missing paths: see mkallow.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run_mkallow.h"
#include "util/nofollow.h"
#include "util/util.h"

/* The root among `roots` that path lies strictly below, or NULL. */
static const char *root_of(const char *path, const char *const *roots, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (roots[i] && cf_path_within(path, roots[i]) && strcmp(path, roots[i]))
			return roots[i];
	return NULL;
}

static int refuse(struct confine_error *err, const char *path, const char *why, const char *hint)
{
	cf_err(err, CONFINE_E_PLAN, "write allow refused", path, "%s", why);
	cf_err_hint(err, "%s", hint);
	return CONFINE_E_PLAN;
}

/*
 * Creates path below its existing ancestor `have` (a prefix of path): each missing component
 * with mkdirat relative to the descriptor of its parent, which was opened without following a
 * symlink (openat2 RESOLVE_NO_SYMLINKS for the ancestor, O_NOFOLLOW after), so that a symlink
 * planted meanwhile makes the creation fail instead of landing elsewhere.
 */
static int make_below(const char *have, const char *path, struct confine_error *err)
{
	/* The path itself exists by now (another process made it since the caller's lstat):
	 * nothing to create; the mount opens it without following a symlink like any other. */
	size_t hl = strlen(have);
	if (path[hl] == '\0')
		return 0;
	int fd = cf_open_nofollow(AT_FDCWD, have, O_PATH | O_DIRECTORY, 0, NULL);
	if (fd < 0)
		return cf_err_os(err, CONFINE_E_OS, "cannot create an allowed path", have,
				 "openat2", errno);
	char *rest = cf_strdup(path + hl + (strcmp(have, "/") ? 1 : 0));
	if (!rest) {
		close(fd);
		return cf_nomem(err);
	}
	int r = 0;
	for (char *comp = rest, *next; comp && *comp && r == 0; comp = next) {
		next = strchr(comp, '/');
		if (next)
			*next++ = '\0';
		if (mkdirat(fd, comp, 0700) < 0 && errno != EEXIST) {
			r = cf_err_os(err, CONFINE_E_OS, "cannot create an allowed path", path,
				      "mkdirat", errno);
			break;
		}
		int sub = openat(fd, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0) {
			r = cf_err_os(err, CONFINE_E_OS, "cannot create an allowed path", path,
				      "openat", errno);
			if (errno == ELOOP || errno == ENOTDIR)
				cf_err_hint(err, "a symlink or a file appeared on the way while "
						 "confine created it; nothing was run");
			break;
		}
		close(fd);
		fd = sub;
	}
	close(fd);
	free(rest);
	return r;
}

int cf_host_make_missing(const char *path, const char *const *roots, size_t n_roots, bool create,
			 struct confine_error *err)
{
	const char *root = root_of(path, roots, n_roots);
	if (!root)
		return refuse(err, path,
			      "it does not exist, and confine creates a missing allowed path only "
			      "inside your home directory or the workspace",
			      "create it yourself first (as the user the command should write as), "
			      "or allow a directory that exists");
	char *have = cf_strdup(path);
	struct stat st;
	int r = 0;
	while (have && strcmp(have, root) && lstat(have, &st) < 0) {
		char *up = cf_path_dirname(have);
		free(have);
		have = up;
	}
	if (!have)
		return cf_nomem(err);
	if (lstat(have, &st) < 0) {
		r = refuse(err, path,
			   "it does not exist, and neither does the directory it would "
			   "be created in",
			   "create your home directory or the workspace first");
	} else if (!S_ISDIR(st.st_mode)) {
		cf_err(err, CONFINE_E_PLAN, "write allow refused", path,
		       "it does not exist, and '%s' on its way is %s, not a directory", have,
		       S_ISLNK(st.st_mode) ? "a symlink" : "a file");
		cf_err_hint(err, "allow the path the symlink points to, or create the directory "
				 "yourself");
		r = CONFINE_E_PLAN;
	} else if (st.st_uid != geteuid()) {
		cf_err(err, CONFINE_E_PLAN, "write allow refused", path,
		       "it does not exist, and '%s', where it would be created, belongs to "
		       "another user",
		       have);
		cf_err_hint(err, "create it yourself as the user the command should write as");
		r = CONFINE_E_PLAN;
	} else if (create) {
		r = make_below(have, path, err);
	}
	free(have);
	return r;
}

/* Below a host-socket guard (the runtime directory, the ssh-agent's, docker.sock) or a host
 * endpoint, an allow gives back one socket (SPEC 2.3): it names no directory to make. */
static bool names_endpoint(const struct cf_policy *p, const char *path)
{
	const struct cf_ruleset *g = &p->layers[CF_LAYER_GUARD];
	for (size_t i = 0; i < g->n; i++)
		if (g->v[i].liftable && !g->v[i].glob && cf_path_within(path, g->v[i].path))
			return true;
	for (size_t i = 0; i < p->endpoints.n; i++)
		if (cf_path_within(path, p->endpoints.v[i].path))
			return true;
	return false;
}

int cf_host_missing_allows(const struct cf_policy *p, const char *const *roots, size_t n_roots,
			   bool create, struct cf_strv *out, struct confine_error *err)
{
	const enum cf_layer layers[] = {CF_LAYER_SESSION, CF_LAYER_WORKSPACE, CF_LAYER_USER};
	for (size_t l = 0; l < sizeof(layers) / sizeof(layers[0]); l++) {
		const struct cf_ruleset *rs = &p->layers[layers[l]];
		for (size_t i = 0; i < rs->n; i++) {
			const struct cf_rule *rule = &rs->v[i];
			struct stat st;
			if (rule->action != CF_ALLOW || !(rule->access & CF_ACC_WRITE) ||
			    rule->glob || !rule->path || rule->path[0] != '/' ||
			    lstat(rule->path, &st) == 0 || errno != ENOENT ||
			    cf_strv_contains(out, rule->path))
				continue;
			struct cf_decision d;
			cf_policy_decide(p, rule->path, CF_ACC_WRITE, &d);
			if (d.action != CF_ALLOW || names_endpoint(p, rule->path))
				continue; /* outranked (a guard or an override keeps it closed; the
					   * run says so, notices.c), or a socket */
			int r = cf_host_make_missing(rule->path, roots, n_roots, create, err);
			if (r < 0)
				return r;
			if (cf_strv_add(out, rule->path) < 0)
				return cf_nomem(err);
		}
	}
	return 0;
}

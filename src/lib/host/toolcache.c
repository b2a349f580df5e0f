/* SPDX-License-Identifier: MIT */
/* Tool caches (R39): where the tools keep them, and the workspace's store.  See toolcache.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "host/canon.h"
#include "host/hostfs.h"
#include "host/toolcache.h"
#include "util/nofollow.h"
#include "util/sha256.h"
#include "util/util.h"

/* An absolute directory from a variable, or NULL (a relative one means nothing here). */
static const char *abs_var(const struct cf_strv *env, const char *name)
{
	const char *v = name ? cf_strv_env(env, name) : NULL;
	return v && v[0] == '/' ? v : NULL;
}

static char *canon(const char *path)
{
	char *c = NULL;
	return cf_host_canonicalize(NULL, path, &c, NULL) == 0 ? c : NULL;
}

char *cf_host_state_dir(const struct cf_strv *env, const char *home)
{
	const char *x = abs_var(env, "XDG_STATE_HOME");
	char *base = x ? cf_strdup(x) : cf_path_join(home, ".local/state");
	char *dir = base ? cf_path_join(base, "confine") : NULL;
	char *c = dir ? canon(dir) : NULL;
	free(base);
	free(dir);
	return c;
}

char *cf_cache_store_of(const char *state, const char *workspace)
{
	struct stat st;
	char sum[CF_SHA256_HEX];
	/* The directory's identity too: a repository cloned again at the same path gets a store
	 * of its own, and cannot read what the one before it left. */
	bool there = stat(workspace, &st) == 0;
	char *key = cf_asprintf("confine tool caches 1:%u:%llu:%llu:%s", (unsigned)geteuid(),
				there ? (unsigned long long)st.st_dev : 0ULL,
				there ? (unsigned long long)st.st_ino : 0ULL, workspace);
	if (!key)
		return NULL;
	cf_sha256_hex(key, strlen(key), sum);
	free(key);
	return cf_asprintf("%s/caches/%.32s", state, sum);
}

int cf_cache_lock_slot(const char *store, int *fd)
{
	*fd = -1;
	char *o = cf_cache_store_overlay(store);
	int dfd = o ? open(o, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;
	free(o);
	if (dfd < 0)
		return -1;
	int slot = -1;
	for (int s = 0; s < CF_CACHE_SLOTS && slot < 0; s++) {
		char name[32];
		snprintf(name, sizeof(name), "%d.lock", s);
		int lfd = openat(dfd, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (lfd < 0)
			continue;
		if (flock(lfd, LOCK_EX | LOCK_NB) == 0) {
			*fd = lfd;
			slot = s;
		} else {
			close(lfd);
		}
	}
	close(dfd);
	return slot;
}

/* Where one tool keeps its cache. */
static char *locate(const struct cf_tool *t, const struct cf_strv *env, const char *home,
		    bool *by_var, bool *under_xdg)
{
	*by_var = *under_xdg = false;
	const char *v = abs_var(env, t->var);
	if (!v)
		v = abs_var(env, t->alt);
	if (v) {
		*by_var = true;
		return cf_strdup(v);
	}
	const char *def = t->def;
	if (!strncmp(def, "~/", 2))
		return cf_path_join(home, def + 2);
	const char *colon = strchr(def, ':');
	if (!colon)
		return NULL;
	size_t k = (size_t)(colon - def);
	char *base = NULL;
	if (!strncmp(def, "xdg", k)) {
		const char *x = abs_var(env, "XDG_CACHE_HOME");
		base = x ? cf_strdup(x) : cf_path_join(home, ".cache");
		*under_xdg = true;
	} else if (!strncmp(def, "data", k)) {
		const char *x = abs_var(env, "XDG_DATA_HOME");
		base = x ? cf_strdup(x) : cf_path_join(home, ".local/share");
	} else if (!strncmp(def, "gopath", k)) {
		/* GOPATH's first entry. */
		const char *g = cf_strv_env(env, "GOPATH");
		size_t n = g ? strcspn(g, ":") : 0;
		base = g && g[0] == '/' ? cf_strndup(g, n) : cf_path_join(home, "go");
	}
	char *p = base ? cf_path_join(base, colon + 1) : NULL;
	free(base);
	return p;
}

/*
 * Makes dir (absolute, normalised) and every missing component above it: 0700, as the caller,
 * each with mkdirat from its parent's descriptor, which was opened without following a
 * symlink; the nearest existing ancestor must be the caller's.  0, or -1 with *why.
 */
static int make_dirs(const char *dir, const char **why)
{
	char *have = cf_strdup(dir);
	struct stat st;
	while (have && strcmp(have, "/") && lstat(have, &st) < 0) {
		char *up = cf_path_dirname(have);
		free(have);
		have = up;
	}
	if (!have || lstat(have, &st) < 0) {
		free(have);
		*why = "out of memory";
		return -1;
	}
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid()) {
		*why = S_ISDIR(st.st_mode) ? "the directory it would be made in is not the caller's"
					   : "a file or symlink is where a directory should be";
		free(have);
		return -1;
	}
	int fd = cf_open_nofollow(AT_FDCWD, have, O_PATH | O_DIRECTORY, 0, NULL);
	char *rest = cf_strdup(dir + strlen(have));
	int rc = fd < 0 || !rest ? -1 : 0;
	*why = rc ? "cannot open the directory it would be made in" : NULL;
	for (char *c = rest ? rest : NULL, *next; rc == 0 && c && *c; c = next) {
		while (*c == '/')
			c++;
		if (!*c)
			break;
		next = strchr(c, '/');
		if (next)
			*next++ = '\0';
		if (mkdirat(fd, c, 0700) < 0 && errno != EEXIST) {
			*why = "mkdir failed";
			rc = -1;
			break;
		}
		int sub = openat(fd, c, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		struct stat ss;
		if (sub < 0 || fstat(sub, &ss) < 0 || ss.st_uid != geteuid() ||
		    (ss.st_mode & 022)) {
			*why = "a component is a symlink, not a directory, another user's, or "
			       "writable by others";
			rc = -1;
			if (sub >= 0)
				close(sub);
			break;
		}
		close(fd);
		fd = sub;
	}
	if (fd >= 0)
		close(fd);
	free(rest);
	free(have);
	return rc;
}

/* The store, its "o" and its "r". */
static int make_store(struct cf_cache_facts *f, const char **why)
{
	char *o = cf_cache_store_overlay(f->store), *r = cf_cache_store_redirect(f->store);
	int rc = o && r ? 0 : -1;
	*why = rc ? "out of memory" : NULL;
	if (rc == 0)
		rc = make_dirs(o, why);
	if (rc == 0)
		rc = make_dirs(r, why);
	free(o);
	free(r);
	return rc;
}

int cf_cache_prepare_run(const struct cf_plan *plan, const char **why)
{
	int rc = 0;
	*why = NULL;
	for (size_t i = 0; rc == 0 && i < plan->n_caches; i++) {
		const struct cf_plan_cache *c = &plan->caches[i];
		if (c->how != CF_CACHE_OVERLAY)
			continue;
		char *tool = cf_path_dirname(c->where);
		char *w = tool ? cf_path_join(tool, c->work) : NULL;
		rc = w ? make_dirs(c->where, why) : -1;
		if (rc == 0)
			rc = make_dirs(w, why);
		/* The marker a volatile overlay leaves behind: the kernel refuses a work
		 * directory that holds it. */
		if (rc == 0 && cf_cache_remove_at(w, "work/incompat") < 0) {
			rc = -1;
			*why = "cannot empty the work directory";
		}
		if (!w)
			*why = "out of memory";
		free(tool);
		free(w);
	}
	return rc;
}

int cf_host_cache_facts(const struct cf_strv *env, const char *home, const char *workspace,
			bool create, const char *work, struct cf_cache_facts *out,
			struct confine_error *err)
{
	size_t n;
	const struct cf_tool *t = cf_tools(&n);
	memset(out, 0, sizeof(*out));
	if (!(out->v = calloc(n, sizeof(*out->v))))
		return cf_nomem(err);
	for (size_t i = 0; i < n; i++) {
		struct cf_cache_loc *l = &out->v[out->n];
		char *p = locate(&t[i], env, home, &l->by_var, &l->under_xdg);
		char *c = p ? canon(p) : NULL;
		free(p);
		if (!c)
			continue; /* nowhere (a relative variable): nothing to give it */
		struct stat st;
		l->tool = &t[i];
		l->path = c;
		l->kind = lstat(c, &st) == 0 ? cf_kind_of_mode(st.st_mode) : CF_KIND_MISSING;
		out->n++;
	}
	if (!(out->state = cf_host_state_dir(env, home)) ||
	    !(out->store = cf_cache_store_of(out->state, workspace)))
		return cf_nomem(err);
	const char *why = NULL;
	(void)work;
	if (create && make_store(out, &why) < 0) {
		out->why_not = cf_asprintf("confine's store '%s' cannot be made: %s", out->store,
					   why ? why : "?");
		free(out->store);
		out->store = NULL;
		if (!out->why_not)
			return cf_nomem(err);
	}
	return 0;
}

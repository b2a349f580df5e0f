/* SPDX-License-Identifier: MIT */
/*
 * Tool caches (R39), the public interface: confine's stores of the caller, listed and
 * removed (confine_cache_*).  The stores themselves are host/cachestore.c's.
 */
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host/toolcache.h"
#include "util/util.h"

extern char **environ;

struct confine_caches {
	struct confine_cache_store *v;
	struct cf_cache_store_info *info; /* owns the strings v points to */
	size_t n;
};

/* confine's state directory from the process's environment (HOME, or the password database). */
static char *process_state_dir(void)
{
	struct cf_strv env = {0};
	char *state = NULL;
	for (char **e = environ; e && *e; e++)
		if ((!strncmp(*e, "XDG_STATE_HOME=", 15) || !strncmp(*e, "HOME=", 5)) &&
		    cf_strv_add(&env, *e) < 0)
			goto out;
	const char *home = NULL;
	for (size_t i = 0; i < env.n; i++)
		if (!strncmp(env.v[i], "HOME=", 5) && env.v[i][5] == '/')
			home = env.v[i] + 5;
	struct passwd *pw = home ? NULL : getpwuid(getuid());
	if (!home && pw && pw->pw_dir && pw->pw_dir[0] == '/')
		home = pw->pw_dir;
	if (home)
		state = cf_host_state_dir(&env, home);
out:
	cf_strv_release(&env);
	return state;
}

static int no_state(struct confine_error *err)
{
	return cf_err(err, CONFINE_E_INVALID, "cannot find the tool caches", "HOME",
		      "HOME is unset and the user has no passwd entry");
}

int confine_cache_list(confine_caches **out, struct confine_error *err)
{
	if (!out)
		return cf_err(err, CONFINE_E_INVALID, "invalid argument", "out", "it is NULL");
	*out = NULL;
	char *state = process_state_dir();
	if (!state)
		return no_state(err);
	confine_caches *c = calloc(1, sizeof(*c));
	int r = c ? cf_cache_stores(state, &c->info, &c->n, err) : cf_nomem(err);
	free(state);
	if (r == 0 && c->n && !(c->v = calloc(c->n, sizeof(*c->v))))
		r = cf_nomem(err);
	for (size_t i = 0; r == 0 && i < c->n; i++)
		c->v[i] = (struct confine_cache_store){
		    .size = sizeof(c->v[i]),
		    .dir = c->info[i].dir,
		    .workspace = c->info[i].workspace,
		    .bytes = c->info[i].bytes,
		    .last_used = c->info[i].used,
		};
	if (r < 0) {
		confine_caches_free(c);
		return r;
	}
	*out = c;
	return 0;
}

void confine_caches_free(confine_caches *c)
{
	if (!c)
		return;
	cf_cache_stores_free(c->info, c->n);
	free(c->v);
	free(c);
}

size_t confine_cache_count(const confine_caches *c)
{
	return c ? c->n : 0;
}

const struct confine_cache_store *confine_cache_store(const confine_caches *c, size_t i)
{
	return c && i < c->n ? &c->v[i] : NULL;
}

int confine_caches_json(const confine_caches *c, char **out, struct confine_error *err)
{
	if (!c || !out)
		return cf_err(err, CONFINE_E_INVALID, "invalid argument", c ? "out" : "caches",
			      "it is NULL");
	struct cf_buf b;
	cf_buf_init(&b);
	cf_buf_add(&b, "[");
	for (size_t i = 0; i < c->n; i++) {
		const struct confine_cache_store *s = &c->v[i];
		cf_buf_add(&b, i ? ",\n {\"store\": " : "\n {\"store\": ");
		cf_buf_add_json(&b, s->dir);
		cf_buf_add(&b, ", \"workspace\": ");
		cf_buf_add_json(&b, s->workspace);
		cf_buf_addf(&b, ", \"bytes\": %llu, \"last_used\": %lld}",
			    (unsigned long long)s->bytes, (long long)s->last_used);
	}
	cf_buf_add(&b, c->n ? "\n]" : "]");
	if (!(*out = cf_buf_take(&b)))
		return cf_nomem(err);
	return 0;
}

int confine_cache_clear(const char *workspace, struct confine_error *err)
{
	char *state = process_state_dir();
	if (!state)
		return no_state(err);
	int r = 0;
	if (workspace) {
		char *canon = realpath(workspace, NULL);
		char *dir = canon ? cf_cache_store_of(state, canon) : NULL;
		if (!canon)
			r = cf_err_os(err, CONFINE_E_WORKSPACE, "cannot clear the tool caches",
				      workspace, "realpath", errno);
		else if (!dir)
			r = cf_nomem(err);
		else
			r = cf_cache_store_remove(state, dir, err);
		free(canon);
		free(dir);
	} else {
		struct cf_cache_store_info *v = NULL;
		size_t k = 0;
		r = cf_cache_stores(state, &v, &k, err);
		for (size_t i = 0; r == 0 && i < k; i++)
			r = cf_cache_store_remove(state, v[i].dir, err);
		cf_cache_stores_free(v, k);
	}
	free(state);
	return r;
}

/* SPDX-License-Identifier: MIT */
/*
 * Tool caches (R39) in a run: where the tools keep their caches and the workspace's store
 * (host/toolcache.h), the redirects in the command's environment, the store's directories
 * before a launch and its bound after the run.  What the plan makes of them is
 * plan/caches.c's.  Touches the OS.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host/toolcache.h"
#include "request.h"
#include "util/util.h"

/* Sets NAME=VALUE in env, replacing the variable's entry (or removing it when value is NULL). */
static int env_put(struct cf_strv *env, const char *name, size_t nl, const char *value)
{
	for (size_t i = 0; i < env->n; i++)
		if (!strncmp(env->v[i], name, nl) && env->v[i][nl] == '=') {
			free(env->v[i]);
			memmove(&env->v[i], &env->v[i + 1], (env->n - i - 1) * sizeof(env->v[0]));
			env->n--;
			break;
		}
	if (!value)
		return 0;
	char *a = cf_asprintf("%.*s=%s", (int)nl, name, value);
	return a && cf_strv_take(env, a) == 0 ? 0 : CONFINE_E_NOMEM;
}

static const char *env_value(const struct cf_strv *env, const char *name, size_t nl)
{
	for (size_t i = 0; i < env->n; i++)
		if (!strncmp(env->v[i], name, nl) && env->v[i][nl] == '=')
			return env->v[i] + nl + 1;
	return NULL;
}

/*
 * R39: the redirects of the plan's tool caches in the command's environment.  What an earlier
 * plan's redirects replaced is put back first (a plan made again after an overlay failed
 * redirects more); a variable the caller set with --env is left as the caller set it.
 */
int cf_run_cache_env(confine_run *run, struct confine_error *err)
{
	struct cf_strv *env = &run->plan.env;
	for (size_t i = 0; i < run->cache_env_saved.n; i++) {
		const char *sv = run->cache_env_saved.v[i], *eq = strchr(sv, '=');
		size_t nl = eq ? (size_t)(eq - sv) : strlen(sv);
		if (env_put(env, sv, nl, eq ? eq + 1 : NULL) < 0)
			return cf_nomem(err);
	}
	cf_strv_release(&run->cache_env_saved);
	for (size_t i = 0; i < run->plan.cache_env.n; i++) {
		const char *a = run->plan.cache_env.v[i], *eq = strchr(a, '=');
		if (!eq)
			continue;
		bool append = eq > a && eq[-1] == '+';
		size_t nl = (size_t)(eq - a) - (append ? 1 : 0);
		char *name = cf_strndup(a, nl);
		if (!name)
			return cf_nomem(err);
		bool keep = cf_strv_contains(&run->cache_env_keep, name);
		free(name);
		if (keep)
			continue;
		const char *old = env_value(env, a, nl);
		char *saved = old ? cf_asprintf("%.*s=%s", (int)nl, a, old) : cf_strndup(a, nl);
		char *value =
		    append && old && *old ? cf_asprintf("%s %s", old, eq + 1) : cf_strdup(eq + 1);
		int r = saved && value && cf_strv_take(&run->cache_env_saved, saved) == 0
			    ? env_put(env, a, nl, value)
			    : CONFINE_E_NOMEM;
		if (!saved || !value)
			free(saved);
		free(value);
		if (r < 0)
			return cf_nomem(err);
	}
	return 0;
}

/* R39: where the tools keep their caches, and this workspace's store (made now, except in a
 * dry run).  Only a run under the sandbox with a bound has private caches. */
int cf_run_cache_facts(confine_run *run, const confine_request *req, const struct cf_strv *env,
		       struct confine_error *err)
{
	run->cache_bound = req->cache_bound;
	for (size_t i = 0; i < req->env.set.n; i++) {
		const char *eq = strchr(req->env.set.v[i], '=');
		char *name =
		    eq ? cf_strndup(req->env.set.v[i], (size_t)(eq - req->env.set.v[i])) : NULL;
		if (!name || cf_strv_take(&run->cache_env_keep, name) < 0)
			return cf_nomem(err);
	}
	if (run->policy != CONFINE_POLICY_REQUIRED || !req->cache_bound)
		return 0;
	/* The work directory of the slot this run holds (below); "work.0" for a printed plan. */
	snprintf(run->cache_work, sizeof(run->cache_work), "work.0");
	int r = cf_host_cache_facts(env, run->home, run->workspace, !req->dry_run, run->cache_work,
				    &run->cache_facts, err);
	run->cache_facts_made = r == 0;
	/* The store in use (nothing removes it meanwhile), and an upper layer of its own for this
	 * run (a slot), or no overlay at all. */
	if (r == 0 && !req->dry_run && run->cache_facts.store) {
		run->cache_store_lock = cf_cache_lock_store(run->cache_facts.store);
		run->cache_facts.slot =
		    cf_cache_lock_slot(run->cache_facts.store, &run->cache_lock);
		if (run->cache_facts.slot < 0) {
			run->cache_facts.slot = 0;
			run->cache_overlay_off = true;
		}
		snprintf(run->cache_work, sizeof(run->cache_work), "work.%d",
			 run->cache_facts.slot);
	}
	return r;
}

int cf_run_caches_start(confine_run *run, struct confine_error *err)
{
	const char *why = NULL;
	if (!run->plan.cache_overlay || run->cache_started)
		return 0;
	if (cf_cache_prepare_run(&run->plan, &why) < 0) {
		cf_err(err, CONFINE_E_OS, "cannot prepare the tool caches", run->plan.cache_store,
		       "%s", why ? why : "?");
		cf_err_hint(err, "remove the store with 'confine cache clear', or run with "
				 "--cache-size 0 (no private tool caches)");
		return CONFINE_E_OS;
	}
	run->cache_started = true;
	return 0;
}

const char *confine_run_cache_trimmed(const confine_run *run)
{
	return run ? run->cache_trimmed : NULL;
}

void cf_run_caches_release(confine_run *run)
{
	if (run->cache_store_lock >= 0)
		close(run->cache_store_lock);
	if (run->cache_lock >= 0)
		close(run->cache_lock);
	run->cache_store_lock = run->cache_lock = -1;
	run->cache_started = false;
}

void cf_run_caches_finish(confine_run *run)
{
	if (!run->plan.cache_store)
		return;
	char trimmed[1024];
	/* The command has ended: this run no longer holds the store (its bound may remove it). */
	cf_run_caches_release(run);
	cf_cache_finish(&run->plan, run->cache_work, run->workspace, run->cache_bound, trimmed,
			sizeof(trimmed));
	free(run->cache_trimmed);
	run->cache_trimmed = trimmed[0] ? cf_strdup(trimmed) : NULL;
}

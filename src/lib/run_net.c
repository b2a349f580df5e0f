/* SPDX-License-Identifier: MIT */
/*
 * Network by domain of a prepared run, what R43 adds to it: the request's asker, and the
 * caller's upstream proxy (rules/upstream.h): network.upstream of a session rule file or of the
 * user rule file (in that order), else https_proxy or HTTPS_PROXY of the caller's environment
 * (the request's base environment); NO_PROXY (no_proxy first) of the same environment.  The
 * command never sees the upstream's password: its proxy variables name confine's proxy, and
 * any other variable whose value holds the password (decoded or as written in the URL) or the
 * credentials as sent (base64) is removed, and listed as removed.
 */
#include <stdlib.h>
#include <string.h>

#include "rules/upstream.h"
#include "request.h"
#include "run_net.h"
#include "util/util.h"

/* The value of NAME in env, NULL when unset or empty. */
static const char *env_get(const struct cf_strv *env, const char *name)
{
	size_t nl = strlen(name);
	for (size_t i = 0; i < env->n; i++)
		if (!strncmp(env->v[i], name, nl) && env->v[i][nl] == '=')
			return env->v[i][nl + 1] ? env->v[i] + nl + 1 : NULL;
	return NULL;
}

int cf_run_net_prepare(confine_run *run, const confine_request *req, const struct cf_strv *env,
		       struct confine_error *err)
{
	run->net_ask = req->net_ask;
	run->net_ask_user = req->net_ask_user;
	if (run->net_mode != CONFINE_NET_DOMAINS || run->policy != CONFINE_POLICY_REQUIRED)
		return 0;
	const char *url = run->net.layers[CF_LAYER_SESSION].upstream;
	const char *from = "network.upstream of a session rule file";
	if (!url) {
		url = run->net.layers[CF_LAYER_USER].upstream;
		from = "network.upstream of the user rule file";
	}
	if (!url && (url = env_get(env, "https_proxy")))
		from = "https_proxy";
	if (!url && (url = env_get(env, "HTTPS_PROXY")))
		from = "HTTPS_PROXY";
	if (!url)
		return 0;
	struct cf_upstream *u = calloc(1, sizeof(*u));
	if (!u)
		return cf_nomem(err);
	const char *why = cf_upstream_parse(url, u);
	if (why) {
		cf_upstream_release(u);
		free(u);
		cf_err(err, CONFINE_E_INVALID, "cannot use the upstream proxy", from, "%s", why);
		cf_err_hint(err,
			    "set %s to http://[USER:PASSWORD@]HOST:PORT, or unset it for "
			    "confine's proxy to connect directly",
			    from);
		return CONFINE_E_INVALID;
	}
	const char *np = env_get(env, "no_proxy");
	if (!np)
		np = env_get(env, "NO_PROXY");
	if (np && cf_upstream_no_proxy(u, np) < 0) {
		cf_upstream_release(u);
		free(u);
		return cf_nomem(err);
	}
	run->upstream = u;
	return 0;
}

int cf_run_net_scrub(confine_run *run, struct confine_error *err)
{
	const struct cf_upstream *u = run->upstream;
	if (!u || !u->password[0])
		return 0;
	struct cf_strv *env = &run->plan.env;
	size_t k = 0;
	/* The user and password as written in the URL, the credentials as sent (base64), and the
	 * password alone, decoded or as written, when it is long enough not to be found in any
	 * value by chance (a variable that holds only a short password is the caller's). */
	bool long_enough = strlen(u->password) >= 6;
	const char *forms[] = {u->userinfo_raw, u->auth + 6, long_enough ? u->password : "",
			       long_enough ? u->password_raw : ""};
	for (size_t i = 0; i < env->n; i++) {
		char *eq = strchr(env->v[i], '=');
		bool holds = false;
		for (size_t f = 0; eq && f < 4; f++)
			holds |= forms[f][0] && strstr(eq + 1, forms[f]) != NULL;
		if (!holds) {
			env->v[k++] = env->v[i];
			continue;
		}
		*eq = '\0';
		int r = cf_strv_add(&run->plan.env_removed, env->v[i]);
		explicit_bzero(eq + 1, strlen(eq + 1));
		free(env->v[i]);
		if (r < 0) {
			for (size_t j = i + 1; j < env->n; j++)
				env->v[k++] = env->v[j];
			env->n = k;
			return cf_nomem(err);
		}
	}
	env->n = k;
	return 0;
}

void cf_run_net_release(confine_run *run)
{
	if (!run->upstream)
		return;
	cf_upstream_release(run->upstream);
	free(run->upstream);
	run->upstream = NULL;
}

/* SPDX-License-Identifier: MIT */
/*
 * Network by domain of a prepared run: its events and their remedies, and what R43 adds to it: the
 * request's asker, and the caller's upstream proxy (rules/upstream.h): network.upstream of a
 * session rule file or of the user rule file (in that order), else https_proxy or HTTPS_PROXY of
 * the caller's environment (the request's base environment); NO_PROXY (no_proxy first) of the same
 * environment.  The command never sees the upstream's password: its proxy variables name confine's
 * proxy, and any other variable whose value holds the password (decoded or as written in the URL)
 * or the credentials as sent (base64) is removed, and listed as removed.
 */
#include <stdlib.h>
#include <string.h>

#include "net/remedy.h"
#include "rules/upstream.h"
#include "request.h"
#include "run_net.h"
#include "util/util.h"

/* The value of NAME in env, NULL when unset or empty. */
static const char *env_get(const struct cf_strv *env, const char *name)
{
	const char *v = cf_strv_env(env, name);
	return v && *v ? v : NULL;
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
enum confine_net_mode confine_run_net_mode(const confine_run *run)
{
	return run->net_mode;
}

int cf_run_net_publish(confine_run *run, struct confine_error *err)
{
	free(run->net_pub);
	run->net_pub = NULL;
	if (!run->n_net_events)
		return 0;
	run->net_pub = calloc(run->n_net_events, sizeof(*run->net_pub));
	if (!run->net_pub) {
		/* Kept and reported as not kept rather than as a failure of the run. */
		run->net_dropped += run->n_net_events;
		run->n_net_events = 0;
		return cf_nomem(err);
	}
	for (size_t i = 0; i < run->n_net_events; i++) {
		const struct cf_net_event *e = &run->net_events[i];
		struct confine_net_event *p = &run->net_pub[i];
		p->size = sizeof(*p);
		p->time_ms = e->time_ms;
		memcpy(p->protocol, e->protocol, sizeof(p->protocol));
		p->decision = &e->decision;
		memcpy(p->outcome, e->outcome, sizeof(p->outcome));
		memcpy(p->address, e->address, sizeof(p->address));
		memcpy(p->detail, e->detail, sizeof(p->detail));
		memcpy(p->answer, e->answer, sizeof(p->answer));
	}
	return 0;
}

size_t confine_run_net_event_count(const confine_run *run)
{
	return run && run->net_pub ? run->n_net_events : 0;
}

const struct confine_net_event *confine_run_net_event(const confine_run *run, size_t i)
{
	return i < confine_run_net_event_count(run) ? &run->net_pub[i] : NULL;
}

size_t confine_run_net_events_dropped(const confine_run *run)
{
	return run ? run->net_dropped : 0;
}

int confine_run_net_hint(const confine_run *run, size_t i, char **out, struct confine_error *err)
{
	char buf[1024];
	if (!out)
		return cf_err(err, CONFINE_E_INVALID, "invalid argument", "out", "out is NULL");
	*out = NULL;
	if (i >= confine_run_net_event_count(run))
		return cf_err(err, CONFINE_E_INVALID, "invalid argument", "network event",
			      "event %zu is past the %zu network events of the run", i,
			      confine_run_net_event_count(run));
	cf_net_event_remedy(&run->net, &run->net_events[i], buf, sizeof(buf));
	*out = cf_strdup(buf);
	return *out ? 0 : cf_nomem(err);
}

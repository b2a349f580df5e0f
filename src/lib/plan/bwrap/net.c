/* SPDX-License-Identifier: MIT */
/* Network by domain in the plan (SPEC 12): the proxy variables of the command's environment. */
#include <stdlib.h>
#include <string.h>

#include "net/netconst.h"
#include "plan/bwrap/plan.h"
#include "util/util.h"

#define STR2(x) #x
#define STR(x) STR2(x)
#define HTTP_URL "http://127.0.0.1:" STR(CF_NET_HTTP_PORT)
/* socks5h: the client sends the name, not an address (there is no DNS inside anyway). */
#define SOCKS_URL "socks5h://127.0.0.1:" STR(CF_NET_SOCKS_PORT)

static const char *const proxy_env[][2] = {
    {"HTTP_PROXY", HTTP_URL},  {"http_proxy", HTTP_URL}, {"HTTPS_PROXY", HTTP_URL},
    {"https_proxy", HTTP_URL}, {"ALL_PROXY", SOCKS_URL}, {"all_proxy", SOCKS_URL},
};

/* Sets NAME=VALUE, replacing a variable of that name. */
static int set_var(struct cf_plan *plan, const char *name, const char *value,
		   struct confine_error *err)
{
	size_t nl = strlen(name);
	char *kv = cf_asprintf("%s=%s", name, value);
	if (!kv)
		return cf_nomem(err);
	for (size_t i = 0; i < plan->env.n; i++) {
		if (strncmp(plan->env.v[i], name, nl) || plan->env.v[i][nl] != '=')
			continue;
		free(plan->env.v[i]);
		plan->env.v[i] = kv;
		return 0;
	}
	return cf_strv_take(&plan->env, kv) < 0 ? cf_nomem(err) : 0;
}

/* Removes every variable of that name. */
static void unset_var(struct cf_plan *plan, const char *name)
{
	size_t nl = strlen(name), k = 0;
	for (size_t i = 0; i < plan->env.n; i++) {
		if (!strncmp(plan->env.v[i], name, nl) && plan->env.v[i][nl] == '=')
			free(plan->env.v[i]);
		else
			plan->env.v[k++] = plan->env.v[i];
	}
	plan->env.n = k;
}

int cf_plan_net_env(struct cf_plan *plan, const char *no_proxy, struct confine_error *err)
{
	for (size_t k = 0; k < sizeof(proxy_env) / sizeof(proxy_env[0]); k++) {
		int r = set_var(plan, proxy_env[k][0], proxy_env[k][1], err);
		if (r < 0)
			return r;
	}
	static const char *const np[] = {"NO_PROXY", "no_proxy"};
	for (size_t k = 0; k < 2; k++) {
		if (!no_proxy) {
			unset_var(plan, np[k]);
			continue;
		}
		int r = set_var(plan, np[k], no_proxy, err);
		if (r < 0)
			return r;
	}
	return 0;
}

int cf_plan_net_env_at(struct cf_plan *plan, unsigned port, const char *userinfo,
		       struct confine_error *err)
{
	char *http = cf_asprintf("http://%s@127.0.0.1:%u", userinfo, port);
	char *socks = cf_asprintf("socks5h://%s@127.0.0.1:%u", userinfo, port);
	int r = http && socks ? 0 : cf_nomem(err);
	for (size_t k = 0; r == 0 && k < sizeof(proxy_env) / sizeof(proxy_env[0]); k++) {
		const char *name = proxy_env[k][0];
		const char *v = !strncmp(name, "ALL", 3) || !strncmp(name, "all", 3) ? socks : http;
		r = set_var(plan, name, v, err);
	}
	free(http);
	free(socks);
	return r;
}

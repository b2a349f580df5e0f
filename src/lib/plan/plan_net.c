/* SPDX-License-Identifier: MIT */
/* Network by domain in the plan (SPEC 12): the proxy variables of the command's environment. */
#include <stdlib.h>
#include <string.h>

#include "net/netconst.h"
#include "plan/plan.h"
#include "util/util.h"

#define STR2(x) #x
#define STR(x) STR2(x)
#define HTTP_URL "http://127.0.0.1:" STR(CF_NET_HTTP_PORT)
/* socks5h: the client sends the name, not an address (there is no DNS inside anyway). */
#define SOCKS_URL "socks5h://127.0.0.1:" STR(CF_NET_SOCKS_PORT)

static const char *const proxy_env[][2] = {
    {"HTTP_PROXY", HTTP_URL},
    {"http_proxy", HTTP_URL},
    {"HTTPS_PROXY", HTTP_URL},
    {"https_proxy", HTTP_URL},
    {"ALL_PROXY", SOCKS_URL},
    {"all_proxy", SOCKS_URL},
    {"NO_PROXY", "localhost,127.0.0.1"},
    {"no_proxy", "localhost,127.0.0.1"},
};

int cf_plan_net_env(struct cf_plan *plan, struct confine_error *err)
{
	for (size_t k = 0; k < sizeof(proxy_env) / sizeof(proxy_env[0]); k++) {
		const char *name = proxy_env[k][0];
		size_t nl = strlen(name);
		char *kv = cf_asprintf("%s=%s", name, proxy_env[k][1]);
		if (!kv)
			return cf_nomem(err);
		bool replaced = false;
		for (size_t i = 0; i < plan->env.n && !replaced; i++) {
			if (strncmp(plan->env.v[i], name, nl) || plan->env.v[i][nl] != '=')
				continue;
			free(plan->env.v[i]);
			plan->env.v[i] = kv;
			replaced = true;
		}
		if (!replaced && cf_strv_take(&plan->env, kv) < 0)
			return cf_nomem(err);
	}
	return 0;
}

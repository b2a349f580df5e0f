/* SPDX-License-Identifier: MIT */
/* A request's session layer for the plans and executors of macOS and Windows
 * (request_rules.h). */
#include "host/rulefile.h"
#include "request.h"
#include "request_rules.h"
#include "util/util.h"

/* The session's --net-allow patterns (SPEC 12): the planners of other systems say what they do
 * with them. */
size_t cf_request_net_allows(const confine_request *req)
{
	size_t n = 0;
	for (size_t i = 0; i < req->net_session.n; i++)
		n += req->net_session.v[i].action == CF_ALLOW;
	return n;
}

/* One session rule file (host/rulefile.h's loader). */
static int session_file(void *ctx, const char *path, enum cf_layer layer, bool missing_ok,
			struct confine_error *err)
{
	return cf_rulefile_load(path, layer, missing_ok, ctx, NULL, err);
}

int cf_request_session_rules(const confine_request *req, struct cf_ruleset *rs,
			     struct confine_error *err)
{
	int r = 0;
	for (size_t i = 0; i < req->session.n && r == 0; i++)
		r = cf_ruleset_add(rs, &req->session.v[i], err);
	if (r < 0)
		return r;
	return cf_rulefiles_each(&req->session_files, NULL, NULL, session_file, rs, err);
}

/* SPDX-License-Identifier: MIT */
/* The plan of a request for another system, on any OS (SPEC 1, 9, 10).  Pure but for reading
 * session rule files. */
#include <stdlib.h>
#include <string.h>

#include "macplan.h"
#include "request.h"
#include "winplan.h"
#include "util/util.h"

/* USER of the request's environment (the process's when it sets none). */
static const char *request_user(const confine_request *req)
{
	if (!req->env_base_set)
		return getenv("USER");
	for (size_t i = 0; i < req->env_base.n; i++)
		if (!strncmp(req->env_base.v[i], "USER=", 5))
			return req->env_base.v[i] + 5;
	return NULL;
}

/* A plausible home on a Mac for this user: /Users/$USER when the name is a plain one (macOS
 * short names), else /Users/user.  The plan says it was assumed. */
static char *mac_default_home(const confine_request *req)
{
	const char *u = request_user(req);
	if (!u || !u[0] || strlen(u) > 64 ||
	    strspn(u, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") !=
		strlen(u) ||
	    u[0] == '.')
		u = "user";
	return cf_asprintf("/Users/%s", u);
}

int confine_request_plan_target(const confine_request *req, enum confine_target target,
				const char *facts, const char *home, bool json, char **out,
				struct confine_error *err)
{
	if (!out)
		return cf_err(err, CONFINE_E_INVALID, "invalid argument", "out", "out is NULL");
	*out = NULL;
	if (!req)
		return cf_err(err, CONFINE_E_INVALID, "invalid argument", "request",
			      "the request is NULL");
	if (target == CONFINE_TARGET_WINDOWS)
		return cf_plan_windows_request(req, facts, home, json, out, err);
	if (target != CONFINE_TARGET_MACOS)
		return cf_err(err, CONFINE_E_INVALID, "cannot compile plan",
			      target == CONFINE_TARGET_LINUX ? "linux" : "enum confine_target",
			      "a plan for another system is for macos or windows; for linux, "
			      "prepare a run and take its plan (confine_run_plan_text)");
	char *dflt = mac_default_home(req);
	if (!dflt)
		return cf_nomem(err);
	int r = cf_plan_macos_request(req, facts, home, dflt, json, out, err);
	free(dflt);
	return r;
}

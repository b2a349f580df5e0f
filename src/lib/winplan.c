/* SPDX-License-Identifier: MIT */
/* The Windows plan of a request away from Windows (SPEC 1: plans for any OS on any OS). */
#include <stdlib.h>
#include <string.h>

#include "host/rulefile.h"
#include "plan/caches.h"
#include "plan/windows/plan_win.h"
#include "winplan.h"
#include "request_rules.h"
#include "request.h"
#include "util/util.h"

/* R39 on Windows: every tool redirected into confine's store for the workspace, below
 * %LOCALAPPDATA%, which a session allow makes writable (an ACE of the capability SID). */
static int win_caches(const confine_request *req, const struct cf_win_host *h,
		      struct cf_ruleset *session, char **store, struct cf_strv *env,
		      struct confine_error *err)
{
	*store = NULL;
	if (!req->cache_bound)
		return 0;
	/* In Windows' own spelling, as a user would write the rule. */
	char *home = cf_win_path_show(h->names, h->home),
	     *ws = cf_win_path_show(h->names, h->workspace);
	char *base = home ? cf_asprintf("%s\\AppData\\Local\\confine\\caches", home) : NULL;
	if (base && ws)
		*store = cf_cache_store_by_path(base, ws, '\\');
	bool oom = !base || !ws;
	free(base);
	free(home);
	free(ws);
	if (oom)
		return cf_nomem(err);
	if (!*store)
		return 0;
	return cf_cache_store_allow(session, *store, '\\', true, env, err);
}

int cf_plan_windows_request(const confine_request *req, const char *facts, const char *home,
			    bool json, char **out, struct confine_error *err)
{
	struct cf_win_facts f = {0};
	struct cf_ruleset session = {0};
	struct cf_win_plan plan = {0};
	char *store = NULL; /* R39: this workspace's store of tool caches */
	struct cf_strv cache_env = {0};
	bool have_plan = false;
	int r = 0;

	*out = NULL;
	if (facts)
		r = cf_win_facts_parse(&f, facts, err);
	if (r == 0 && !facts)
		f.table.unlisted_exists = true; /* nothing is known: assume, and say so */
	if (r == 0)
		r = cf_win_facts_finish(&f, home, req->workspace, err);
	if (r < 0)
		goto out;
	struct cf_win_host h = cf_win_facts_host(&f);
	r = cf_request_session_rules(req, &session, err);
	if (r == 0)
		r = win_caches(req, &h, &session, &store, &cache_env, err);
	struct cf_win_input in = {
	    .host = &h,
	    .session = &session,
	    .network = req->network,
	    .net_allows = cf_request_net_allows(req),
	    .argv = &req->argv,
	};
	if (r == 0 && (r = cf_win_plan_compile(&in, &plan, err)) == 0)
		have_plan = true;
	if (r < 0)
		goto out;
	if (cf_strv_add(&plan.notes, "the workspace and user rule files live on the Windows host "
				     "and were not read; pass --session-rules FILE to include "
				     "rules") < 0) {
		r = cf_nomem(err);
		goto out;
	}
	char *note = cf_cache_store_note(
	    store, &cache_env, "the host's caches are not written; the first run is cold", "");
	if (!note || cf_strv_take(&plan.notes, note) < 0) {
		r = cf_nomem(err);
		goto out;
	}
	*out = json ? cf_win_plan_json(&plan) : cf_win_plan_text(&plan);
	if (!*out)
		r = cf_nomem(err);
out:
	if (have_plan)
		cf_win_plan_release(&plan);
	free(store);
	cf_strv_release(&cache_env);
	cf_ruleset_release(&session);
	cf_win_facts_release(&f);
	return r;
}

/* SPDX-License-Identifier: MIT */
/* The macOS plan of a request away from the Mac (SPEC 1: plans for any OS on any OS). */
#include <stdlib.h>
#include <string.h>

#include "host/rulefile.h"
#include "macplan.h"
#include "plan/caches.h"
#include "plan/macos/sbpl.h"
#include "request.h"
#include "request_rules.h"
#include "net/netconst.h"
#include "util/util.h"

static int notes(struct cf_mac_plan *plan, const struct cf_mac_facts *f, bool have_facts)
{
	if (cf_strv_add(&plan->notes, "the workspace and user rule files live on the Mac and were "
				      "not read; pass --session-rules FILE to include rules") < 0)
		return -1;
	if (f->home_assumed) {
		char *t = cf_asprintf("the home directory %s is assumed; pass --home DIR or "
				      "--host-facts FILE",
				      f->home);
		if (!t || cf_strv_take(&plan->notes, t) < 0)
			return -1;
	}
	if (f->workspace_assumed) {
		char *t = cf_asprintf("the workspace %s is assumed; pass --workspace DIR (a path "
				      "on the Mac)",
				      f->workspace);
		if (!t || cf_strv_take(&plan->notes, t) < 0)
			return -1;
	}
	if (!have_facts &&
	    cf_strv_add(&plan->notes,
			"the Mac's $TMPDIR (/private/var/folders/.../T) and caches "
			"are not known here; a run on the Mac adds them (describe "
			"them with 'temp PATH' and 'cache PATH' in --host-facts)") < 0)
		return -1;
	return 0;
}

/*
 * R39 on a Mac: no overlay there, so every tool is redirected into confine's store for the
 * workspace (cold: the host's caches are not read, and never written), which a session allow
 * makes writable.  The store's name is the workspace's path escaped (plan/caches.h).
 */
static int mac_caches(const confine_request *req, const struct cf_mac_host *h,
		      struct cf_ruleset *session, char **store, struct cf_strv *env,
		      struct confine_error *err)
{
	*store = NULL;
	if (!req->cache_bound)
		return 0;
	char *base = cf_path_join(h->home, ".local/state/confine/caches");
	if (!base)
		return cf_nomem(err);
	*store = cf_cache_store_by_path(base, h->workspace, '/');
	free(base);
	if (!*store)
		return 0;
	return cf_cache_store_allow(session, *store, '/', false, env, err);
}

static int mac_cache_note(struct cf_mac_plan *plan, const char *store, const struct cf_strv *env)
{
	char *t = cf_cache_store_note(
	    store, env,
	    "no overlay on macOS: the first run is cold; the host's caches are never written",
	    ": the host's are not writable");
	return t && cf_strv_take(&plan->notes, t) == 0 ? 0 : -1;
}

int cf_plan_macos_request(const confine_request *req, const char *facts, const char *home,
			  const char *default_home, bool json, char **out,
			  struct confine_error *err)
{
	struct cf_mac_facts f;
	struct cf_ruleset session = {0};
	struct cf_mac_plan plan = {0};
	char *store = NULL; /* R39: this workspace's store of tool caches */
	struct cf_strv cache_env = {0};
	bool have_plan = false;
	int r;

	*out = NULL;
	r = cf_mac_facts_init(&f, err);
	if (r == 0 && facts)
		r = cf_mac_facts_parse(&f, facts, err);
	if (r == 0 && !facts)
		f.table.unlisted_exists = true; /* nothing is known: assume, and say so */
	if (r == 0)
		r = cf_mac_facts_finish(&f, home, req->workspace, default_home, err);
	if (r < 0)
		goto out;
	struct cf_mac_host h = cf_mac_facts_host(&f);
	/* The workspace and user files are on the Mac: the session's rules only. */
	r = cf_request_session_rules(req, &session, err);
	if (r == 0)
		r = mac_caches(req, &h, &session, &store, &cache_env, err);
	struct cf_mac_input in = {
	    .host = &h,
	    .session = &session,
	    /* SPEC 12: outbound to the proxy's port only (the Linux sandbox's port; the Mac
	     * executor does not run the proxy yet, and refuses such a run). */
	    .network = cf_request_net_allows(req) ? CF_MAC_NET_PROXY
		       : req->network		  ? CF_MAC_NET_ON
						  : CF_MAC_NET_OFF,
	    .proxy_port = CF_NET_HTTP_PORT,
	    .argv = &req->argv,
	};
	if (r == 0 && (r = cf_mac_plan_compile(&in, &plan, err)) == 0)
		have_plan = true;
	if (r < 0)
		goto out;
	if (notes(&plan, &f, facts != NULL) < 0 || mac_cache_note(&plan, store, &cache_env) < 0) {
		r = cf_nomem(err);
		goto out;
	}
	*out = json ? cf_mac_plan_json(&plan) : cf_mac_plan_text(&plan);
	if (!*out)
		r = cf_nomem(err);
out:
	if (have_plan)
		cf_mac_plan_release(&plan);
	free(store);
	cf_strv_release(&cache_env);
	cf_ruleset_release(&session);
	cf_mac_facts_release(&f);
	return r;
}

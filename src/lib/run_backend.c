/* SPDX-License-Identifier: MIT */
/*
 * The backend of a run (SPEC 3.3): bwrap when its probe passes, landlock when asked or as the
 * fallback of auto, and the Landlock plan (its per-run TMPDIR, the directories it splits).
 * Touches the OS.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/kernel.h"
#include "host/ll_listing.h"
#include "ll_notes.h"
#include "request.h"
#include "util/owntmp.h"
#include "util/util.h"

static int probe_backend(confine_run *run, const struct confine_request *req,
			 struct confine_error *err)
{
	const char *path = getenv("PATH");
	int r = cf_probe_bwrap(path, run->workspace, true, &run->probe, err);
	if (r < 0)
		return r;
	if (!run->probe.available) {
		cf_err(err, CONFINE_E_BACKEND, "sandbox unavailable", run->probe.backend, "%s (%s)",
		       run->probe.reason[0] ? run->probe.reason : "the probe failed",
		       run->probe.code);
		if (run->probe.hint[0])
			cf_err_hint(err,
				    "%s; or set CONFINE_SANDBOX_POLICY=off to run without a "
				    "sandbox (an explicit choice)",
				    run->probe.hint);
		return CONFINE_E_BACKEND;
	}
	run->bwrap = cf_strdup(run->probe.path);
	return run->bwrap ? 0 : cf_nomem(err);
}

/* The per-run TMPDIR of the landlock backend: a fresh directory under the host's /tmp. */
static int make_run_tmp(confine_run *run, bool real, struct confine_error *err)
{
	if (!real) {
		run->run_tmp = cf_strdup("/tmp/" CF_OWNTMP_RUN ".XXXXXXX"); /* cf_owntmp_make's */
		return run->run_tmp ? 0 : cf_nomem(err);
	}
	/* Locked while this run lives: the next run of any kind removes it if this one is killed
	 * (util/owntmp.c). */
	int r = cf_owntmp_make(CF_OWNTMP_RUN, &run->run_tmp, &run->run_tmp_lock, err);
	run->run_tmp_made = r == 0;
	return r;
}

/* TMPDIR of the command: the run's own directory (SPEC 3.3). */
void cf_ll_remove_run_tmp(confine_run *run)
{
	if (!run->run_tmp_made || !run->run_tmp)
		return;
	/* Through its lock's descriptor: the very directory confine made, even if the command
	 * renamed it or put something else in its place. */
	cf_owntmp_remove(run->run_tmp, run->run_tmp_lock);
	run->run_tmp_lock = -1;
	run->run_tmp_made = false;
}

static int set_tmpdir(struct cf_strv *env, const char *dir, struct confine_error *err)
{
	char *v = cf_asprintf("TMPDIR=%s", dir);
	if (!v)
		return cf_nomem(err);
	for (size_t i = 0; i < env->n; i++)
		if (!strncmp(env->v[i], "TMPDIR=", 7)) {
			free(env->v[i]);
			env->v[i] = v;
			return 0;
		}
	return cf_strv_take(env, v) < 0 ? cf_nomem(err) : 0;
}

/* The Landlock plan: the directories it splits are listed first (host facts), then it is
 * compiled (SPEC 3.3). */
static int plan_landlock(confine_run *run, const confine_request *req, bool real,
			 struct confine_error *err)
{
	struct cf_strv dirs = {0};
	struct cf_ll_listings listings = {0};
	int r;
	if ((r = make_run_tmp(run, real, err)) < 0)
		return r;
	char *cache_dir =
	    run->plan.cache_redirect ? cf_cache_store_redirect(run->plan.cache_store) : NULL;
	if (run->plan.cache_redirect && !cache_dir)
		return cf_nomem(err);
	struct cf_ll_opts lo = {
	    .cache_dir = cache_dir,
	    .network = req->network,
	    /* SPEC 12 here: the proxy on the host's loopback, TCP connects only to it. */
	    .net_proxy = run->net_mode == CONFINE_NET_DOMAINS,
	    .run_tmp = run->run_tmp,
	    .cgroup = run->limit_pids || run->limit_mem || cf_cgroup_available(),
	    .broker = cf_ll_can_broker(),
	    .opener_missing = cf_opener_missing(run->host.ipc_guard_missing),
	};
	if ((r = cf_ll_plan_dirs(&run->policy_rules, &run->launch, &lo, &dirs, err)) < 0 ||
	    (r = cf_host_ll_listings(&dirs, &listings, err)) < 0)
		goto out;
	lo.listings = &listings;
	if ((r = cf_ll_plan_compile(&run->policy_rules, &run->launch, &lo, &run->ll, err)) < 0 ||
	    (r = cf_run_note_openat2(&run->ll.notes, err)) < 0)
		goto out;
	r = set_tmpdir(&run->plan.env, run->run_tmp, err);
out:
	free(cache_dir);
	cf_strv_release(&dirs);
	cf_ll_listings_release(&listings);
	return r;
}

static bool reaps(const struct cf_ll_plan *ll)
{
	for (size_t i = 0; i < ll->not_provided.n; i++)
		if (!strncmp(ll->not_provided.v[i], "daemon reaping", 14))
			return false;
	return true;
}

/* Why bwrap was not used, for the messages of the fallback, into the caller's buffer. */
static const char *bwrap_why(const confine_run *run, char why[700])
{
	snprintf(why, 700, "%s (%s)", run->probe.reason[0] ? run->probe.reason : "the probe failed",
		 run->probe.code);
	return why;
}

static int landlock_refused(confine_run *run, const char *bwrap_why, struct confine_error *err)
{
	const char *why = run->ll.refusal ? run->ll.refusal : run->ll_probe.reason;
	if (bwrap_why)
		cf_err(err, CONFINE_E_BACKEND, "sandbox unavailable", "bwrap, landlock",
		       "bwrap: %s; landlock: %s (%s)", bwrap_why, why, run->ll_probe.code);
	else
		cf_err(err, CONFINE_E_BACKEND, "sandbox unavailable", "landlock", "%s (%s)", why,
		       run->ll_probe.code);
	cf_err_hint(err,
		    "%s; or set CONFINE_SANDBOX_POLICY=off to run without a sandbox (an explicit "
		    "choice)",
		    run->ll_probe.hint[0] ? run->ll_probe.hint
					  : "run 'confine probe' for the cause and the remedy");
	return CONFINE_E_BACKEND;
}

/*
 * SPEC 3.3: bwrap when its probe passes; under auto, landlock when it does not (with one line
 * naming the probe code and what is weaker); an explicit bwrap refuses instead.  Under policy
 * off nothing is probed: the backend only decides which plan `plan` and --print-plan show.
 * The probes run before the plan (they may create confine's cache directory, which the plan
 * then protects as it is, R30); the Landlock plan is made after the scan (plan_backend).
 */
int cf_run_choose_backend(confine_run *run, const confine_request *req, struct confine_error *err)
{
	int r;
	bool required = run->policy == CONFINE_POLICY_REQUIRED;
	run->backend = req->backend == CONFINE_BACKEND_LANDLOCK ? CONFINE_BACKEND_LANDLOCK
								: CONFINE_BACKEND_BWRAP;
	if (!required)
		return 0;
	if (req->backend != CONFINE_BACKEND_LANDLOCK) {
		if (req->backend == CONFINE_BACKEND_BWRAP)
			return probe_backend(run, req, err);
		r = cf_probe_bwrap(getenv("PATH"), run->workspace, true, &run->probe, err);
		if (r < 0)
			return r;
		if (run->probe.available) {
			run->bwrap = cf_strdup(run->probe.path);
			return run->bwrap ? 0 : cf_nomem(err);
		}
		run->backend = CONFINE_BACKEND_LANDLOCK;
	}
	if ((r = cf_probe_landlock(&run->ll_probe, err)) < 0)
		return r;
	char why[700];
	if (!run->ll_probe.available)
		return landlock_refused(
		    run, req->backend == CONFINE_BACKEND_AUTO ? bwrap_why(run, why) : NULL, err);
	return 0;
}

/* The Landlock plan, once the scan and the bwrap-style plan exist (SPEC 3.3). */
int cf_run_plan_backend(confine_run *run, const confine_request *req, struct confine_error *err)
{
	int r;
	bool required = run->policy == CONFINE_POLICY_REQUIRED;
	if (run->backend != CONFINE_BACKEND_LANDLOCK)
		return 0;
	if (req->injects.n && required) {
		/* The injections are mounts of the bwrap plan: the landlock backend has no mount
		 * namespace to put them in, and a pointer to a file that is not there is worse
		 * than a refusal. */
		r = cf_err(err, CONFINE_E_BACKEND, "read-only file injection refused", "landlock",
			   "the landlock backend cannot inject files yet (SPEC 6 needs a mount "
			   "namespace or a snapshot file; neither is built for it)");
		cf_err_hint(err, "use the bwrap backend (--backend bwrap) where user namespaces "
				 "work, or run without --inject-env/--inject-path");
		return r;
	}
	if ((r = plan_landlock(run, req, required, err)) < 0 || !required)
		return r;
	if ((r = cf_ll_split_note(run, err)) < 0)
		return r;
	bool fallback = req->backend == CONFINE_BACKEND_AUTO;
	char why[700];
	if (run->ll.refusal)
		return landlock_refused(run, fallback ? bwrap_why(run, why) : NULL, err);
	if (fallback) {
		run->fallback_note = cf_asprintf(
		    "bwrap unavailable (%s): falling back to the landlock backend, which is "
		    "weaker: "
		    "names of hidden paths stay visible, denied writes fail with EACCES instead of "
		    "EROFS, host processes are visible, /tmp is not private (TMPDIR is a per-run "
		    "directory)%s%s; --backend bwrap refuses instead",
		    run->probe.code, reaps(&run->ll) ? "" : ", no daemon reaping",
		    run->ll.net_proxy ? ", the network proxy listens on the host's loopback "
					"(behind a per-run secret) and the command can open no "
					"listening socket"
				      : "");
		if (!run->fallback_note)
			return cf_nomem(err);
	}
	return 0;
}

const char *confine_run_backend(const confine_run *run)
{
	if (run->policy == CONFINE_POLICY_OFF)
		return "none";
	return run->backend == CONFINE_BACKEND_LANDLOCK ? "landlock" : "bwrap";
}

const char *confine_run_fallback_note(const confine_run *run)
{
	return run->fallback_note;
}

const char *confine_run_landlock_note(const confine_run *run)
{
	return run->ll_note;
}

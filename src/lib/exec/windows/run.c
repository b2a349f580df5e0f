/* SPDX-License-Identifier: MIT */
/*
 * The public confine_run_* API on Windows (SPEC 10, R27): prepare gathers the host facts,
 * loads the rule layers and compiles the Windows plan; start rolls back what crashed runs left,
 * records and applies the ACL edits, builds the token and starts the command in its job; wait
 * passes the exit status through and removes the ACL edits.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/windows/win.h"
#include "host/rulefile.h"
#include "request.h"
#include "util/util.h"
#include "request_rules.h"

struct confine_run {
	enum confine_policy policy;
	struct cf_win_facts facts;
	struct cf_win_host host;
	struct cf_win_plan plan;
	bool have_plan;
	char *capability;
	struct cf_win_acl acl;
	struct cf_win_proc proc;
	HANDLE token;
	bool from_command;
	int start_error;	   /* CONFINE_E_NOTFOUND/NOEXEC found by start, reported by wait */
	struct confine_error serr; /* its description */
};

/* The workspace's or the user's rule file to its layer's set (host/rulefile.h's loader): an
 * internal path, read and named in its Windows spelling. */
struct layer_sets {
	const struct cf_win_names *names;
	struct cf_ruleset *ws, *user;
};

static int load_layer_file(void *ctx, const char *path, enum cf_layer layer, bool missing_ok,
			   struct confine_error *err)
{
	const struct layer_sets *s = ctx;
	char *shown = cf_win_path_show(s->names, path);
	if (!shown)
		return cf_nomem(err);
	int r = cf_rulefile_load(shown, layer, missing_ok,
				 layer == CF_LAYER_WORKSPACE ? s->ws : s->user, NULL, err);
	free(shown);
	return r;
}

/* The rule layers (R6): the session's first (request_rules.h), then the workspace's and the user's.
 */
static int load_rules(const confine_request *req, const struct cf_win_facts *facts,
		      struct cf_ruleset *session, const struct layer_sets *sets,
		      struct confine_error *err)
{
	int r = cf_request_session_rules(req, session, err);
	if (r < 0)
		return r;
	return cf_rulefiles_each(NULL, facts->workspace, facts->user_rules, load_layer_file,
				 (void *)sets, err);
}

/* Whether this host can build the token (SPEC 10; R19 when it cannot). */
static int probe(const char *capability, struct confine_error *err)
{
	HANDLE tok = NULL;
	struct confine_error mine = {0};
	int r = cf_win_token_new(capability, &tok, &mine);
	if (tok)
		CloseHandle(tok);
	if (r < 0) {
		mine.code = CONFINE_E_BACKEND;
		cf_err_hint(&mine, "set CONFINE_SANDBOX_POLICY=off to run without a sandbox (an "
				   "explicit choice)");
		cf_err_publish(err, &mine);
		return CONFINE_E_BACKEND;
	}
	return 0;
}

void confine_run_free(confine_run *run)
{
	if (!run)
		return;
	struct confine_error ignored = {0};
	if (run->acl.capability)
		cf_win_acl_rollback(&run->acl, &ignored);
	cf_win_proc_close(&run->proc);
	if (run->token)
		CloseHandle(run->token);
	if (run->have_plan)
		cf_win_plan_release(&run->plan);
	cf_win_facts_release(&run->facts);
	free(run->capability);
	free(run);
}

int confine_run_prepare(const confine_request *req, confine_run **out, struct confine_error *err)
{
	struct cf_ruleset session = {0}, ws = {0}, user = {0};
	struct cf_strv base = {0}, env = {0}, removed = {0};
	confine_run *run = NULL;
	int r;

	*out = NULL;
	if (!req->argv.n)
		return cf_err(err, CONFINE_E_INVALID, "no command given", "", "nothing to run");
	if (req->limit_pids || req->limit_mem || req->timeout_ms)
		return cf_err(err, CONFINE_E_LIMIT, "not available on Windows",
			      req->timeout_ms ? "--timeout" : "--limit",
			      "this version applies no job limits or timeout on Windows");
	if (req->injects.n)
		/* SPEC 6: fixed-path is Linux only, and this backend has no snapshot files for
		 * env-pointer injections yet; refused rather than run without them. */
		return cf_err(err, CONFINE_E_INVALID, "not available on Windows",
			      req->injects.v[0].where,
			      "read-only file injection is not implemented by the Windows backend");
	if (!(run = calloc(1, sizeof(*run))))
		return cf_nomem(err);
	run->acl = (struct cf_win_acl)CF_WIN_ACL_INIT;
	run->policy = req->policy;
	if ((r = cf_win_host_gather(req->workspace, &run->facts, err)) < 0 ||
	    (r = cf_win_capability_new(&run->capability, err)) < 0)
		goto out;
	free(run->facts.capability);
	if (!(run->facts.capability = cf_strdup(run->capability)))
		goto oom;
	run->host = cf_win_host_real(&run->facts);

	struct layer_sets sets = {&run->facts.names, &ws, &user};
	if ((r = load_rules(req, &run->facts, &session, &sets, err)) < 0)
		goto out;

	const struct cf_strv *envp = &req->env_base;
	if (!req->env_base_set) {
		if ((r = cf_win_environment(&base, err)) < 0)
			goto out;
		envp = &base;
	}
	if ((r = cf_env_build((const char *const *)envp->v, envp->n, &req->env, &env, &removed,
			      err)) < 0)
		goto out;

	struct cf_win_input in = {
	    .host = &run->host,
	    .session = &session,
	    .workspace_rules = &ws,
	    .user_rules = &user,
	    .network = req->network,
	    .argv = &req->argv,
	    .env = &env,
	    .env_removed = &removed,
	};
	if ((r = cf_win_plan_compile(&in, &run->plan, err)) < 0)
		goto out;
	run->have_plan = true;
	if (run->policy == CONFINE_POLICY_REQUIRED && (r = probe(run->capability, err)) < 0)
		goto out;
	*out = run;
	run = NULL;
	r = 0;
	goto out;
oom:
	r = cf_nomem(err);
out:
	cf_ruleset_release(&session);
	cf_ruleset_release(&ws);
	cf_ruleset_release(&user);
	cf_strv_release(&base);
	cf_strv_release(&env);
	cf_strv_release(&removed);
	confine_run_free(run);
	return r;
}

int confine_run_plan_text(const confine_run *run, bool json, char **out, struct confine_error *err)
{
	*out = json ? cf_win_plan_json(&run->plan) : cf_win_plan_text(&run->plan);
	return *out ? 0 : cf_nomem(err);
}

int confine_run_start(confine_run *run, struct confine_error *err)
{
	wchar_t *program = NULL;
	size_t recovered = 0;
	int r;

	/* What a run that died left behind goes first, so that no stale grant outlives it. */
	if ((r = cf_win_acl_recover(&recovered, err)) < 0)
		return r;
	r = cf_win_resolve_program(run->plan.argv.v[0], run->facts.workspace, &program, &run->serr);
	if (r == CONFINE_E_NOTFOUND || r == CONFINE_E_NOEXEC) {
		run->start_error = r;
		return 0;
	}
	if (r < 0) {
		if (err)
			*err = run->serr;
		return r;
	}
	if (run->policy == CONFINE_POLICY_REQUIRED) {
		if ((r = cf_win_acl_apply(&run->plan, run->capability, &run->acl, err)) < 0 ||
		    (r = cf_win_token_new(run->capability, &run->token, err)) < 0)
			goto fail;
	}
	r = cf_win_spawn(run->token, program, run->plan.cmdline, &run->plan.env, run->plan.cwd,
			 &run->proc, run->policy == CONFINE_POLICY_REQUIRED ? err : err);
	if (r == CONFINE_E_NOEXEC) {
		run->start_error = r;
		if (err)
			run->serr = *err, memset(err, 0, sizeof(*err));
		r = 0;
	}
	if (r < 0)
		goto fail;
	free(program);
	return 0;
fail:
	free(program);
	cf_win_proc_close(&run->proc);
	if (run->acl.capability) {
		struct confine_error ignored = {0};
		cf_win_acl_rollback(&run->acl, &ignored);
	}
	return r;
}

int confine_run_restore_terminal(confine_run *run)
{
	/* The console's mode is never changed on Windows. */
	return run ? 0 : CONFINE_E_INVALID;
}

int confine_run_forward_signal(confine_run *run, int sig)
{
	/* Ctrl-C and Ctrl-Break reach the command through the console it shares with confine;
	 * anything else that ends confine ends the job. */
	if (!run || sig <= 0 || sig > 64)
		return CONFINE_E_INVALID;
	if (run->proc.job && sig != SIGINT)
		TerminateJobObject(run->proc.job, 128 + (UINT)sig);
	return 0;
}

int confine_run_wait(confine_run *run, int *status, struct confine_error *err)
{
	DWORD code = 0;
	int r = 0;
	*status = 125;
	if (run->start_error) {
		*status = run->start_error == CONFINE_E_NOTFOUND ? 127 : 126;
		r = run->start_error;
		if (err)
			*err = run->serr;
		goto undo;
	}
	if ((r = cf_win_wait(&run->proc, &code, err)) < 0)
		goto undo;
	run->from_command = true;
	*status = (int)code;
undo:
	cf_win_proc_close(&run->proc);
	if (run->acl.capability) {
		int k = cf_win_acl_rollback(&run->acl, err);
		if (k < 0 && r == 0) {
			cf_err_hint(err, "the next start of confine removes what is left");
			r = k;
		}
	}
	return r;
}

const struct confine_event *cf_run_notice_list(const confine_run *run, size_t *n)
{
	/* Not computed by the Windows executor yet (notices.c is the Linux one's). */
	(void)run;
	*n = 0;
	return NULL;
}

const struct confine_event *cf_run_event_list(const confine_run *run, size_t *n)
{
	(void)run;
	*n = 0;
	return NULL;
}

const struct confine_injection *cf_run_injection_list(const confine_run *run, size_t *n)
{
	(void)run;
	*n = 0; /* refused by confine_run_prepare */
	return NULL;
}

bool confine_run_timed_out(const confine_run *run)
{
	(void)run;
	return false;
}

bool confine_run_status_from_command(const confine_run *run)
{
	return run->from_command;
}

/* Explain needs the canonical form of arbitrary paths, which this build does not do yet. */
struct confine_rules {
	int unused;
};

int confine_rules_load(const confine_request *req, confine_rules **out, struct confine_error *err)
{
	(void)req;
	*out = NULL;
	return cf_err(err, CONFINE_E_INVALID, "not available on Windows", "explain",
		      "this version of the Windows build does not explain decisions; 'confine plan "
		      "--target windows' shows every ACE and what is not enforced");
}

void confine_rules_free(confine_rules *r)
{
	free(r);
}

int cf_rules_explain(const confine_rules *r, const char *path, enum confine_access access,
		     struct confine_decision *out, struct confine_error *err)
{
	(void)r;
	(void)access;
	(void)out;
	return cf_err(err, CONFINE_E_INVALID, "not available on Windows", path,
		      "this version of the Windows build does not explain decisions");
}

int cf_probe_windows(struct confine_probe_result *res, struct confine_error *err)
{
	char *cap = NULL;
	struct confine_error perr = {0};
	memset(res, 0, sizeof(*res));
	res->size = sizeof(*res);
	snprintf(res->backend, sizeof(res->backend), "windows");
	int r = cf_win_capability_new(&cap, err);
	if (r < 0)
		return r;
	r = probe(cap, &perr);
	free(cap);
	res->available = r == 0;
	snprintf(res->code, sizeof(res->code), "%s", r == 0 ? "available" : "probe_failed");
	if (r < 0) {
		snprintf(res->reason, sizeof(res->reason), "%s", perr.reason);
		snprintf(res->hint, sizeof(res->hint), "%s", perr.hint);
	}
	snprintf(res->read_protection, sizeof(res->read_protection), "not provided");
	snprintf(res->write_protection, sizeof(res->write_protection),
		 r == 0 ? "restricted token and NTFS ACLs (tested under Wine only)"
			: "not available");
	snprintf(res->network_isolation, sizeof(res->network_isolation), "not provided");
	snprintf(res->syscall_filter, sizeof(res->syscall_filter), "not provided");
	snprintf(res->process_scoping, sizeof(res->process_scoping),
		 "job object: kill on close, no breakaway");
	snprintf(res->resource_limits, sizeof(res->resource_limits), "not provided");
	snprintf(res->network_by_domain, sizeof(res->network_by_domain), "not provided");
	return 0;
}

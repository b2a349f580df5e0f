/* SPDX-License-Identifier: MIT */
/*
 * Preparing a run: validate the workspace (R1), gather host facts, load the rule layers,
 * expand globs (R14), compile the plan, build the environment (R20) and probe the backend
 * (R18, R19).  Everything a run needs is decided here, before any process starts.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "exec/linux/harden.h"
#include "host/canon.h"
#include "host/certclass.h"
#include "host/git.h"
#include "host/hostfs.h"
#include "host/kernel.h"
#include "host/ipc.h"
#include "host/kind_memo.h"
#include "host/rulefile.h"
#include "host/scan.h"
#include "host/ll_listing.h"
#include "exec/linux/runstdio.h"
#include "exec/linux/supervise_rules.h"
#include "exec/linux/supervisor.h"
#include "ll_notes.h"
#include "plan/verdict.h"
#include "run_mkallow.h"
#include "host/toolcache.h"
#include "net/netrun.h"
#include "record/secrets_record.h"
#include "net/remedy.h"
#include "run_net.h"
#include "exec/linux/cgroup.h"
#include "exec/linux/landlock/connguard.h"
#include "exec/linux/ipcguard.h"
#include "exec/linux/landlock/ruleset.h"
#include "exec/linux/opener.h"
#include "inject/run_inject.h"
#include "request.h"
#include "run_host.h"
#include "util/mountapi.h"
#include "util/owntmp.h"
#include "util/util.h"
#include "host/matches.h"

extern char **environ;

/* Path rules to the policy, network rules to run->net (SPEC 12), of one file
 * (host/rulefile.h's loader). */
static int load_layer_file(void *ctx, const char *path, enum cf_layer layer, bool missing_ok,
			   struct confine_error *err)
{
	confine_run *run = ctx;
	struct cf_ruleset rs = {0};
	struct cf_net_rules net = {0};
	int r = cf_rulefile_load(path, layer, missing_ok, &rs, &net, err);
	if (r == 0)
		r = cf_policy_add_rules(&run->policy_rules, layer, &rs, err);
	if (r == 0)
		r = cf_net_policy_add(&run->net, layer, &net, err);
	cf_ruleset_release(&rs);
	cf_net_rules_release(&net);
	return r;
}

static int load_layers(confine_run *run, const confine_request *req, struct confine_error *err)
{
	int r = cf_policy_add_rules(&run->policy_rules, CF_LAYER_SESSION, &req->session, err);
	if (r == 0)
		r = cf_net_policy_add(&run->net, CF_LAYER_SESSION, &req->net_session, err);
	if (r < 0)
		return r;
	return cf_rulefiles_each(&req->session_files, run->workspace, run->user_rules,
				 load_layer_file, run, err);
}

/* SPEC 12: the network is on, off, or by domain.  An allow rule of any layer (only the session
 * and the user may allow) turns the mode to domains; --no-network wins over a rule file's
 * allows, and contradicts a session --net-allow. */
static int net_mode(confine_run *run, const confine_request *req, struct confine_error *err)
{
	size_t allows = cf_net_policy_allows(&run->net);
	if (!req->network) {
		if (cf_net_rules_allows(&run->net.layers[CF_LAYER_SESSION])) {
			cf_err(err, CONFINE_E_INVALID, "contradicting options", "--no-network",
			       "the session allows domains (--net-allow or a session rule file) "
			       "and also asks for no network");
			cf_err_hint(err, "drop --no-network to allow those domains, or drop the "
					 "allows");
			return CONFINE_E_INVALID;
		}
		run->net_mode = CONFINE_NET_OFF;
	} else {
		run->net_mode = allows ? CONFINE_NET_DOMAINS : CONFINE_NET_ON;
	}
	return 0;
}

/* One scan for every glob rule of every layer (R14); the rules are kept for the post-run
 * scan. */
static int expand_globs(confine_run *run, struct cf_matches *m, struct confine_error *err)
{
	int r = 0;
	for (int l = 0; l < CF_LAYER_FALLBACK && r == 0 && !run->globs_collected; l++) {
		const struct cf_ruleset *rs = &run->policy_rules.layers[l];
		for (size_t i = 0; i < rs->n && r == 0; i++)
			if (rs->v[i].glob)
				r = cf_ruleset_add(&run->globs, &rs->v[i], err);
	}
	/* Every repository nested in the workspace (vendor/x/.git, a submodule's .git file) is
	 * found by the same walk: `**` + "/.git" below the workspace, whatever its kind. */
	if (r == 0 && !run->globs_collected) {
		char *path = cf_path_join(run->workspace, "**/.git");
		struct cf_rule git = {.pattern = "**/.git",
				      .path = path,
				      .access = CF_ACC_WRITE,
				      .action = CF_ASK,
				      .layer = CF_LAYER_GUARD,
				      .source = "builtin",
				      .glob = true,
				      .prefix_len = strlen(run->workspace)};
		run->git_rule = run->globs.n;
		r = path ? cf_ruleset_add(&run->globs, &git, err) : cf_nomem(err);
		free(path);
	}
	run->globs_collected = true;
	if (r == 0 && run->globs.n) {
		struct cf_scan_budget b = CF_SCAN_BUDGET_DEFAULT;
		/* Incremental (R32): from the cache file, or from the scan of the plan before.  A
		 * run without the sandbox (policy off, an approved escalation) leaves no state. */
		r = cf_scan_cached(&run->scan,
				   run->policy == CONFINE_POLICY_REQUIRED ? run->cache_dir : NULL,
				   &run->globs, &b, m, err);
		if (r < 0 && err && !err->hint[0])
			cf_err_hint(err,
				    "every match is protected by a mount of its own, within the "
				    "budgets of a scan; narrow your own glob rules, or move files "
				    "that match the built-in ones (such as **/*.pem) out of the "
				    "workspace; nothing was run");
	}
	return r;
}

/* A kernel without openat2 (before 5.6): every path confine opens is walked one component at
 * a time with O_NOFOLLOW instead (util/nofollow.h); the plan says so. */
int cf_run_note_openat2(struct cf_strv *notes, struct confine_error *err)
{
	errno = 0;
	if (syscall(SYS_openat2, -1, NULL, NULL, (size_t)0) >= 0 || errno != ENOSYS)
		return 0;
	return cf_strv_add(notes,
			   "openat2 unavailable (Linux < 5.6): paths are opened one component at "
			   "a time, each with O_NOFOLLOW, instead of by the kernel's "
			   "RESOLVE_NO_SYMLINKS") < 0
		   ? cf_nomem(err)
		   : 0;
}

static int note_made_allows(const confine_run *run, struct cf_plan *plan,
			    struct confine_error *err);

/* How often a plan is made again because the workspace changed under it (R34). */
#define REPLANS 3

/*
 * The scan and the plan (R14, R13, R33), and the identities the setup is checked against
 * later (R34).  When a glob match changed between the scan and the plan (another process is
 * renaming directories), all of it is done again, a bounded number of times.  Called by
 * prepare, and by the executor when the sandbox did not settle; the command's argv and
 * environment move over to the new plan.
 */
/* The scan and what it found hidden: the globs' matches, the nested repositories' guards,
 * the unreadable directories, the hard links of protected files. */
static int scan(confine_run *run, struct cf_matches *globs, struct confine_error *err)
{
	int r;
	if ((r = expand_globs(run, globs, err)) < 0 ||
	    (r = cf_run_nested_repos(run, globs, err)) < 0)
		return r;
	run->host.content = cf_run_content_of_scan;
	run->host.content_ctx = globs;
	/* Directories found unreadable now are hidden from here on. */
	struct cf_strv fresh = {0};
	for (size_t i = 0; i < globs->skipped.n && r == 0; i++)
		if (!cf_strv_contains(&run->unreadable, globs->skipped.v[i]) &&
		    (cf_strv_add(&fresh, globs->skipped.v[i]) < 0 ||
		     cf_strv_add(&run->unreadable, globs->skipped.v[i]) < 0))
			r = cf_nomem(err);
	if (r == 0)
		r = cf_policy_add_unreadable(&run->policy_rules, &fresh, err);
	cf_strv_release(&fresh);
	if (r == 0)
		r = cf_run_protect_aliases(run, globs, err);
	return r;
}

/* One plan from one scan, and the identities it was made from: 0, 1 when a match changed
 * between the scan and the plan (*changed: where), or a negative code. */
static int plan_once(confine_run *run, struct cf_matches *globs, struct cf_plan *plan,
		     struct cf_idents *ids, char **changed, struct confine_error *err)
{
	int r;
	if ((r = scan(run, globs, err)) < 0)
		return r;
	/* R39: overlays in helper mode (exec/linux/bwrap/masks.c), redirects elsewhere. */
	/* Asked once for the plan and the launch that follows it (cf_launch.helper_mode). */
	run->helper_mode = run->backend == CONFINE_BACKEND_BWRAP && cf_run_helper_mode(run);
	run->cache_facts.overlay = run->helper_mode && !run->cache_overlay_off;
	struct cf_plan_opts po = {
	    .target = CONFINE_TARGET_LINUX,
	    .network = run->plan_network && run->net_mode == CONFINE_NET_ON,
	    .tmp_size = run->plan_tmp_size,
	    .cwd = run->plan_cwd,
	    .net_mode = run->net_mode,
	    .net_allowed = cf_net_policy_allows(&run->net),
	    .net_rules = cf_net_policy_count(&run->net),
	    .ssh_agent = run->agent.on && run->backend != CONFINE_BACKEND_LANDLOCK,
	    .caches = run->cache_facts_made ? &run->cache_facts : NULL,
	    .cache_work = run->cache_work,
	};
	if ((r = cf_plan_compile(&run->policy_rules, globs, &po, plan, err)) < 0 ||
	    (r = cf_run_inject_place(run, plan, err)) < 0 ||
	    (r = cf_run_note_openat2(&plan->notes, err)) < 0 ||
	    (r = note_made_allows(run, plan, err)) < 0)
		return r;
	for (size_t i = 0; i < globs->n_pub; i++)
		if (cf_strv_add(&plan->public_files, globs->pub[i].path) < 0)
			return cf_nomem(err);
	/* The identities the plan was made from (the memo of this planning). */
	r = cf_idents_record_with(plan, globs, cf_kind_memo_ident, &run->kind_memo, ids, changed);
	/* R40: a public file must still be what was read when the command starts. */
	if (r == 0 && cf_idents_record_public(globs, ids) < 0)
		r = CONFINE_E_NOMEM;
	return r < 0 ? cf_nomem(err) : r;
}

/* The new plan, its identities and its scan take the old ones' places in the run; the
 * command and its environment stay. */
static int adopt(confine_run *run, struct cf_plan *plan, struct cf_idents *ids,
		 struct cf_matches *globs, struct confine_error *err)
{
	plan->argv = run->plan.argv;
	plan->env = run->plan.env;
	plan->env_removed = run->plan.env_removed;
	memset(&run->plan.argv, 0, sizeof(run->plan.argv));
	memset(&run->plan.env, 0, sizeof(run->plan.env));
	memset(&run->plan.env_removed, 0, sizeof(run->plan.env_removed));
	cf_plan_release(&run->plan);
	run->plan = *plan;
	memset(plan, 0, sizeof(*plan));
	/* The tool caches' redirects of the new plan (another mode, after an overlay failed). */
	int r;
	if (run->env_built && (r = cf_run_cache_env(run, err)) < 0)
		return r;
	cf_idents_release(&run->idents);
	run->idents = *ids;
	memset(ids, 0, sizeof(*ids));
	/* Keep what the launch scan found: the post-run scan reports only what is new. */
	cf_matches_release(&run->launch);
	run->launch = *globs;
	memset(globs, 0, sizeof(*globs));
	run->host.content_ctx = &run->launch;
	free(run->exec.facts.skip); /* per mount of the plan that is gone */
	run->exec.facts.skip = NULL;
	return 0;
}

int cf_run_plan(confine_run *run, struct confine_error *err)
{
	struct cf_matches globs = {0};
	struct cf_plan plan = {0};
	struct cf_idents ids = {0};
	char *changed = NULL;
	int r = 0;
	for (int attempt = 0;; attempt++) {
		free(changed);
		changed = NULL;
		/* What is at each path is asked afresh for every plan (kind_memo.h). */
		cf_kind_memo_reset(&run->kind_memo);
		cf_matches_release(&globs);
		cf_idents_release(&ids);
		cf_plan_release(&plan);
		if ((r = plan_once(run, &globs, &plan, &ids, &changed, err)) < 0)
			goto out;
		if (r == 0)
			break;
		if (attempt + 1 >= REPLANS) {
			r = cf_err(err, CONFINE_E_SPAWN, "the workspace kept changing", changed,
				   "it changed between the scan and the start of the sandbox, %d "
				   "times in a row",
				   REPLANS);
			cf_err_hint(err, "another process (a second sandbox?) is renaming "
					 "directories in the workspace; run the command again when "
					 "it has finished; nothing was run");
			goto out;
		}
	}
	r = adopt(run, &plan, &ids, &globs, err);
out:
	if (run->host.content_ctx == &globs)
		run->host.content_ctx = &run->launch;
	free(changed);
	cf_matches_release(&globs);
	cf_idents_release(&ids);
	cf_plan_release(&plan);
	return r;
}

confine_run *cf_run_new(const confine_request *req)
{
	confine_run *run = calloc(1, sizeof(*run));
	if (!run)
		return NULL;
	cf_launch_init(&run->exec);
	run->cache_lock = -1;
	run->cache_store_lock = -1;
	run->policy = req->policy;
	run->limit_pids = req->limit_pids;
	run->limit_mem = req->limit_mem;
	run->timeout_ms = req->timeout_ms;
	run->kill_grace_ms = req->kill_grace_ms;
	run->tty = req->tty;
	for (int i = 0; i < 3; i++)
		run->stdio_req[i] = req->stdio[i];
	if (req->helper && !(run->helper = cf_strdup(req->helper))) {
		free(run);
		return NULL;
	}

	run->cgroup = (struct cf_cgroup)CF_CGROUP_INIT;
	run->keeper = (struct cf_keeper)CF_KEEPER_INIT;
	run->run_tmp_lock = -1;
	if (cf_run_record_init(run, req) < 0) {
		confine_run_free(run);
		return NULL;
	}
	return run;
}

/* R1, the rest: a workspace containing a guarded credential path of the home is refused (the
 * rule every target asks).  The guards' paths are canonical (a symlinked ~/.aws counts where it
 * really is). */
static int check_workspace_guards(confine_run *run, const char *given, struct confine_error *err)
{
	return cf_plan_refuse_workspace_guards(
	    run->workspace, &run->policy_rules.layers[CF_LAYER_GUARD], given, err);
}

/* Workspace, host facts and every rule layer: what explain needs and a run starts from. */
int cf_run_load_policy(confine_run *run, const confine_request *req, const struct cf_strv *env,
		       struct confine_error *err)
{
	int r;
	if ((r = cf_run_find_home(run, env, err)) < 0 ||
	    (r = cf_run_resolve_workspace(run, req, err)) < 0 ||
	    (r = cf_run_host_facts(run, env, err)) < 0 ||
	    (r = cf_policy_init(&run->policy_rules, &run->host, err)) < 0 ||
	    (r = cf_host_ipc_endpoints_cached(&run->ipc_scan, run->cache_dir, run->workspace,
					      run->runtime_dir, &run->ipc_launch, err)) < 0 ||
	    (r = cf_host_ipc_groups(&run->ipc_launch, &run->ipc_groups, err)) < 0 ||
	    (r = check_workspace_guards(run, req->workspace ? req->workspace : run->workspace,
					err)) < 0 ||
	    (r = load_layers(run, req, err)) < 0 ||
	    (r = cf_policy_add_endpoints(&run->policy_rules, &run->ipc_launch, &run->ipc_groups,
					 err)) < 0)
		return r;
	if ((r = net_mode(run, req, err)) < 0)
		return r;
	/* Confine's own records hidden, write grants in the session layer (record/). */
	return cf_record_policy(run, req, err);
}

/* Write allows of missing paths (run_mkallow.h): created now, before the plan, inside the
 * homes and the workspace only; in a dry run only checked, and the plan says so.  A run
 * without the sandbox needs none of it: the command writes where it likes. */
static int make_allowed(confine_run *run, const confine_request *req, struct confine_error *err)
{
	if (run->policy != CONFINE_POLICY_REQUIRED)
		return 0;
	const char *roots[] = {run->home, run->pw_home, run->workspace};
	run->made_allows_dry = req->dry_run;
	return cf_host_missing_allows(&run->policy_rules, roots, sizeof(roots) / sizeof(roots[0]),
				      !req->dry_run, &run->made_allows, err);
}

/* The plan's notes about them. */
static int note_made_allows(const confine_run *run, struct cf_plan *plan, struct confine_error *err)
{
	for (size_t i = 0; i < run->made_allows.n; i++) {
		char *t =
		    cf_asprintf(run->made_allows_dry
				    ? "created (0700) when the command runs, for a write "
				      "allow of a path that does not exist: '%s'"
				    : "created (0700) for a write allow of a path that did not "
				      "exist: '%s'",
				run->made_allows.v[i]);
		if (!t || cf_strv_take(&plan->run_notes, t) < 0)
			return cf_nomem(err);
	}
	return 0;
}

/* NO_PROXY of the command: the caller's own --env NO_PROXY=... (or no_proxy) for both cases, as
 * given; none after --unset-env of it; else confine's (cf_net_no_proxy).  What it lists the
 * command's clients connect to directly, which the sandbox refuses (no route out of its own
 * network namespace; on the landlock backend every connect but the proxy's is EACCES): a
 * user's NO_PROXY can make a request fail, never go around the proxy. */
static const char *no_proxy(const confine_request *req, const confine_run *run)
{
	const char *given = NULL;
	for (size_t i = 0; i < req->env.set.n; i++) {
		const char *kv = req->env.set.v[i];
		if (!strncasecmp(kv, "NO_PROXY=", 9))
			given = kv + 9;
	}
	if (given)
		return given;
	for (size_t i = 0; i < req->env.unset.n; i++)
		if (cf_wildcard_match_ci(req->env.unset.v[i], "NO_PROXY"))
			return NULL;
	return cf_net_no_proxy(&run->net);
}

/* SPEC 3.1: the filter is part of the sandbox; a run without it is not pretended. */
static int need_seccomp(const confine_run *run, struct confine_error *err)
{
	if (run->policy != CONFINE_POLICY_REQUIRED || run->host.seccomp)
		return 0;
	cf_err(err, CONFINE_E_BACKEND, "sandbox unavailable", "seccomp",
	       "the kernel refuses seccomp filters, and the sandbox's system call filter "
	       "(SPEC 3.1) cannot be installed");
	cf_err_hint(err, "use a kernel built with CONFIG_SECCOMP_FILTER (every distribution "
			 "kernel is), or outside a container that blocks seccomp(2); or set "
			 "CONFINE_SANDBOX_POLICY=off to run without a sandbox (an explicit "
			 "choice)");
	return CONFINE_E_BACKEND;
}

/* What the plan is made with: the network asked for, the size of /tmp, the current
 * directory when it is inside the workspace. */
static void plan_where(confine_run *run, const confine_request *req)
{
	char cwd[PATH_MAX];
	char *real_cwd = getcwd(cwd, sizeof(cwd)) ? realpath(cwd, NULL) : NULL;
	run->plan_network = req->network;
	run->plan_tmp_size = req->tmp_size;
	if (real_cwd && cf_path_within(real_cwd, run->workspace))
		run->plan_cwd = real_cwd;
	else
		free(real_cwd);
}

/* The command and its environment in the plan (R20), with the variables of the caches, the
 * proxy, the agent and the placeholders. */
static int command_env(confine_run *run, const confine_request *req, const struct cf_strv *env,
		       struct confine_error *err)
{
	for (size_t i = 0; i < req->argv.n; i++)
		if (cf_strv_add(&run->plan.argv, req->argv.v[i]) < 0)
			return cf_nomem(err);
	int r = cf_env_build((const char *const *)env->v, env->n, &req->env, &run->plan.env,
			     &run->plan.env_removed, err);
	run->env_built = true;
	/* R39: the tool caches' redirects, over the caller's variables (not over --env). */
	if (r == 0 && run->policy == CONFINE_POLICY_REQUIRED)
		r = cf_run_cache_env(run, err);
	/* The proxy variables (SPEC 12) over any of the caller's, only where the sandbox will
	 * enforce the mode: under policy off or an escalation nothing listens. */
	if (r == 0 && run->net_mode == CONFINE_NET_DOMAINS &&
	    run->policy == CONFINE_POLICY_REQUIRED)
		r = cf_plan_net_env(&run->plan, no_proxy(req, run), err);
	/* R43: the asker and the upstream proxy; its password in no variable of the command. */
	if (r == 0 && (r = cf_run_net_prepare(run, req, env, err)) == 0)
		r = cf_run_net_scrub(run, err);
	if (r == 0)
		r = cf_run_agent_env(run, err);
	if (r == 0)
		r = cf_run_secrets_env(run, err);
	return r;
}

/* The policy digest (SPEC 7.3) of the plan's text as `run --print-plan` prints it. */
static void record_digest(confine_run *run)
{
	char *text = NULL;
	if (run->policy != CONFINE_POLICY_OFF && confine_run_plan_text(run, false, &text, NULL) < 0)
		text = NULL;
	cf_record_digest(run->record.policy_digest, run->policy, text);
	free(text);
}

int confine_run_prepare(const confine_request *req, confine_run **out, struct confine_error *err)
{
	confine_run *run = NULL;
	struct cf_strv env_base = {0};
	const struct cf_strv *env;
	/* This call's failure, in a struct of its own: the audit log records it (it needs the
	 * error even when the caller does not), and the caller's struct gets it only when still
	 * empty (cf_err_publish: never an earlier failure's code with this one's hint). */
	struct confine_error mine = {0}, *caller = err;
	int r = 0;

	err = &mine;
	*out = NULL;
	if (!req->argv.n) {
		r = cf_err(err, CONFINE_E_INVALID, "no command given", "", "nothing to run");
		confine_request_audit_refusal(req, 125, err, NULL);
		cf_err_publish(caller, &mine);
		return r;
	}
	if (!(run = cf_run_new(req))) {
		r = cf_nomem(err);
		confine_request_audit_refusal(req, 125, err, NULL);
		cf_err_publish(caller, &mine);
		return r;
	}
	if ((r = cf_run_base_env(req, &env_base, &env, err)) < 0 ||
	    (r = cf_run_load_policy(run, req, env, err)) < 0)
		goto out;
	/* An escalation or grant needs the receipt of exactly this request (SPEC 7); an approved
	 * escalation runs without the sandbox from here on. */
	if ((r = cf_record_approve(run, req, err)) < 0)
		goto out;
	if ((r = need_seccomp(run, err)) < 0 || (r = cf_run_choose_backend(run, req, err)) < 0)
		goto out;
	/* R44: the ssh-agent filter (agent/agent_run.c); R45: the credential placeholders,
	 * whose trust bundle is an injection of the run's (net/secrets_run.c). */
	if ((r = cf_run_agent_prepare(run, req, env, err)) < 0 ||
	    (r = cf_run_secrets_prepare(run, req, env, err)) < 0 ||
	    (r = cf_run_inject_inputs(run, req, err)) < 0)
		goto out;
	if ((r = make_allowed(run, req, err)) < 0 || (r = cf_run_keep_state_dirs(run, err)) < 0 ||
	    (r = cf_run_cache_facts(run, req, env, err)) < 0)
		goto out;

	plan_where(run, req);
	if ((r = cf_run_plan(run, err)) < 0 || (r = command_env(run, req, env, err)) < 0)
		goto out;
	/* After the environment: the pointer variables are set last (SPEC 5). */
	if ((r = cf_run_inject_seal(run, req, err)) < 0 ||
	    (r = cf_run_plan_backend(run, req, err)) < 0 ||
	    (r = cf_run_secrets_landlock(run, err)) < 0)
		goto out;
	/* Protections reached through a symlink: the link is checked after the run (events.c). */
	if (cf_idents_record_paths(&run->policy_rules.linked, &run->linked) < 0)
		goto oom;
	if ((r = cf_run_notices(run)) < 0)
		goto oom;
	record_digest(run);
	*out = run;
	run = NULL;
	goto out;
oom:
	r = cf_nomem(err);
out:
	if (run && r < 0)
		cf_audit_attempt(run,
				 r == CONFINE_E_NOTFOUND ? 127
				 : r == CONFINE_E_NOEXEC ? 126
							 : 125,
				 err);
	cf_strv_release(&env_base);
	confine_run_free(run);
	cf_err_publish(caller, &mine);
	return r;
}

/* The plan text with the seccomp filter's rules under its "seccomp: on" line (the plan itself
 * is pure; the filter is the executor's). */
static char *with_filter(const struct cf_plan *plan, char *text, int landlock);

static char *text_with_filter(const struct cf_plan *plan)
{
	return with_filter(plan, cf_plan_text(plan), 0);
}

/* The landlock backend's filter adds its supervised calls and the SysV refusal (R42). */
static char *with_filter(const struct cf_plan *plan, char *text, int landlock)
{
	const char *at = text && plan->seccomp ? strstr(text, "seccomp: on\n") : NULL;
	if (!at)
		return text;
	struct cf_buf b;
	cf_buf_init(&b);
	size_t head = (size_t)(at - text) + strlen("seccomp: on\n");
	cf_buf_addn(&b, text, head);
	const char *extra = landlock ? cf_supervise_describe() : "";
	const char *extra2 = landlock == CF_SUPERVISE_PATHS   ? cf_supervise_describe_paths()
			     : landlock == CF_SUPERVISE_READS ? cf_supervise_describe_reads()
							      : "";
	for (const char *line = cf_seccomp_describe(); *line || *extra || *extra2;) {
		if (!*line) {
			line = *extra ? extra : extra2;
			if (*extra)
				extra = "";
			else
				extra2 = "";
		}
		const char *nl = strchr(line, '\n');
		size_t n = nl ? (size_t)(nl - line) : strlen(line);
		if (!strncmp(line, "seccomp: ", 9)) {
			line += 9;
			n -= 9;
		}
		cf_buf_add(&b, "  ");
		cf_buf_addn(&b, line, n);
		cf_buf_addc(&b, '\n');
		line += n + (nl ? 1 : 0);
	}
	cf_buf_add(&b, text + head);
	free(text);
	return cf_buf_take(&b);
}

int confine_run_plan_text(const confine_run *run, bool json, char **out, struct confine_error *err)
{
	if (run->backend == CONFINE_BACKEND_LANDLOCK)
		*out = json ? cf_ll_full_json(&run->plan, &run->ll)
			    : with_filter(&run->plan, cf_ll_full_text(&run->plan, &run->ll),
					  cf_ll_supervise_level(&run->ll));
	else
		*out = json ? cf_plan_json(&run->plan) : text_with_filter(&run->plan);
	/* R44, R45: the ssh-agent filter and the secrets, by name (record/secrets_record.c). */
	if (*out && !json)
		*out = cf_secrets_plan_text(&run->agent, &run->secrets, run->backend, *out);
	return *out ? 0 : cf_nomem(err);
}

void confine_run_free(confine_run *run)
{
	if (!run)
		return;
	cf_launch_release(&run->exec);
	cf_stdio_release(run->exec.stdio);
	cf_run_record_release(run);
	/* Freed while the sandbox may still run: it ends, as it would with confine. */
	cf_keeper_end(&run->keeper);
	cf_cgroup_destroy(&run->cgroup);
	/* The guards' threads end and their descriptors go (a run waited for has none left). */
	cf_supervisor_free(run->exec.facts.supervisor);
	cf_connguard_free(run->exec.facts.connguard);
	cf_run_caches_release(run);
	cf_netrun_free(run->netrun);
	cf_run_net_release(run);
	cf_net_policy_release(&run->net);
	free(run->net_events);
	free(run->net_pub);
	cf_ll_remove_run_tmp(run);
	cf_ll_plan_release(&run->ll);
	free(run->run_tmp);
	free(run->fallback_note);
	free(run->ll_note);
	cf_run_inject_release(run);
	cf_run_agent_release(run);
	cf_run_secrets_release(run);
	cf_plan_release(&run->plan);
	cf_policy_release(&run->policy_rules);
	cf_ruleset_release(&run->globs);
	cf_matches_release(&run->launch);
	cf_matches_release(&run->git_nested);
	cf_scan_state_release(&run->scan);
	cf_scan_state_release(&run->ipc_scan);
	cf_kind_memo_reset(&run->kind_memo);
	cf_strv_release(&run->ipc_launch);
	cf_strv_release(&run->ipc_groups);
	free(run->events);
	free(run->notices);
	cf_pty_free(run->exec.pty);
	free(run->home);
	free(run->pw_home);
	free(run->pw_name);
	free(run->pw_user_rules);
	free(run->workspace);
	free(run->tmpdir);
	free(run->runtime_dir);
	free(run->ssh_dir);
	free(run->user_rules);
	free(run->plan_cwd);
	cf_strv_release(&run->unreadable);
	cf_idents_release(&run->idents);
	cf_idents_release(&run->linked);
	free(run->config_dir);
	free(run->pw_config_dir);
	free(run->cache_dir);
	free(run->state_dir);
	cf_strv_release(&run->git_guards);
	cf_git_launch_release(&run->git_launch);
	cf_strv_release(&run->made_allows);
	cf_cache_facts_release(&run->cache_facts);
	cf_strv_release(&run->cache_env_saved);
	cf_strv_release(&run->cache_env_keep);
	free(run->cache_trimmed);
	free(run->bwrap);
	free(run->helper);
	free(run);
}

bool confine_run_timed_out(const confine_run *run)
{
	return run->exec.facts.timed_out;
}

bool confine_run_killed_after_grace(const confine_run *run)
{
	return run->exec.facts.killed_after_grace;
}

bool confine_run_status_from_command(const confine_run *run)
{
	return run->exec.facts.from_command;
}

/* SPDX-License-Identifier: MIT */
/*
 * Preparing a run: validate the workspace (R1), gather host facts, load the rule layers,
 * expand globs (R14), compile the plan, build the environment (R20) and probe the backend
 * (R18, R19).  Everything a run needs is decided here, before any process starts.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
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
#include "run_mkallow.h"
#include "host/toolcache.h"
#include "net/netrun.h"
#include "record/secrets_record.h"
#include "net/remedy.h"
#include "run_net.h"
#include "exec/linux/cgroup.h"
#include "exec/linux/landlock/connguard.h"
#include "exec/linux/ipcguard.h"
#include "exec/linux/landlock/spawn.h"
#include "exec/linux/opener.h"
#include "inject/run_inject.h"
#include "request.h"
#include "util/mountapi.h"
#include "util/owntmp.h"
#include "util/util.h"
#include "host/matches.h"

extern char **environ;

static const char *env_get(const struct cf_strv *env, const char *name)
{
	size_t n = strlen(name);
	for (size_t i = 0; i < env->n; i++)
		if (!strncmp(env->v[i], name, n) && env->v[i][n] == '=')
			return env->v[i] + n + 1;
	return NULL;
}

static int find_home(confine_run *run, const struct cf_strv *env, struct confine_error *err)
{
	const char *home = env_get(env, "HOME");
	/* getpwuid_r: getpwuid's result is a buffer of the process, which another thread's
	 * lookup overwrites. */
	struct passwd pwd, *pw = NULL;
	char pwbuf[4096];
	if (getpwuid_r(getuid(), &pwd, pwbuf, sizeof(pwbuf), &pw) != 0)
		pw = NULL;
	const char *pw_dir = pw && pw->pw_dir && pw->pw_dir[0] == '/' ? pw->pw_dir : NULL;
	if (!home || home[0] != '/')
		home = pw_dir;
	if (!home || home[0] != '/')
		return cf_err(err, CONFINE_E_INVALID, "cannot find the home directory", "HOME",
			      "HOME is unset and the user has no passwd entry");
	/* A home that does not exist still gets its guards, by its lexical path. */
	int r = cf_host_canonicalize(NULL, home, &run->home, err);
	if (r < 0 || !pw_dir)
		return r;
	/* The caller's home in the password database keeps its guards whatever $HOME says. */
	if ((r = cf_host_canonicalize(NULL, pw_dir, &run->pw_home, err)) < 0)
		return r;
	if (!strcmp(run->pw_home, run->home) || !strcmp(run->pw_home, "/")) {
		free(run->pw_home);
		run->pw_home = NULL;
		return 0;
	}
	run->pw_name = cf_strdup(pw->pw_name ? pw->pw_name : "");
	run->pw_user_rules = cf_path_join(run->pw_home, ".config/confine/rules.json");
	return run->pw_name && run->pw_user_rules ? 0 : cf_nomem(err);
}

/* R1: refuse /, the home directory and its ancestors.  (A workspace containing a guarded
 * credential path is refused by check_workspace_guards, once the guards are resolved.) */
static int check_workspace(confine_run *run, const char *given, struct confine_error *err)
{
	const char *ws = run->workspace;
	if (!strcmp(ws, "/"))
		return cf_err(err, CONFINE_E_WORKSPACE, "workspace refused", given,
			      "it is the root directory '/'");
	const char *homes[] = {run->home, run->pw_home};
	for (size_t i = 0; i < 2; i++) {
		if (!homes[i] || !cf_path_within(homes[i], ws))
			continue;
		cf_err(err, CONFINE_E_WORKSPACE, "workspace refused", given,
		       strcmp(ws, homes[i]) ? "'%s' is an ancestor of the home directory%s"
					    : "'%s' is the home directory%s",
		       ws, i ? " (of the password database)" : "");
		cf_err_hint(err, "run confine from a project directory, or pass --workspace DIR");
		return CONFINE_E_WORKSPACE;
	}
	return 0;
}

static int resolve_workspace(confine_run *run, const confine_request *req,
			     struct confine_error *err)
{
	char cwd[PATH_MAX];
	const char *given = req->workspace;
	if (!given) {
		if (!getcwd(cwd, sizeof(cwd)))
			return cf_err_os(err, CONFINE_E_OS, "cannot read the current directory",
					 ".", "getcwd", errno);
		given = cwd;
	}
	run->workspace = realpath(given, NULL);
	if (!run->workspace) {
		cf_err_os(err, CONFINE_E_WORKSPACE, "workspace refused", given, "realpath", errno);
		if (errno == ENOENT)
			cf_err_hint(err,
				    "create the directory first or pass an existing --workspace");
		return CONFINE_E_WORKSPACE;
	}
	struct stat st;
	if (stat(run->workspace, &st) < 0 || !S_ISDIR(st.st_mode))
		return cf_err(err, CONFINE_E_WORKSPACE, "workspace refused", given,
			      "it is not a directory");
	return check_workspace(run, given, err);
}

/* A missing file means no rules; a file that exists but cannot be read or parsed refuses
 * the run (R6). */
static int load_rule_file(const char *path, enum cf_layer layer, bool missing_ok,
			  struct cf_ruleset *out, struct cf_net_rules *net,
			  struct confine_error *err)
{
	char *text = NULL;
	size_t len = 0;
	struct cf_diags diags = {0};
	struct confine_error read_err = {0};
	int r = cf_rulefile_read(path, &text, &len, &read_err);
	if (r == CONFINE_E_NOTFOUND && missing_ok)
		return 0;
	if (r < 0) {
		/* A missing session file is a rule error; the caller's struct is changed only when
		 * this failure is the one it records. */
		if (r == CONFINE_E_NOTFOUND)
			read_err.code = CONFINE_E_RULES;
		cf_err_publish(err, &read_err);
		return r == CONFINE_E_NOTFOUND ? CONFINE_E_RULES : r;
	}
	if (len > CF_RULES_MAX_FILE_BYTES) {
		r = cf_err(err, CONFINE_E_RULES, "rule file too large", path,
			   "a rule file may hold at most 1 MiB");
		goto out;
	}
	r = cf_rules_parse_net(text, len, path, layer, out, net, &diags, err);
	if (r < 0)
		cf_err_hint(err, "run 'confine check %s' to list every error", path);
out:
	cf_diags_release(&diags);
	free(text);
	return r;
}

/* Path rules to the policy, network rules to run->net (SPEC 12), of one file. */
static int load_layer_file(confine_run *run, const char *path, enum cf_layer layer, bool missing_ok,
			   struct confine_error *err)
{
	struct cf_ruleset rs = {0};
	struct cf_net_rules net = {0};
	int r = load_rule_file(path, layer, missing_ok, &rs, &net, err);
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
	for (size_t i = 0; r == 0 && i < req->session_files.n; i++)
		r = load_layer_file(run, req->session_files.v[i], CF_LAYER_SESSION, false, err);
	if (r < 0)
		return r;

	char *wsfile = cf_path_join(run->workspace, ".confine/rules.json");
	if (!wsfile)
		return cf_nomem(err);
	r = load_layer_file(run, wsfile, CF_LAYER_WORKSPACE, true, err);
	free(wsfile);
	if (r < 0)
		return r;
	return load_layer_file(run, run->user_rules, CF_LAYER_USER, true, err);
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
static int note_openat2(struct cf_strv *notes, struct confine_error *err)
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
		if ((r = expand_globs(run, &globs, err)) < 0 ||
		    (r = cf_run_nested_repos(run, &globs, err)) < 0)
			goto out;
		run->host.content = cf_run_content_of_scan;
		run->host.content_ctx = &globs;
		/* Directories found unreadable now are hidden from here on. */
		struct cf_strv fresh = {0};
		for (size_t i = 0; i < globs.skipped.n && r == 0; i++)
			if (!cf_strv_contains(&run->unreadable, globs.skipped.v[i]) &&
			    (cf_strv_add(&fresh, globs.skipped.v[i]) < 0 ||
			     cf_strv_add(&run->unreadable, globs.skipped.v[i]) < 0))
				r = cf_nomem(err);
		if (r == 0)
			r = cf_policy_add_unreadable(&run->policy_rules, &fresh, err);
		cf_strv_release(&fresh);
		if (r == 0)
			r = cf_run_protect_aliases(run, &globs, err);
		if (r < 0)
			goto out;
		/* R39: overlays in helper mode (exec/linux/bwrap/masks.c), redirects elsewhere. */
		run->cache_facts.overlay = run->backend == CONFINE_BACKEND_BWRAP &&
					   !run->cache_overlay_off && cf_run_helper_mode(run);
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
		if ((r = cf_plan_compile(&run->policy_rules, &globs, &po, &plan, err)) < 0 ||
		    (r = cf_run_inject_place(run, &plan, err)) < 0 ||
		    (r = note_openat2(&plan.notes, err)) < 0 ||
		    (r = note_made_allows(run, &plan, err)) < 0)
			goto out;
		for (size_t i = 0; i < globs.n_pub; i++)
			if (cf_strv_add(&plan.public_files, globs.pub[i].path) < 0) {
				r = cf_nomem(err);
				goto out;
			}
		/* The identities the plan was made from (the memo of this planning). */
		r = cf_idents_record_with(&plan, &globs, cf_kind_memo_ident, &run->kind_memo, &ids,
					  &changed);
		/* R40: a public file must still be what was read when the command starts. */
		if (r == 0 && cf_idents_record_public(&globs, &ids) < 0)
			r = CONFINE_E_NOMEM;
		if (r < 0) {
			r = cf_nomem(err);
			goto out;
		}
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
	/* The command and its environment stay; the rest is the new plan. */
	plan.argv = run->plan.argv;
	plan.env = run->plan.env;
	plan.env_removed = run->plan.env_removed;
	memset(&run->plan.argv, 0, sizeof(run->plan.argv));
	memset(&run->plan.env, 0, sizeof(run->plan.env));
	memset(&run->plan.env_removed, 0, sizeof(run->plan.env_removed));
	cf_plan_release(&run->plan);
	run->plan = plan;
	memset(&plan, 0, sizeof(plan));
	/* The tool caches' redirects of the new plan (another mode, after an overlay failed). */
	if (run->env_built && (r = cf_run_cache_env(run, err)) < 0)
		goto out;
	cf_idents_release(&run->idents);
	run->idents = ids;
	memset(&ids, 0, sizeof(ids));
	/* Keep what the launch scan found: the post-run scan reports only what is new. */
	cf_matches_release(&run->launch);
	run->launch = globs;
	memset(&globs, 0, sizeof(globs));
	run->host.content_ctx = &run->launch;
	free(run->skip);
	run->skip = NULL;
	r = 0;
out:
	if (run->host.content_ctx == &globs)
		run->host.content_ctx = &run->launch;
	free(changed);
	cf_matches_release(&globs);
	cf_idents_release(&ids);
	cf_plan_release(&plan);
	return r;
}

/* ${XDG_CONFIG_HOME:-HOME/.config}/confine/rules.json (the XDG base directory spec ignores a
 * relative XDG_CONFIG_HOME); NULL on out-of-memory. */
static char *user_rules_file(const struct cf_strv *env, const char *home)
{
	const char *v = env_get(env, "XDG_CONFIG_HOME");
	if (v && v[0] == '/')
		return cf_path_join(v, "confine/rules.json");
	return cf_path_join(home, ".config/confine/rules.json");
}

static int host_facts(confine_run *run, const struct cf_strv *env, struct confine_error *err)
{
	const char *v;
	unsigned uid = (unsigned)getuid();
	struct stat st;

	v = env_get(env, "TMPDIR");
	if (v && v[0] == '/') {
		char *t = realpath(v, NULL);
		if (t && stat(t, &st) == 0 && S_ISDIR(st.st_mode) && !cf_path_within(t, "/tmp") &&
		    !cf_path_within(run->workspace, t))
			run->tmpdir = t;
		else
			free(t);
	}
	v = env_get(env, "XDG_RUNTIME_DIR");
	if (v && v[0] == '/')
		run->runtime_dir = cf_strdup(v);
	else
		run->runtime_dir = cf_asprintf("/run/user/%u", uid);
	v = env_get(env, "SSH_AUTH_SOCK");
	if (v && v[0] == '/')
		run->ssh_dir = cf_path_dirname(v);
	run->user_rules = user_rules_file(env, run->home);
	if (!run->runtime_dir || !run->user_rules)
		return cf_nomem(err);
	/* Confine's own directories (R30): the one holding the user rule file, and the cache. */
	run->config_dir = cf_path_dirname(run->user_rules);
	if (run->pw_user_rules && !(run->pw_config_dir = cf_path_dirname(run->pw_user_rules)))
		return cf_nomem(err);
	v = env_get(env, "XDG_CACHE_HOME");
	run->cache_dir = v && v[0] == '/' ? cf_path_join(v, "confine")
					  : cf_path_join(run->home, ".cache/confine");
	/* R39: the tool caches' stores (host/toolcache.h), confine's state too. */
	run->state_dir = cf_host_state_dir(env, run->home);
	if (!run->config_dir || !run->cache_dir || !run->state_dir)
		return cf_nomem(err);
	struct cf_git_entries names;
	cf_run_git_entries(&names);
	int r = cf_host_git_guards(run->workspace, run->home, env_get(env, "XDG_CONFIG_HOME"),
				   &names, &run->git_guards, &run->git_launch, err);
	if (r < 0)
		return r;

	run->host = (struct cf_host){
	    .home = run->home,
	    .pw_home = run->pw_home,
	    .pw_name = run->pw_name,
	    .pw_user_rules_file = run->pw_user_rules,
	    .workspace = run->workspace,
	    .tmpdir = run->tmpdir,
	    .runtime_dir = run->runtime_dir,
	    .ssh_auth_sock_dir = run->ssh_dir,
	    .user_rules_file = run->user_rules,
	    .config_dir = run->config_dir,
	    .pw_config_dir = run->pw_config_dir,
	    .cache_dir = run->cache_dir,
	    .state_dir = run->state_dir,
	    .git_guards = &run->git_guards,
	    .uid = uid,
	    .landlock_abi = cf_landlock_abi(),
	    .seccomp = cf_seccomp_available(),
	    .kind = cf_kind_memo_get,
	    .canonicalize = cf_host_canonicalize,
	    .ctx = &run->kind_memo,
	    .content = cf_run_content_of_file,
	};
	run->host.ipc_guard_missing =
	    cf_ipc_guard_missing(run->host.landlock_abi, run->host.seccomp);
	return 0;
}

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

/* The caller's environment, or the one the request carries. */
static int base_env(const confine_request *req, struct cf_strv *copy, const struct cf_strv **env,
		    struct confine_error *err)
{
	*env = &req->env_base;
	if (req->env_base_set)
		return 0;
	for (char **e = environ; e && *e; e++)
		if (cf_strv_add(copy, *e) < 0)
			return cf_nomem(err);
	*env = copy;
	return 0;
}

static confine_run *run_new(const confine_request *req)
{
	confine_run *run = calloc(1, sizeof(*run));
	if (!run)
		return NULL;
	run->pid = -1;
	run->status_fd = run->err_fd = run->info_fd = -1;
	run->wake_r = run->wake_w = -1;
	run->go_w = -1;
	run->mounts_r = -1;
	run->cache_lock = -1;
	run->cache_store_lock = -1;
	run->policy = req->policy;
	run->limit_pids = req->limit_pids;
	run->limit_mem = req->limit_mem;
	run->timeout_ms = req->timeout_ms;
	run->kill_grace_ms = req->kill_grace_ms;
	run->tty = req->tty;
	for (int i = 0; i < 3; i++) {
		run->stdio_req[i] = req->stdio[i];
		run->stdio[i] = -1;
	}
	run->target_pidfd = -1;
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

/* R1, the rest: a workspace containing a guarded credential path of the home is refused.  The
 * guards' paths are canonical (a symlinked ~/.aws counts where it really is). */
static int check_workspace_guards(confine_run *run, const char *given, struct confine_error *err)
{
	const struct cf_ruleset *g = &run->policy_rules.layers[CF_LAYER_GUARD];
	for (size_t i = 0; i < g->n; i++) {
		const struct cf_rule *r = &g->v[i];
		if (r->pattern[0] != '~' || !cf_path_within(r->path, run->workspace))
			continue;
		cf_err(err, CONFINE_E_WORKSPACE, "workspace refused", given,
		       "it contains the guarded credential path '%s'", r->path);
		cf_err_hint(err, "choose a workspace that does not contain your credentials");
		return CONFINE_E_WORKSPACE;
	}
	return 0;
}

/* Workspace, host facts and every rule layer: what explain needs and a run starts from. */
static int load_policy(confine_run *run, const confine_request *req, const struct cf_strv *env,
		       struct confine_error *err)
{
	int r;
	if ((r = find_home(run, env, err)) < 0 || (r = resolve_workspace(run, req, err)) < 0 ||
	    (r = host_facts(run, env, err)) < 0 ||
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

/*
 * R30: a rule file that does not exist yet must not be creatable by the command.  Confine's
 * own directories are write-deny overrides, which protect them when they exist; when one is
 * missing but the command could create it (its nearest existing ancestor is writable in the
 * sandbox, say under --allow ~/.config:write), confine creates it now, 0700, so that the
 * override holds it read-only.  Where it cannot, the run is refused rather than left
 * plantable.
 */
static int keep_state_dir(confine_run *run, const char *dir, struct confine_error *err)
{
	struct stat st;
	if (!dir || lstat(dir, &st) == 0)
		return 0;
	char *a = cf_strdup(dir);
	int r = 0;
	while (a && strcmp(a, "/") && lstat(a, &st) < 0) {
		char *up = cf_path_dirname(a);
		free(a);
		a = up;
	}
	if (!a)
		return cf_nomem(err);
	struct cf_decision wr;
	cf_policy_decide(&run->policy_rules, a, CF_ACC_WRITE, &wr);
	if (wr.action != CF_ALLOW || !S_ISDIR(st.st_mode))
		goto out; /* the sandbox cannot create anything there either */
	for (size_t i = 0; i < run->policy_rules.temp_roots.n; i++)
		if (cf_path_within(a, run->policy_rules.temp_roots.v[i]))
			goto out; /* a private tmpfs inside: nothing reaches the host */
	if (st.st_uid != geteuid()) {
		r = cf_err(err, CONFINE_E_WORKSPACE, "cannot protect confine's own directory", dir,
			   "it does not exist, the sandbox could create it (and plant rules the "
			   "next run would obey), and '%s' belongs to another user",
			   a);
		cf_err_hint(err, "create '%s' yourself, or do not allow writing to '%s'", dir, a);
		goto out;
	}
	/* Each missing component, from the existing ancestor down. */
	size_t at = strlen(a);
	char *path = cf_strdup(dir);
	if (!path) {
		r = cf_nomem(err);
		goto out;
	}
	while (r == 0 && path[at]) {
		char *slash = strchr(path + at + 1, '/');
		if (slash)
			*slash = '\0';
		if (mkdir(path, 0700) < 0 && errno != EEXIST) {
			r = cf_err_os(err, CONFINE_E_OS, "cannot protect confine's own directory",
				      path, "mkdir", errno);
			cf_err_hint(err, "create '%s' yourself, or do not allow writing to '%s'",
				    dir, a);
		}
		at = strlen(path);
		if (slash)
			*slash = '/';
	}
	free(path);
out:
	free(a);
	return r;
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

static int keep_state_dirs(confine_run *run, struct confine_error *err)
{
	int r;
	if ((r = keep_state_dir(run, run->config_dir, err)) < 0 ||
	    (r = keep_state_dir(run, run->pw_config_dir, err)) < 0)
		return r;
	if ((r = keep_state_dir(run, run->cache_dir, err)) < 0)
		return r;
	return keep_state_dir(run, run->state_dir, err);
}

struct confine_rules {
	confine_run run;
};

int confine_rules_load(const confine_request *req, confine_rules **out, struct confine_error *err)
{
	struct cf_strv copy = {0};
	const struct cf_strv *env;
	confine_run *run = NULL;
	int r;
	*out = NULL;
	if ((r = base_env(req, &copy, &env, err)) < 0)
		goto out;
	if (!(run = run_new(req))) {
		r = cf_nomem(err);
		goto out;
	}
	if ((r = load_policy(run, req, env, err)) < 0)
		goto out;
	*out = (confine_rules *)run; /* a run with only its policy part filled */
	run = NULL;
out:
	confine_run_free(run);
	cf_strv_release(&copy);
	return r;
}

void confine_rules_free(confine_rules *p)
{
	confine_run_free((confine_run *)p);
}

int cf_request_locations(const confine_request *req, struct cf_locations *out,
			 struct confine_error *err)
{
	struct cf_strv copy = {0};
	const struct cf_strv *env;
	struct confine_error no_home = {0};
	confine_run *run = NULL;
	char cwd[PATH_MAX];
	int r;
	memset(out, 0, sizeof(*out));
	if ((r = base_env(req, &copy, &env, err)) < 0)
		goto out;
	if (!(run = run_new(req))) {
		r = cf_nomem(err);
		goto out;
	}
	/* A workspace that is a directory: R1 refuses some for a run, not for reading files. */
	const char *given = req->workspace;
	if (!given && !(given = getcwd(cwd, sizeof(cwd)))) {
		r = cf_err_os(err, CONFINE_E_OS, "cannot read the current directory", ".", "getcwd",
			      errno);
		goto out;
	}
	struct stat st;
	if (!(out->workspace = realpath(given, NULL)) || stat(out->workspace, &st) < 0 ||
	    !S_ISDIR(st.st_mode)) {
		r = out->workspace ? cf_err(err, CONFINE_E_WORKSPACE, "cannot use workspace", given,
					    "%s", strerror(ENOTDIR))
				   : cf_err_os(err, CONFINE_E_WORKSPACE, "cannot use workspace",
					       given, "realpath", errno);
		goto out;
	}
	/* No home: no user file (and "~" patterns do not resolve). */
	if (find_home(run, env, &no_home) == 0) {
		out->home = run->home;
		run->home = NULL;
		if (!(out->user_rules = user_rules_file(env, out->home))) {
			r = cf_nomem(err);
			goto out;
		}
	}
	r = 0;
out:
	if (r < 0)
		cf_locations_release(out);
	confine_run_free(run);
	cf_strv_release(&copy);
	return r;
}

void cf_locations_release(struct cf_locations *l)
{
	free(l->workspace);
	free(l->home);
	free(l->user_rules);
	memset(l, 0, sizeof(*l));
}

static void copy_str(char *dst, size_t cap, const char *src)
{
	snprintf(dst, cap, "%s", src ? src : "");
}

int cf_rules_explain(const confine_rules *pol, const char *path, enum confine_access access,
		     struct confine_decision *out, struct confine_error *err)
{
	const confine_run *run = (const confine_run *)pol;
	char *abs = NULL, *canon = NULL;
	int r;
	if (access != CONFINE_ACCESS_READ && access != CONFINE_ACCESS_WRITE)
		return cf_err(err, CONFINE_E_INVALID, "cannot explain", path,
			      "the access must be read or write");
	if (path[0] == '/') {
		abs = cf_strdup(path);
	} else {
		char cwd[PATH_MAX];
		abs = getcwd(cwd, sizeof(cwd)) ? cf_path_join(cwd, path) : NULL;
	}
	if (!abs)
		return cf_nomem(err);
	r = cf_host_canonicalize(NULL, abs, &canon, err);
	free(abs);
	if (r < 0)
		return r;
	struct cf_decision rd, wr;
	cf_policy_decide_both(&run->policy_rules, canon, &rd, &wr);
	const struct cf_decision *dp = access == CONFINE_ACCESS_READ ? &rd : &wr;
	struct cf_decision d = *dp;
	/* A repository nested in the workspace: its guards come from the run's scan. */
	char *guard = NULL;
	struct cf_rule nested = {.source = "builtin", .layer = CF_LAYER_GUARD, .action = CF_ASK};
	if (access == CONFINE_ACCESS_WRITE && d.layer > CF_LAYER_GUARD && run->workspace &&
	    (r = cf_run_explain_git(run, canon, &guard, err)) < 0) {
		free(canon);
		return r;
	}
	if (guard) {
		/* As the workspace's own git guards are shown: relative to the workspace. */
		nested.path = guard;
		nested.pattern =
		    cf_path_within(guard, run->workspace) && strcmp(guard, run->workspace)
			? guard + strlen(run->workspace) + 1
			: guard;
		nested.index = (int)run->policy_rules.layers[CF_LAYER_GUARD].n;
		d = (struct cf_decision){
		    .action = CF_ASK, .layer = CF_LAYER_GUARD, .rule = &nested};
	}
	memset(out, 0, sizeof(*out));
	out->size = sizeof(*out);
	copy_str(out->path, sizeof(out->path), canon);
	free(canon);
	out->access = access;
	out->action = (enum confine_action)cf_explain_action(&d);
	copy_str(out->layer, sizeof(out->layer), cf_layer_name(d.layer));
	if (d.rule) {
		out->has_rule = true;
		copy_str(out->source, sizeof(out->source), d.rule->source);
		copy_str(out->pattern, sizeof(out->pattern), d.rule->pattern);
		out->index = d.rule->index;
		out->line = d.rule->line;
		out->column = d.rule->column;
	}
	if (d.outranked) {
		out->has_outranked = true;
		copy_str(out->outranked_source, sizeof(out->outranked_source), d.outranked->source);
		copy_str(out->outranked_pattern, sizeof(out->outranked_pattern),
			 d.outranked->pattern);
		out->outranked_index = d.outranked->index;
		out->outranked_line = d.outranked->line;
		out->outranked_column = d.outranked->column;
	}
	free(guard);
	/* R37: a hard link of a protected file is protected like it at launch. */
	r = cf_run_explain_alias(run, out->path, access, out, err);
	return r < 0 ? r : 0;
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
	    (r = note_openat2(&run->ll.notes, err)) < 0)
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
static int choose_backend(confine_run *run, const confine_request *req, struct confine_error *err)
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
static int plan_backend(confine_run *run, const confine_request *req, struct confine_error *err)
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

static void net_decision_out(const struct cf_net_decision *d, const char *host, uint16_t port,
			     struct confine_net_decision *out)
{
	memset(out, 0, sizeof(*out));
	out->size = sizeof(*out);
	copy_str(out->host, sizeof(out->host), host);
	out->port = port;
	out->action = (enum confine_action)d->action;
	copy_str(out->layer, sizeof(out->layer), cf_layer_name(d->layer));
	if (d->rule) {
		out->has_rule = true;
		copy_str(out->source, sizeof(out->source), d->rule->source);
		copy_str(out->pattern, sizeof(out->pattern), d->rule->pattern);
		copy_str(out->list, sizeof(out->list),
			 d->rule->action == CF_ALLOW ? "allow" : "deny");
		out->index = d->rule->index;
		out->line = d->rule->line;
		out->column = d->rule->column;
	}
}

int cf_rules_explain_net(const confine_rules *pol, const char *host_port,
			 struct confine_net_decision *out, struct confine_error *err)
{
	const confine_run *run = (const confine_run *)pol;
	/* The same syntax as a rule without '*.': HOST, HOST:PORT, an address, [V6]:PORT. */
	struct cf_net_rule q = {0};
	const char *why = host_port ? cf_net_pattern_parse(host_port, strlen(host_port), &q)
				    : "nothing to explain";
	if (!why && q.subdomains)
		why = "explain takes one name, not a '*.' pattern";
	if (!why && q.is_ip && q.bits != (q.ip.family == 4 ? 32u : 128u))
		why = "explain takes one address, not a range";
	if (why) {
		cf_err(err, CONFINE_E_INVALID, "cannot explain", host_port ? host_port : "", "%s",
		       why);
		cf_err_hint(err, "give a host such as github.com or github.com:22");
		return CONFINE_E_INVALID;
	}
	uint16_t port = q.port ? q.port : 443;
	struct cf_net_decision d;
	cf_net_decide(&run->net, q.host, q.is_ip ? &q.ip : NULL, port, &d);
	net_decision_out(&d, q.host, port, out);
	return 0;
}

enum confine_net_mode confine_rules_net_mode(const confine_rules *pol)
{
	return ((const confine_run *)pol)->net_mode;
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

/* The policy digest (SPEC 7.3) of the plan's text as `run --print-plan` prints it. */
static void record_digest(confine_run *run)
{
	char *text = NULL;
	if (run->policy != CONFINE_POLICY_OFF && confine_run_plan_text(run, false, &text, NULL) < 0)
		text = NULL;
	cf_record_digest(run, text);
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
	if (!(run = run_new(req))) {
		r = cf_nomem(err);
		confine_request_audit_refusal(req, 125, err, NULL);
		cf_err_publish(caller, &mine);
		return r;
	}
	if ((r = base_env(req, &env_base, &env, err)) < 0 ||
	    (r = load_policy(run, req, env, err)) < 0)
		goto out;
	/* An escalation or grant needs the receipt of exactly this request (SPEC 7); an approved
	 * escalation runs without the sandbox from here on. */
	if ((r = cf_record_approve(run, req, err)) < 0)
		goto out;
	if (run->policy == CONFINE_POLICY_REQUIRED && !run->host.seccomp) {
		/* SPEC 3.1: the filter is part of the sandbox; a run without it is not pretended.
		 */
		r = cf_err(
		    err, CONFINE_E_BACKEND, "sandbox unavailable", "seccomp",
		    "the kernel refuses seccomp filters, and the sandbox's system call filter "
		    "(SPEC 3.1) cannot be installed");
		cf_err_hint(err,
			    "use a kernel built with CONFIG_SECCOMP_FILTER (every distribution "
			    "kernel is), or outside a container that blocks seccomp(2); or set "
			    "CONFINE_SANDBOX_POLICY=off to run without a sandbox (an explicit "
			    "choice)");
		goto out;
	}
	if ((r = choose_backend(run, req, err)) < 0)
		goto out;
	/* R44: the ssh-agent filter (agent/agent_run.c); R45: the credential placeholders,
	 * whose trust bundle is an injection of the run's (net/secrets_run.c). */
	if ((r = cf_run_agent_prepare(run, req, env, err)) < 0 ||
	    (r = cf_run_secrets_prepare(run, req, env, err)) < 0 ||
	    (r = cf_run_inject_inputs(run, req, err)) < 0)
		goto out;
	if ((r = make_allowed(run, req, err)) < 0 || (r = keep_state_dirs(run, err)) < 0 ||
	    (r = cf_run_cache_facts(run, req, env, err)) < 0)
		goto out;

	char cwd[PATH_MAX];
	char *real_cwd = getcwd(cwd, sizeof(cwd)) ? realpath(cwd, NULL) : NULL;
	run->plan_network = req->network;
	run->plan_tmp_size = req->tmp_size;
	if (real_cwd && cf_path_within(real_cwd, run->workspace))
		run->plan_cwd = real_cwd;
	else
		free(real_cwd);
	if ((r = cf_run_plan(run, err)) < 0)
		goto out;
	for (size_t i = 0; i < req->argv.n; i++)
		if (cf_strv_add(&run->plan.argv, req->argv.v[i]) < 0)
			goto oom;
	r = cf_env_build((const char *const *)env->v, env->n, &req->env, &run->plan.env,
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
	/* After the environment: the pointer variables are set last (SPEC 5). */
	if (r < 0 || (r = cf_run_inject_seal(run, req, err)) < 0 ||
	    (r = plan_backend(run, req, err)) < 0 || (r = cf_run_secrets_landlock(run, err)) < 0)
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
		*out = cf_secrets_plan_text(run, *out);
	return *out ? 0 : cf_nomem(err);
}

void confine_run_free(confine_run *run)
{
	if (!run)
		return;
	if (run->status_fd >= 0)
		close(run->status_fd);
	if (run->err_fd >= 0)
		close(run->err_fd);
	if (run->info_fd >= 0)
		close(run->info_fd);
	if (run->wake_r >= 0)
		close(run->wake_r);
	if (run->wake_w >= 0)
		close(run->wake_w);
	if (run->go_w >= 0)
		close(run->go_w);
	cf_run_stdio_release(run);
	free(run->unsettled);
	if (run->target_pidfd >= 0)
		close(run->target_pidfd);
	cf_run_record_release(run);
	/* Freed while the sandbox may still run: it ends, as it would with confine. */
	cf_keeper_end(&run->keeper);
	cf_cgroup_destroy(&run->cgroup);
	cf_connguard_free(run->connguard);
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
	free(run->skip);
	free(run->by_helper);
	free(run->helper_failed);
	cf_pty_free(run->pty);
	if (run->mounts_r >= 0)
		close(run->mounts_r);
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
	return run->timed_out;
}

bool confine_run_killed_after_grace(const confine_run *run)
{
	return run->killed_after_grace;
}

bool confine_run_status_from_command(const confine_run *run)
{
	return run->from_command;
}

/* SPDX-License-Identifier: MIT */
/*
 * The macOS executor (SPEC 9): gathers the Mac's host facts, loads the rule files, hands
 * everything to the pure Seatbelt compiler (plan/macos) and runs
 *     /usr/bin/sandbox-exec -p PROFILE -- COMMAND...
 * Thin on purpose: every decision is the compiler's, tested on Linux.
 *
 * NEVER COMPILED OR RUN BY CI: nothing in this directory has been built or executed on a Mac.
 * It is written against the documented macOS APIs (posix_spawn with Apple's extensions,
 * kqueue, confstr); expect it to need fixes on first contact with a Mac.
 */
#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "exec/macos/inject.h"
#include "exec/macos/macos.h"
#include "host/canon.h"
#include "host/hostfs.h"
#include "host/rulefile.h"
#include "host/workspace.h"
#include "plan/macos/sbpl.h"
#include "request.h"
#include "request_rules.h"
#include "util/util.h"

extern char **environ;

struct confine_run {
	enum confine_policy policy;
	char *home, *workspace, *cwd, *user_rules, *ssh_dir;
	struct cf_strv temp, cache;
	struct cf_mac_links links;
	struct cf_mac_host host;
	struct cf_ruleset session, ws_rules, user_rules_rs;
	struct cf_strv env, env_removed;
	struct cf_mac_snapshots snaps;
	struct cf_mac_input in;
	struct cf_mac_plan plan;
	bool have_plan;
	struct confine_probe_result probe;
	uint64_t timeout_ms, kill_grace_ms;

	/* while running */
	pid_t pid;
	volatile sig_atomic_t end_requested, sigints;
	volatile int stop; /* a signal asked the wait loop to look */
	bool started, from_command, timed_out, killed_after_grace;
	struct confine_error not_run; /* the command could not be found or executed (R3) */
};

/* ---- host facts ---- */

static int canon(const char *path, char **out, struct confine_error *err)
{
	return cf_host_canonicalize(NULL, path, out, err);
}

/* A directory from confstr (the per-user temp and cache directories of launchd), canonical;
 * NULL when the system has none. */
static char *confstr_dir(int name)
{
	char buf[PATH_MAX];
	size_t n = confstr(name, buf, sizeof(buf));
	if (n == 0 || n > sizeof(buf))
		return NULL;
	return realpath(buf, NULL);
}

static int add_root(struct cf_strv *v, char *dir /* taken */)
{
	if (!dir)
		return 0;
	if (cf_strv_contains(v, dir)) {
		free(dir);
		return 0;
	}
	return cf_strv_take(v, dir);
}

static int host_facts(confine_run *run, const confine_request *req, const struct cf_strv *env,
		      struct confine_error *err)
{
	int r;
	const char *home = cf_strv_env(env, "HOME");
	struct passwd *pw = getpwuid(getuid());
	if (!home || home[0] != '/')
		home = pw && pw->pw_dir && pw->pw_dir[0] == '/' ? pw->pw_dir : NULL;
	if (!home)
		return cf_err(err, CONFINE_E_INVALID, "cannot find the home directory", "HOME",
			      "HOME is unset and the user has no passwd entry");
	if ((r = canon(home, &run->home, err)) < 0)
		return r;

	char cwd[PATH_MAX];
	if (!getcwd(cwd, sizeof(cwd)))
		return cf_err_os(err, CONFINE_E_OS, "cannot read the current directory", ".",
				 "getcwd", errno);
	const char *given = req->workspace ? req->workspace : cwd;
	if ((r = cf_workspace_resolve(given, &run->workspace, err)) < 0)
		return r;
	char *real_cwd = realpath(cwd, NULL);
	run->cwd = real_cwd && cf_path_within(real_cwd, run->workspace) ? real_cwd
									: cf_strdup(run->workspace);
	if (run->cwd != real_cwd)
		free(real_cwd);

	/* Temp roots: /private/tmp, launchd's per-user temp directory and $TMPDIR. */
	const char *tmpdir = cf_strv_env(env, "TMPDIR");
	if (add_root(&run->temp, realpath("/tmp", NULL)) < 0 ||
	    add_root(&run->temp, confstr_dir(_CS_DARWIN_USER_TEMP_DIR)) < 0 ||
	    (tmpdir && tmpdir[0] == '/' && add_root(&run->temp, realpath(tmpdir, NULL)) < 0) ||
	    add_root(&run->cache, confstr_dir(_CS_DARWIN_USER_CACHE_DIR)) < 0)
		return cf_nomem(err);
	if (!run->temp.n)
		return cf_err(err, CONFINE_E_OS, "cannot find the temp directory", "/tmp",
			      "realpath failed");

	const char *sock = cf_strv_env(env, "SSH_AUTH_SOCK");
	if (sock && sock[0] == '/') {
		char *c = NULL;
		if ((r = canon(sock, &c, err)) < 0)
			return r;
		run->ssh_dir = cf_path_dirname(c);
		free(c);
		if (!run->ssh_dir)
			return cf_nomem(err);
	}
	const char *xdg = cf_strv_env(env, "XDG_CONFIG_HOME");
	char *cfg = xdg && xdg[0] == '/' ? cf_strdup(xdg) : cf_path_join(run->home, ".config");
	char *file = cfg ? cf_path_join(cfg, "confine/rules.json") : NULL;
	free(cfg);
	if (!file)
		return cf_nomem(err);
	r = canon(file, &run->user_rules, err);
	free(file);
	if (r < 0)
		return r;

	if ((r = cf_mac_links_default(&run->links, err)) < 0)
		return r;
	run->host = (struct cf_mac_host){
	    .home = run->home,
	    .workspace = run->workspace,
	    .cwd = run->cwd,
	    .user_rules = run->user_rules,
	    .temp = &run->temp,
	    .cache = &run->cache,
	    .ssh_auth_sock_dir = run->ssh_dir,
	    .links = &run->links,
	    .kind = cf_hostfs_kind,
	    .canonicalize = cf_host_canonicalize,
	};
	return 0;
}

/* ---- rule files (R6) ---- */

/* One file's rules to its layer's set (host/rulefile.h's loader). */
static int load_layer_file(void *ctx, const char *path, enum cf_layer layer, bool missing_ok,
			   struct confine_error *err)
{
	confine_run *run = ctx;
	struct cf_ruleset *rs = layer == CF_LAYER_WORKSPACE ? &run->ws_rules : &run->user_rules_rs;
	return cf_rulefile_load(path, layer, missing_ok, rs, NULL, err);
}

static int load_rules(confine_run *run, const confine_request *req, struct confine_error *err)
{
	/* The session's first (request_rules.h), then the workspace's and the user's. */
	int r = cf_request_session_rules(req, &run->session, err);
	if (r < 0)
		return r;
	return cf_rulefiles_each(NULL, run->workspace, run->user_rules, load_layer_file, run, err);
}

/* ---- prepare ---- */

static int base_env(const confine_request *req, struct cf_strv *copy, const struct cf_strv **env,
		    struct confine_error *err)
{
	if (req->env_base_set) {
		*env = &req->env_base;
		return 0;
	}
	for (char **e = environ; e && *e; e++)
		if (cf_strv_add(copy, *e) < 0)
			return cf_nomem(err);
	*env = copy;
	return 0;
}

static int prepare(const confine_request *req, confine_run *run, bool plan,
		   struct confine_error *err)
{
	struct cf_strv copy = {0};
	const struct cf_strv *env = NULL;
	int r = base_env(req, &copy, &env, err);
	if (r == 0)
		r = host_facts(run, req, env, err);
	if (r == 0)
		r = load_rules(run, req, err);
	if (r == 0 && plan)
		r = cf_env_build((const char *const *)env->v, env->n, &req->env, &run->env,
				 &run->env_removed, err);
	cf_strv_release(&copy);
	if (r < 0 || !plan)
		goto inputs;
	cf_mac_snapshots_sweep(run->temp.v[run->temp.n - 1]);
	if ((r = cf_mac_snapshots_create(req, run->temp.v[run->temp.n - 1], &run->snaps, err)) < 0)
		return r;
	if (run->snaps.n && run->policy == CONFINE_POLICY_OFF)
		return cf_err(err, CONFINE_E_INVALID, "injection refused", "--policy off",
			      "a run without a sandbox cannot keep an injected file read-only "
			      "(SPEC 4)");
inputs:
	run->in = (struct cf_mac_input){
	    .host = &run->host,
	    .session = &run->session,
	    .workspace_rules = &run->ws_rules,
	    .user_rules = &run->user_rules_rs,
	    .network = req->network ? CF_MAC_NET_ON : CF_MAC_NET_OFF,
	    .injections = run->snaps.v,
	    .n_injections = run->snaps.n,
	    .argv = &req->argv,
	    .env = &run->env,
	    .env_removed = &run->env_removed,
	};
	return r;
}

void confine_run_free(confine_run *run)
{
	if (!run)
		return;
	if (run->have_plan)
		cf_mac_plan_release(&run->plan);
	cf_mac_snapshots_release(&run->snaps);
	free(run->home);
	free(run->workspace);
	free(run->cwd);
	free(run->user_rules);
	free(run->ssh_dir);
	cf_strv_release(&run->temp);
	cf_strv_release(&run->cache);
	cf_mac_links_release(&run->links);
	cf_ruleset_release(&run->session);
	cf_ruleset_release(&run->ws_rules);
	cf_ruleset_release(&run->user_rules_rs);
	cf_strv_release(&run->env);
	cf_strv_release(&run->env_removed);
	free(run);
}

int confine_run_prepare(const confine_request *req, confine_run **out, struct confine_error *err)
{
	*out = NULL;
	if (!req->argv.n)
		return cf_err(err, CONFINE_E_INVALID, "no command given", "", "nothing to run");
	if (req->limit_pids || req->limit_mem)
		return cf_err(err, CONFINE_E_LIMIT, "resource limits not available", "--limit",
			      "macOS has no cgroups; confine cannot enforce --limit here");
	if (cf_request_net_allows(req))
		return cf_err(err, CONFINE_E_BACKEND, "network by domain not available",
			      "--net-allow",
			      "the macOS executor does not run confine's proxy yet (the profile "
			      "compiler can limit outbound traffic to it)");
	confine_run *run = calloc(1, sizeof(*run));
	if (!run)
		return cf_nomem(err);
	run->policy = req->policy;
	run->timeout_ms = req->timeout_ms;
	run->kill_grace_ms = req->kill_grace_ms;
	int r = prepare(req, run, true, err);
	if (r == 0 && (r = cf_mac_plan_compile(&run->in, &run->plan, err)) == 0)
		run->have_plan = true;
	if (r == 0 && run->policy == CONFINE_POLICY_REQUIRED) {
		r = cf_probe_seatbelt(&run->probe, err);
		if (r == 0 && !run->probe.available) {
			r = cf_err(err, CONFINE_E_BACKEND, "sandbox backend unavailable",
				   "seatbelt", "%s [%s]", run->probe.reason, run->probe.code);
			cf_err_hint(err, "%s", run->probe.hint);
		}
		/* This run's own profile, tried once before the command: an operation or filter
		 * this macOS does not know makes sandbox-exec refuse the profile, and that must be
		 * confine's 125 with a reason, not an exit status the command seems to have. */
		int k = r == 0 ? cf_mac_profile_applies(run->plan.profile) : 0;
		if (k != 0) {
			r = cf_err(err, CONFINE_E_BACKEND, "sandbox-exec refused the profile",
				   "seatbelt",
				   "/usr/bin/true did not run under this run's profile (%s %d)",
				   k < 0 ? "error" : "status", k);
			cf_err_hint(err,
				    "print it with 'confine run --print-plan ...' and run "
				    "'/usr/bin/sandbox-exec -p PROFILE /usr/bin/true' to see why; "
				    "please report it with the macOS version");
		}
	}
	if (r < 0) {
		confine_run_free(run);
		return r;
	}
	*out = run;
	return 0;
}

int confine_run_plan_text(const confine_run *run, bool json, char **out, struct confine_error *err)
{
	*out = json ? cf_mac_plan_json(&run->plan) : cf_mac_plan_text(&run->plan);
	return *out ? 0 : cf_nomem(err);
}

/* ---- run ---- */

/* R3 before anything starts: sandbox-exec reports a command it cannot execute with an exit
 * status of its own, which could be the command's; so confine looks the command up first, on
 * the PATH the command gets, and answers 127 or 126 itself. */
static int find_command(const confine_run *run, struct confine_error *err)
{
	const char *cmd = run->plan.argv.v[0];
	if (strchr(cmd, '/')) {
		char *abs = cmd[0] == '/' ? cf_strdup(cmd) : cf_path_join(run->cwd, cmd);
		if (!abs)
			return cf_nomem(err);
		int r =
		    access(abs, X_OK) == 0 ? 0
		    : errno == ENOENT
			? cf_err(err, CONFINE_E_NOTFOUND, "command not found", cmd, "no such file")
			: cf_err_os(err, CONFINE_E_NOEXEC, "command not executable", cmd, "access",
				    errno);
		free(abs);
		return r;
	}
	const char *path = cf_strv_env(&run->plan.env, "PATH");
	if (!path)
		path = "/usr/bin:/bin:/usr/sbin:/sbin";
	bool seen = false;
	for (const char *p = path; *p;) {
		const char *colon = strchr(p, ':');
		size_t n = colon ? (size_t)(colon - p) : strlen(p);
		char *dir = n ? cf_strndup(p, n) : cf_strdup(".");
		char *full = dir ? cf_path_join(dir[0] == '/' ? dir : run->cwd, cmd) : NULL;
		free(dir);
		if (!full)
			return cf_nomem(err);
		struct stat st;
		bool exists = stat(full, &st) == 0 && S_ISREG(st.st_mode);
		bool exec_ok = exists && access(full, X_OK) == 0;
		free(full);
		if (exec_ok)
			return 0;
		seen = seen || exists;
		p += n + (colon ? 1 : 0);
		if (!colon)
			break;
	}
	return seen ? cf_err(err, CONFINE_E_NOEXEC, "command not executable", cmd,
			     "found on PATH but not executable")
		    : cf_err(err, CONFINE_E_NOTFOUND, "command not found", cmd,
			     "not found on the command's PATH");
}

int confine_run_start(confine_run *run, struct confine_error *err)
{
	struct cf_strv argv = {0}, env = {0};
	int r;
	if (run->started)
		return cf_err(err, CONFINE_E_INVALID, "run already started", "", "start it once");
	/* A command that cannot be found or executed is not a failure of the start: the wait
	 * answers 127 or 126 with the reason, as the Linux executor does (R3). */
	if (find_command(run, &run->not_run) < 0) {
		run->started = true;
		return 0;
	}
	if (run->policy == CONFINE_POLICY_OFF) {
		for (size_t i = 0; i < run->plan.argv.n; i++)
			if (cf_strv_add(&argv, run->plan.argv.v[i]) < 0) {
				r = cf_nomem(err);
				goto out;
			}
	} else if ((r = cf_mac_exec_argv(&run->plan, &argv, err)) < 0) {
		goto out;
	}
	for (size_t i = 0; i < run->plan.env.n; i++)
		if (cf_strv_add(&env, run->plan.env.v[i]) < 0) {
			r = cf_nomem(err);
			goto out;
		}
	if (cf_strv_add(&argv, "") < 0 || cf_strv_add(&env, "") < 0) {
		r = cf_nomem(err);
		goto out;
	}
	/* NULL-terminated vectors for posix_spawn. */
	free(argv.v[argv.n - 1]);
	argv.v[--argv.n] = NULL;
	free(env.v[env.n - 1]);
	env.v[--env.n] = NULL;
	/* No core dumps (R16): a core of the command would be a file of its memory outside the
	 * profile's reach.  Inherited by the child; confine itself does not need cores. */
	struct rlimit core = {0, 0};
	setrlimit(RLIMIT_CORE, &core);
	const char *path = run->policy == CONFINE_POLICY_OFF ? NULL : CF_MAC_SANDBOX_EXEC;
	char *resolved = NULL;
	if (!path) {
		/* Policy off: the command itself, found on its PATH as above. */
		path = argv.v[0];
		if (!strchr(path, '/')) {
			const char *p = cf_strv_env(&run->plan.env, "PATH");
			for (const char *s = p ? p : "/usr/bin:/bin"; s && *s && !resolved;) {
				const char *colon = strchr(s, ':');
				size_t n = colon ? (size_t)(colon - s) : strlen(s);
				char *dir = cf_strndup(s, n);
				char *full = dir ? cf_path_join(dir, path) : NULL;
				free(dir);
				if (full && access(full, X_OK) == 0)
					resolved = full;
				else
					free(full);
				s = colon ? colon + 1 : NULL;
			}
			if (resolved)
				path = resolved;
		}
	}
	r = cf_mac_spawn(path, argv.v, env.v, run->cwd, &run->pid, err);
	free(resolved);
	if (r == 0)
		run->started = true;
out:
	cf_strv_release(&argv);
	cf_strv_release(&env);
	return r;
}

int confine_run_restore_terminal(confine_run *run)
{
	/* No pty of the command's own on macOS: the terminal is never changed. */
	return run ? 0 : CONFINE_E_INVALID;
}

int confine_run_forward_signal(confine_run *run, int sig)
{
	/* Async-signal safe: kill() and plain stores. */
	if (!run || sig <= 0 || sig > 64)
		return CONFINE_E_INVALID;
	if (run->pid <= 0)
		return 0;
	/* The caller's window or job changed: no end asked for.  The command shares the
	 * terminal here (no pty of its own on macOS yet), so a resize is its news too. */
	if (sig == SIGWINCH || sig == SIGCONT) {
		if (sig == SIGWINCH)
			kill(-run->pid, sig);
		return 0;
	}
	if (sig == SIGINT && ++run->sigints < 2) {
		kill(-run->pid, sig);
		return 0;
	}
	kill(-run->pid, sig);
	run->end_requested = 1;
	run->stop = 1;
	return 0;
}

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

int confine_run_wait(confine_run *run, int *status, struct confine_error *err)
{
	*status = 125;
	if (!run->started)
		return cf_err(err, CONFINE_E_INVALID, "run not started", "", "start it first");
	if (run->not_run.code) {
		*status = run->not_run.code == CONFINE_E_NOTFOUND ? 127 : 126;
		if (err && err->code == 0)
			*err = run->not_run;
		return run->not_run.code;
	}
	uint64_t deadline = run->timeout_ms ? now_ms() + run->timeout_ms : 0;
	uint64_t grace_end = 0;
	int ws = 0;
	for (;;) {
		uint64_t t = now_ms(), until = deadline;
		if (run->end_requested && !grace_end)
			grace_end = t + run->kill_grace_ms;
		if (grace_end && (!until || grace_end < until))
			until = grace_end;
		run->stop = 0;
		int r =
		    cf_mac_wait(run->pid, until ? (until > t ? until - t : 1) : 0, &run->stop, &ws);
		if (r == 1)
			break;
		if (r < 0) {
			kill(-run->pid, SIGKILL);
			return cf_err_os(err, CONFINE_E_OS, "cannot wait for the command", "",
					 "kevent/waitpid", errno);
		}
		t = now_ms();
		if (deadline && t >= deadline && !run->timed_out) {
			run->timed_out = true;
			kill(-run->pid, SIGKILL);
			deadline = 0;
		} else if (grace_end && t >= grace_end && !run->killed_after_grace) {
			run->killed_after_grace = true;
			kill(-run->pid, SIGKILL);
			grace_end = 0;
		}
	}
	/* What the command left behind in its session dies with it (there is no pid namespace
	 * on macOS: a process that made a session of its own escapes this; listed in the plan). */
	kill(-run->pid, SIGKILL);
	run->from_command = true;
	*status = cf_mac_exit_status(ws);
	return 0;
}

const struct confine_event *cf_run_notice_list(const confine_run *run, size_t *n)
{
	/* Not computed by the macOS executor yet: the Linux one (notices.c) reads the run's
	 * policy, which this executor keeps in another shape. */
	(void)run;
	*n = 0;
	return NULL;
}

const struct confine_event *cf_run_event_list(const confine_run *run, size_t *n)
{
	/* Seatbelt matches paths on every access: nothing created during the run slipped past a
	 * rule, so there is no post-run scan to report. */
	(void)run;
	*n = 0;
	return NULL;
}

bool confine_run_timed_out(const confine_run *run)
{
	return run && run->timed_out;
}

bool confine_run_killed_after_grace(const confine_run *run)
{
	return run && run->killed_after_grace;
}

bool confine_run_status_from_command(const confine_run *run)
{
	return run && run->from_command;
}

/* ---- explain (R11) ---- */

struct confine_rules {
	confine_run *run;
	struct cf_host ph;
	struct cf_policy policy;
};

int confine_rules_load(const confine_request *req, confine_rules **out, struct confine_error *err)
{
	*out = NULL;
	confine_rules *rl = calloc(1, sizeof(*rl));
	if (!rl || !(rl->run = calloc(1, sizeof(*rl->run)))) {
		free(rl);
		return cf_nomem(err);
	}
	int r = prepare(req, rl->run, false, err);
	if (r == 0)
		r = cf_mac_policy(&rl->run->in, &rl->ph, &rl->policy, err);
	if (r < 0) {
		confine_run_free(rl->run);
		free(rl);
		return r;
	}
	*out = rl;
	return 0;
}

void confine_rules_free(confine_rules *rl)
{
	if (!rl)
		return;
	cf_policy_release(&rl->policy);
	confine_run_free(rl->run);
	free(rl);
}

static void copy_str(char *dst, size_t cap, const char *src)
{
	snprintf(dst, cap, "%s", src ? src : "");
}

int cf_rules_explain(const confine_rules *rl, const char *path, enum confine_access access,
		     struct confine_decision *out, struct confine_error *err)
{
	char *c = NULL;
	int r = cf_host_canonicalize(NULL, path, &c, err);
	if (r < 0)
		return r;
	struct cf_decision d;
	cf_policy_decide(&rl->policy, c, (enum cf_access)access, &d);
	memset(out, 0, sizeof(*out));
	out->size = sizeof(*out);
	copy_str(out->path, sizeof(out->path), c);
	out->access = access;
	out->action = (enum confine_action)cf_explain_action(&d);
	/* The Mac's read posture (SPEC 9): the fallback reads only the roots the profile lists. */
	if (d.layer == CF_LAYER_FALLBACK && access == CONFINE_ACCESS_READ &&
	    !cf_mac_fallback_readable(&rl->run->in, &rl->policy, c))
		out->action = CONFINE_DENY;
	copy_str(out->layer, sizeof(out->layer), cf_layer_name(d.layer));
	out->has_rule = d.rule != NULL;
	if (d.rule) {
		copy_str(out->source, sizeof(out->source), d.rule->source);
		out->index = d.rule->index;
		out->line = d.rule->line;
		out->column = d.rule->column;
		copy_str(out->pattern, sizeof(out->pattern), d.rule->pattern);
	}
	free(c);
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * The host facts a run starts from: the home (and the password database's), the workspace
 * (R1), the host's directories of confine and of the user, the git guards; and where a
 * request finds its rule files.  Touches the OS.
 */
#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host/canon.h"
#include "host/git.h"
#include "host/hostfs.h"
#include "host/kernel.h"
#include "host/kind_memo.h"
#include "host/toolcache.h"
#include "host/workspace.h"
#include "request.h"
#include "run_host.h"
#include "util/util.h"

extern char **environ;

int cf_run_find_home(confine_run *run, const struct cf_strv *env, struct confine_error *err)
{
	const char *home = cf_strv_env(env, "HOME");
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

int cf_run_resolve_workspace(confine_run *run, const confine_request *req,
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
	int r = cf_workspace_resolve(given, &run->workspace, err);
	return r < 0 ? r : check_workspace(run, given, err);
}

/* ${XDG_CONFIG_HOME:-HOME/.config}/confine/rules.json (the XDG base directory spec ignores a
 * relative XDG_CONFIG_HOME); NULL on out-of-memory. */
static char *user_rules_file(const struct cf_strv *env, const char *home)
{
	const char *v = cf_strv_env(env, "XDG_CONFIG_HOME");
	if (v && v[0] == '/')
		return cf_path_join(v, "confine/rules.json");
	return cf_path_join(home, ".config/confine/rules.json");
}

int cf_run_host_facts(confine_run *run, const struct cf_strv *env, struct confine_error *err)
{
	const char *v;
	unsigned uid = (unsigned)getuid();
	struct stat st;

	v = cf_strv_env(env, "TMPDIR");
	if (v && v[0] == '/') {
		char *t = realpath(v, NULL);
		if (t && stat(t, &st) == 0 && S_ISDIR(st.st_mode) && !cf_path_within(t, "/tmp") &&
		    !cf_path_within(run->workspace, t))
			run->tmpdir = t;
		else
			free(t);
	}
	v = cf_strv_env(env, "XDG_RUNTIME_DIR");
	if (v && v[0] == '/')
		run->runtime_dir = cf_strdup(v);
	else
		run->runtime_dir = cf_asprintf("/run/user/%u", uid);
	v = cf_strv_env(env, "SSH_AUTH_SOCK");
	if (v && v[0] == '/')
		run->ssh_dir = cf_path_dirname(v);
	run->user_rules = user_rules_file(env, run->home);
	if (!run->runtime_dir || !run->user_rules)
		return cf_nomem(err);
	/* Confine's own directories (R30): the one holding the user rule file, and the cache. */
	run->config_dir = cf_path_dirname(run->user_rules);
	if (run->pw_user_rules && !(run->pw_config_dir = cf_path_dirname(run->pw_user_rules)))
		return cf_nomem(err);
	v = cf_strv_env(env, "XDG_CACHE_HOME");
	run->cache_dir = v && v[0] == '/' ? cf_path_join(v, "confine")
					  : cf_path_join(run->home, ".cache/confine");
	/* R39: the tool caches' stores (host/toolcache.h), confine's state too. */
	run->state_dir = cf_host_state_dir(env, run->home);
	if (!run->config_dir || !run->cache_dir || !run->state_dir)
		return cf_nomem(err);
	struct cf_git_entries names;
	cf_run_git_entries(&names);
	int r = cf_host_git_guards(run->workspace, run->home, cf_strv_env(env, "XDG_CONFIG_HOME"),
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

/* The caller's environment, or the one the request carries. */
int cf_run_base_env(const confine_request *req, struct cf_strv *copy, const struct cf_strv **env,
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
	if ((r = cf_run_base_env(req, &copy, &env, err)) < 0)
		goto out;
	if (!(run = cf_run_new(req))) {
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
	if (cf_run_find_home(run, env, &no_home) == 0) {
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

int cf_run_keep_state_dirs(confine_run *run, struct confine_error *err)
{
	int r;
	if ((r = keep_state_dir(run, run->config_dir, err)) < 0 ||
	    (r = keep_state_dir(run, run->pw_config_dir, err)) < 0)
		return r;
	if ((r = keep_state_dir(run, run->cache_dir, err)) < 0)
		return r;
	return keep_state_dir(run, run->state_dir, err);
}

/* SPDX-License-Identifier: MIT */
/* The host facts a run starts from (run_host.c).  Each touches the OS. */
#ifndef CONFINE_RUN_HOST_H
#define CONFINE_RUN_HOST_H

#include "request.h"

/* The caller's environment, or the one the request carries: *env points at one of them
 * (copy is filled in the first case and released by the caller). */
int cf_run_base_env(const confine_request *req, struct cf_strv *copy, const struct cf_strv **env,
		    struct confine_error *err);
/* run->home (canonical; $HOME or the password database's) and the password database's own
 * home when it differs (run->pw_home, pw_name, pw_user_rules). */
int cf_run_find_home(confine_run *run, const struct cf_strv *env, struct confine_error *err);
/* run->workspace, canonical, a directory, and not /, a home or an ancestor of one (R1). */
int cf_run_resolve_workspace(confine_run *run, const confine_request *req,
			     struct confine_error *err);
/* The host's directories (TMPDIR, the runtime directory, confine's config, cache and state),
 * the git guards, and run->host from them. */
int cf_run_host_facts(confine_run *run, const struct cf_strv *env, struct confine_error *err);
/* R30: confine's own directories that do not exist but that the command could create are
 * created now (0700), so that the write-deny overrides hold them; refused where they cannot
 * be. */
int cf_run_keep_state_dirs(confine_run *run, struct confine_error *err);

#endif

/* SPDX-License-Identifier: MIT */
/* Rule files loaded for a run or a plan: see rulefile.h.  Touches the OS (cf_rulefile_read). */
#include <stdlib.h>

#include "host/rulefile.h"

int cf_rulefile_load(const char *path, enum cf_layer layer, bool missing_ok, struct cf_ruleset *out,
		     struct cf_net_rules *net, struct confine_error *err)
{
	char *text = NULL;
	size_t len = 0;
	struct cf_diags diags = {0};
	/* The read's failure in a struct of its own: the caller's is changed only when this
	 * failure is the one it records (cf_err_publish). */
	struct confine_error read_err = {0};
	int r = cf_rulefile_read(path, &text, &len, &read_err);
	if (r == CONFINE_E_NOTFOUND && missing_ok)
		return 0;
	if (r < 0) {
		/* A missing session file is a rule error. */
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
	if (r < 0 && r != CONFINE_E_NOMEM)
#ifdef _WIN32
		/* The Windows build has no check yet (cli/win_cmds.c). */
		cf_err_hint(err,
			    "fix the rule file; 'confine check' is not in the Windows build yet");
#else
		cf_err_hint(err, "run 'confine check %s' to list every error", path);
#endif
out:
	cf_diags_release(&diags);
	free(text);
	return r;
}

int cf_rulefiles_each(const struct cf_strv *session_files, const char *workspace,
		      const char *user_file, cf_rulefile_fn fn, void *ctx,
		      struct confine_error *err)
{
	int r = 0;
	for (size_t i = 0; r == 0 && session_files && i < session_files->n; i++)
		r = fn(ctx, session_files->v[i], CF_LAYER_SESSION, false, err);
	if (r < 0 || !workspace)
		return r;
	char *wsfile = cf_path_join(workspace, CF_RULEFILE_WORKSPACE);
	if (!wsfile)
		return cf_nomem(err);
	r = fn(ctx, wsfile, CF_LAYER_WORKSPACE, true, err);
	free(wsfile);
	if (r < 0 || !user_file)
		return r;
	return fn(ctx, user_file, CF_LAYER_USER, true, err);
}

/* SPDX-License-Identifier: MIT */
/*
 * The policy a Seatbelt profile is compiled from (SPEC 9): the built-in layers with the Mac's
 * temp roots and guards, the rules resolved through the Mac's canonicalisation and checked for
 * what a profile can hold (R26), the workspace check of R1, approved targets, and the read
 * posture explain reports.  Pure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/macos/sbpl_int.h"
#include "plan/verdict.h"
#include "policy/policy.h"
#include "util/util.h"

/* Read and write guards a Mac adds to the list of SPEC 2.3: its credential stores, browser
 * and mail data, Docker Desktop's engine socket; the host's password database and the key of
 * the System keychain. */
static const char *const mac_home_guards[] = {
    "~/Library/Keychains",
    "~/Library/Cookies",
    "~/Library/Safari",
    "~/Library/Mail",
    "~/Library/Messages",
    "~/Library/Application Support/Google/Chrome",
    "~/Library/Application Support/Firefox",
    "~/Library/Application Support/BraveSoftware",
    "~/.docker/run",
};
static const char *const mac_host_guards[] = {
    "/private/etc/master.passwd",
    "/private/var/db/dslocal",
    "/private/var/db/SystemKey",
};

/* ---- the policy ---- */

static int add_builtin(struct cf_policy *p, const char *const *pats, size_t n,
		       struct confine_error *err)
{
	struct cf_ruleset rs = {0};
	int r = 0;
	for (size_t i = 0; i < n && r == 0; i++) {
		struct cf_rule x = {
		    .pattern = (char *)pats[i],
		    .access = CF_ACC_BOTH,
		    .action = CF_ASK,
		    .layer = CF_LAYER_GUARD,
		    .source = "builtin",
		    .index = (int)(p->layers[CF_LAYER_GUARD].n + i),
		};
		r = cf_ruleset_add(&rs, &x, err);
	}
	if (r == 0)
		r = cf_policy_add_rules(p, CF_LAYER_GUARD, &rs, err);
	cf_ruleset_release(&rs);
	return r;
}

/* R1 on a Mac: not /, not the home or above it, no guarded credential path inside. */
static int check_workspace(const struct cf_policy *p, const char *ws, const char *home,
			   struct confine_error *err)
{
	return cf_plan_refuse_workspace(ws, home, !strcmp(ws, "/"), "it is the root directory '/'",
					&p->layers[CF_LAYER_GUARD], ws, err);
}

/* Every resolved path of a layer must be one a profile can hold (R26), or the rule is refused
 * with its place in its file. */
static int check_layer(const struct cf_ruleset *rs, struct confine_error *err)
{
	for (size_t i = 0; i < rs->n; i++) {
		const struct cf_rule *x = &rs->v[i];
		const char *why = cf_mac_string_problem(x->path, strlen(x->path), true);
		if (!why)
			continue;
		char *shown = cf_mac_shown(x->path, strlen(x->path));
		bool in_file = x->line > 0;
		cf_err(
		    err, CONFINE_E_RULES, "rule refused for the macOS profile",
		    in_file ? x->source : (shown ? shown : "?"),
		    "'%s': %s; a Seatbelt profile takes no quote, backslash, NUL, control "
		    "character or invalid UTF-8 in a path, and confine refuses such a path rather "
		    "than escape it",
		    shown ? shown : "?", why);
		if (err && in_file) {
			err->line = x->line;
			err->column = x->column;
		}
		free(shown);
		return CONFINE_E_RULES;
	}
	return 0;
}

/* The built-in host guards with wildcards ("/etc/ssh/ssh_host_*_key") keep their prefix as
 * written; on a Mac /etc is a link, and Seatbelt matches the resolved path.  Canonicalising
 * the literal prefix of every rule again is a no-op for the others. */
static int recanon(const struct cf_mac_host *h, struct cf_rule *x, struct confine_error *err)
{
	size_t plen = x->glob ? x->prefix_len : strlen(x->path);
	char *prefix = cf_strndup(x->path, plen ? plen : 1), *canon = NULL;
	if (!prefix)
		return cf_nomem(err);
	int r = h->canonicalize(h->ctx, prefix, &canon, err);
	free(prefix);
	if (r < 0)
		return r;
	const char *rest = x->path + plen;
	while (*rest == '/')
		rest++;
	char *full =
	    *rest ? cf_asprintf("%s/%s", strcmp(canon, "/") ? canon : "", rest) : cf_strdup(canon);
	size_t clen = strlen(canon);
	free(canon);
	if (!full)
		return cf_nomem(err);
	free(x->path);
	x->path = full;
	x->prefix_len = x->glob ? (clen == 1 ? 1 : clen) : strlen(full);
	return 0;
}

int cf_mac_policy(const struct cf_mac_input *in, struct cf_host *ph, struct cf_policy *p,
		  struct confine_error *err)
{
	const struct cf_mac_host *h = in->host;
	int r;
	*ph = (struct cf_host){
	    .home = h->home,
	    .workspace = h->workspace,
	    .user_rules_file = h->user_rules,
	    .ssh_auth_sock_dir = h->ssh_auth_sock_dir,
	    .kind = h->kind,
	    .canonicalize = h->canonicalize,
	    .ctx = h->ctx,
	};
	const char *facts[] = {h->home, h->workspace, h->user_rules};
	for (size_t i = 0; i < sizeof(facts) / sizeof(facts[0]); i++) {
		if (!facts[i])
			return cf_err(
			    err, CONFINE_E_INVALID, "invalid host facts", "",
			    "the home, the workspace and the user rule file must be known");
		if ((r = cf_mac_check_path(facts[i], "invalid host facts", err)) < 0)
			return r;
	}
	/* git reads the same files on a Mac: the guards of a plain .git directory (the host facts
	 * of a Mac come from a facts file, not from host/git.c). */
	struct cf_strv git = {0};
	if ((r = cf_git_plain_guards(h->workspace, &git, err)) < 0)
		goto fail;
	ph->git_guards = &git;
	r = cf_policy_init(p, ph, err);
	ph->git_guards = NULL; /* copied into the rules; the list ends here */
	cf_strv_release(&git);
	if (r < 0)
		goto fail;
	/* The fallback's write roots on a Mac: /private/tmp and $TMPDIR, canonical. */
	cf_strv_release(&p->temp_roots);
	for (size_t i = 0; h->temp && i < h->temp->n; i++)
		if (cf_strv_add(&p->temp_roots, h->temp->v[i]) < 0) {
			r = cf_nomem(err);
			goto fail;
		}
	if ((r = add_builtin(p, mac_home_guards, sizeof(mac_home_guards) / sizeof(char *), err)) <
		0 ||
	    (r = add_builtin(p, mac_host_guards, sizeof(mac_host_guards) / sizeof(char *), err)) <
		0 ||
	    (r = check_workspace(p, h->workspace, h->home, err)) < 0)
		goto fail;
	const struct cf_ruleset *layers[] = {in->session, in->workspace_rules, in->user_rules};
	const enum cf_layer ids[] = {CF_LAYER_SESSION, CF_LAYER_WORKSPACE, CF_LAYER_USER};
	for (size_t i = 0; i < 3; i++)
		if (layers[i] && (r = cf_policy_add_rules(p, ids[i], layers[i], err)) < 0)
			goto fail;
	for (int l = 0; l < CF_LAYER_FALLBACK; l++) {
		struct cf_ruleset *rs = &p->layers[l];
		for (size_t i = 0; i < rs->n; i++)
			if ((r = recanon(h, &rs->v[i], err)) < 0)
				goto fail;
		if ((r = check_layer(rs, err)) < 0)
			goto fail;
		/* SPEC 2.2: compiled for macOS, patterns match case-insensitively. */
		for (size_t i = 0; i < rs->n; i++)
			if (rs->v[i].glob)
				rs->v[i].fold_case = true;
	}
	return 0;
fail:
	cf_policy_release(p);
	memset(p, 0, sizeof(*p));
	return r;
}

bool cf_mac_fallback_readable(const struct cf_mac_input *in, const struct cf_policy *p,
			      const char *path)
{
	const struct cf_mac_host *h = in->host;
	if (!strcmp(path, "/") || cf_path_within(path, h->workspace))
		return true;
	for (size_t i = 0; i < cf_mac_n_root_links; i++)
		if (!strcmp(path, cf_mac_root_links[i]))
			return true;
	for (size_t i = 0; i < cf_mac_n_system_roots; i++)
		if (cf_path_within(path, cf_mac_system_roots[i]))
			return true;
	for (size_t i = 0; i < p->temp_roots.n; i++)
		if (cf_path_within(path, p->temp_roots.v[i]))
			return true;
	for (size_t i = 0; h->cache && i < h->cache->n; i++)
		if (cf_path_within(path, h->cache->v[i]))
			return true;
	for (size_t i = 0; in->grants && i < in->grants->n; i++)
		if (cf_path_within(path, in->grants->v[i].path))
			return true;
	for (int l = 0; l < CF_LAYER_FALLBACK; l++)
		for (size_t i = 0; i < p->layers[l].n; i++) {
			const struct cf_rule *r = &p->layers[l].v[i];
			if (r->action == CF_ALLOW && !r->glob && (r->access & CF_ACC_WRITE) &&
			    cf_path_within(path, r->path))
				return true;
		}
	return false;
}

/* ---- approved targets ---- */

static int grant_canon(void *ctx, const char *path, char **out, struct confine_error *err)
{
	const struct cf_mac_host *h = ctx;
	char *abs;
	int r = cf_mac_check_path(path[0] == '~'   ? "/"
				  : path[0] == '/' ? path
						   : "/",
				  "write target refused", err);
	if (r < 0)
		return r;
	if (strpbrk(path, "*?"))
		return cf_err(err, CONFINE_E_INVALID, "write target refused", path,
			      "a write target names one file or directory, not a pattern");
	if (path[0] == '~' && (path[1] == '\0' || path[1] == '/'))
		abs = cf_path_join(h->home, path[1] ? path + 2 : ".");
	else if (path[0] == '/')
		abs = cf_path_normalize(path);
	else
		abs = cf_path_join(h->cwd ? h->cwd : h->workspace, path);
	if (!abs)
		return cf_nomem(err);
	r = cf_mac_check_path(abs, "write target refused", err);
	if (r == 0)
		r = h->canonicalize(h->ctx, abs, out, err);
	free(abs);
	return r;
}

static enum cf_kind grant_kind(void *ctx, const char *path)
{
	const struct cf_mac_host *h = ctx;
	return h->kind(h->ctx, path);
}

int cf_mac_grants(const struct cf_mac_host *h, const char *const *args, size_t n,
		  const char *reason, struct cf_grants *out, struct confine_error *err)
{
	struct cf_grant_host gh = {
	    .home = h->home,
	    .fold_case = true,
	    .canonicalize = grant_canon,
	    .kind = grant_kind,
	    .ctx = (void *)h,
	};
	return cf_grants_validate(args, n, reason, &gh, out, err);
}

/* SPDX-License-Identifier: MIT */
/*
 * Other names of protected files (R37), the policy's half: which trees are protected and which
 * are writable (where host/alias.c looks), and the guard rule that protects a hard link found
 * in a writable area like the protected name it shares its inode with.  Pure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/policy.h"
#include "util/util.h"

/* Protected by a rule: reading is not allowed, or writing is not allowed by a rule (the
 * fallback's "ask" outside the writable areas protects everything there and is not a reason to
 * look for aliases of all of it). */
static bool protects(const struct cf_decision *rd, const struct cf_decision *wr)
{
	return rd->action != CF_ALLOW || (wr->action != CF_ALLOW && wr->layer != CF_LAYER_FALLBACK);
}

bool cf_policy_protects(const struct cf_policy *p, const char *path)
{
	struct cf_decision rd, wr;
	cf_policy_decide_both(p, path, &rd, &wr);
	return protects(&rd, &wr);
}

bool cf_policy_alias_covered(const struct cf_policy *p, const char *alias, const char *original)
{
	struct cf_decision ra, wa, ro, wo;
	cf_policy_decide_both(p, alias, &ra, &wa);
	cf_policy_decide_both(p, original, &ro, &wo);
	return (ro.action == CF_ALLOW || ra.action != CF_ALLOW) &&
	       (wo.action == CF_ALLOW || wa.action != CF_ALLOW);
}

static bool in_temp_root(const struct cf_policy *p, const char *path)
{
	for (size_t i = 0; i < p->temp_roots.n; i++)
		if (cf_path_within(path, p->temp_roots.v[i]))
			return true;
	return false;
}

/* One candidate path: protected, writable host content, or neither. */
static int sort_root(const struct cf_policy *p, const char *path, struct cf_strv *prot,
		     struct cf_strv *writ)
{
	struct cf_decision rd, wr;
	cf_policy_decide_both(p, path, &rd, &wr);
	struct cf_strv *to = NULL;
	if (protects(&rd, &wr))
		to = prot;
	else if (rd.action == CF_ALLOW && wr.action == CF_ALLOW && !in_temp_root(p, path))
		to = writ; /* a private /tmp holds no host file */
	if (!to || cf_strv_contains(to, path))
		return 0;
	return cf_strv_add(to, path) < 0 ? CONFINE_E_NOMEM : 0;
}

int cf_policy_alias_roots(const struct cf_policy *p, const struct cf_matches *globs,
			  struct cf_strv *prot, struct cf_strv *writ, struct confine_error *err)
{
	int r = sort_root(p, p->host->workspace, prot, writ);
	for (int l = 0; l < CF_LAYER_FALLBACK && r == 0; l++) {
		const struct cf_ruleset *rs = &p->layers[l];
		for (size_t i = 0; i < rs->n && r == 0; i++)
			if (!rs->v[i].glob && rs->v[i].path && rs->v[i].path[0] == '/')
				r = sort_root(p, rs->v[i].path, prot, writ);
	}
	for (size_t i = 0; globs && i < globs->n && r == 0; i++)
		r = sort_root(p, globs->v[i].path, prot, writ);
	return r < 0 ? cf_nomem(err) : 0;
}

int cf_policy_add_alias(struct cf_policy *p, const char *alias, const char *original,
			struct confine_error *err)
{
	struct cf_decision rd, wr;
	cf_policy_decide_both(p, original, &rd, &wr);
	struct cf_rule rule = {
	    .path = (char *)alias,
	    .access = rd.action != CF_ALLOW ? CF_ACC_BOTH : CF_ACC_WRITE,
	    .action = rd.action != CF_ALLOW ? rd.action : wr.action,
	    .layer = CF_LAYER_GUARD,
	    .source = "builtin",
	    .index = (int)p->layers[CF_LAYER_GUARD].n,
	    .prefix_len = strlen(alias),
	};
	if (rule.action == CF_ALLOW)
		return 0; /* nothing to protect (the rules changed since the search) */
	/* The same rule made by an earlier plan of this run is there already. */
	struct cf_ruleset *g = &p->layers[CF_LAYER_GUARD];
	char *pattern = cf_asprintf("(a hard link of %s)", original);
	if (!pattern)
		return cf_nomem(err);
	for (size_t i = 0; i < g->n; i++)
		if (!strcmp(g->v[i].path, alias) && !strcmp(g->v[i].pattern, pattern) &&
		    g->v[i].access == rule.access && g->v[i].action == rule.action) {
			free(pattern);
			return 0;
		}
	rule.pattern = pattern;
	int r = cf_ruleset_add(g, &rule, err);
	free(pattern);
	return r;
}

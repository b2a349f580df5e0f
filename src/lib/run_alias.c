/* SPDX-License-Identifier: MIT */
/*
 * Other names of protected files (R37) in a run: the search of host/alias.h over the trees the
 * policy names (policy/aliases.c), its finds made guards before the plan, and the same answer
 * for explain, so that what explain says is what the run does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "host/alias.h"
#include "request.h"
#include "rules/pattern.h"
#include "util/util.h"

static bool alias_protected(void *ctx, const char *path)
{
	return cf_policy_protects(ctx, path);
}

static bool alias_covered(void *ctx, const char *alias, const char *original)
{
	return cf_policy_alias_covered(ctx, alias, original);
}

static int find(const struct cf_policy *p, const struct cf_strv *prot, const struct cf_strv *writ,
		struct cf_aliases *found, struct confine_error *err)
{
	struct cf_scan_budget b = CF_SCAN_BUDGET_DEFAULT;
	struct cf_alias_query q = {.protected_roots = prot,
				   .writable_roots = writ,
				   .is_protected = alias_protected,
				   .covers = alias_covered,
				   .ctx = (void *)p,
				   .budget = &b};
	return cf_host_find_aliases(&q, found, err);
}

int cf_run_protect_aliases(confine_run *run, const struct cf_matches *globs,
			   struct confine_error *err)
{
	struct cf_strv prot = {0}, writ = {0};
	struct cf_aliases found = {0};
	int r = cf_policy_alias_roots(&run->policy_rules, globs, &prot, &writ, err);
	if (r == 0)
		r = find(&run->policy_rules, &prot, &writ, &found, err);
	for (size_t i = 0; i < found.n && r == 0; i++)
		r = cf_policy_add_alias(&run->policy_rules, found.v[i].alias, found.v[i].original,
					err);
	cf_aliases_release(&found);
	cf_strv_release(&prot);
	cf_strv_release(&writ);
	return r;
}

/* Explain runs no glob scan: the trees of the glob rules (their wildcard-free directories) are
 * searched whole, for the one file asked about. */
int cf_run_explain_alias(const confine_run *run, const char *path, enum confine_access access,
			 struct confine_decision *out, struct confine_error *err)
{
	const struct cf_policy *p = &run->policy_rules;
	struct cf_strv prot = {0}, writ = {0};
	struct cf_aliases found = {0};
	struct stat st;
	if (lstat(path, &st) < 0 || !S_ISREG(st.st_mode) || st.st_nlink < 2)
		return 0;
	int r = cf_policy_alias_roots(p, NULL, &prot, &writ, err);
	for (int l = 0; l < CF_LAYER_FALLBACK && r == 0; l++)
		for (size_t i = 0; i < p->layers[l].n && r == 0; i++) {
			const struct cf_rule *rule = &p->layers[l].v[i];
			if (!rule->glob || !rule->path || rule->path[0] != '/')
				continue;
			char *root = cf_strndup(rule->path, cf_pattern_literal_prefix(rule->path));
			if (!root ||
			    (!cf_strv_contains(&prot, root) && cf_strv_add(&prot, root) < 0))
				r = cf_nomem(err);
			free(root);
		}
	cf_strv_release(&writ);
	if (r == 0 && cf_strv_add(&writ, path) < 0)
		r = cf_nomem(err);
	if (r == 0)
		r = find(p, &prot, &writ, &found, err);
	/* The strictest of the protected names decides, as the guards of a run would. */
	for (size_t i = 0; i < found.n && r >= 0; i++) {
		struct cf_decision rd, wr;
		cf_policy_decide_both(p, found.v[i].original, &rd, &wr);
		const struct cf_decision *d = access == CONFINE_ACCESS_READ ? &rd : &wr;
		if (rd.action != CF_ALLOW)
			d = &rd; /* hidden: neither read nor written */
		if (d->action == CF_ALLOW || out->action >= (enum confine_action)d->action)
			continue;
		out->action = (enum confine_action)d->action;
		snprintf(out->layer, sizeof(out->layer), "%s", cf_layer_name(CF_LAYER_GUARD));
		out->has_rule = true;
		snprintf(out->source, sizeof(out->source), "builtin");
		snprintf(out->pattern, sizeof(out->pattern), "(a hard link of %s)",
			 found.v[i].original);
		out->index = out->line = out->column = 0;
		out->has_outranked = false;
		r = 1;
	}
	cf_aliases_release(&found);
	cf_strv_release(&prot);
	cf_strv_release(&writ);
	return r;
}

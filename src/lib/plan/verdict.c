/* SPDX-License-Identifier: MIT */
/* The why and the refusals of a path's decisions, for every planner (verdict.h). */
#include <stdio.h>
#include <string.h>

#include "plan/verdict.h"
#include "util/util.h"

static void describe(struct cf_buf *b, const char *access, const struct cf_decision *d)
{
	cf_buf_addf(b, "%s: %s (%s", access, cf_action_name(d->action), cf_layer_name(d->layer));
	if (d->rule)
		cf_buf_addf(b, " %s", d->rule->pattern);
	cf_buf_addc(b, ')');
}

char *cf_plan_why(const struct cf_decision *rd, const struct cf_decision *wr)
{
	struct cf_buf b;
	cf_buf_init(&b);
	describe(&b, "read", rd);
	cf_buf_add(&b, "; ");
	describe(&b, "write", wr);
	return cf_buf_take(&b);
}

const char *cf_plan_rule_where(const struct cf_rule *r, char *buf, size_t n)
{
	if (r->line > 0)
		snprintf(buf, n, "'%s' (%s:%d:%d)", r->pattern, r->source, r->line, r->column);
	else
		snprintf(buf, n, "'%s' (%s rule %d)", r->pattern, r->source, r->index);
	return buf;
}

int cf_plan_refuse_contradiction(const char *path, const struct cf_decision *rd,
				 const struct cf_decision *wr, struct confine_error *err)
{
	char a[512], b[512];
	if (rd->action == CF_ALLOW || wr->action != CF_ALLOW)
		return 0;
	int r = cf_err(err, CONFINE_E_PLAN, "rules contradict each other", path,
		       "%s allows write beneath the read-deny of %s; a path cannot be writable "
		       "and unreadable",
		       cf_plan_rule_where(wr->rule, a, sizeof(a)),
		       rd->rule ? cf_plan_rule_where(rd->rule, b, sizeof(b)) : "the fallback");
	cf_err_hint(err, "allow read as well, or remove the write allow");
	return r;
}

int cf_plan_refuse_root(const char *path, const struct cf_decision *rd, struct confine_error *err)
{
	char a[512];
	if (rd->action == CF_ALLOW || strcmp(path, "/"))
		return 0;
	int r = cf_err(err, CONFINE_E_PLAN, "cannot hide the root directory", "/",
		       "%s denies reading '/': nothing would be left to run, not even the command",
		       rd->rule ? cf_plan_rule_where(rd->rule, a, sizeof(a)) : "a rule");
	cf_err_hint(err, "deny the directories that matter (for example '~:read' with allows "
			 "for what the command needs)");
	return r;
}

int cf_plan_refuse(const char *path, const struct cf_decision *rd, const struct cf_decision *wr,
		   struct confine_error *err)
{
	int r = cf_plan_refuse_contradiction(path, rd, wr, err);
	return r < 0 ? r : cf_plan_refuse_root(path, rd, err);
}

static const char workspace_hint[] =
    "run confine from a project directory, or pass --workspace DIR";

int cf_plan_refuse_workspace_guards(const char *ws, const struct cf_ruleset *guards,
				    const char *shown, struct confine_error *err)
{
	for (size_t i = 0; i < guards->n; i++) {
		const struct cf_rule *g = &guards->v[i];
		if (strncmp(g->pattern, "~/", 2) || g->glob || !cf_path_within(g->path, ws))
			continue;
		cf_err(err, CONFINE_E_WORKSPACE, "workspace refused", shown,
		       "it contains the guarded credential path '%s'", g->pattern);
		cf_err_hint(err, "%s", workspace_hint);
		return CONFINE_E_WORKSPACE;
	}
	return 0;
}

int cf_plan_refuse_workspace(const char *ws, const char *home, bool root, const char *root_reason,
			     const struct cf_ruleset *guards, const char *shown,
			     struct confine_error *err)
{
	const char *what = "workspace refused";
	int r = 0;
	if (root)
		r = cf_err(err, CONFINE_E_WORKSPACE, what, shown, "%s", root_reason);
	else if (cf_path_within(home, ws))
		r = cf_err(err, CONFINE_E_WORKSPACE, what, shown,
			   strcmp(ws, home) ? "it is an ancestor of the home directory"
					    : "it is the home directory");
	else
		return cf_plan_refuse_workspace_guards(ws, guards, shown, err);
	cf_err_hint(err, "%s", workspace_hint);
	return r;
}

/* SPDX-License-Identifier: MIT */
/*
 * The Windows planner (SPEC 10, R27).  The policy decides, path by path, as on every target;
 * what differs is how a decision becomes enforcement.  A write-restricted token can write
 * where both the user and one of its restricting SIDs may; the plan grants the capability SID
 * write where the policy allows writing and denies it where a write-denied path sits inside
 * such a place.
 *
 * NTFS ACLs are inherited down the tree, and an ACE on an object ranks above the ones it
 * inherits.  So the planner walks every path that a rule or a write root names, parents first,
 * and places an ACE only where the decision differs from what the path would inherit from the
 * nearest ancestor that has one (or, above every ACE, from the token: no write).  What ACLs
 * cannot carry is listed instead of dropped: reads, patterns, paths that do not exist at
 * launch, and the network.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/verdict.h"
#include "plan/windows/plan_win.h"
#include "policy/policy.h"
#include "util/util.h"

const char *cf_win_ace_name(enum cf_win_ace a)
{
	switch (a) {
	case CF_WIN_ACE_ALLOW:
		return "allow write";
	case CF_WIN_ACE_DENY:
		return "deny write";
	case CF_WIN_ACE_NO_RENAME:
		return "deny rename";
	}
	return "?";
}

void cf_win_plan_release(struct cf_win_plan *plan)
{
	if (!plan)
		return;
	free(plan->capability);
	free(plan->workspace);
	free(plan->cwd);
	for (size_t i = 0; i < plan->n_edits; i++) {
		free(plan->edits[i].path);
		free(plan->edits[i].why);
	}
	free(plan->edits);
	for (size_t i = 0; i < plan->n_gaps; i++) {
		struct cf_win_gap *g = &plan->gaps[i];
		free(g->what);
		free(g->rule);
		free(g->path);
		free(g->effect);
		free(g->reason);
	}
	free(plan->gaps);
	cf_strv_release(&plan->argv);
	free(plan->cmdline);
	cf_strv_release(&plan->env);
	cf_strv_release(&plan->env_removed);
	cf_strv_release(&plan->notes);
	cf_win_names_release(&plan->names);
	memset(plan, 0, sizeof(*plan));
}

/* ---- building blocks ---- */

struct ctx {
	const struct cf_win_input *in;
	const struct cf_win_host *h;
	struct cf_policy p;
	struct cf_host ph;
	struct cf_strv git_guards;
	struct cf_win_plan *out;
	struct confine_error *err;
};

static char *show(const struct ctx *c, const char *internal)
{
	return cf_win_path_show(&c->out->names, internal);
}

static int add_gap(struct ctx *c, const char *what, const char *rule, const char *path_internal,
		   const char *effect, const char *reason)
{
	struct cf_win_plan *o = c->out;
	if (o->n_gaps == o->cap_gaps) {
		size_t cap;
		struct cf_win_gap *v = cf_grow_array(o->gaps, o->cap_gaps, 16, sizeof(*v), &cap);
		if (!v)
			return cf_nomem(c->err);
		o->gaps = v;
		o->cap_gaps = cap;
	}
	struct cf_win_gap g = {
	    .what = cf_strdup(what),
	    .rule = cf_strdup(rule),
	    .path = path_internal ? show(c, path_internal) : cf_strdup(""),
	    .effect = cf_strdup(effect),
	    .reason = cf_strdup(reason),
	};
	o->gaps[o->n_gaps++] = g;
	if (!g.what || !g.rule || !g.path || !g.effect || !g.reason)
		return cf_nomem(c->err);
	return 0;
}

static int add_edit(struct ctx *c, const char *path, enum cf_kind kind, enum cf_win_ace ace,
		    char *why /* taken */)
{
	struct cf_win_plan *o = c->out;
	if (!why)
		return cf_nomem(c->err);
	if (o->n_edits == o->cap_edits) {
		size_t cap;
		struct cf_win_edit *v = cf_grow_array(o->edits, o->cap_edits, 16, sizeof(*v), &cap);
		if (!v) {
			free(why);
			return cf_nomem(c->err);
		}
		o->edits = v;
		o->cap_edits = cap;
	}
	char *p = cf_strdup(path);
	if (!p) {
		free(why);
		return cf_nomem(c->err);
	}
	o->edits[o->n_edits++] = (struct cf_win_edit){
	    .path = p,
	    .kind = kind,
	    .ace = ace,
	    .mask = ace == CF_WIN_ACE_ALLOW  ? CF_WIN_MASK_ALLOW
		    : ace == CF_WIN_ACE_DENY ? CF_WIN_MASK_DENY
					     : CF_WIN_MASK_NO_RENAME,
	    .inherit = kind == CF_KIND_DIR && ace != CF_WIN_ACE_NO_RENAME,
	    .why = why,
	};
	return 0;
}

/* "guard ~/.ssh", "session C:\data", "workspace rule 2 (C:\p\.confine\rules.json:4) dist" */
static char *rule_name(const struct cf_rule *r)
{
	if (r->line > 0)
		return cf_asprintf("%s rule %d (%s:%d) %s", cf_layer_name(r->layer), r->index,
				   r->source, r->line, r->pattern);
	return cf_asprintf("%s %s", cf_layer_name(r->layer), r->pattern);
}

/* ---- rules ---- */

/*
 * Adds the rules of rs to a layer: patterns go to the internal form first and, once
 * resolved, get back the text the user wrote (for the plan and error messages).
 */
static int add_layer(struct ctx *c, enum cf_layer layer, const struct cf_ruleset *rs)
{
	struct cf_ruleset conv = {0};
	int r = 0;
	if (!rs || !rs->n)
		return 0;
	for (size_t i = 0; i < rs->n && r == 0; i++) {
		struct cf_rule x = rs->v[i];
		char *pat = NULL;
		struct confine_error mine = {0};
		r = cf_win_pattern_internal(x.pattern, &pat, &mine);
		if (r < 0) {
			/* The failure of this rule, in a struct of its own, with its place. */
			if (x.line > 0) {
				snprintf(mine.subject, sizeof(mine.subject), "%s", x.source);
				mine.line = x.line;
				mine.column = x.column;
			}
			r = CONFINE_E_RULES;
			mine.code = r;
			cf_err_publish(c->err, &mine);
			break;
		}
		x.pattern = pat;
		x.path = NULL;
		r = cf_ruleset_add(&conv, &x, c->err);
		free(pat);
	}
	size_t first = c->p.layers[layer].n;
	if (r == 0)
		r = cf_policy_add_rules(&c->p, layer, &conv, c->err);
	cf_ruleset_release(&conv);
	if (r < 0)
		return r;
	struct cf_ruleset *dst = &c->p.layers[layer];
	for (size_t i = first; i < dst->n; i++) {
		struct cf_rule *x = &dst->v[i];
		const struct cf_rule *orig = &rs->v[i - first];
		char *pat = cf_strdup(orig->pattern);
		if (!pat)
			return cf_nomem(c->err);
		free(x->pattern);
		x->pattern = pat;
		/* The rule's own spelling shows its path in the plan. */
		if (!x->glob && cf_win_names_add(&c->out->names, x->path, x->pattern) < 0)
			return cf_nomem(c->err);
		if (!cf_win_is_drive_path(x->path)) {
			cf_err(c->err, CONFINE_E_RULES, "invalid rule",
			       x->line > 0 ? x->source : x->pattern,
			       "'%s' leads above the drive (too many '..'): it names no file or "
			       "directory",
			       x->pattern);
			if (c->err && x->line > 0) {
				c->err->line = x->line;
				c->err->column = x->column;
			}
			return CONFINE_E_RULES;
		}
	}
	return 0;
}

/* R1 on Windows: not a drive root, not the home or above it, no guarded credential path. */
static int check_workspace(struct ctx *c)
{
	const char *ws = c->h->workspace;
	char *shown = show(c, ws);
	if (!shown)
		return cf_nomem(c->err);
	int r = cf_plan_refuse_workspace(ws, c->h->home, cf_win_is_drive_root(ws),
					 "it is the root of a drive", &c->p.layers[CF_LAYER_GUARD],
					 shown, c->err);
	free(shown);
	return r;
}

/* ---- gaps that come from the rules themselves ---- */

static const char reason_reads[] =
    "a write-restricted token checks its restricting SIDs for writes only; without "
    "administrator rights Windows offers no way to hide a file from a user's own process";
static const char reason_glob[] =
    "NTFS ACLs name files and directories, not patterns, and this version does not expand "
    "patterns into ACEs on Windows";

static int rule_gaps(struct ctx *c)
{
	int r = 0;
	for (int l = 0; l < CF_LAYER_FALLBACK && r == 0; l++) {
		const struct cf_ruleset *rs = &c->p.layers[l];
		for (size_t i = 0; i < rs->n && r == 0; i++) {
			const struct cf_rule *x = &rs->v[i];
			/* The Linux host's own guards (/etc/shadow, /run/docker.sock) name no
			 * place on a drive. */
			if (!cf_win_is_drive_path(x->path))
				continue;
			char *name = rule_name(x);
			if (!name)
				return cf_nomem(c->err);
			const char *path = x->glob ? NULL : x->path;
			if ((x->access & CF_ACC_READ) && x->action != CF_ALLOW)
				r = add_gap(c, "read", name, path,
					    "not enforced: the command can read it", reason_reads);
			if (r == 0 && (x->access & CF_ACC_WRITE) && x->glob)
				r = add_gap(c, "write", name, NULL,
					    x->action == CF_ALLOW
						? "not granted: the command cannot write there"
						: "not enforced where a match lies in a writable "
						  "place: the command can write it",
					    reason_glob);
			free(name);
		}
	}
	return r;
}

/* ---- write decisions and ACEs ---- */

struct cand {
	char *path;
};

static int cand_cmp(const void *a, const void *b)
{
	return cf_path_cmp(((const struct cand *)a)->path, ((const struct cand *)b)->path);
}

static int add_cand(struct cand **v, size_t *n, size_t *cap, const char *path)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*v)[i].path, path))
			return 0;
	if (*n == *cap) {
		size_t nc;
		struct cand *nv = cf_grow_array(*v, *cap, 32, sizeof(*nv), &nc);
		if (!nv)
			return -1;
		*v = nv;
		*cap = nc;
	}
	if (!((*v)[*n].path = cf_strdup(path)))
		return -1;
	(*n)++;
	return 0;
}

/* The write decision for a path, with its reason as text. */
static bool decide(struct ctx *c, const char *path, char **why)
{
	struct cf_decision d;
	cf_policy_decide(&c->p, path, CF_ACC_WRITE, &d);
	const struct cf_grants *g = c->in->grants;
	/* An approved target is a one-time approval: it lifts guards and rules, not the
	 * overrides that keep confine's own files out of reach (R30). */
	for (size_t i = 0; g && d.layer != CF_LAYER_OVERRIDE && i < g->n; i++) {
		bool hit = g->v[i].scope == CF_GRANT_FILE ? !strcmp(path, g->v[i].path)
							  : cf_path_within(path, g->v[i].path);
		if (hit) {
			char *t = show(c, g->v[i].path);
			*why = t ? cf_asprintf("write: allow (approved %s %s)",
					       cf_grant_scope_name(g->v[i].scope), t)
				 : NULL;
			free(t);
			return true;
		}
	}
	if (d.rule)
		*why = cf_asprintf("write: %s (%s %s)", cf_action_name(d.action),
				   cf_layer_name(d.layer), d.rule->pattern);
	else
		*why = cf_asprintf("write: %s (fallback)", cf_action_name(d.action));
	return d.action == CF_ALLOW;
}

/* The rule text of a decision, for a gap: the deciding rule or "fallback". */
static char *decision_name(struct ctx *c, const char *path)
{
	struct cf_decision d;
	cf_policy_decide(&c->p, path, CF_ACC_WRITE, &d);
	return d.rule ? rule_name(d.rule) : cf_strdup("fallback");
}

/* Refuses a path with a reparse point on its way: an ACL set through a junction or a
 * symbolic link lands on its target, which the plan never looked at. */
static int check_reparse(struct ctx *c, const char *path)
{
	char *cur = cf_strdup(path);
	int r = 0;
	if (!cur)
		return cf_nomem(c->err);
	for (;;) {
		if (c->h->reparse && c->h->reparse(c->h->ctx, cur)) {
			char *p = show(c, path), *at = show(c, cur);
			cf_err(
			    c->err, CONFINE_E_PLAN, "cannot plan write protection", p ? p : path,
			    "'%s' is a reparse point (a junction, symbolic link or mount point): "
			    "an ACL set through it would land on its target",
			    at ? at : cur);
			cf_err_hint(c->err,
				    "use the real path of the target (for a workspace in a "
				    "cloud-synced folder, a local copy), or remove the rule");
			free(p);
			free(at);
			r = CONFINE_E_PLAN;
			break;
		}
		char *slash = strrchr(cur, '/');
		if (!slash || slash == cur || cf_win_is_drive_root(cur))
			break;
		*slash = '\0';
	}
	free(cur);
	return r;
}

struct placed {
	const char *path;
	bool allow;
	bool ace; /* an explicit ACE (not a missing path) */
};

static const char reason_missing[] =
    "it does not exist at launch, and an ACE needs an existing file or directory";

/* The ACE for one candidate, or the gap when none can be placed. */
static int place(struct ctx *c, const char *path, struct placed *placed, size_t *n_placed)
{
	char *why = NULL, *name = NULL;
	int r = 0;
	bool allow = decide(c, path, &why);
	if (!why)
		return cf_nomem(c->err);
	/* What the path inherits: the nearest ancestor with an ACE, else the token's "no". */
	const struct placed *up = NULL;
	for (size_t i = *n_placed; i-- > 0;)
		if (cf_path_within(path, placed[i].path) && strcmp(path, placed[i].path)) {
			up = &placed[i];
			break;
		}
	bool inherited = up && up->allow;
	if (allow == inherited)
		goto out;

	enum cf_kind kind = c->h->kind(c->h->ctx, path);
	if (kind == CF_KIND_MISSING) {
		if (!(name = decision_name(c, path)))
			goto oom;
		if (!allow)
			r = add_gap(c, "write", name, path,
				    "not enforced: the command can create it (its parent is "
				    "writable)",
				    reason_missing);
		else if (up)
			r = add_gap(
			    c, "write", name, path, "not granted: the command cannot create it",
			    "an allow beneath a deny: the path does not exist at launch and "
			    "its parent carries a deny ACE, which a deny-wins ACL cannot "
			    "reopen for one name below it");
		else
			r = add_gap(c, "write", name, path,
				    "not granted: the command cannot create it", reason_missing);
		goto out;
	}
	if ((r = check_reparse(c, path)) < 0)
		goto out;
	if (allow && up && !up->allow) {
		if (!(name = decision_name(c, path)))
			goto oom;
		r = add_gap(c, "write", name, path,
			    "partly enforced: writable inside, but it cannot be re-created once "
			    "removed",
			    "an allow beneath a deny: the path's own ACE ranks above the deny it "
			    "inherits, but its parent refuses new entries");
		if (r < 0)
			goto out;
	}
	r = add_edit(c, path, kind == CF_KIND_DIR ? CF_KIND_DIR : CF_KIND_FILE,
		     allow ? CF_WIN_ACE_ALLOW : CF_WIN_ACE_DENY, why);
	why = NULL;
	if (r == 0)
		placed[(*n_placed)++] = (struct placed){path, allow, true};
	goto out;
oom:
	r = cf_nomem(c->err);
out:
	free(why);
	free(name);
	return r;
}

/*
 * Every directory strictly between a deny and the allow it sits in gets a "deny rename" ACE:
 * otherwise the command renames `.git` away, creates a fresh `.git/hooks` where the host's git
 * will look, and the deny ACE travels with the renamed directory.
 */
static int rename_guards(struct ctx *c, const struct placed *placed, size_t n_placed)
{
	size_t n_deny = c->out->n_edits;
	for (size_t k = 0; k < n_deny; k++) {
		const struct cf_win_edit *e = &c->out->edits[k];
		if (e->ace != CF_WIN_ACE_DENY)
			continue;
		const struct placed *up = NULL;
		for (size_t i = 0; i < n_placed; i++)
			if (cf_path_within(e->path, placed[i].path) &&
			    strcmp(e->path, placed[i].path) &&
			    (!up || strlen(placed[i].path) > strlen(up->path)))
				up = &placed[i];
		if (!up || !up->allow)
			continue;
		char *denied = cf_strdup(e->path);
		if (!denied)
			return cf_nomem(c->err);
		char *cur = cf_strdup(denied);
		int r = 0;
		while (cur && r == 0) {
			char *slash = strrchr(cur, '/');
			*slash = '\0';
			if (!strcmp(cur, up->path) || !cf_path_within(cur, up->path))
				break;
			bool has = false;
			for (size_t j = 0; j < c->out->n_edits && !has; j++)
				has = !strcmp(c->out->edits[j].path, cur);
			if (!has) {
				char *t = show(c, denied);
				r = add_edit(c, cur, CF_KIND_DIR, CF_WIN_ACE_NO_RENAME,
					     t ? cf_asprintf("keeps %s where it is", t) : NULL);
				free(t);
			}
		}
		if (!cur)
			r = cf_nomem(c->err);
		free(cur);
		free(denied);
		if (r < 0)
			return r;
	}
	return 0;
}

static int edit_cmp(const void *a, const void *b)
{
	return cf_path_cmp(((const struct cf_win_edit *)a)->path,
			   ((const struct cf_win_edit *)b)->path);
}

static int write_acls(struct ctx *c)
{
	struct cand *v = NULL;
	size_t n = 0, cap = 0;
	struct placed *placed = NULL;
	size_t n_placed = 0;
	int r = 0;

	if (add_cand(&v, &n, &cap, c->h->workspace) < 0)
		goto oom;
	for (size_t i = 0; c->h->temp && i < c->h->temp->n; i++)
		if (add_cand(&v, &n, &cap, c->h->temp->v[i]) < 0)
			goto oom;
	for (size_t i = 0; c->in->grants && i < c->in->grants->n; i++)
		if (add_cand(&v, &n, &cap, c->in->grants->v[i].path) < 0)
			goto oom;
	for (int l = 0; l < CF_LAYER_FALLBACK; l++) {
		const struct cf_ruleset *rs = &c->p.layers[l];
		for (size_t i = 0; i < rs->n; i++)
			if ((rs->v[i].access & CF_ACC_WRITE) && !rs->v[i].glob &&
			    cf_win_is_drive_path(rs->v[i].path) &&
			    add_cand(&v, &n, &cap, rs->v[i].path) < 0)
				goto oom;
	}
	qsort(v, n, sizeof(*v), cand_cmp);
	if (!(placed = calloc(n ? n : 1, sizeof(*placed))))
		goto oom;
	/* The workspace and the temp roots must be real directories, not reparse points. */
	if ((r = check_reparse(c, c->h->workspace)) < 0)
		goto out;
	for (size_t i = 0; c->h->temp && i < c->h->temp->n; i++)
		if ((r = check_reparse(c, c->h->temp->v[i])) < 0)
			goto out;
	for (size_t i = 0; i < n && r == 0; i++)
		r = place(c, v[i].path, placed, &n_placed);
	if (r == 0)
		r = rename_guards(c, placed, n_placed);
	if (r == 0)
		qsort(c->out->edits, c->out->n_edits, sizeof(*c->out->edits), edit_cmp);
	goto out;
oom:
	r = cf_nomem(c->err);
out:
	for (size_t i = 0; i < n; i++)
		free(v[i].path);
	free(v);
	free(placed);
	return r;
}

static int network_gap(struct ctx *c)
{
	if (c->in->net_allows)
		return add_gap(c, "network", "--net-allow (network by domain)", NULL,
			       "not enforced: the command reaches every host",
			       "Windows offers a user without administrator rights no per-process "
			       "network filter, so no proxy can be made the only way out");
	return add_gap(c, "network", c->in->network ? "network on" : "--no-network", NULL,
		       c->in->network ? "not restricted (as asked)"
				      : "not enforced: the command has the network",
		       "Windows offers a user without administrator rights no per-process network "
		       "filter (firewall rules for one program need an elevated setup)");
}

/* ---- the plan ---- */

int cf_win_plan_compile(const struct cf_win_input *in, struct cf_win_plan *out,
			struct confine_error *err)
{
	const struct cf_win_host *h = in->host;
	struct ctx c = {.in = in, .h = h, .out = out, .err = err};
	int r;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; h->names && i < h->names->internal.n; i++)
		if (cf_strv_add(&out->names.internal, h->names->internal.v[i]) < 0 ||
		    cf_strv_add(&out->names.shown, h->names->shown.v[i]) < 0)
			return cf_nomem(err);
	out->network = in->network;
	out->assumed = h->assumed;
	if (!cf_win_is_drive_path(h->home) || !cf_win_is_drive_path(h->workspace))
		return cf_err(err, CONFINE_E_INVALID, "invalid host facts", h->workspace,
			      "the home and the workspace must be paths on a drive");
	/* The repository's git guards as for a plain .git directory: what git reads there is
	 * the same on Windows. */
	if ((r = cf_git_plain_guards(h->workspace, &c.git_guards, err)) < 0)
		goto out;
	c.ph = (struct cf_host){
	    .home = h->home,
	    .workspace = h->workspace,
	    .git_guards = &c.git_guards,
	    .user_rules_file = h->user_rules,
	    .kind = h->kind,
	    .canonicalize = h->canonicalize,
	    .ctx = h->ctx,
	};
	if ((r = cf_policy_init(&c.p, &c.ph, err)) < 0)
		goto out;
	/* The fallback's write roots on Windows are the temp roots, not /tmp. */
	cf_strv_release(&c.p.temp_roots);
	for (size_t i = 0; h->temp && i < h->temp->n; i++)
		if (cf_strv_add(&c.p.temp_roots, h->temp->v[i]) < 0)
			goto oom;
	if ((r = check_workspace(&c)) < 0 ||
	    (r = add_layer(&c, CF_LAYER_SESSION, in->session)) < 0 ||
	    (r = add_layer(&c, CF_LAYER_WORKSPACE, in->workspace_rules)) < 0 ||
	    (r = add_layer(&c, CF_LAYER_USER, in->user_rules)) < 0 || (r = rule_gaps(&c)) < 0 ||
	    (r = write_acls(&c)) < 0 || (r = network_gap(&c)) < 0)
		goto out;

	if (!(out->capability = cf_strdup(h->capability ? h->capability : "")) ||
	    !(out->workspace = show(&c, h->workspace)))
		goto oom;
	const char *cwd = h->cwd && cf_path_within(h->cwd, h->workspace) ? h->cwd : h->workspace;
	if (!(out->cwd = show(&c, cwd)))
		goto oom;
	for (size_t i = 0; in->argv && i < in->argv->n; i++)
		if (cf_strv_add(&out->argv, in->argv->v[i]) < 0)
			goto oom;
	if (out->argv.n && (r = cf_win_cmdline(&out->argv, &out->cmdline, err)) < 0)
		goto out;
	for (size_t i = 0; in->env && i < in->env->n; i++)
		if (cf_strv_add(&out->env, in->env->v[i]) < 0)
			goto oom;
	for (size_t i = 0; in->env_removed && i < in->env_removed->n; i++)
		if (cf_strv_add(&out->env_removed, in->env_removed->v[i]) < 0)
			goto oom;
	r = 0;
	goto out;
oom:
	r = cf_nomem(err);
out:
	cf_policy_release(&c.p);
	cf_strv_release(&c.git_guards);
	if (r < 0) {
		cf_win_error_paths(&out->names, err);
		cf_win_plan_release(out);
	}
	return r;
}

/* ---- approved targets ---- */

struct grant_ctx {
	const struct cf_win_host *h;
};

static int grant_canon(void *ctx, const char *path, char **out, struct confine_error *err)
{
	const struct grant_ctx *g = ctx;
	char *pat = NULL, *abs = NULL;
	int r = cf_win_pattern_internal(path, &pat, err);
	if (r < 0)
		return r;
	if (strpbrk(pat, "*?")) {
		free(pat);
		return cf_err(err, CONFINE_E_INVALID, "write target refused", path,
			      "a write target names one file or directory, not a pattern");
	}
	if (pat[0] == '~')
		abs = cf_path_join(g->h->home, pat[1] ? pat + 2 : ".");
	else if (pat[0] == '/')
		abs = cf_path_normalize(pat);
	else
		abs = cf_path_join(g->h->cwd ? g->h->cwd : g->h->workspace, pat);
	free(pat);
	if (!abs)
		return cf_nomem(err);
	if (!cf_win_is_drive_path(abs)) {
		free(abs);
		return cf_err(err, CONFINE_E_INVALID, "write target refused", path,
			      "it leads above the drive (too many '..')");
	}
	r = g->h->canonicalize(g->h->ctx, abs, out, err);
	free(abs);
	return r;
}

static enum cf_kind grant_kind(void *ctx, const char *path)
{
	const struct grant_ctx *g = ctx;
	return g->h->kind(g->h->ctx, path);
}

static bool grant_root(void *ctx, const char *path)
{
	(void)ctx;
	return cf_win_is_drive_root(path);
}

int cf_win_grants(const struct cf_win_host *h, const char *const *args, size_t n,
		  const char *reason, struct cf_grants *out, struct confine_error *err)
{
	struct grant_ctx g = {h};
	struct cf_grant_host gh = {
	    .home = h->home,
	    .fold_case = true,
	    .canonicalize = grant_canon,
	    .kind = grant_kind,
	    .is_volume_root = grant_root,
	    .ctx = &g,
	};
	int r = cf_grants_validate(args, n, reason, &gh, out, err);
	if (r < 0)
		cf_win_error_paths(h->names, err);
	return r;
}

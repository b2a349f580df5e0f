/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/policy.h"
#include "util/util.h"

const char *cf_action_name(enum cf_action a)
{
	switch (a) {
	case CF_ALLOW:
		return "allow";
	case CF_ASK:
		return "ask";
	case CF_DENY:
		return "deny";
	}
	return "?";
}

enum cf_action cf_explain_action(const struct cf_decision *d)
{
	return d->layer == CF_LAYER_GUARD && d->action == CF_ASK ? CF_DENY : d->action;
}

const char *cf_layer_name(enum cf_layer l)
{
	static const char *const names[] = {"override",	 "guard", "session",
					    "workspace", "user",  "fallback"};
	return l < CF_LAYER_COUNT ? names[l] : "?";
}

const char *cf_access_name(unsigned access)
{
	switch (access) {
	case CF_ACC_READ:
		return "read";
	case CF_ACC_WRITE:
		return "write";
	case CF_ACC_BOTH:
		return "both";
	}
	return "?";
}

int cf_policy_add_rules(struct cf_policy *p, enum cf_layer layer, const struct cf_ruleset *rs,
			struct confine_error *err)
{
	const struct cf_host *h = p->host;
	struct cf_resolve_ctx rc = {
	    .home = h->home,
	    .workspace = h->workspace,
	    .canonicalize = h->canonicalize,
	    .ctx = h->ctx,
	};
	for (size_t i = 0; i < rs->n; i++) {
		struct cf_rule r = rs->v[i];
		int ret;
		r.layer = layer;
		r.path = NULL;
		ret = cf_rule_resolve(&r, &rc, err);
		if (ret < 0)
			return ret;
		/* R10: a repository cannot grant itself access to your home. */
		if (layer == CF_LAYER_WORKSPACE && r.action == CF_ALLOW &&
		    !cf_path_within(r.path, h->workspace)) {
			char where[64];
			snprintf(where, sizeof(where), "rule %d", r.index);
			ret = cf_err(err, CONFINE_E_RULES,
				     "workspace rule grants access outside the workspace", r.source,
				     "%s allows '%s', which lies outside '%s'", where, r.pattern,
				     h->workspace);
			if (err) {
				err->line = r.line;
				err->column = r.column;
			}
			cf_err_hint(err, "a repository cannot grant itself access outside it; put "
					 "this rule in your user rule file or pass --allow");
			free(r.path);
			return ret;
		}
		ret = cf_ruleset_add(&p->layers[layer], &r, err);
		free(r.path);
		if (ret < 0)
			return ret;
	}
	return 0;
}

/* Does r apply to path?  See cf_policy_decide for the workspace punch-through. */
static bool applies(const struct cf_rule *r, const char *path, const char *ws)
{
	/* Wildcard-free rules are the common case: a component-boundary prefix test. */
	if (r->glob ? !cf_pattern_covers(r->path, path, r->fold_case)
		    : !cf_path_within(path, r->path))
		return false;
	if (!cf_path_within(path, ws))
		return true;
	if (!r->glob)
		return cf_path_within(r->path, ws);
	/* A glob applies inside the workspace only when it matches the path itself or one of its
	 * ancestors at or below the workspace root. */
	size_t wl = strlen(ws);
	char *a = cf_strdup(path);
	bool hit = false;
	if (!a)
		return true; /* fail closed: keep the rule */
	for (;;) {
		if (cf_pattern_match(r->path, a, r->fold_case)) {
			hit = true;
			break;
		}
		char *slash = strrchr(a, '/');
		if (!slash || (size_t)(slash - a) < wl)
			break;
		*slash = '\0';
	}
	free(a);
	return hit;
}

/* Whether an allow of `r` gives back the endpoint guard g: r names the endpoint or a directory
 * at or below the endpoint's own directory (an allow of ~ is not a wish to reach every socket
 * under it). */
static bool lifts_endpoint(const struct cf_rule *r, const struct cf_rule *g)
{
	/* A group stands for the endpoints inside it, whose own directory it is. */
	if (g->group)
		return !strcmp(r->path, g->path);
	const char *slash = strrchr(g->path, '/');
	size_t dl = slash ? (size_t)(slash - g->path) : 0;
	return cf_path_within(g->path, r->path) && strlen(r->path) >= dl &&
	       !strncmp(r->path, g->path, dl) &&
	       (dl == 0 || r->path[dl] == '\0' || r->path[dl] == '/');
}

/* For a liftable guard g covering path: the first session or user allow that gives path back
 * (a host-socket directory guard: an allow of a path strictly below g that covers path; an
 * endpoint guard: see lifts_endpoint), if any. */
static const struct cf_rule *lifted(const struct cf_policy *p, const struct cf_rule *g,
				    const char *path, enum cf_access access)
{
	if (!g->endpoint && !strcmp(path, g->path))
		return NULL;
	const enum cf_layer layers[] = {CF_LAYER_SESSION, CF_LAYER_USER};
	for (size_t k = 0; k < 2; k++) {
		const struct cf_ruleset *rs = &p->layers[layers[k]];
		for (size_t i = 0; i < rs->n; i++) {
			const struct cf_rule *r = &rs->v[i];
			if (r->action != CF_ALLOW || !(r->access & access) || r->glob)
				continue;
			if (g->endpoint
				? lifts_endpoint(r, g)
				: cf_path_within(r->path, g->path) && strcmp(r->path, g->path) &&
				      cf_path_within(path, r->path))
				return r;
		}
	}
	return NULL;
}

/* The endpoint that path is or lies below, by binary search: endpoints are files, so at most
 * one can cover a path, and in cf_path_cmp order it is the last one not after path. */
static const struct cf_rule *endpoint_covering(const struct cf_policy *p, const char *path)
{
	const struct cf_ruleset *e = &p->endpoints;
	size_t lo = 0, hi = e->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (cf_path_cmp(e->v[mid].path, path) <= 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && cf_path_within(path, e->v[lo - 1].path) ? &e->v[lo - 1] : NULL;
}

static bool decided(const struct cf_policy *p, const struct cf_rule *r, const char *path,
		    enum cf_access access, struct cf_decision *out)
{
	const struct cf_rule *give = r->liftable ? lifted(p, r, path, access) : NULL;
	if (give)
		r = give;
	*out = (struct cf_decision){.action = r->action, .layer = r->layer, .rule = r};
	return true;
}

/* The first rule of one layer that covers path for access, or NULL. */
static const struct cf_rule *first_in_layer(const struct cf_policy *p, enum cf_layer l,
					    const char *path, enum cf_access access)
{
	const struct cf_ruleset *rs = &p->layers[l];
	for (size_t i = 0; i < rs->n; i++) {
		const struct cf_rule *r = &rs->v[i];
		if ((r->access & access) && applies(r, path, p->host->workspace))
			return r;
	}
	return NULL;
}

void cf_policy_decide(const struct cf_policy *p, const char *path, enum cf_access access,
		      struct cf_decision *out)
{
	const char *ws = p->host->workspace;
	for (int l = 0; l < CF_LAYER_FALLBACK; l++) {
		const struct cf_ruleset *rs = &p->layers[l];
		for (size_t i = 0; i < rs->n; i++) {
			const struct cf_rule *r = &rs->v[i];
			if (!(r->access & access) || !applies(r, path, ws))
				continue;
			/* R40: a file that holds certificates only is not a secret. */
			if (r->content && p->host->content &&
			    p->host->content(p->host->content_ctx, path) == CF_CONTENT_CERTS)
				continue;
			/* R10b: a workspace file (shipped with a clone, or planted by an earlier
			 * command) never lifts a deny or ask of the user's own file. */
			const struct cf_rule *u =
			    l == CF_LAYER_WORKSPACE && r->action == CF_ALLOW
				? first_in_layer(p, CF_LAYER_USER, path, access)
				: NULL;
			if (u && u->action != CF_ALLOW) {
				*out = (struct cf_decision){.action = u->action,
							    .layer = u->layer,
							    .rule = u,
							    .outranked = r};
				return;
			}
			if (decided(p, r, path, access, out))
				return;
		}
		const struct cf_rule *e = l == CF_LAYER_GUARD ? endpoint_covering(p, path) : NULL;
		if (e && decided(p, e, path, access, out))
			return;
	}
	*out = (struct cf_decision){.action = CF_ALLOW, .layer = CF_LAYER_FALLBACK, .rule = NULL};
	if (access == CF_ACC_READ)
		return;
	if (cf_path_within(path, ws))
		return;
	for (size_t i = 0; i < p->temp_roots.n; i++)
		if (cf_path_within(path, p->temp_roots.v[i]))
			return;
	out->action = CF_ASK;
}

void cf_policy_decide_both(const struct cf_policy *p, const char *path, struct cf_decision *rd,
			   struct cf_decision *wr)
{
	cf_policy_decide(p, path, CF_ACC_READ, rd);
	cf_policy_decide(p, path, CF_ACC_WRITE, wr);
	/* A path hidden for reading is an empty read-only mount: the fallback's write allow (the
	 * workspace, the temp roots) does not reach it.  An explicit write allow does, and the
	 * plan refuses that contradiction. */
	if (rd->action != CF_ALLOW && wr->action == CF_ALLOW && wr->layer == CF_LAYER_FALLBACK)
		*wr = *rd;
}

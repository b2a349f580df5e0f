/* SPDX-License-Identifier: MIT */
/*
 * The parts of the Seatbelt profile that follow from where the command may read and write
 * rather than from one rule: the writable roots, metadata of the ancestors of readable paths,
 * and the unlink guards that keep every protection where it is (the macOS side of R33).
 * Pure.
 */
#include <stdlib.h>
#include <string.h>

#include "plan/macos/sbpl_int.h"
#include "util/util.h"

/* ---- roots, ancestors and protected chains ---- */

static int add_unique(struct cf_strv *v, const char *s)
{
	return cf_strv_contains(v, s) ? 0 : cf_strv_add(v, s);
}

static int strv_path_cmp(const void *a, const void *b)
{
	return cf_path_cmp(*(char *const *)a, *(char *const *)b);
}

void sb_sort_paths(struct cf_strv *v)
{
	if (v->n)
		qsort(v->v, v->n, sizeof(*v->v), strv_path_cmp);
}

/* The writable roots and the extra read roots (write allows and grants read at the fallback's
 * priority: a write allow on a Mac is not a write-only hole, as it is not on Linux). */
int sb_roots(struct sb_ctx *c)
{
	if (add_unique(&c->wroots, c->h->workspace) < 0)
		return -1;
	for (size_t i = 0; i < c->p.temp_roots.n; i++)
		if (add_unique(&c->wroots, c->p.temp_roots.v[i]) < 0)
			return -1;
	for (int l = 0; l < CF_LAYER_FALLBACK; l++) {
		const struct cf_ruleset *rs = &c->p.layers[l];
		for (size_t i = 0; i < rs->n; i++) {
			const struct cf_rule *r = &rs->v[i];
			if (r->action != CF_ALLOW || r->glob || !(r->access & CF_ACC_WRITE))
				continue;
			if (add_unique(&c->wroots, r->path) < 0 ||
			    add_unique(&c->rroots, r->path) < 0)
				return -1;
		}
	}
	for (size_t i = 0; c->in->grants && i < c->in->grants->n; i++) {
		const struct cf_grant *g = &c->in->grants->v[i];
		if ((g->scope == CF_GRANT_SUBTREE && add_unique(&c->wroots, g->path) < 0) ||
		    add_unique(&c->rroots, g->path) < 0)
			return -1;
	}
	return 0;
}

static int add_ancestors(struct cf_strv *v, const char *path)
{
	char *cur = cf_strdup(path);
	if (!cur)
		return -1;
	for (;;) {
		char *slash = strrchr(cur, '/');
		if (!slash || slash == cur)
			break;
		*slash = '\0';
		if (add_unique(v, cur) < 0) {
			free(cur);
			return -1;
		}
	}
	free(cur);
	return 0;
}

/* Metadata of every ancestor of what the command may read, so that realpath() and friends
 * resolve paths into it; the ancestors stay unlistable and unreadable. */
void sb_ancestors(struct sb_ctx *c)
{
	struct cf_strv a = {0};
	struct cf_strv readable = {0};
	int r = 0;
	if (add_unique(&readable, c->h->workspace) < 0)
		r = -1;
	for (size_t i = 0; r == 0 && i < c->p.temp_roots.n; i++)
		r = add_unique(&readable, c->p.temp_roots.v[i]);
	for (size_t i = 0; r == 0 && c->h->cache && i < c->h->cache->n; i++)
		r = add_unique(&readable, c->h->cache->v[i]);
	for (size_t i = 0; r == 0 && i < c->in->n_injections; i++)
		r = add_unique(&readable, c->in->injections[i].scratch);
	/* Rule paths and grants count only where the command may really read them. */
	for (int l = 0; r == 0 && l < CF_LAYER_FALLBACK; l++) {
		const struct cf_ruleset *rs = &c->p.layers[l];
		for (size_t i = 0; r == 0 && i < rs->n; i++) {
			const struct cf_rule *x = &rs->v[i];
			struct cf_decision d;
			if (x->action != CF_ALLOW || x->glob)
				continue;
			cf_policy_decide(&c->p, x->path, CF_ACC_READ, &d);
			if (d.action == CF_ALLOW)
				r = add_unique(&readable, x->path);
		}
	}
	for (size_t i = 0; r == 0 && c->in->grants && i < c->in->grants->n; i++) {
		struct cf_decision d;
		cf_policy_decide(&c->p, c->in->grants->v[i].path, CF_ACC_READ, &d);
		if (d.action == CF_ALLOW)
			r = add_unique(&readable, c->in->grants->v[i].path);
	}
	for (size_t i = 0; r == 0 && i < readable.n; i++)
		r = add_ancestors(&a, readable.v[i]);
	if (r < 0) {
		sb_fail(c, cf_nomem(c->err));
		goto out;
	}
	sb_sort_paths(&a);
	if (a.n) {
		sb_comment(c, "ancestors of readable paths: metadata only (stat, not listing or "
			      "reading), after every deny, so that paths into them resolve");
		sb_add(c, "(allow file-read-metadata file-test-existence");
		for (size_t i = 0; i < a.n; i++)
			sb_filter(c, "literal", a.v[i]);
		sb_add(c, ")\n");
	}
out:
	cf_strv_release(&a);
	cf_strv_release(&readable);
}

/* The outermost writable root that holds `path` (strictly, unless `or_equal`), or NULL. */
static const char *outer_root(const struct sb_ctx *c, const char *path, bool or_equal)
{
	const char *best = NULL;
	for (size_t i = 0; i < c->wroots.n; i++) {
		const char *w = c->wroots.v[i];
		if (!cf_path_within(path, w) || (!or_equal && !strcmp(path, w)))
			continue;
		if (!best || strlen(w) < strlen(best))
			best = w;
	}
	return best;
}

/* Every directory from the outermost writable root that holds `path` down to `last` (the
 * parent of a protected path, or a glob's literal prefix itself). */
static int chain(const struct sb_ctx *c, const char *path, bool or_equal, struct cf_strv *out)
{
	const char *w = outer_root(c, path, or_equal);
	if (!w)
		return 0;
	char *cur = or_equal ? cf_strdup(path) : cf_path_dirname(path);
	if (!cur)
		return -1;
	int r = 0;
	while (r == 0 && cf_path_within(cur, w)) {
		r = add_unique(out, cur);
		if (!strcmp(cur, w) || !strcmp(cur, "/"))
			break;
		char *up = cf_path_dirname(cur);
		free(cur);
		if (!(cur = up))
			return -1;
	}
	free(cur);
	return r;
}

/* Proper prefixes of a glob after its literal part, as exact regexes, for renames that would
 * carry a match away: "ws/ * /secret/x" keeps "ws/ *" and "ws/ * /secret" in place.  A prefix
 * that ends in "**" is left out (it would hold every directory; what follows a "**" matches
 * by name, wherever it is moved). */
static int glob_prefixes(const struct cf_rule *r, struct cf_strv *out)
{
	const char *s = r->path;
	size_t len = strlen(s);
	for (size_t i = r->prefix_len + 1; i < len; i++) {
		if (s[i] != '/')
			continue;
		if (i >= 2 && s[i - 1] == '*' && s[i - 2] == '*' && (i == 2 || s[i - 3] == '/'))
			continue;
		char *re = cf_mac_glob_regex_exact(s, i, true);
		if (!re)
			return -1;
		int k = cf_strv_contains(out, re) ? 0 : cf_strv_add(out, re);
		free(re);
		if (k < 0)
			return -1;
	}
	return 0;
}

void sb_unlink_guards(struct sb_ctx *c)
{
	struct cf_strv lits = {0}, res = {0};
	int r = 0;
	for (int l = 0; r == 0 && l < CF_LAYER_FALLBACK; l++) {
		const struct cf_ruleset *rs = &c->p.layers[l];
		for (size_t i = 0; r == 0 && i < rs->n; i++) {
			const struct cf_rule *x = &rs->v[i];
			if (x->action == CF_ALLOW)
				continue;
			if (!x->glob) {
				r = chain(c, x->path, false, &lits);
				continue;
			}
			char *prefix = cf_strndup(x->path, x->prefix_len ? x->prefix_len : 1);
			if (!prefix) {
				r = -1;
				break;
			}
			if (outer_root(c, prefix, true))
				r = chain(c, prefix, true, &lits);
			if (r == 0)
				r = glob_prefixes(x, &res);
			free(prefix);
		}
	}
	for (size_t i = 0; r == 0 && i < c->in->n_injections; i++)
		r = chain(c, c->in->injections[i].scratch, false, &lits);
	if (r < 0) {
		sb_fail(c, cf_nomem(c->err));
		goto out;
	}
	sb_sort_paths(&lits);
	if (lits.n || res.n) {
		sb_comment(
		    c, "directories between a writable root and a protected path: not removable "
		       "or renamable, so that no protection can be moved away");
		sb_add(c, "(deny file-write-unlink");
		for (size_t i = 0; i < lits.n; i++)
			sb_filter(c, "literal", lits.v[i]);
		for (size_t i = 0; i < res.n; i++)
			sb_regex_filter(c, res.v[i]);
		sb_add(c, ")\n");
	}
out:
	cf_strv_release(&lits);
	cf_strv_release(&res);
}

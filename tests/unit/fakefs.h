/* SPDX-License-Identifier: MIT */
/*
 * A file system made of a table, behind the struct cf_host callbacks, for the pure stages'
 * tests (policy, plan, golden).  Parents of listed paths exist as directories; a listed
 * symlink rewrites every path below it when canonicalising.  Header only.
 */
#ifndef CONFINE_FAKEFS_H
#define CONFINE_FAKEFS_H

#include <stdlib.h>
#include <string.h>

#include "host/facts.h"
#include "policy/policy.h"
#include "util/util.h"

struct fakefs_entry {
	char *path;
	enum cf_kind kind;
	char *target; /* symlinks */
};

struct fakefs {
	struct fakefs_entry v[512];
	size_t n;
};

static inline void fakefs_add(struct fakefs *fs, const char *path, enum cf_kind kind,
			      const char *target)
{
	if (fs->n < sizeof(fs->v) / sizeof(fs->v[0]))
		fs->v[fs->n++] = (struct fakefs_entry){cf_strdup(path), kind, cf_strdup(target)};
}

static inline void fakefs_clear(struct fakefs *fs)
{
	for (size_t i = 0; i < fs->n; i++) {
		free(fs->v[i].path);
		free(fs->v[i].target);
	}
	fs->n = 0;
}

/* struct cf_host.kind; ctx is the struct fakefs. */
static inline enum cf_kind fakefs_kind(void *ctx, const char *path)
{
	const struct fakefs *fs = ctx;
	for (size_t i = 0; i < fs->n; i++)
		if (!strcmp(fs->v[i].path, path))
			return fs->v[i].kind;
	for (size_t i = 0; i < fs->n; i++)
		if (cf_path_within(fs->v[i].path, path))
			return CF_KIND_DIR;
	return CF_KIND_MISSING;
}

/* struct cf_host.canonicalize: lexical, through the symlinks of the table. */
static inline int fakefs_canon(void *ctx, const char *path, char **out, struct confine_error *err)
{
	const struct fakefs *fs = ctx;
	char *cur = cf_path_normalize(path);
	for (int round = 0; cur && round < 40; round++) {
		bool changed = false;
		for (size_t i = 0; i < fs->n && !changed; i++) {
			const struct fakefs_entry *x = &fs->v[i];
			if (x->kind != CF_KIND_SYMLINK || !x->target ||
			    !cf_path_within(cur, x->path))
				continue;
			char *next = cf_asprintf("%s/%s", x->target, cur + strlen(x->path));
			free(cur);
			cur = next ? cf_path_normalize(next) : NULL;
			free(next);
			changed = true;
		}
		if (!changed)
			break;
	}
	if (!cur)
		return cf_nomem(err);
	*out = cur;
	return 0;
}

/* One rule as a user would write it, for table-driven tests. */
struct rspec {
	enum cf_layer layer;
	enum cf_action action;
	const char *pattern; /* NULL ends a zero-terminated table */
	unsigned access;
};

/* Adds rules[0..n) to the policy layer by layer, keeping the written order within each layer
 * (as the files and the command line would).  Session rules come from "session"; file rules
 * from ws_file or user_file, with made-up positions (line 3 + index, column 5). */
static inline int fakefs_load_rules(struct cf_policy *p, const struct rspec *rules, size_t n,
				    const char *ws_file, const char *user_file,
				    struct confine_error *err)
{
	const enum cf_layer layers[] = {CF_LAYER_SESSION, CF_LAYER_WORKSPACE, CF_LAYER_USER};
	for (size_t k = 0; k < sizeof(layers) / sizeof(layers[0]); k++) {
		struct cf_ruleset rs = {0};
		int r = 0;
		for (size_t i = 0; i < n && rules[i].pattern && r == 0; i++) {
			if (rules[i].layer != layers[k])
				continue;
			bool session = layers[k] == CF_LAYER_SESSION;
			struct cf_rule rule = {
			    .pattern = (char *)rules[i].pattern,
			    .access = rules[i].access,
			    .action = rules[i].action,
			    .layer = layers[k],
			    .source = (char *)(session				 ? "session"
					       : layers[k] == CF_LAYER_WORKSPACE ? ws_file
										 : user_file),
			    .index = (int)rs.n,
			    .line = session ? 0 : 3 + (int)rs.n,
			    .column = session ? 0 : 5,
			};
			r = cf_ruleset_add(&rs, &rule, err);
		}
		if (r == 0)
			r = cf_policy_add_rules(p, layers[k], &rs, err);
		cf_ruleset_release(&rs);
		if (r < 0)
			return r;
	}
	return 0;
}

#endif

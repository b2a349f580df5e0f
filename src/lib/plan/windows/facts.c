/* SPDX-License-Identifier: MIT */
/* Windows host facts as a table: parsed from text, answered through callbacks.  Pure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/windows/facts.h"

#define CAPABILITY_PLACEHOLDER "S-1-5-21-<random, new for each run>"

void cf_win_facts_release(struct cf_win_facts *f)
{
	free(f->home);
	free(f->workspace);
	free(f->cwd);
	free(f->user_rules);
	free(f->capability);
	cf_strv_release(&f->temp);
	cf_fact_table_release(&f->table);
	cf_win_names_release(&f->names);
	memset(f, 0, sizeof(*f));
}

/* A Windows path to the internal form, remembering its spelling for the plan text. */
static int take_path(struct cf_win_facts *f, const char *win, const char *what, char **out,
		     struct confine_error *err)
{
	char *p = NULL;
	int r = cf_win_path_internal(win, what, &p, err);
	if (r < 0)
		return r;
	if ((r = cf_win_names_add(&f->names, p, win)) < 0) {
		free(p);
		return cf_nomem(err);
	}
	*out = p;
	return 0;
}

static int set_path(struct cf_win_facts *f, char **slot, const char *win, const char *what,
		    struct confine_error *err)
{
	char *p = NULL;
	int r = take_path(f, win, what, &p, err);
	if (r < 0)
		return r;
	free(*slot);
	*slot = p;
	return 0;
}

static int parse_line(void *ctx, const char *key, const char *val, struct confine_error *err)
{
	struct cf_win_facts *f = ctx;
	char *p = NULL;
	int r;
	if (!strcmp(key, "home"))
		return set_path(f, &f->home, val, "invalid home directory", err);
	if (!strcmp(key, "workspace"))
		return set_path(f, &f->workspace, val, "invalid workspace", err);
	if (!strcmp(key, "cwd"))
		return set_path(f, &f->cwd, val, "invalid current directory", err);
	if (!strcmp(key, "user-rules"))
		return set_path(f, &f->user_rules, val, "invalid user rule file path", err);
	if (!strcmp(key, "temp")) {
		if ((r = take_path(f, val, "invalid temp root", &p, err)) < 0)
			return r;
		return cf_strv_take(&f->temp, p) < 0 ? cf_nomem(err) : 0;
	}
	if (!strcmp(key, "capability")) {
		/* Shown in the plan; only the S-R-I-S... shape of a SID is accepted. */
		if (strncmp(val, "S-1-", 4) || strspn(val + 4, "0123456789-") != strlen(val + 4))
			return cf_err(err, CONFINE_E_INVALID, "invalid host fact", val,
				      "a capability SID looks like S-1-5-21-1-2-3-4");
		free(f->capability);
		f->capability = cf_strdup(val);
		return f->capability ? 0 : cf_nomem(err);
	}
	if (!strcmp(key, "unlisted"))
		return cf_fact_table_read_unlisted(&f->table, val, err);
	enum cf_kind kind;
	bool reparse = !strcmp(key, "reparse");
	if (reparse)
		kind = CF_KIND_DIR;
	else if (!cf_fact_kind_word(key, &kind))
		return cf_err(err, CONFINE_E_INVALID, "invalid host fact", key,
			      "unknown fact (expected home, workspace, cwd, temp, user-rules, "
			      "capability, unlisted, dir, file, other or reparse)");
	if ((r = take_path(f, val, "invalid host fact", &p, err)) < 0)
		return r;
	r = cf_fact_table_set(&f->table, p, kind, reparse, err);
	free(p);
	return r;
}

int cf_win_facts_parse(struct cf_win_facts *f, const char *text, struct confine_error *err)
{
	return cf_facts_read_lines(text, parse_line, f, err);
}

int cf_win_facts_finish(struct cf_win_facts *f, const char *home, const char *workspace,
			struct confine_error *err)
{
	int r = 0;
	if (home && (r = set_path(f, &f->home, home, "invalid home directory", err)) < 0)
		return r;
	if (workspace && (r = set_path(f, &f->workspace, workspace, "invalid workspace", err)) < 0)
		return r;
	if (!f->home && (r = set_path(f, &f->home, "C:\\Users\\user", "home", err)) < 0)
		return r;
	/* Defaults below the home, spelled as Windows spells them. */
	char *h = cf_win_path_show(&f->names, f->home);
	if (!h)
		return cf_nomem(err);
	struct {
		char **slot;
		const char *rel;
	} below[] = {
	    {&f->workspace, "project"},
	    {&f->user_rules, ".config\\confine\\rules.json"},
	};
	for (size_t i = 0; i < 2 && r == 0; i++) {
		if (*below[i].slot)
			continue;
		char *w = cf_asprintf("%s\\%s", h, below[i].rel);
		r = w ? set_path(f, below[i].slot, w, "path", err) : cf_nomem(err);
		free(w);
	}
	if (r == 0 && !f->temp.n) {
		char *w = cf_asprintf("%s\\AppData\\Local\\Temp", h), *t = NULL;
		r = w ? take_path(f, w, "path", &t, err) : cf_nomem(err);
		if (r == 0 && cf_strv_take(&f->temp, t) < 0)
			r = cf_nomem(err);
		free(w);
	}
	free(h);
	if (r < 0)
		return r;
	if (!f->cwd && !(f->cwd = cf_strdup(f->workspace)))
		return cf_nomem(err);
	if (!f->capability && !(f->capability = cf_strdup(CAPABILITY_PLACEHOLDER)))
		return cf_nomem(err);
	/* What a run starts from is a directory, whatever a fact said (the Mac's table keeps
	 * such a fact). */
	const char *dirs[] = {f->home, f->workspace};
	for (size_t i = 0; i < 2; i++)
		if ((r = cf_fact_table_set(&f->table, dirs[i], CF_KIND_DIR, false, err)) < 0)
			return r;
	for (size_t i = 0; i < f->temp.n; i++)
		if ((r = cf_fact_table_set(&f->table, f->temp.v[i], CF_KIND_DIR, false, err)) < 0)
			return r;
	return 0;
}

static enum cf_kind table_kind(void *ctx, const char *path)
{
	const struct cf_win_facts *f = ctx;
	const struct cf_fact *x = cf_fact_table_find(&f->table, path);
	if (x)
		return x->kind;
	if (!cf_win_is_drive_path(path))
		return CF_KIND_MISSING;
	if (cf_win_is_drive_root(path))
		return CF_KIND_DIR;
	return cf_fact_table_unlisted(&f->table, path);
}

static bool table_reparse(void *ctx, const char *path)
{
	const struct cf_win_facts *f = ctx;
	const struct cf_fact *x = cf_fact_table_find(&f->table, path);
	return x && x->reparse;
}

static int table_canon(void *ctx, const char *path, char **out, struct confine_error *err)
{
	(void)ctx;
	*out = cf_path_normalize(path);
	return *out ? 0 : cf_nomem(err);
}

struct cf_win_host cf_win_facts_host(const struct cf_win_facts *f)
{
	return (struct cf_win_host){
	    .home = f->home,
	    .workspace = f->workspace,
	    .cwd = f->cwd,
	    .user_rules = f->user_rules,
	    .temp = &f->temp,
	    .capability = f->capability,
	    .assumed = f->table.unlisted_exists,
	    .names = &f->names,
	    .kind = table_kind,
	    .reparse = table_reparse,
	    .canonicalize = table_canon,
	    .ctx = (void *)f,
	};
}

/* SPDX-License-Identifier: MIT */
/* macOS host facts as a table: parsed from text, answered through callbacks.  Pure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/macos/facts.h"

void cf_mac_facts_release(struct cf_mac_facts *f)
{
	free(f->home);
	free(f->workspace);
	free(f->cwd);
	free(f->user_rules);
	free(f->ssh_auth_sock_dir);
	cf_strv_release(&f->temp);
	cf_strv_release(&f->cache);
	cf_mac_links_release(&f->links);
	cf_fact_table_release(&f->table);
	memset(f, 0, sizeof(*f));
}

int cf_mac_facts_init(struct cf_mac_facts *f, struct confine_error *err)
{
	memset(f, 0, sizeof(*f));
	return cf_mac_links_default(&f->links, err);
}

/* A path of a fact: checked (R26) and kept as written; canonicalised in finish, once every
 * link is known. */
static int set_path(char **slot, const char *val, const char *what, struct confine_error *err)
{
	int r = cf_mac_check_path(val, what, err);
	if (r < 0)
		return r;
	char *p = cf_path_normalize(val);
	if (!p)
		return cf_nomem(err);
	free(*slot);
	*slot = p;
	return 0;
}

static int add_path(struct cf_strv *v, const char *val, const char *what, struct confine_error *err)
{
	char *p = NULL;
	int r = set_path(&p, val, what, err);
	if (r < 0)
		return r;
	return cf_strv_take(v, p) < 0 ? cf_nomem(err) : 0;
}

static int parse_line(void *ctx, const char *key, const char *val, struct confine_error *err)
{
	struct cf_mac_facts *f = ctx;
	if (!strcmp(key, "home"))
		return set_path(&f->home, val, "invalid home directory", err);
	if (!strcmp(key, "workspace"))
		return set_path(&f->workspace, val, "invalid workspace", err);
	if (!strcmp(key, "cwd"))
		return set_path(&f->cwd, val, "invalid current directory", err);
	if (!strcmp(key, "user-rules"))
		return set_path(&f->user_rules, val, "invalid user rule file path", err);
	if (!strcmp(key, "ssh-auth-sock")) {
		char *p = NULL;
		int r = set_path(&p, val, "invalid SSH_AUTH_SOCK", err);
		if (r < 0)
			return r;
		free(f->ssh_auth_sock_dir);
		f->ssh_auth_sock_dir = cf_path_dirname(p);
		free(p);
		return f->ssh_auth_sock_dir ? 0 : cf_nomem(err);
	}
	if (!strcmp(key, "temp"))
		return add_path(&f->temp, val, "invalid temp root", err);
	if (!strcmp(key, "cache"))
		return add_path(&f->cache, val, "invalid cache directory", err);
	if (!strcmp(key, "link")) {
		/* FROM ends where " /" starts TO: both are absolute. */
		const char *sep = strstr(val, " /");
		if (!sep)
			return cf_err(err, CONFINE_E_INVALID, "invalid host fact", val,
				      "'link' takes two absolute paths: link FROM TO");
		char *from = cf_strndup(val, (size_t)(sep - val));
		if (!from)
			return cf_nomem(err);
		int r = cf_mac_links_add(&f->links, from, sep + 1, err);
		free(from);
		return r;
	}
	if (!strcmp(key, "unlisted"))
		return cf_fact_table_read_unlisted(&f->table, val, err);
	enum cf_kind kind;
	if (!cf_fact_kind_word(key, &kind))
		return cf_err(err, CONFINE_E_INVALID, "invalid host fact", key,
			      "unknown fact (expected home, workspace, cwd, temp, cache, "
			      "user-rules, ssh-auth-sock, link, unlisted, dir, file or other)");
	int r = cf_mac_check_path(val, "invalid host fact", err);
	if (r < 0)
		return r;
	/* Kept as written until finish canonicalises the table. */
	return cf_fact_table_set(&f->table, val, kind, false, err);
}

int cf_mac_facts_parse(struct cf_mac_facts *f, const char *text, struct confine_error *err)
{
	return cf_facts_read_lines(text, parse_line, f, err);
}

static int canon_slot(struct cf_mac_facts *f, char **slot, struct confine_error *err)
{
	char *c = NULL;
	if (!*slot)
		return 0;
	int r = cf_mac_canon(&f->links, *slot, &c, err);
	if (r < 0)
		return r;
	free(*slot);
	*slot = c;
	return 0;
}

static int canon_list(struct cf_mac_facts *f, struct cf_strv *v, struct confine_error *err)
{
	for (size_t i = 0; i < v->n; i++) {
		int r = canon_slot(f, &v->v[i], err);
		if (r < 0)
			return r;
	}
	/* Duplicates after canonicalisation ($TMPDIR given as /tmp) collapse. */
	for (size_t i = 0; i < v->n; i++)
		for (size_t j = i + 1; j < v->n;) {
			if (strcmp(v->v[i], v->v[j])) {
				j++;
				continue;
			}
			free(v->v[j]);
			memmove(&v->v[j], &v->v[j + 1], (v->n - j - 1) * sizeof(*v->v));
			v->n--;
		}
	return 0;
}

int cf_mac_facts_finish(struct cf_mac_facts *f, const char *home, const char *workspace,
			const char *default_home, struct confine_error *err)
{
	int r = 0;
	if (home && (r = set_path(&f->home, home, "invalid home directory", err)) < 0)
		return r;
	if (workspace && (r = set_path(&f->workspace, workspace, "invalid workspace", err)) < 0)
		return r;
	if (!f->home) {
		f->home_assumed = true;
		if ((r = set_path(&f->home, default_home ? default_home : "/Users/user",
				  "invalid home directory", err)) < 0)
			return r;
	}
	if (!f->workspace) {
		f->workspace_assumed = true;
		if (!(f->workspace = cf_path_join(f->home, "project")))
			return cf_nomem(err);
	}
	if (!f->user_rules &&
	    !(f->user_rules = cf_path_join(f->home, ".config/confine/rules.json")))
		return cf_nomem(err);
	if (!f->cwd && !(f->cwd = cf_strdup(f->workspace)))
		return cf_nomem(err);
	/* /private/tmp is a temp root of every Mac; it comes first. */
	if (cf_strv_add(&f->temp, "/tmp") < 0)
		return cf_nomem(err);
	char *tmp = f->temp.v[f->temp.n - 1];
	memmove(&f->temp.v[1], &f->temp.v[0], (f->temp.n - 1) * sizeof(*f->temp.v));
	f->temp.v[0] = tmp;
	char **slots[] = {&f->home, &f->workspace, &f->cwd, &f->user_rules, &f->ssh_auth_sock_dir};
	for (size_t i = 0; i < sizeof(slots) / sizeof(slots[0]); i++)
		if ((r = canon_slot(f, slots[i], err)) < 0)
			return r;
	if ((r = canon_list(f, &f->temp, err)) < 0 || (r = canon_list(f, &f->cache, err)) < 0)
		return r;
	for (size_t i = 0; i < f->table.n; i++)
		if ((r = canon_slot(f, &f->table.v[i].path, err)) < 0)
			return r;
	/* What a run starts from exists; a fact that says otherwise wins. */
	const char *dirs[] = {f->home, f->workspace};
	for (size_t i = 0; i < 2; i++)
		if (!cf_fact_table_find(&f->table, dirs[i]) &&
		    (r = cf_fact_table_set(&f->table, dirs[i], CF_KIND_DIR, false, err)) < 0)
			return r;
	struct cf_strv *roots[] = {&f->temp, &f->cache};
	for (size_t k = 0; k < 2; k++)
		for (size_t i = 0; i < roots[k]->n; i++)
			if ((r = cf_fact_table_set(&f->table, roots[k]->v[i], CF_KIND_DIR, false,
						   err)) < 0)
				return r;
	return 0;
}

static enum cf_kind table_kind(void *ctx, const char *path)
{
	const struct cf_mac_facts *f = ctx;
	const struct cf_fact *x = cf_fact_table_find(&f->table, path);
	if (x)
		return x->kind;
	if (!strcmp(path, "/"))
		return CF_KIND_DIR;
	for (size_t i = 0; i < f->links.from.n; i++)
		if (!strcmp(f->links.from.v[i], path))
			return CF_KIND_SYMLINK;
	return cf_fact_table_unlisted(&f->table, path);
}

static int table_canon(void *ctx, const char *path, char **out, struct confine_error *err)
{
	const struct cf_mac_facts *f = ctx;
	return cf_mac_canon(&f->links, path, out, err);
}

struct cf_mac_host cf_mac_facts_host(const struct cf_mac_facts *f)
{
	return (struct cf_mac_host){
	    .home = f->home,
	    .workspace = f->workspace,
	    .cwd = f->cwd,
	    .user_rules = f->user_rules,
	    .temp = &f->temp,
	    .cache = &f->cache,
	    .ssh_auth_sock_dir = f->ssh_auth_sock_dir,
	    .assumed = f->table.unlisted_exists,
	    .links = &f->links,
	    .kind = table_kind,
	    .canonicalize = table_canon,
	    .ctx = (void *)f,
	};
}

/* SPDX-License-Identifier: MIT */
/* The host facts' text form and table, shared by the macOS and Windows targets.  Pure. */
#include <stdlib.h>
#include <string.h>

#include "plan/facts_text.h"
#include "util/util.h"

int cf_facts_read_lines(const char *text, cf_fact_line_fn line_fn, void *ctx,
			struct confine_error *err)
{
	int r = 0, line = 0;
	char *copy = cf_strdup(text);
	if (!copy)
		return cf_nomem(err);
	for (char *s = copy, *nl; s && *s && r == 0; s = nl) {
		nl = strchr(s, '\n');
		if (nl)
			*nl++ = '\0';
		line++;
		size_t n = strlen(s);
		if (n && s[n - 1] == '\r')
			s[--n] = '\0';
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s || *s == '#')
			continue;
		char *sp = strchr(s, ' ');
		if (!sp) {
			r = cf_err(err, CONFINE_E_INVALID, "invalid host fact", s,
				   "expected a keyword, a space and a value");
		} else {
			*sp = '\0';
			r = line_fn(ctx, s, sp + 1, err);
		}
		if (r < 0 && err)
			err->line = line;
	}
	free(copy);
	return r;
}

void cf_fact_table_release(struct cf_fact_table *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i].path);
	free(t->v);
	memset(t, 0, sizeof(*t));
}

const struct cf_fact *cf_fact_table_find(const struct cf_fact_table *t, const char *path)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->v[i].path, path))
			return &t->v[i];
	return NULL;
}

int cf_fact_table_set(struct cf_fact_table *t, const char *path, enum cf_kind kind, bool reparse,
		      struct confine_error *err)
{
	struct cf_fact *had = (struct cf_fact *)cf_fact_table_find(t, path);
	if (had) {
		had->kind = kind;
		had->reparse = had->reparse || reparse;
		return 0;
	}
	if (t->n == t->cap) {
		size_t cap;
		struct cf_fact *v = cf_grow_array(t->v, t->cap, 16, sizeof(*v), &cap);
		if (!v)
			return cf_nomem(err);
		t->v = v;
		t->cap = cap;
	}
	char *p = cf_strdup(path);
	if (!p)
		return cf_nomem(err);
	t->v[t->n++] = (struct cf_fact){p, kind, reparse};
	return 0;
}

enum cf_kind cf_fact_table_unlisted(const struct cf_fact_table *t, const char *path)
{
	for (size_t i = 0; i < t->n; i++)
		if (cf_path_within(t->v[i].path, path))
			return CF_KIND_DIR;
	return t->unlisted_exists ? CF_KIND_DIR : CF_KIND_MISSING;
}

int cf_fact_table_read_unlisted(struct cf_fact_table *t, const char *val, struct confine_error *err)
{
	if (strcmp(val, "missing") && strcmp(val, "exists"))
		return cf_err(err, CONFINE_E_INVALID, "invalid host fact", val,
			      "'unlisted' is 'missing' or 'exists'");
	t->unlisted_exists = !strcmp(val, "exists");
	return 0;
}

bool cf_fact_kind_word(const char *key, enum cf_kind *kind)
{
	static const struct {
		const char *word;
		enum cf_kind kind;
	} words[] = {{"dir", CF_KIND_DIR}, {"file", CF_KIND_FILE}, {"other", CF_KIND_OTHER}};
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		if (!strcmp(key, words[i].word)) {
			*kind = words[i].kind;
			return true;
		}
	}
	return false;
}

/* SPDX-License-Identifier: MIT */
/*
 * Glob and path regexes for the Seatbelt profile.  The dialect used is the small common core
 * of POSIX extended regular expressions that Seatbelt's own profiles use: anchors, bracket
 * expressions, '*', '?', groups and alternation.  Every character of a path that is special in
 * that dialect is escaped with a backslash (the profile writes regexes as #"..." literals,
 * which keep backslashes); letters become two-case classes ("[Pp][Ee][Mm]") because SPEC 2.2
 * makes patterns case-insensitive on macOS.  Pure.
 */
#include <stdlib.h>
#include <string.h>

#include "plan/macos/sbpl.h"
#include "rules/pattern.h"

static void lit(struct cf_buf *b, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
			char lo = (char)(c | 0x20), up = (char)(lo - 'a' + 'A');
			cf_buf_addc(b, '[');
			cf_buf_addc(b, up);
			cf_buf_addc(b, lo);
			cf_buf_addc(b, ']');
		} else {
			if (strchr(".[]()*+?{}|^$\\", c))
				cf_buf_addc(b, '\\');
			cf_buf_addc(b, c);
		}
	}
}

/* One glob component: '*' any run within the component, '?' one character. */
static void comp(struct cf_buf *b, const char *s, size_t n, bool deny)
{
	/* A component is never empty: "*" alone is any name, not also none (else "/ *" would
	 * match "/" itself, which the policy's matcher does not; found by the fuzzer). */
	if (n && strspn(s, "*") >= n) {
		cf_buf_add(b, "[^/]+");
		return;
	}
	size_t run = 0;
	for (size_t i = 0; i <= n; i++) {
		if (i < n && s[i] != '*' && s[i] != '?')
			continue;
		lit(b, s + run, i - run);
		if (i == n)
			break;
		if (s[i] == '*')
			cf_buf_add(b, "[^/]*");
		else
			/* One UTF-8 character is one to four bytes.  An allow takes one byte, so a
			 * multi-byte name is not opened; a deny takes up to four, so one is not
			 * left out. */
			cf_buf_add(b, deny ? "[^/][^/]?[^/]?[^/]?" : "[^/]");
		run = i + 1;
	}
}

struct span {
	const char *s;
	size_t n;
};

/* The components of path[0..len) (empty ones skipped); *out is malloc'd (NULL when none). */
static int split(const char *path, size_t len, struct span **out, size_t *n)
{
	size_t cap = 1;
	for (size_t i = 0; i < len; i++)
		cap += path[i] == '/';
	struct span *v = malloc(cap * sizeof(*v));
	*out = v;
	*n = 0;
	if (!v)
		return -1;
	for (size_t i = 0; i < len;) {
		while (i < len && path[i] == '/')
			i++;
		size_t s = i;
		while (i < len && path[i] != '/')
			i++;
		if (i > s)
			v[(*n)++] = (struct span){path + s, i - s};
	}
	return 0;
}

static bool globstar(const struct span *c)
{
	return cf_is_globstar(c->s, c->n);
}

/* The regex of components c[0..n), each as "/comp"; "**" as any number of whole components. */
static void comps(struct cf_buf *b, const struct span *c, size_t n, bool deny)
{
	for (size_t i = 0; i < n; i++) {
		if (globstar(&c[i])) {
			cf_buf_add(b, "(/[^/]+)*");
			continue;
		}
		cf_buf_addc(b, '/');
		comp(b, c[i].s, c[i].n, deny);
	}
}

/* The text, NULL on oom (cf_buf_take releases an exhausted buffer). */
static char *finish(struct cf_buf *b)
{
	return cf_buf_take(b);
}

char *cf_mac_glob_regex(const char *glob, bool deny)
{
	struct span *c;
	size_t n;
	if (split(glob, strlen(glob), &c, &n) < 0)
		return NULL;
	struct cf_buf b;
	cf_buf_init(&b);
	cf_buf_addc(&b, '^');
	comps(&b, c, n, deny);
	cf_buf_add(&b, "(/|$)");
	free(c);
	return finish(&b);
}

char *cf_mac_glob_regex_exact(const char *glob, size_t len, bool deny)
{
	struct span *c;
	size_t n;
	if (split(glob, len, &c, &n) < 0)
		return NULL;
	struct cf_buf b;
	cf_buf_init(&b);
	cf_buf_addc(&b, '^');
	comps(&b, c, n, deny);
	if (!n)
		cf_buf_addc(&b, '/');
	cf_buf_addc(&b, '$');
	free(c);
	return finish(&b);
}

char *cf_mac_path_regex_ci(const char *path)
{
	struct cf_buf b;
	cf_buf_init(&b);
	cf_buf_addc(&b, '^');
	if (!strcmp(path, "/")) {
		cf_buf_addc(&b, '/');
	} else {
		lit(&b, path, strlen(path));
		cf_buf_add(&b, "(/|$)");
	}
	return finish(&b);
}

/* The states of the glob's component automaton: state i waits for component i; a "**" at i
 * may also be skipped (it matches zero components). */
static void closure(bool *st, const struct span *c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (st[i] && globstar(&c[i]))
			st[i + 1] = true;
}

/* The states of the automaton of c[0..n) after it consumed the components w[0..m): an array of
 * n + 1 flags (the caller frees it), NULL on oom. */
static bool *states_after(const struct span *c, size_t n, const struct span *w, size_t m)
{
	bool *cur = calloc(n + 1, sizeof(*cur)), *next = calloc(n + 1, sizeof(*next));
	if (!cur || !next) {
		free(cur);
		free(next);
		return NULL;
	}
	cur[0] = true;
	closure(cur, c, n);
	for (size_t k = 0; k < m; k++) {
		memset(next, 0, (n + 1) * sizeof(*next));
		for (size_t i = 0; i < n; i++) {
			if (!cur[i])
				continue;
			if (globstar(&c[i]))
				next[i] = true;
			else if (cf_component_match(c[i].s, c[i].n, w[k].s, w[k].n, true))
				next[i + 1] = true;
		}
		closure(next, c, n);
		bool *t = cur;
		cur = next;
		next = t;
	}
	free(next);
	return cur;
}

/* Whether any state is live (*any), and whether one of them has a rest that can match nothing
 * at all, so that the workspace root itself matches (*whole). */
static void what_remains(const bool *cur, const struct span *c, size_t n, bool *any, bool *whole)
{
	*any = *whole = false;
	for (size_t i = 0; i <= n; i++) {
		if (!cur[i])
			continue;
		*any = true;
		bool rest_empty = true;
		for (size_t j = i; j < n && rest_empty; j++)
			rest_empty = globstar(&c[j]);
		*whole = *whole || rest_empty;
	}
}

/* "(alt|alt...)": the regex of the rest of the glob from each live state, each once.
 * Returns 0, or -1 on oom. */
static int add_alternatives(struct cf_buf *b, const bool *cur, const struct span *c, size_t n,
			    bool deny)
{
	struct cf_strv alts = {0};
	for (size_t i = 0; i < n; i++) {
		if (!cur[i])
			continue;
		struct cf_buf a;
		cf_buf_init(&a);
		comps(&a, c + i, n - i, deny);
		char *s = finish(&a);
		if (s && cf_strv_contains(&alts, s)) {
			free(s);
			continue;
		}
		if (!s || cf_strv_take(&alts, s) < 0) {
			cf_strv_release(&alts);
			return -1;
		}
	}
	cf_buf_addc(b, '(');
	for (size_t i = 0; i < alts.n; i++) {
		if (i)
			cf_buf_addc(b, '|');
		cf_buf_add(b, alts.v[i]);
	}
	cf_buf_addc(b, ')');
	cf_strv_release(&alts);
	return 0;
}

/*
 * Inside the workspace, a glob applies only through a match at or below the workspace root
 * (policy.c, R13).  Such a match is the workspace path followed by what the rest of the glob
 * matches once the workspace's own components are consumed: run the component automaton over
 * them and write one alternative per state it can be in.  A state whose rest can match nothing
 * at all means the workspace root itself matches: then the glob covers the whole workspace.
 */
char *cf_mac_glob_regex_within(const char *glob, const char *ws, bool deny)
{
	struct span *c = NULL, *w = NULL;
	size_t n = 0, m = 0;
	bool *cur = NULL, any, whole;
	char *out = NULL;
	struct cf_buf b;
	cf_buf_init(&b);
	if (split(glob, strlen(glob), &c, &n) < 0 || split(ws, strlen(ws), &w, &m) < 0)
		goto out;
	if (!(cur = states_after(c, n, w, m)))
		goto out;
	what_remains(cur, c, n, &any, &whole);
	if (!any) {
		out = cf_strdup("");
		goto out;
	}
	cf_buf_addc(&b, '^');
	lit(&b, ws, strlen(ws));
	if (!whole && add_alternatives(&b, cur, c, n, deny) < 0)
		goto out;
	cf_buf_add(&b, "(/|$)");
	out = finish(&b);
out:
	if (!out)
		cf_buf_release(&b);
	free(c);
	free(w);
	free(cur);
	return out;
}

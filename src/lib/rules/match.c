/* SPDX-License-Identifier: MIT */
/*
 * The glob matcher of SPEC 2.2.  Paths and patterns are sequences of components; '*' and '?'
 * work inside one component and a component that is exactly "**" stands for any number of
 * whole components, zero included.
 *
 * Both levels use the classic two-pointer wildcard algorithm: on a mismatch, go back to the
 * most recent star and let it swallow one more element.  Because every other element (a
 * character, or a component matcher) consumes exactly one element, returning to the latest
 * star only is enough, and the work is bounded by pattern length times text length.  A
 * recursive matcher would go exponential on inputs such as "*a*a*a*a*b" (the fuzzer's
 * favourite), and this one never allocates, so it cannot fail open or closed on memory.
 */
#include <string.h>

#include "rules/pattern.h"
#include "rules/rules.h"

static inline unsigned char fold_ascii(unsigned char c)
{
	return (c >= 'A' && c <= 'Z') ? (unsigned char)(c - 'A' + 'a') : c;
}

bool cf_has_wildcard(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] == '*' || s[i] == '?')
			return true;
	return false;
}

size_t cf_pattern_literal_prefix(const char *path)
{
	size_t end = 0; /* end of the last literal component */
	size_t i = 0;
	for (;;) {
		while (path[i] == '/')
			i++;
		if (!path[i])
			return end ? end : (i ? 1 : 0);
		size_t s = i;
		while (path[i] && path[i] != '/')
			i++;
		if (cf_has_wildcard(path + s, i - s))
			return end ? end : 1;
		end = i;
	}
}

/* Index just past the character that starts at name[t]: '?' is one character, so it takes a
 * whole UTF-8 sequence (lead byte plus continuation bytes). */
static size_t next_char(const char *name, size_t nlen, size_t t)
{
	t++;
	while (t < nlen && ((unsigned char)name[t] & 0xC0) == 0x80)
		t++;
	return t;
}

bool cf_component_match(const char *pat, size_t plen, const char *name, size_t nlen, bool fold)
{
	size_t p = 0, t = 0;
	size_t star_p = 0, star_t = 0;
	bool star = false;

	while (t < nlen) {
		if (p < plen && pat[p] == '*') {
			star = true;
			star_p = ++p;
			star_t = t;
			continue;
		}
		if (p < plen && pat[p] == '?') {
			p++;
			t = next_char(name, nlen, t);
			continue;
		}
		if (p < plen) {
			unsigned char a = (unsigned char)pat[p], b = (unsigned char)name[t];
			if (a == b || (fold && fold_ascii(a) == fold_ascii(b))) {
				p++;
				t++;
				continue;
			}
		}
		if (!star)
			return false;
		p = star_p;
		t = ++star_t;
	}
	while (p < plen && pat[p] == '*')
		p++;
	return p == plen;
}

/* The next component at or after *pos: sets *c and *n and moves *pos past it.  False at the
 * end.  Empty components ("//") are skipped, so a stray double slash changes nothing. */
static bool next_comp(const char **pos, const char **c, size_t *n)
{
	const char *s = *pos;
	while (*s == '/')
		s++;
	if (!*s) {
		*pos = s;
		return false;
	}
	const char *e = s;
	while (*e && *e != '/')
		e++;
	*c = s;
	*n = (size_t)(e - s);
	*pos = e;
	return true;
}

/* Component-level two-pointer match.  With `covers`, the pattern behaves as if it ended in a
 * "**" component: a path below a match is covered, and the pattern itself too. */
static bool match_path(const char *pat, const char *path, bool fold, bool covers)
{
	const char *p = pat, *t = path;
	const char *star_p = NULL, *star_t = NULL;

	for (;;) {
		const char *tc, *pc;
		size_t tn, pn;
		const char *t_after = t, *p_after = p;
		if (!next_comp(&t_after, &tc, &tn))
			break;
		bool have_p = next_comp(&p_after, &pc, &pn);
		if (have_p && cf_is_globstar(pc, pn)) {
			star_p = p_after;
			star_t = t;
			p = p_after;
			continue;
		}
		if (have_p && cf_component_match(pc, pn, tc, tn, fold)) {
			p = p_after;
			t = t_after;
			continue;
		}
		if (!have_p && covers)
			return true;
		if (!star_p)
			return false;
		/* Let the last "**" take one more component of the path. */
		const char *sc;
		size_t sn;
		if (!next_comp(&star_t, &sc, &sn))
			return false;
		p = star_p;
		t = star_t;
	}
	/* The path is used up: what is left of the pattern must be able to match nothing. */
	for (;;) {
		const char *pc;
		size_t pn;
		if (!next_comp(&p, &pc, &pn))
			return true;
		if (!cf_is_globstar(pc, pn))
			return false;
	}
}

bool cf_pattern_covers(const char *pat, const char *path, bool fold_case)
{
	return match_path(pat, path, fold_case, true);
}

bool cf_pattern_match(const char *pat, const char *path, bool fold_case)
{
	return match_path(pat, path, fold_case, false);
}

/* SPDX-License-Identifier: MIT */
/* macOS path canonicalisation and the string check of R26.  Pure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/macos/mpath.h"

/* Length of the UTF-8 sequence at s (at most n bytes), 0 when it is not valid: no overlong
 * forms, no surrogates, nothing above U+10FFFF, and no C1 control (U+0080..U+009F, which some
 * terminals obey like their 8-bit forms). */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
	unsigned c = s[0];
	size_t k;
	unsigned cp, min;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		k = 2, cp = c & 0x1f, min = 0x80;
	else if (c >= 0xe0 && c <= 0xef)
		k = 3, cp = c & 0x0f, min = 0x800;
	else if (c >= 0xf0 && c <= 0xf4)
		k = 4, cp = c & 0x07, min = 0x10000;
	else
		return 0;
	if (n < k)
		return 0;
	for (size_t i = 1; i < k; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) ||
	    (cp >= 0x80 && cp <= 0x9f))
		return 0;
	return k;
}

static const char *problem(const char *s, size_t len, bool path, bool backslash_ok)
{
	const unsigned char *u = (const unsigned char *)s;
	if (path && (len == 0 || s[0] != '/'))
		return "it is not an absolute path";
	for (size_t i = 0; i < len;) {
		unsigned char c = u[i];
		if (c == '\0')
			return "it contains a NUL byte";
		if (c == '"')
			return "it contains a double quote";
		if (c == '\\' && !backslash_ok)
			return "it contains a backslash";
		if (c < 0x20 || c == 0x7f)
			return "it contains a control character";
		size_t k = utf8_seq(u + i, len - i);
		if (!k)
			return "it is not valid UTF-8 (or contains a C1 control character)";
		i += k;
	}
	return NULL;
}

const char *cf_mac_string_problem(const char *s, size_t len, bool path)
{
	return problem(s, len, path, false);
}

const char *cf_mac_regex_problem(const char *re)
{
	return problem(re, strlen(re), false, true);
}

char *cf_mac_shown(const char *s, size_t len)
{
	struct cf_buf b;
	cf_buf_init(&b);
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x20 || c == 0x7f || c == '\\')
			cf_buf_addf(&b, "\\x%02x", c);
		else
			cf_buf_addc(&b, (char)c);
	}
	if (!b.s && !b.oom)
		return cf_strdup("");
	return cf_buf_take(&b);
}

int cf_mac_check_path(const char *path, const char *what, struct confine_error *err)
{
	const char *why = cf_mac_string_problem(path, strlen(path), true);
	if (!why)
		return 0;
	char *shown = cf_mac_shown(path, strlen(path));
	if (path[0] != '/')
		cf_err(err, CONFINE_E_INVALID, what, shown ? shown : "?",
		       "%s; a Seatbelt profile holds absolute paths only", why);
	else
		cf_err(err, CONFINE_E_INVALID, what, shown ? shown : "?",
		       "%s; a Seatbelt profile takes no quote, backslash, NUL, control character "
		       "or invalid UTF-8 in a path, and confine refuses such a path rather than "
		       "escape it",
		       why);
	free(shown);
	return CONFINE_E_INVALID;
}

void cf_mac_links_release(struct cf_mac_links *l)
{
	cf_strv_release(&l->from);
	cf_strv_release(&l->to);
}

int cf_mac_links_add(struct cf_mac_links *l, const char *from, const char *to,
		     struct confine_error *err)
{
	int r;
	if ((r = cf_mac_check_path(from, "invalid link", err)) < 0 ||
	    (r = cf_mac_check_path(to, "invalid link target", err)) < 0)
		return r;
	char *f = cf_path_normalize(from), *t = cf_path_normalize(to);
	if (!f || !t) {
		free(f);
		free(t);
		return cf_nomem(err);
	}
	if (!strcmp(f, "/")) {
		r = cf_err(err, CONFINE_E_INVALID, "invalid link", from,
			   "the root directory is not a link");
		free(f);
		free(t);
		return r;
	}
	for (size_t i = 0; i < l->from.n; i++) {
		if (strcmp(l->from.v[i], f))
			continue;
		free(f);
		free(l->to.v[i]);
		l->to.v[i] = t;
		return 0;
	}
	if (cf_strv_take(&l->from, f) < 0) {
		free(t);
		return cf_nomem(err);
	}
	if (cf_strv_take(&l->to, t) < 0) {
		free(l->from.v[--l->from.n]);
		return cf_nomem(err);
	}
	return 0;
}

int cf_mac_links_default(struct cf_mac_links *l, struct confine_error *err)
{
	static const char *const links[][2] = {
	    {"/var", "/private/var"},
	    {"/tmp", "/private/tmp"},
	    {"/etc", "/private/etc"},
	};
	memset(l, 0, sizeof(*l));
	for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++) {
		int r = cf_mac_links_add(l, links[i][0], links[i][1], err);
		if (r < 0)
			return r;
	}
	return 0;
}

#define MAX_LINKS_FOLLOWED 40

int cf_mac_canon(const struct cf_mac_links *l, const char *path, char **out,
		 struct confine_error *err)
{
	*out = NULL;
	if (!path || path[0] != '/')
		return cf_err(err, CONFINE_E_INVALID, "cannot canonicalise path", path ? path : "",
			      "it is not an absolute path");
	char *cur = cf_path_normalize(path);
	if (!cur)
		return cf_nomem(err);
	for (int hops = 0;; hops++) {
		size_t best = (size_t)-1, best_len = 0;
		for (size_t i = 0; i < l->from.n; i++) {
			size_t n = strlen(l->from.v[i]);
			if (n > best_len && cf_path_within(cur, l->from.v[i])) {
				best = i;
				best_len = n;
			}
		}
		if (best == (size_t)-1) {
			*out = cur;
			return 0;
		}
		if (hops == MAX_LINKS_FOLLOWED) {
			free(cur);
			return cf_err(err, CONFINE_E_INVALID, "cannot canonicalise path", path,
				      "more than %d links on the way (a loop in the host facts)",
				      MAX_LINKS_FOLLOWED);
		}
		char *next = cf_asprintf("%s%s", l->to.v[best], cur + best_len);
		char *norm = next ? cf_path_normalize(next) : NULL;
		free(next);
		free(cur);
		if (!norm)
			return cf_nomem(err);
		cur = norm;
	}
}

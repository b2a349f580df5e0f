/* SPDX-License-Identifier: MIT */
/*
 * Building blocks of the glob matcher (rules/match.c) shared with the glob scan, which runs
 * the same component semantics one directory entry at a time.  Pure.
 */
#ifndef CONFINE_PATTERN_H
#define CONFINE_PATTERN_H

#include <stdbool.h>
#include <stddef.h>

/* True when `s` (length n) contains '*' or '?'. */
bool cf_has_wildcard(const char *s, size_t n);

/* True when the component `name` (length nlen, no '/') matches the pattern component `pat`
 * (length plen): '*' any run of characters, '?' exactly one character (a whole UTF-8
 * sequence), anything else itself, ASCII letters folded when `fold`.  A component that is
 * exactly "**" is not special here (the caller handles it); it behaves like '*'.
 * Worst case O(plen * nlen), no backtracking blowup. */
bool cf_component_match(const char *pat, size_t plen, const char *name, size_t nlen, bool fold);

/* The length of the leading part of the absolute pattern `path` made of components without
 * wildcards: 4 ("/a/b") for "/a/b/x*" + "/c", 1 ("/") when the first component has one, the
 * whole length when none has. */
size_t cf_pattern_literal_prefix(const char *path);

/* True when the pattern component is exactly "**". */
static inline bool cf_is_globstar(const char *pat, size_t plen)
{
	return plen == 2 && pat[0] == '*' && pat[1] == '*';
}

#endif

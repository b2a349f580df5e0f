/* SPDX-License-Identifier: MIT */
/* The glob matcher, one case per rule of SPEC 2.2. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rules/rules.h"
#include "../tap.h"

struct mcase {
	const char *pat, *path;
	bool fold;
	bool match, covers;
	const char *why;
};

static const struct mcase cases[] = {
    /* wildcard-free: the path itself and everything below, on component boundaries */
    {"/w/vendor", "/w/vendor", false, true, true, "literal matches itself"},
    {"/w/vendor", "/w/vendor/lib/x.c", false, false, true, "literal covers its subtree"},
    {"/w/vendor", "/w/vendored.txt", false, false, false, "component boundary: vendored.txt"},
    {"/w/vendor", "/w/vendo", false, false, false, "a prefix of the name is not covered"},
    {"/w/vendor", "/w", false, false, false, "the parent is not covered"},
    {"/", "/", false, true, true, "/ matches /"},
    {"/", "/etc/passwd", false, false, true, "/ covers everything"},
    /* '*' within one component */
    {"/w/*.c", "/w/x.c", false, true, true, "* within a component"},
    {"/w/*.c", "/w/.c", false, true, true, "* matches the empty string"},
    {"/w/*.c", "/w/d/x.c", false, false, false, "* does not cross /"},
    {"/w/*", "/w/d/x.c", false, false, true, "* matches d, covers below"},
    {"/w/*", "/w", false, false, false, "* needs one component"},
    {"/w/a*b*c", "/w/axxbyyc", false, true, true, "several stars"},
    {"/w/a*b*c", "/w/axxbyy", false, false, false, "several stars, no match"},
    {"/w/*/x", "/w/d/x", false, true, true, "* as a whole component"},
    {"/w/*/x", "/w/d/e/x", false, false, false, "* as a component spans one"},
    /* '**' across whole components, zero included */
    {"/a/**/b", "/a/b", false, true, true, "a/**/b matches a/b (zero components)"},
    {"/a/**/b", "/a/x/b", false, true, true, "** one component"},
    {"/a/**/b", "/a/x/y/z/b", false, true, true, "** several components"},
    {"/a/**/b", "/a/x/b/c", false, false, true, "covers below a match"},
    {"/a/**/b", "/a/xb", false, false, false, "** takes whole components only"},
    {"/a/**/b", "/ab", false, false, false, "** does not glue components"},
    {"/a/**", "/a", false, true, true, "a/** matches a"},
    {"/a/**", "/a/b/c", false, true, true, "a/** matches below"},
    {"/a/**", "/ab", false, false, false, "a/** stops at the boundary"},
    {"/w/**/*.pem", "/w/k.pem", false, true, true, "**/*.pem at top level"},
    {"/w/**/*.pem", "/w/d/e/k.pem", false, true, true, "**/*.pem deep"},
    {"/w/**/*.pem", "/w/d/e/k.pem.txt", false, false, false, "**/*.pem wrong suffix"},
    {"/w/**/id_rsa*", "/w/.ssh/id_rsa.pub", false, true, true, "**/id_rsa*"},
    {"/**", "/anything/at/all", false, true, true, "/** matches all"},
    {"/a/**/**/b", "/a/b", false, true, true, "two ** both empty"},
    {"/a/**/b/**/c", "/a/x/b/y/b/z/c", false, true, true, "** backtracking"},
    {"/a/**/b/**/c", "/a/x/b/y/z", false, false, false, "** backtracking, no match"},
    {"/a/b**", "/a/bxx", false, true, true, "** inside a component is a star"},
    {"/a/b**", "/a/bx/y", false, false, true, "** inside a component stays in it"},
    /* '?' one character other than '/' */
    {"/w/?.c", "/w/a.c", false, true, true, "? one character"},
    {"/w/?.c", "/w/.c", false, false, false, "? needs a character"},
    {"/w/?.c", "/w/ab.c", false, false, false, "? only one"},
    {"/w/a?b", "/w/a/b", false, false, false, "? not /"},
    {"/w/?.c", "/w/\xc3\xa9.c", false, true, true, "? one UTF-8 character"},
    {"/w/??.c", "/w/\xc3\xa9.c", false, false, false, "?? is two characters"},
    /* case */
    {"/W/Vendor", "/w/vendor/x", false, false, false, "case-sensitive on Linux"},
    {"/W/Vendor", "/w/vendor/x", true, false, true, "folded for macOS/Windows"},
    {"/w/*.PEM", "/w/k.pem", true, true, true, "folded with a star"},
    {"/w/*.PEM", "/w/k.pem", false, false, false, "not folded with a star"},
    /* stray slashes */
    {"/w/x", "/w//x/", false, true, true, "empty components are ignored"},
};

/* An exponential matcher would never finish these. */
static void blowups(void)
{
	char pat[8200], path[8200];
	strcpy(pat, "/");
	for (int i = 0; i < 1000; i++)
		strcat(pat, "*a");
	strcat(pat, "*b");
	strcpy(path, "/");
	for (int i = 0; i < 4000; i++)
		strcat(path, "a");
	clock_t t0 = clock();
	bool m = cf_pattern_match(pat, path, false);
	double s = (double)(clock() - t0) / CLOCKS_PER_SEC;
	TAP_OK(!m && s < 1.0, "*a*a*a...*b against aaaa... is fast (%.3f s)", s);

	strcpy(pat, "");
	for (int i = 0; i < 1000; i++)
		strcat(pat, "/**/a");
	strcat(pat, "/b");
	strcpy(path, "");
	for (int i = 0; i < 2000; i++)
		strcat(path, "/a");
	t0 = clock();
	m = cf_pattern_covers(pat, path, false);
	s = (double)(clock() - t0) / CLOCKS_PER_SEC;
	TAP_OK(!m && s < 2.0, "/**/a/**/a.../b against /a/a/a... is fast (%.3f s)", s);
}

int main(void)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct mcase *c = &cases[i];
		TAP_OK(cf_pattern_match(c->pat, c->path, c->fold) == c->match, "match %s %s %s: %s",
		       c->pat, c->path, c->match ? "yes" : "no", c->why);
		TAP_OK(cf_pattern_covers(c->pat, c->path, c->fold) == c->covers,
		       "covers %s %s %s: %s", c->pat, c->path, c->covers ? "yes" : "no", c->why);
	}
	blowups();
	return tap_done();
}

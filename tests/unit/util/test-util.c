/* SPDX-License-Identifier: MIT */
/*
 * The shared helpers every stage leans on: lexical paths (the base of R7's canonical prefixes
 * and R13's parent-before-child order), the environment wildcard (R20), JSON string escaping
 * (R11 explain --json, R24 audit lines) and string lists.  Table-driven.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/utf8.h"
#include "util/util.h"
#include "../tap.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

struct norm_case {
	const char *in, *want, *why;
};

static const struct norm_case norm_cases[] = {
    {"/", "/", "root stays root"},
    {"/a", "/a", "one component"},
    {"/a/b/c", "/a/b/c", "already normal"},
    {"//", "/", "// is root"},
    {"///a//b///", "/a/b", "repeated slashes collapse"},
    {"/a/", "/a", "trailing / removed"},
    {"/a/b/", "/a/b", "trailing / removed, two components"},
    {"/.", "/", "/. is root"},
    {"/./a/./b/.", "/a/b", ". components removed"},
    {"/a/.b/..c/...", "/a/.b/..c/...", "dot-names that are not . or .. are kept"},
    {"/a/..", "/", ".. of one component"},
    {"/a/b/..", "/a", ".. drops the last component"},
    {"/a/b/../c", "/a/c", ".. in the middle"},
    {"/a/b/c/../../d", "/a/d", "two .. in a row"},
    {"/..", "/", ".. above / stays /"},
    {"/../..", "/", "several .. above / stay /"},
    {"/../a", "/a", ".. above / then a component"},
    {"/a/../../b", "/b", ".. past the root then a component"},
    {"/a/./../b/", "/b", ". then .. then trailing /"},
    {"/a//..//b", "/b", ".. between doubled slashes"},
    {"/ab/../a", "/a", ".. drops a whole component, not a character"},
    {"/a b/c", "/a b/c", "spaces are ordinary"},
};

struct join_case {
	const char *dir, *rel, *want, *why;
};

static const struct join_case join_cases[] = {
    {"/ws", "dist", "/ws/dist", "relative joined"},
    {"/ws", "./dist/", "/ws/dist", "./ and trailing / normalised"},
    {"/ws", "a/../b", "/ws/b", ".. inside rel"},
    {"/ws", "..", "/", ".. leaves the directory"},
    {"/ws", "../../../x", "/x", ".. cannot leave /"},
    {"/ws", "/etc/x", "/etc/x", "absolute rel ignores dir"},
    {"/ws", "//etc//x/", "/etc/x", "absolute rel is normalised"},
    {"/", "a", "/a", "dir / does not double the slash"},
    {"/ws/", "a", "/ws/a", "dir with a trailing /"},
    {"/ws", "", "/ws", "empty rel is the dir"},
    {"/ws", ".", "/ws", ". is the dir"},
};

struct within_case {
	const char *path, *dir;
	bool want;
	const char *why;
};

static const struct within_case within_cases[] = {
    {"/a", "/a", true, "a directory is within itself"},
    {"/a/b", "/a", true, "a child is within"},
    {"/a/b/c", "/a", true, "a grandchild is within"},
    {"/a/bc", "/a/b", false, "component boundary: /a/bc is not within /a/b"},
    {"/a-b", "/a", false, "component boundary: /a-b is not within /a"},
    {"/ab", "/a", false, "component boundary: /ab is not within /a"},
    {"/a", "/a/b", false, "the parent is not within the child"},
    {"/", "/a", false, "/ is not within /a"},
    {"/", "/", true, "/ is within /"},
    {"/anything/at/all", "/", true, "/ contains everything"},
    {"/x", "/", true, "/ contains /x"},
    {"/home/u/ws", "/home/u", true, "workspace under home"},
    {"/home/u2", "/home/u", false, "sibling home with a common prefix"},
};

struct cmp_case {
	const char *a, *b;
	int sign;
	const char *why;
};

static const struct cmp_case cmp_cases[] = {
    {"/a", "/a", 0, "equal"},
    {"/", "/a", -1, "/ before everything"},
    {"/a", "/a/b", -1, "parent before child"},
    {"/a/b", "/a", 1, "child after parent"},
    {"/a/b", "/a-b", -1, "/a/b before /a-b ('/' sorts first)"},
    {"/a-b", "/a/b", 1, "/a-b after /a/b"},
    {"/a/b", "/a.b", -1, "/a/b before /a.b"},
    {"/a/z", "/a0", -1, "a child before a longer sibling name"},
    {"/a", "/b", -1, "plain byte order"},
    {"/a/b/c", "/a/b/d", -1, "deep siblings in byte order"},
    {"/a/\xc3\xa9", "/a/z", 1, "bytes compare unsigned"},
};

struct depth_case {
	const char *path;
	int want;
};

static const struct depth_case depth_cases[] = {
    {"/", 0}, {"/a", 1}, {"/a/b", 2}, {"/a/b/c", 3}, {"/a/b/", 2}, {"/a//b", 2},
};

struct dirname_case {
	const char *path, *want;
};

static const struct dirname_case dirname_cases[] = {
    {"/a", "/"}, {"/a/b", "/a"}, {"/a/b/c", "/a/b"}, {"/", "/"}, {"/home/u/.ssh", "/home/u"},
};

struct wc_case {
	const char *pat, *text;
	bool cs, ci;
	const char *why;
};

static const struct wc_case wc_cases[] = {
    {"FOO", "FOO", true, true, "literal"},
    {"FOO", "foo", false, true, "literal, other case"},
    {"FOO", "FOOD", false, false, "literal is anchored at the end"},
    {"FOO", "AFOO", false, false, "literal is anchored at the start"},
    {"*", "", true, true, "* matches the empty name"},
    {"*", "ANY_THING", true, true, "* matches anything"},
    {"*TOKEN*", "GITHUB_TOKEN", true, true, "*X* suffix"},
    {"*TOKEN*", "TOKEN_FILE", true, true, "*X* prefix"},
    {"*TOKEN*", "github_token", false, true, "*X* folded"},
    {"*TOKEN*", "TOKE", false, false, "*X* no match"},
    {"LC_*", "LC_ALL", true, true, "prefix star"},
    {"LC_*", "LC_", true, true, "prefix star, empty rest"},
    {"LC_*", "XLC_ALL", false, false, "prefix star is anchored"},
    {"A?C", "ABC", true, true, "? one character"},
    {"A?C", "AC", false, false, "? needs a character"},
    {"A?C", "ABBC", false, false, "? exactly one"},
    {"A*B*C", "AXXBYYC", true, true, "several stars"},
    {"A*B*C", "AXXBYY", false, false, "several stars, missing tail"},
    {"*A", "AAAA", true, true, "star backtracks"},
    {"**", "X", true, true, "double star"},
    {"", "", true, true, "empty pattern, empty text"},
    {"", "X", false, false, "empty pattern, text"},
};

struct json_case {
	const char *in, *want, *why;
};

static const struct json_case json_cases[] = {
    {"", "\"\"", "empty string"},
    {"plain", "\"plain\"", "plain text"},
    {"a\"b", "\"a\\\"b\"", "quote escaped"},
    {"a\\b", "\"a\\\\b\"", "backslash escaped"},
    {"a\nb", "\"a\\nb\"", "newline"},
    {"a\tb", "\"a\\tb\"", "tab"},
    {"a\rb", "\"a\\rb\"", "carriage return"},
    {"\x01", "\"\\u0001\"", "control byte as \\u"},
    {"\x1f", "\"\\u001f\"", "last control byte"},
    {"\x1b[31m", "\"\\u001b[31m\"", "escape sequence neutralised"},
    {" ", "\" \"", "space is not escaped"},
    {"\xc3\xa9", "\"\xc3\xa9\"", "UTF-8 passes through"},
    {"/", "\"/\"", "slash not escaped"},
};

static void test_normalize(void)
{
	for (size_t i = 0; i < N(norm_cases); i++) {
		const struct norm_case *c = &norm_cases[i];
		char *got = cf_path_normalize(c->in);
		TAP_STREQ(got, c->want, "R7 normalize '%s' -> '%s': %s", c->in, c->want, c->why);
		/* idempotent */
		char *again = got ? cf_path_normalize(got) : NULL;
		TAP_STREQ(again, got, "R7 normalize '%s' is idempotent", c->in);
		free(again);
		free(got);
	}
}

static void test_join(void)
{
	for (size_t i = 0; i < N(join_cases); i++) {
		const struct join_case *c = &join_cases[i];
		char *got = cf_path_join(c->dir, c->rel);
		TAP_STREQ(got, c->want, "R7 join '%s' + '%s' -> '%s': %s", c->dir, c->rel, c->want,
			  c->why);
		free(got);
	}
}

static void test_within(void)
{
	for (size_t i = 0; i < N(within_cases); i++) {
		const struct within_case *c = &within_cases[i];
		TAP_OK(cf_path_within(c->path, c->dir) == c->want, "R7 within '%s' in '%s' %s: %s",
		       c->path, c->dir, c->want ? "yes" : "no", c->why);
	}
}

static int sign(int v)
{
	return v < 0 ? -1 : v > 0 ? 1 : 0;
}

static int qcmp(const void *a, const void *b)
{
	return cf_path_cmp(*(char *const *)a, *(char *const *)b);
}

static void test_cmp(void)
{
	for (size_t i = 0; i < N(cmp_cases); i++) {
		const struct cmp_case *c = &cmp_cases[i];
		TAP_INTEQ(sign(cf_path_cmp(c->a, c->b)), c->sign, "R13 cmp '%s' '%s' = %d: %s",
			  c->a, c->b, c->sign, c->why);
	}
	/* Sorting a shuffled set puts every parent before all of its children. */
	const char *set[] = {"/a-b", "/a/b/c", "/",	   "/a.b", "/a/b",
			     "/a",   "/a/b-c", "/a/b/c/d", "/b",   "/a/b c"};
	qsort(set, N(set), sizeof(set[0]), qcmp);
	bool ok = true;
	for (size_t i = 0; i < N(set); i++)
		for (size_t j = 0; j < N(set); j++)
			if (i != j && cf_path_within(set[j], set[i]) && j < i)
				ok = false;
	TAP_OK(ok, "R13 sorted with cf_path_cmp, every parent precedes its children");
	/* and each subtree is contiguous: between a parent and a child only descendants */
	bool contiguous = true;
	for (size_t i = 0; i < N(set); i++)
		for (size_t j = i + 1; j < N(set); j++)
			if (cf_path_within(set[j], set[i]))
				for (size_t k = i + 1; k < j; k++)
					if (!cf_path_within(set[k], set[i]))
						contiguous = false;
	TAP_OK(contiguous, "R13 sorted with cf_path_cmp, each subtree is contiguous");
}

static void test_depth_dirname(void)
{
	for (size_t i = 0; i < N(depth_cases); i++)
		TAP_INTEQ(cf_path_depth(depth_cases[i].path), depth_cases[i].want, "depth of '%s'",
			  depth_cases[i].path);
	for (size_t i = 0; i < N(dirname_cases); i++) {
		char *got = cf_path_dirname(dirname_cases[i].path);
		TAP_STREQ(got, dirname_cases[i].want, "dirname of '%s'", dirname_cases[i].path);
		free(got);
	}
}

static void test_wildcard(void)
{
	for (size_t i = 0; i < N(wc_cases); i++) {
		const struct wc_case *c = &wc_cases[i];
		TAP_OK(cf_wildcard_match(c->pat, c->text) == c->cs,
		       "R20 wildcard '%s' '%s' case-sensitive %s: %s", c->pat, c->text,
		       c->cs ? "yes" : "no", c->why);
		TAP_OK(cf_wildcard_match_ci(c->pat, c->text) == c->ci,
		       "R20 wildcard '%s' '%s' case-insensitive %s: %s", c->pat, c->text,
		       c->ci ? "yes" : "no", c->why);
	}
	/* A linear matcher: *a*a*...*b against aaaa... must not backtrack exponentially. */
	struct cf_buf p, t;
	cf_buf_init(&p);
	cf_buf_init(&t);
	for (int i = 0; i < 200; i++)
		cf_buf_add(&p, "*a");
	cf_buf_add(&p, "*b");
	for (int i = 0; i < 5000; i++)
		cf_buf_addc(&t, 'a');
	TAP_OK(!p.oom && !t.oom && !cf_wildcard_match_ci(p.s, t.s),
	       "R20 wildcard *a*a...*b against a long aaaa... ends and does not match");
	cf_buf_release(&p);
	cf_buf_release(&t);
}

static void test_buf(void)
{
	for (size_t i = 0; i < N(json_cases); i++) {
		const struct json_case *c = &json_cases[i];
		struct cf_buf b;
		cf_buf_init(&b);
		cf_buf_add_json(&b, c->in);
		char *got = cf_buf_take(&b);
		TAP_STREQ(got, c->want, "R11 json escaping: %s", c->why);
		free(got);
	}
	/* Every control byte is escaped: no raw byte below 0x20 reaches the output. */
	char all[32];
	for (int i = 1; i < 32; i++)
		all[i - 1] = (char)i;
	all[31] = '\0';
	struct cf_buf b;
	cf_buf_init(&b);
	cf_buf_add_json(&b, all);
	bool clean = !b.oom;
	for (size_t i = 0; i < b.len; i++)
		if ((unsigned char)b.s[i] < 0x20)
			clean = false;
	TAP_OK(clean, "R24 json escaping leaves no raw control byte");
	cf_buf_release(&b);

	/* growth, addf, addn, take of an empty buffer */
	cf_buf_init(&b);
	for (int i = 0; i < 1000; i++)
		cf_buf_addf(&b, "%d,", i % 10);
	TAP_INTEQ(b.len, 2000, "buf grows to 2000 bytes through addf");
	TAP_INTEQ(strlen(b.s), 2000, "buf stays NUL-terminated");
	cf_buf_release(&b);
	cf_buf_init(&b);
	cf_buf_addn(&b, "abcdef", 3);
	cf_buf_addc(&b, '!');
	char *s = cf_buf_take(&b);
	TAP_STREQ(s, "abc!", "addn takes n bytes, addc one");
	TAP_OK(b.s == NULL && b.len == 0, "take resets the buffer");
	free(s);
	s = cf_buf_take(&b);
	TAP_STREQ(s, "", "take of an empty buffer is an empty string, not NULL");
	free(s);
}

static void test_strv(void)
{
	struct cf_strv sv = {0};
	bool ok = true;
	char name[16];
	for (int i = 0; i < 100; i++) {
		snprintf(name, sizeof(name), "s%d", i);
		ok &= cf_strv_add(&sv, name) == 0;
	}
	TAP_OK(ok && sv.n == 100, "strv holds 100 copies");
	TAP_OK(sv.v[100] == NULL, "strv stays NULL-terminated (an argv)");
	TAP_STREQ(sv.v[0], "s0", "strv keeps order (first)");
	TAP_STREQ(sv.v[99], "s99", "strv keeps order (last)");
	TAP_OK(cf_strv_contains(&sv, "s42"), "strv contains s42");
	TAP_OK(!cf_strv_contains(&sv, "s"), "strv contains compares whole strings");
	struct cf_strv env = {0};
	const char *vars[] = {"HOMER=x", "HOME", "HOME=/h", "HOME=/second", "EMPTY=", "=v"};
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		ok &= cf_strv_add(&env, vars[i]) == 0;
	TAP_STREQ(cf_strv_env(&env, "HOME"), "/h",
		  "strv_env: the first NAME=, not a longer name or a bare NAME");
	TAP_STREQ(cf_strv_env(&env, "EMPTY"), "", "strv_env: set empty is \"\"");
	TAP_OK(cf_strv_env(&env, "HOM") == NULL, "strv_env: a prefix of a name is not the name");
	TAP_OK(cf_strv_env(&env, "PATH") == NULL, "strv_env: unset is NULL");
	TAP_OK(cf_strv_env(NULL, "HOME") == NULL, "strv_env: no environment is NULL");
	cf_strv_release(&env);
	char *own = cf_strdup("taken");
	TAP_INTEQ(cf_strv_take(&sv, own), 0, "strv_take takes ownership");
	TAP_OK(sv.v[100] == own && sv.v[101] == NULL, "taken pointer stored as is");
	TAP_INTEQ(cf_strv_take(&sv, NULL), -1, "strv_take of NULL (failed allocation) is -1");
	TAP_INTEQ(sv.n, 101, "a failed take adds nothing");
	cf_strv_release(&sv);
	TAP_OK(sv.v == NULL && sv.n == 0, "release resets");
	cf_strv_release(&sv); /* twice is harmless */
	struct cf_strv empty = {0};
	TAP_OK(!cf_strv_contains(&empty, "x"), "an empty strv contains nothing");
}

/* The test harness itself: a condition with a side effect (a read, a call of the code under
 * test) must run once per check, or the second run decides a different thing. */
static void test_tap_once(void)
{
	int calls = 0;
	TAP_OK(++calls == 1, "TAP_OK: the condition holds on its first evaluation");
	TAP_INTEQ(calls, 1, "TAP_OK evaluates its condition exactly once");
}

/* Growth never wraps round: a size past SIZE_MAX is out of memory, not a small allocation
 * (cf_buf_addn of SIZE_MAX bytes used to pass the check as 0 and copy into NULL). */
static void test_growth(void)
{
	struct cf_buf b;
	cf_buf_init(&b);
	cf_buf_add(&b, "ab");
	cf_buf_addn(&b, "x", SIZE_MAX);
	TAP_OK(b.oom && b.len == 2,
	       "cf_buf_addn of SIZE_MAX bytes: out of memory, nothing written");
	cf_buf_release(&b);
	cf_buf_init(&b);
	cf_buf_addn(&b, "x", SIZE_MAX - 1);
	TAP_OK(b.oom, "cf_buf_addn on an empty buffer of SIZE_MAX - 1 bytes: out of memory");
	cf_buf_release(&b);
	size_t cap = 7;
	errno = 0;
	TAP_OK(cf_grow_array(NULL, SIZE_MAX / 2 + 1, 8, 1, &cap) == NULL && errno == ENOMEM &&
		   cap == 7,
	       "cf_grow_array: doubling past SIZE_MAX elements fails (ENOMEM), capacity unchanged");
	TAP_OK(cf_grow_array(NULL, 0, 8, SIZE_MAX / 4, &cap) == NULL && cap == 7,
	       "cf_grow_array: elements whose bytes pass SIZE_MAX fail");
	TAP_OK(cf_grow_array(NULL, 1u << 20, 8, SIZE_MAX >> 20, &cap) == NULL,
	       "cf_grow_array: a product that wraps round fails");
	int *v = cf_grow_array(NULL, 0, 8, sizeof(int), &cap);
	TAP_OK(v && cap == 8, "cf_grow_array: the first capacity");
	int *w = v ? cf_grow_array(v, cap, 8, sizeof(int), &cap) : NULL;
	TAP_OK(w && cap == 16, "cf_grow_array: then twice as many");
	free(w ? w : v);
}

/* A plan's word lines (cf_display_words): the label, each word after a space, escaped for
 * display (R38), quoted with quotes escaped, or as it is; no word, the label alone. */
static void test_words(void)
{
	struct cf_strv v = {0}, none = {0};
	cf_strv_add(&v, "ls");
	cf_strv_add(&v, "a \"b'\"\n\xe2\x80\xae");
	struct cf_buf b;
	cf_buf_init(&b);
	cf_display_words(&b, "command:", &v, true);
	char *got = cf_buf_take(&b);
	TAP_STREQ(got, "command: \"ls\" \"a \\\"b\\'\\\"\\x0a\\u{202E}\"",
		  "words quoted, escaped for display, quotes too");
	free(got);
	cf_display_words(&b, "env:", &v, false);
	got = cf_buf_take(&b);
	TAP_STREQ(got, "env: ls a \"b'\"\\x0a\\u{202E}", "words escaped for display, unquoted");
	free(got);
	cf_display_words(&b, "command:", &none, true);
	got = cf_buf_take(&b);
	TAP_STREQ(got, "command:", "no word: the label alone");
	free(got);
	/* cf_display_lines: a line of each, after its prefix, escaped with the flags given. */
	cf_display_lines(&b, "  ", &v, 0);
	got = cf_buf_take(&b);
	TAP_STREQ(got, "  ls\n  a \"b'\"\\x0a\\u{202E}\n", "lines: each escaped on its own line");
	free(got);
	cf_display_lines(&b, "note: ", &none, 0);
	got = cf_buf_take(&b);
	TAP_STREQ(got, "", "lines: none, nothing");
	free(got);
	cf_strv_release(&v);
}

int main(void)
{
	test_words();
	test_tap_once();
	test_growth();
	test_normalize();
	test_join();
	test_within();
	test_cmp();
	test_depth_dirname();
	test_wildcard();
	test_buf();
	test_strv();
	return tap_done();
}

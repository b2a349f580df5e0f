/* SPDX-License-Identifier: MIT */
/*
 * The strings and regexes of the Seatbelt compiler (SPEC 9, R25, R26), table by table:
 *   - the R26 check: what a profile string may hold, with the reason for what it may not;
 *   - macOS canonicalisation through the links (/var, /tmp, /etc and learnt ones);
 *   - every regex the compiler writes for a glob, compiled with POSIX regcomp (ERE) and matched
 *     against the paths the rule is meant to match and their near misses; where no '?' of a
 *     deny widens it, the answer must also be the policy matcher's (cf_pattern_covers, case
 *     folded as on macOS).
 */
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "../tap.h"
#include "plan/macos/sbpl.h"
#include "rules/rules.h"
#include "util/util.h"

static void strings(void)
{
	static const struct {
		const char *s;
		size_t len;
		bool path;
		const char *why; /* substring of the reason; NULL: accepted */
	} t[] = {
	    {"/Users/ana/proj", 15, true, NULL},
	    {"/Users/ana/My Project (2)/a+b;c", 31, true, NULL},
	    {"/Users/ana/caf\xc3\xa9", 16, true, NULL},
	    {"/Users/ana/\xf0\x9f\x98\x80", 15, true, NULL},
	    {"localhost:8080", 14, false, NULL},
	    {"relative/path", 13, true, "not an absolute path"},
	    {"", 0, true, "not an absolute path"},
	    {"~/x", 3, true, "not an absolute path"},
	    {"/a\"b", 4, true, "double quote"},
	    {"/a\") (allow default) (\"", 24, true, "double quote"},
	    {"/a\\b", 4, true, "backslash"},
	    {"/a\0b", 4, true, "NUL byte"},
	    {"/a\nb", 4, true, "control character"},
	    {"/a\rb", 4, true, "control character"},
	    {"/a\tb", 4, true, "control character"},
	    {"/a\x1b[2Jb", 7, true, "control character"},
	    {"/a\x7f", 3, true, "control character"},
	    {"/a\xff", 3, true, "UTF-8"},
	    {"/a\xc0\xaf", 4, true, "UTF-8"},	      /* overlong '/' */
	    {"/a\xe0\x80\xaf", 5, true, "UTF-8"},     /* overlong '/' */
	    {"/a\xed\xa0\x80", 5, true, "UTF-8"},     /* a surrogate */
	    {"/a\xf4\x90\x80\x80", 6, true, "UTF-8"}, /* above U+10FFFF */
	    {"/a\xc2\x9b", 4, true, "C1"},	      /* CSI */
	    {"/a\xc3", 3, true, "UTF-8"},	      /* truncated */
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		const char *why = cf_mac_string_problem(t[i].s, t[i].len, t[i].path);
		bool ok = t[i].why ? why && strstr(why, t[i].why) : why == NULL;
		char *shown = cf_mac_shown(t[i].s, t[i].len);
		TAP_OK(ok, "R26 string %zu '%s': %s", i, shown ? shown : "?",
		       why ? why : "accepted");
		free(shown);
	}
	struct confine_error err = {0};
	TAP_INTEQ(cf_mac_check_path("/x\ny", "rule refused", &err), CONFINE_E_INVALID,
		  "R26 a newline in a path is refused");
	TAP_STREQ(err.subject, "/x\\x0ay",
		  "R26 the refused path is shown without its control "
		  "character");
	TAP_OK(strstr(err.reason, "rather than escape it") != NULL, "R26 the reason says why");
	TAP_OK(cf_mac_regex_problem("^/a\\.b$") == NULL, "a regex keeps its backslashes");
	TAP_OK(cf_mac_regex_problem("^/a\"$") != NULL, "a regex cannot hold a quote");
}

static void canon(void)
{
	struct cf_mac_links l;
	struct confine_error err = {0};
	TAP_INTEQ(cf_mac_links_default(&l, &err), 0, "the default links");
	static const char *const t[][2] = {
	    {"/var/folders/x/T", "/private/var/folders/x/T"},
	    {"/tmp", "/private/tmp"},
	    {"/tmp/", "/private/tmp"},
	    {"/etc/hosts", "/private/etc/hosts"},
	    {"/etc/../tmp/a", "/private/tmp/a"},
	    {"//tmp//a/./b", "/private/tmp/a/b"},
	    {"/private/tmp/a", "/private/tmp/a"},
	    {"/variable/x", "/variable/x"},
	    {"/tmpdir", "/tmpdir"},
	    {"/Users/ana", "/Users/ana"},
	    {"/", "/"},
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char *out = NULL;
		int r = cf_mac_canon(&l, t[i][0], &out, &err);
		TAP_OK(r == 0 && out && !strcmp(out, t[i][1]), "canonical %s -> %s (got %s)",
		       t[i][0], t[i][1], out ? out : "error");
		free(out);
	}
	/* A learnt link, a chain through two of them, and a loop. */
	TAP_INTEQ(cf_mac_links_add(&l, "/Users/ana/w", "/Volumes/Data/w", &err), 0, "a link");
	TAP_INTEQ(cf_mac_links_add(&l, "/Volumes/Data", "/System/Volumes/Data", &err), 0,
		  "a second link");
	char *out = NULL;
	int r = cf_mac_canon(&l, "/Users/ana/w/src", &out, &err);
	TAP_OK(r == 0 && out && !strcmp(out, "/System/Volumes/Data/w/src"),
	       "two links are followed (%s)", out ? out : "error");
	free(out);
	out = NULL;
	TAP_INTEQ(cf_mac_links_add(&l, "/System/Volumes/Data/w", "/Users/ana/w", &err), 0,
		  "a link back");
	TAP_INTEQ(cf_mac_canon(&l, "/Users/ana/w/src", &out, &err), CONFINE_E_INVALID,
		  "a loop of links is an error");
	TAP_OK(out == NULL, "no path for a loop");
	TAP_INTEQ(cf_mac_links_add(&l, "/a\"b", "/c", &err), CONFINE_E_INVALID,
		  "R26 a link with a quote is refused");
	cf_mac_links_release(&l);
}

static bool rx_match(const char *re, const char *path, bool *compiled)
{
	regex_t r;
	*compiled = regcomp(&r, re, REG_EXTENDED | REG_NOSUB) == 0;
	if (!*compiled)
		return false;
	bool m = regexec(&r, path, 0, NULL, 0) == 0;
	regfree(&r);
	return m;
}

static void globs(void)
{
	static const struct {
		const char *glob;
		bool deny;
		const char *path;
		bool match;
	} t[] = {
	    /* '*' within one component, and a path below a match is covered */
	    {"/w/*.pem", true, "/w/a.pem", true},
	    {"/w/*.pem", true, "/w/.pem", true},
	    {"/w/*.pem", true, "/w/A.PEM", true},
	    {"/w/*.pem", true, "/w/a.pem/inner", true},
	    {"/w/*.pem", true, "/w/a.pemx", false},
	    {"/w/*.pem", true, "/w/sub/a.pem", false},
	    {"/w/*.pem", true, "/w", false},
	    {"/w/*.pem", true, "/wx/a.pem", false},
	    {"/w/*.pem", true, "/w/a_pem", false},
	    /* a component is never empty: "/ *" is not "/" (a fuzzer finding) */
	    {"/*", true, "/", false},
	    {"/*", true, "/a", true},
	    {"/*", false, "/", false},
	    {"/w/*", true, "/w", false},
	    {"/w/**/*", true, "/w", false},
	    {"/w/**/*", true, "/w/x", true},
	    /* '**' across components, zero included */
	    {"/w/**/.env", true, "/w/.env", true},
	    {"/w/**/.env", true, "/w/a/b/c/.env", true},
	    {"/w/**/.env", true, "/w/a/.ENV", true},
	    {"/w/**/.env", true, "/w/a/.envrc", false},
	    {"/w/**/.env", true, "/w/a/x.env", false},
	    {"/w/**/.env", true, "/other/.env", false},
	    {"/w/**", false, "/w", true},
	    {"/w/**", false, "/w/a/b", true},
	    {"/w/**", false, "/wa", false},
	    {"/**/id_rsa*", true, "/id_rsa", true},
	    {"/**/id_rsa*", true, "/a/b/id_rsa.pub", true},
	    {"/**/id_rsa*", true, "/a/b/xid_rsa", false},
	    /* every metacharacter of the path is a literal */
	    {"/w/a+b (1)/*.tmp", true, "/w/a+b (1)/x.tmp", true},
	    {"/w/a+b (1)/*.tmp", true, "/w/aab (1)/x.tmp", false},
	    {"/w/a+b (1)/*.tmp", true, "/w/ab (1)/x.tmp", false},
	    {"/w/a+b (1)/*.tmp", true, "/w/a+b 1/x.tmp", false},
	    {"/w/a.b/*", true, "/w/a.b/x", true},
	    {"/w/a.b/*", true, "/w/axb/x", false},
	    {"/w/$x^y|z/*", true, "/w/$x^y|z/q", true},
	    {"/w/$x^y|z/*", true, "/w/z/q", false},
	    {"/w/$x^y|z/*", true, "/w/$x^y/q", false},
	    {"/w/1.2+*/*.txt", false, "/w/1.2+beta/n.txt", true},
	    {"/w/1.2+*/*.txt", false, "/w/1.22beta/n.txt", false},
	    {"/w/1.2+*/*.txt", false, "/w/1x2+beta/n.txt", false},
	    {"/w/a?b*", true, "/w/a?bc", true},
	    /* '?': one character; an allow takes one byte, a deny up to four */
	    {"/w/f?.csv", true, "/w/f1.csv", true},
	    {"/w/f?.csv", true, "/w/f\xc3\xa9.csv", true},
	    {"/w/f?.csv", true, "/w/f.csv", false},
	    {"/w/f?.csv", true, "/w/f/.csv", false},
	    {"/w/f?.csv", false, "/w/f1.csv", true},
	    {"/w/f?.csv", false, "/w/f12.csv", false},
	    {"/w/f?.csv", false, "/w/f\xc3\xa9.csv", false},
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char *re = cf_mac_glob_regex(t[i].glob, t[i].deny);
		bool compiled = false;
		bool m = re && rx_match(re, t[i].path, &compiled);
		TAP_OK(compiled && m == t[i].match, "%s glob %s %s %s (regex %s)",
		       t[i].deny ? "deny" : "allow", t[i].glob, t[i].match ? "matches" : "misses",
		       t[i].path, re ? re : "oom");
		/* The policy's own matcher agrees where the regex is not a documented widening. */
		bool ascii = true;
		for (const char *s = t[i].path; *s; s++)
			ascii = ascii && (unsigned char)*s < 0x80;
		bool widened = t[i].deny && strchr(t[i].glob, '?');
		if (ascii && !widened && !strstr(t[i].glob, "?b"))
			TAP_OK(cf_pattern_covers(t[i].glob, t[i].path, true) == m,
			       "the policy agrees: %s %s", t[i].glob, t[i].path);
		free(re);
	}
}

static void within_ws(void)
{
	static const struct {
		const char *glob, *ws, *path;
		bool match;   /* a rule above the workspace reaches this path inside it */
		bool whole;   /* the regex covers the whole workspace */
		bool nothing; /* no match is possible inside the workspace */
	} t[] = {
	    {"/u/**/*.db", "/u/src/app", "/u/src/app/x.db", true, false, false},
	    {"/u/**/*.db", "/u/src/app", "/u/src/app/a/b/x.DB", true, false, false},
	    {"/u/**/*.db", "/u/src/app", "/u/src/app/x.dbx", false, false, false},
	    {"/u/*/*/secrets", "/u/src/app", "/u/src/app/secrets/t", true, false, false},
	    {"/u/*/*/secrets", "/u/src/app", "/u/src/app/lib/secrets", false, false, false},
	    {"/u/src/a*", "/u/src/app", "/u/src/app/anything", true, true, false},
	    {"/u/src/b*", "/u/src/app", "/u/src/app/b", false, false, true},
	    {"/u/*.d/x", "/u/cert.d/proj", "/u/cert.d/proj/x", false, false, true},
	    {"/u/**/proj/build", "/u/w/proj", "/u/w/proj/build/o", true, false, false},
	    {"/u/**/proj/build", "/u/w/proj", "/u/w/proj/sub/proj/build", true, false, false},
	    {"/u/**/proj/build", "/u/w/proj", "/u/w/proj/buildx", false, false, false},
	    {"/u/w+x/**/k", "/u/w+x/p", "/u/w+x/p/k", true, false, false},
	    {"/u/w+x/**/k", "/u/w+x/p", "/u/wwx/p/k", false, false, false},
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char *re = cf_mac_glob_regex_within(t[i].glob, t[i].ws, true);
		if (!re) {
			TAP_OK(false, "oom");
			continue;
		}
		if (t[i].nothing) {
			TAP_STREQ(re, "", "glob %s cannot match inside %s", t[i].glob, t[i].ws);
			free(re);
			continue;
		}
		bool compiled = false, m = rx_match(re, t[i].path, &compiled);
		TAP_OK(compiled && m == t[i].match, "glob %s inside %s %s %s (regex %s)", t[i].glob,
		       t[i].ws, t[i].match ? "reaches" : "misses", t[i].path, re);
		bool whole = rx_match(re, t[i].ws, &compiled);
		TAP_OK(whole == t[i].whole, "glob %s %s the whole workspace %s", t[i].glob,
		       t[i].whole ? "covers" : "does not cover", t[i].ws);
		free(re);
	}
}

static void paths(void)
{
	static const struct {
		const char *path, *probe;
		bool match;
	} t[] = {
	    {"/Users/ana/.ssh", "/Users/ana/.ssh", true},
	    {"/Users/ana/.ssh", "/Users/ana/.ssh/id_rsa", true},
	    {"/Users/ana/.ssh", "/users/ANA/.SSH/id_rsa", true},
	    {"/Users/ana/.ssh", "/Users/ana/.sshx", false},
	    {"/Users/ana/.ssh", "/Users/ana/xssh", false},
	    {"/Users/ana/.ssh", "/Users/ana", false},
	    {"/p/a+b (c)", "/p/a+b (c)/d", true},
	    {"/p/a+b (c)", "/p/aab (c)/d", false},
	    {"/", "/anything", true},
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char *re = cf_mac_path_regex_ci(t[i].path);
		bool compiled = false, m = re && rx_match(re, t[i].probe, &compiled);
		TAP_OK(compiled && m == t[i].match, "deny regex of %s %s %s (%s)", t[i].path,
		       t[i].match ? "matches" : "misses", t[i].probe, re ? re : "oom");
		free(re);
	}
	/* The exact regex of a glob's prefix, for the directories a rename must not move. */
	const char *g = "/w/src/*/secret/*.key";
	char *re = cf_mac_glob_regex_exact(g, strlen("/w/src/*/secret"), true);
	bool compiled = false;
	TAP_OK(re && rx_match(re, "/w/src/app/secret", &compiled) && compiled,
	       "prefix regex matches the directory (%s)", re ? re : "oom");
	TAP_OK(re && !rx_match(re, "/w/src/app/secret/a.key", &compiled),
	       "prefix regex does not match below it");
	TAP_OK(re && !rx_match(re, "/w/src/app/secrets", &compiled), "nor a near miss");
	free(re);
}

int main(void)
{
	strings();
	canon();
	globs();
	within_ws();
	paths();
	return tap_done();
}

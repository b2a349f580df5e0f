/* SPDX-License-Identifier: MIT */
/*
 * The host facts' text form and table that the macOS and Windows targets share
 * (plan/facts_text.c), pure: how a text splits into facts (blanks, comments, '\r', a value
 * with spaces, an empty value, no final newline), the line an error names and that reading
 * stops there; the table's updates, its sticky reparse points, what an unlisted path is, and
 * the shared keywords.
 */
#include <stdlib.h>
#include <string.h>

#include "plan/facts_text.h"
#include "util/util.h"
#include "../tap.h"

struct seen {
	char got[512];
	int calls, fail_at; /* fail_at: the call (from 1) that returns an error; 0: none */
};

static int record(void *ctx, const char *key, const char *val, struct confine_error *err)
{
	struct seen *s = ctx;
	s->calls++;
	size_t n = strlen(s->got);
	snprintf(s->got + n, sizeof(s->got) - n, "[%s|%s]", key, val);
	if (s->calls == s->fail_at)
		return cf_err(err, CONFINE_E_INVALID, "invalid host fact", key, "planted");
	return 0;
}

static void lines(void)
{
	struct seen s = {0};
	struct confine_error err = {0};
	const char *text = "# a comment\n"
			   "\n"
			   "   \t\n"
			   "home /Users/ana\r\n"
			   "  \tdir /a b/c  \n"
			   "  # indented comment\n"
			   "file \n"
			   "link /x /y";
	TAP_INTEQ(cf_facts_read_lines(text, record, &s, &err), 0, "a text of facts reads");
	TAP_STREQ(s.got, "[home|/Users/ana][dir|/a b/c  ][file|][link|/x /y]",
		  "blanks, comments and '\\r' dropped; the value is the rest of the line, spaces "
		  "kept; an empty value passed; the last line without a newline read");
	TAP_INTEQ(err.code, 0, "no error recorded");

	memset(&s, 0, sizeof(s));
	TAP_INTEQ(cf_facts_read_lines("", record, &s, &err), 0, "an empty text reads");
	TAP_INTEQ(s.calls, 0, "and has no fact");
	TAP_INTEQ(cf_facts_read_lines("\r\n#x\n", record, &s, &err), 0,
		  "a text of a '\\r' line and a comment reads");
	TAP_INTEQ(s.calls, 0, "and has no fact");
}

static void errors(void)
{
	struct seen s = {0};
	struct confine_error err = {0};
	TAP_INTEQ(cf_facts_read_lines("dir /a\n# c\n\nunlisted\ndir /b\n", record, &s, &err),
		  CONFINE_E_INVALID, "a keyword without a value is refused");
	TAP_INTEQ(err.line, 4, "the error names its line, comments and blank lines counted");
	TAP_STREQ(err.subject, "unlisted", "and the line");
	TAP_STREQ(err.reason, "expected a keyword, a space and a value", "and says what is wanted");
	TAP_STREQ(s.got, "[dir|/a]", "reading stops at the error");

	memset(&s, 0, sizeof(s));
	memset(&err, 0, sizeof(err));
	s.fail_at = 2;
	TAP_INTEQ(cf_facts_read_lines("a 1\r\nb 2\nc 3\n", record, &s, &err), CONFINE_E_INVALID,
		  "the error of a fact is returned");
	TAP_INTEQ(err.line, 2, "with the line of the fact");
	TAP_INTEQ(s.calls, 2, "and nothing after it is read");
	TAP_INTEQ(cf_facts_read_lines("a\n", record, &s, NULL), CONFINE_E_INVALID,
		  "an error without a place to put it is still returned");
}

static void table(void)
{
	struct cf_fact_table t = {0};
	struct confine_error err = {0};
	TAP_OK(!cf_fact_table_find(&t, "/a"), "an empty table lists nothing");
	TAP_INTEQ(cf_fact_table_unlisted(&t, "/a"), CF_KIND_MISSING,
		  "an unlisted path is missing by default");
	TAP_INTEQ(cf_fact_table_set(&t, "/a/b", CF_KIND_FILE, false, &err), 0, "a fact is set");
	TAP_INTEQ(cf_fact_table_set(&t, "/c", CF_KIND_DIR, true, &err), 0,
		  "a reparse point is set");
	TAP_INTEQ(cf_fact_table_set(&t, "/c", CF_KIND_OTHER, false, &err), 0, "and set again");
	const struct cf_fact *c = cf_fact_table_find(&t, "/c");
	TAP_OK(c && c->kind == CF_KIND_OTHER, "the later kind wins");
	TAP_OK(c && c->reparse, "a reparse point stays one");
	TAP_INTEQ(t.n, 2, "a path is listed once");
	TAP_INTEQ(cf_fact_table_find(&t, "/a/b")->kind, CF_KIND_FILE,
		  "a fact is found by its path");
	TAP_OK(!cf_fact_table_find(&t, "/a/b/"), "only by its exact path");
	TAP_INTEQ(cf_fact_table_unlisted(&t, "/a"), CF_KIND_DIR,
		  "a parent of a listed path is a directory");
	TAP_INTEQ(cf_fact_table_unlisted(&t, "/"), CF_KIND_DIR, "so is the root");
	TAP_INTEQ(cf_fact_table_unlisted(&t, "/a/bc"), CF_KIND_MISSING,
		  "a sibling with a longer name is not a parent");
	TAP_INTEQ(cf_fact_table_unlisted(&t, "/a/b/x"), CF_KIND_MISSING,
		  "a path below a listed file is missing");
	for (int i = 0; i < 40; i++) {
		char p[32];
		snprintf(p, sizeof(p), "/many/%d", i);
		cf_fact_table_set(&t, p, CF_KIND_DIR, false, &err);
	}
	TAP_OK(t.n == 42 && cf_fact_table_find(&t, "/many/39") &&
		   cf_fact_table_find(&t, "/a/b")->kind == CF_KIND_FILE,
	       "the table grows and keeps what it had");

	TAP_INTEQ(cf_fact_table_read_unlisted(&t, "exists", &err), 0, "unlisted exists");
	TAP_INTEQ(cf_fact_table_unlisted(&t, "/z"), CF_KIND_DIR, "an unlisted path then exists");
	TAP_INTEQ(cf_fact_table_read_unlisted(&t, "missing", &err), 0, "unlisted missing");
	TAP_INTEQ(cf_fact_table_unlisted(&t, "/z"), CF_KIND_MISSING, "and is missing again");
	const char *bad[] = {"", "Exists", "exists ", "yes"};
	for (size_t i = 0; i < 4; i++) {
		memset(&err, 0, sizeof(err));
		TAP_INTEQ(cf_fact_table_read_unlisted(&t, bad[i], &err), CONFINE_E_INVALID,
			  "unlisted '%s' is refused", bad[i]);
		TAP_STREQ(err.reason, "'unlisted' is 'missing' or 'exists'", "with the choices");
	}
	TAP_OK(!t.unlisted_exists, "a refused value changes nothing");
	cf_fact_table_release(&t);
	TAP_OK(!t.v && !t.n && !t.cap, "a released table is empty");
	cf_fact_table_release(&t);
	TAP_OK(!t.v, "and may be released again");
}

static void kinds(void)
{
	enum cf_kind k = CF_KIND_MISSING;
	TAP_OK(cf_fact_kind_word("dir", &k) && k == CF_KIND_DIR, "dir");
	TAP_OK(cf_fact_kind_word("file", &k) && k == CF_KIND_FILE, "file");
	TAP_OK(cf_fact_kind_word("other", &k) && k == CF_KIND_OTHER, "other");
	k = CF_KIND_SYMLINK;
	TAP_OK(!cf_fact_kind_word("Dir", &k) && !cf_fact_kind_word("reparse", &k) &&
		   !cf_fact_kind_word("", &k) && k == CF_KIND_SYMLINK,
	       "no other keyword is a kind, and the kind is left alone");
}

int main(void)
{
	lines();
	errors();
	table();
	kinds();
	return tap_done();
}

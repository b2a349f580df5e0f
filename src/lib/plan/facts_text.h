/* SPDX-License-Identifier: MIT */
/*
 * What the foreign targets' host facts have in common (plan/macos/facts.c,
 * plan/windows/facts.c): the text form's lines and a table of what is at a path.  Pure.
 *
 * A line is a keyword, one space and the rest of the line as its value (paths may contain
 * spaces); leading blanks and a final '\r' are dropped; an empty line or one starting '#' is
 * skipped.  The keywords are each target's own, bar `unlisted missing|exists` and
 * `dir|file|other PATH`, which both read with the helpers below.
 */
#ifndef CONFINE_PLAN_FACTS_TEXT_H
#define CONFINE_PLAN_FACTS_TEXT_H

#include <stdbool.h>
#include <stddef.h>

#include "host/facts.h"

/* One line's fact: `key` and `val` are NUL-terminated, `val` may be empty. */
typedef int (*cf_fact_line_fn)(void *ctx, const char *key, const char *val,
			       struct confine_error *err);

/* Calls `line` for each fact of `text` in order and stops at the first error, which then
 * names the line (err->line, counted from 1).  A line without a space is refused here. */
int cf_facts_read_lines(const char *text, cf_fact_line_fn line, void *ctx,
			struct confine_error *err);

struct cf_fact {
	char *path;
	enum cf_kind kind;
	bool reparse; /* Windows: the path is a reparse point */
};

/* The paths the facts list, and what a path they do not list is. */
struct cf_fact_table {
	struct cf_fact *v;
	size_t n, cap;
	bool unlisted_exists;
};

void cf_fact_table_release(struct cf_fact_table *t);

/* Records `path` (copied) as `kind`, or changes the kind of a listed one; a reparse point
 * stays one. */
int cf_fact_table_set(struct cf_fact_table *t, const char *path, enum cf_kind kind, bool reparse,
		      struct confine_error *err);

/* The entry of `path`, or NULL. */
const struct cf_fact *cf_fact_table_find(const struct cf_fact_table *t, const char *path);

/* What a path that is not listed is: a directory when a listed path is below it, else a
 * directory or missing as `unlisted` says. */
enum cf_kind cf_fact_table_unlisted(const struct cf_fact_table *t, const char *path);

/* `unlisted missing|exists`: sets t->unlisted_exists; anything else is refused. */
int cf_fact_table_read_unlisted(struct cf_fact_table *t, const char *val,
				struct confine_error *err);

/* The kind of a `dir`, `file` or `other` keyword; false for any other keyword. */
bool cf_fact_kind_word(const char *key, enum cf_kind *kind);

#endif

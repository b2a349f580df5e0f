/* SPDX-License-Identifier: MIT */
/*
 * Where each value of a JSON text starts.  jansson parses but keeps no positions, and a rule
 * file error must name FILE:LINE:COLUMN (R5), so this small scanner walks the same text once
 * and maps JSON pointers ("/rules/3/action") to lines and columns.  Lines start at 1; columns
 * count characters (not bytes) from 1, like jansson's own error positions.  Pure.
 */
#ifndef CONFINE_JSONPOS_H
#define CONFINE_JSONPOS_H

#include <stddef.h>

struct cf_jsonpos_entry {
	char *pointer;		  /* RFC 6901, "~" and "/" in names escaped as "~0" and "~1" */
	int line, column;	  /* where the value starts */
	int key_line, key_column; /* where its member name starts; 0 for elements, root */
};

struct cf_jsonpos {
	struct cf_jsonpos_entry *v;
	size_t n, cap;
};

/*
 * Indexes the values of `text` down to `max_depth` levels below the root (the root is level 0)
 * and, in arrays, the first `max_index` elements.  The text should be JSON that jansson
 * accepted; anything else stops the scan early without harm.  Returns 0, or CONFINE_E_NOMEM.
 */
int cf_jsonpos_index(struct cf_jsonpos *idx, const char *text, size_t len, int max_depth,
		     size_t max_index);

/* The entry for `pointer`, or NULL. */
const struct cf_jsonpos_entry *cf_jsonpos_find(const struct cf_jsonpos *idx, const char *pointer);

void cf_jsonpos_release(struct cf_jsonpos *idx);

/* Appends `name` to b escaped as a JSON pointer token ("~" -> "~0", "/" -> "~1"), n bytes. */
struct cf_buf;
void cf_jsonpos_add_token(struct cf_buf *b, const char *name, size_t n);

#endif

/* SPDX-License-Identifier: MIT */
/* Internal interface between the files of the Seatbelt compiler (sbpl.c writes the profile,
 * sbpl_chains.c the roots, ancestors and unlink guards, sbpl_policy.c builds the policy).
 * Pure. */
#ifndef CONFINE_SBPL_INT_H
#define CONFINE_SBPL_INT_H

#include "plan/macos/sbpl.h"

/* Reading a path: its data, its metadata, an existence test, mapping it executable. */
#define READ_OPS "file-read* file-test-existence file-map-executable"
#define WRITE_OPS "file-write*"

/* The system read roots of SPEC 9 and the top-level links of every Mac. */
extern const char *const cf_mac_system_roots[];
extern const size_t cf_mac_n_system_roots;
extern const char *const cf_mac_root_links[];
extern const size_t cf_mac_n_root_links;

struct sb_ctx {
	const struct cf_mac_input *in;
	const struct cf_mac_host *h;
	struct cf_policy p;
	struct cf_host ph;
	struct cf_mac_plan *out;
	struct cf_buf b;
	struct confine_error *err;
	int r;		       /* the first failure while writing */
	struct cf_strv wroots; /* writable roots: workspace, temp roots, write allows, grants */
	struct cf_strv rroots; /* read at the fallback's priority: write allows and grants */
};

/* Writing: the first failure is kept in c->r; every string and regex is checked (R26). */
void sb_fail(struct sb_ctx *c, int r);
void sb_add(struct sb_ctx *c, const char *s);
void sb_string(struct sb_ctx *c, const char *s);
void sb_regex(struct sb_ctx *c, const char *re);
void sb_filter(struct sb_ctx *c, const char *kind, const char *path);
void sb_regex_filter(struct sb_ctx *c, const char *re);
void sb_comment(struct sb_ctx *c, const char *text);

/* sbpl_chains.c */
void sb_sort_paths(struct cf_strv *v);
int sb_roots(struct sb_ctx *c);
void sb_ancestors(struct sb_ctx *c);
void sb_unlink_guards(struct sb_ctx *c);

#endif

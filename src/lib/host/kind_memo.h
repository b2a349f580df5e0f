/* SPDX-License-Identifier: MIT */
/*
 * What is at a path, asked once per planning: the struct cf_host kind callback with a memo.
 * The guards and the plan ask the kind of the same paths again and again (every component of
 * ~/.config on the way to each of its guards, then each candidate twice as the plan is compiled
 * with and without pins), and most of them are missing.  A path whose parent is known to be
 * missing, or a file, is missing without asking the kernel.  The memo holds for one planning
 * only: the run resets it before each plan (cf_run_plan), so that what confine creates itself
 * (its own directories, R30) or a rename by another process (R34) is seen.  Touches the OS.
 */
#ifndef CONFINE_KIND_MEMO_H
#define CONFINE_KIND_MEMO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "host/facts.h"

struct cf_kind_memo {
	struct cf_kind_memo_ent {
		char *path; /* NULL: free slot */
		uint64_t hash;
		enum cf_kind kind;
		uint64_t dev, ino; /* 0 when missing, or not asked (below a missing directory) */
	} * v;
	size_t n, cap; /* cap a power of two, or 0 */
};

/* The kind callback: ctx is a struct cf_kind_memo (NULL: no memo, one lstat per question). */
enum cf_kind cf_kind_memo_get(void *ctx, const char *path);
/* The identity of path from the same memo (lstat's st_dev and st_ino, asked when not there
 * yet): false when it is missing.  The identities R34 records are those the plan was made
 * from. */
bool cf_kind_memo_ident(void *ctx, const char *path, uint64_t *dev, uint64_t *ino,
			enum cf_kind *kind);
/* Forgets everything (before a new plan). */
void cf_kind_memo_reset(struct cf_kind_memo *m);

#endif

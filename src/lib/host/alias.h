/* SPDX-License-Identifier: MIT */
/*
 * Other names of protected files (R37).  A hard link is the same file under a second name: a
 * rule protects names, so a link to ~/.ssh/id_ed25519 inside the workspace, or to the
 * workspace's own .env, would be read (and written) through the writable bind of the workspace.
 * The search finds, at launch, every name inside the writable areas that shares an inode with a
 * protected file; the policy then protects it like that file (policy/aliases.c).  Touches the
 * OS (reads directories, stats files).
 *
 * How it stays cheap: a file has another name only when its link count is above one, and a
 * hard link never crosses a file system.  So the protected trees are walked first for regular
 * files with more than one link, on the devices of the writable areas only; when there is none
 * (the usual case) nothing else is read.  Otherwise the writable areas are walked and each
 * regular file whose inode number (from the directory listing, no stat) is one of those is
 * looked at; the walk stops as soon as every other name of every such file is accounted for.
 */
#ifndef CONFINE_ALIAS_H
#define CONFINE_ALIAS_H

#include <stdbool.h>
#include <stddef.h>

#include "host/scan.h"
#include "util/util.h"

struct cf_alias {
	char *alias;	/* the other name, inside a writable area */
	char *original; /* a protected name of the same file */
};

struct cf_aliases {
	struct cf_alias *v;
	size_t n, cap;
};
void cf_aliases_release(struct cf_aliases *a);

struct cf_alias_query {
	const struct cf_strv *protected_roots; /* files and trees the rules protect */
	const struct cf_strv *writable_roots;  /* where the command can write host files */
	/* Whether the name `path` is protected (some access is not allowed to it). */
	bool (*is_protected)(void *ctx, const char *path);
	/* Whether `alias` is protected at least as `original` is already. */
	bool (*covers)(void *ctx, const char *alias, const char *original);
	void *ctx;
	const struct cf_scan_budget *budget; /* time and depth: the glob scan's */
};

/*
 * Appends to `out` every name inside the writable roots that is a hard link of a protected file
 * found under the protected roots, unless it is protected as that file already.  Symlinks are
 * never followed (one that points at a protected file resolves to it inside the sandbox, where
 * it is protected by its own name); a directory the caller cannot read is skipped (the sandbox
 * cannot list it either).  A budget exceeded fails with CONFINE_E_SCAN (a run refused: fail
 * closed, R14).
 */
int cf_host_find_aliases(const struct cf_alias_query *q, struct cf_aliases *out,
			 struct confine_error *err);

#endif

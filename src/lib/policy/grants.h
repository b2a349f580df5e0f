/* SPDX-License-Identifier: MIT */
/*
 * Write-capability requests (SPEC 7.2): `--grant-write PATH:file|subtree --reason TEXT`.  An
 * approved request becomes a write grant for one run on every backend, never a stored rule.
 * This module only validates a request into at most eight concrete targets, the list the
 * approval card shows in full.  Pure: what a path is and where it really is come from the
 * host-facts callbacks, so the same code checks Linux and Windows paths and runs on a table in
 * the tests.
 */
#ifndef CONFINE_GRANTS_H
#define CONFINE_GRANTS_H

#include <stdbool.h>
#include <stddef.h>

#include "confine.h"
#include "host/facts.h"

/* At most this many targets per request; a ninth is refused before any path is touched. */
#define CF_GRANTS_MAX 8
/* The reason is at most this many characters (UTF-8 code points, not bytes). */
#define CF_GRANT_REASON_MAX 240

enum cf_grant_scope {
	CF_GRANT_FILE = 1,    /* one regular file */
	CF_GRANT_SUBTREE = 2, /* a directory and everything below it */
};

struct cf_grant {
	char *path; /* canonical */
	enum cf_grant_scope scope;
};

/* A validated request: targets in the order given, exact duplicates dropped. */
struct cf_grants {
	struct cf_grant v[CF_GRANTS_MAX];
	size_t n;
	char *reason;
};

void cf_grants_release(struct cf_grants *g);

/* What validating needs from the host. */
struct cf_grant_host {
	const char *home; /* canonical home directory */
	bool fold_case;	  /* paths compare case-insensitively (Windows, macOS) */
	/* The canonical absolute form of a path as the user wrote it (relative paths, "~",
	 * symlinks resolved the host's way); a path the host refuses (a device path, say) is an
	 * error here.  Returns 0 and a malloc'd *out, or a negative CONFINE_E_* code. */
	int (*canonicalize)(void *ctx, const char *path, char **out, struct confine_error *err);
	/* What is at a canonical path (not following a final symlink). */
	enum cf_kind (*kind)(void *ctx, const char *path);
	/* True when a canonical path is the root of a volume ("C:\" on Windows).  NULL: only
	 * "/" is. */
	bool (*is_volume_root)(void *ctx, const char *path);
	void *ctx;
};

/* Splits "PATH:file" or "PATH:subtree" (the scope follows the last ':', so a Windows drive
 * letter stays part of the path).  Pure. */
int cf_grant_parse(const char *arg, char **path, enum cf_grant_scope *scope,
		   struct confine_error *err);

/* "file" or "subtree". */
const char *cf_grant_scope_name(enum cf_grant_scope s);

/*
 * Validates the `n` requests `args` ("PATH:file|subtree", as given on the command line) and
 * the reason into `out`, in this order, so that the cheap refusals come before any path is
 * looked at:
 *  - the reason is non-blank, valid UTF-8 without control characters (it is shown on the
 *    card), at most CF_GRANT_REASON_MAX characters;
 *  - every request parses; exact duplicates (same text, same scope) are dropped;
 *  - at most CF_GRANTS_MAX remain (CONFINE_E_LIMIT, no path touched);
 *  - the same path requested as a file and as a subtree is an error;
 *  - each path is canonicalised, then must exist as a regular file (`file`) or a directory
 *    (`subtree`), must not be a volume root or the home directory, and a subtree must not
 *    contain the home directory (that would be the home and more);
 *  - requests that name the same canonical path with the same scope collapse into one.
 * Returns 0, or a negative CONFINE_E_* code with err naming the request.  Pure apart from the
 * host callbacks.
 */
int cf_grants_validate(const char *const *args, size_t n, const char *reason,
		       const struct cf_grant_host *h, struct cf_grants *out,
		       struct confine_error *err);

#endif

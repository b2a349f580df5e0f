/* SPDX-License-Identifier: MIT */
/*
 * What the macOS executor needs from the injection module (SPEC 6, R21; issue 11): the
 * snapshot-file path.  The module writes each injected content into a private 0700 directory
 * (O_CREAT|O_EXCL|O_NOFOLLOW, 0600), reads it back and compares the BLAKE3 hash, removes it
 * when the command's lifetime ends and sweeps directories a crash left behind.  The executor
 * only hands the resulting paths to the profile compiler (a literal read allow and a trailing
 * literal write deny each) and the NAME=PATH pointers to the environment.
 *
 * On this branch the request carries no injections yet (they arrive with issue 11), so
 * inject_none.c implements this interface for an empty list; at merge the injection module
 * implements it and inject_none.c goes away.
 */
#ifndef CONFINE_EXEC_MACOS_INJECT_H
#define CONFINE_EXEC_MACOS_INJECT_H

#include <stddef.h>

#include "confine.h"
#include "plan/macos/sbpl.h"

struct cf_mac_snapshots {
	struct cf_mac_injection *v; /* name, target (fixed-path, refused by the compiler),
				     * scratch path; owned */
	size_t n;
	void *module; /* the injection module's own state (directory, descriptors) */
};

/* Writes and verifies the scratch files of the request's injections under `tmpdir` (the
 * canonical $TMPDIR).  An empty list does nothing at all.  A fixed-path injection is handed on
 * with target set and no scratch file, for the compiler to refuse with its message. */
int cf_mac_snapshots_create(const confine_request *req, const char *tmpdir,
			    struct cf_mac_snapshots *out, struct confine_error *err);

/* Removes the scratch files and their directory; accepts an empty or released list. */
void cf_mac_snapshots_release(struct cf_mac_snapshots *s);

/* Removes scratch directories left by a crashed run (called once per prepare). */
void cf_mac_snapshots_sweep(const char *tmpdir);

#endif

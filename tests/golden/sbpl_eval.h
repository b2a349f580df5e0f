/* SPDX-License-Identifier: MIT */
/*
 * A reader and evaluator for the subset of SBPL that confine writes, for the tests: what would
 * Seatbelt decide for one operation on one path?  Written from the documented semantics (the
 * last matching rule wins; several filters in one rule: any; require-all, require-any,
 * require-not; literal, subpath, regex), independently of the compiler.  Regexes are compiled
 * with POSIX regcomp (REG_EXTENDED) when the profile is read: a regex that does not compile
 * makes the whole profile unreadable.
 */
#ifndef CONFINE_SBPL_EVAL_H
#define CONFINE_SBPL_EVAL_H

#include <stdbool.h>
#include <stddef.h>

struct sbpl_profile;

/* Reads a profile; NULL with a message in `why` (size n) when it is not well formed.  At most
 * one profile may be alive at a time (compiled regexes are cached between reads). */
struct sbpl_profile *sbpl_read(const char *text, char *why, size_t n);
void sbpl_free(struct sbpl_profile *p);

enum sbpl_kind {
	SBPL_FILE,	  /* `path` is a file path */
	SBPL_UNIX_REMOTE, /* connecting to the unix socket at `path` */
	SBPL_UNIX_LOCAL,  /* binding the unix socket at `path` */
	SBPL_IP_REMOTE,	  /* connecting to `path` = "localhost:PORT" or "host:PORT" */
};

/* True when the profile allows operation `op` ("file-read-data", "network-outbound", ...). */
bool sbpl_allows(const struct sbpl_profile *p, const char *op, enum sbpl_kind kind,
		 const char *path);

/* Every string literal and every regex literal, in order of appearance (owned by p). */
size_t sbpl_strings(const struct sbpl_profile *p, const char *const **v);
size_t sbpl_regexes(const struct sbpl_profile *p, const char *const **v);

/* Number of top-level forms. */
size_t sbpl_forms(const struct sbpl_profile *p);

#endif

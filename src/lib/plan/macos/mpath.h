/* SPDX-License-Identifier: MIT */
/*
 * macOS paths for the Seatbelt compiler (SPEC 9, R25, R26).  Pure.
 *
 * Canonical form.  Seatbelt matches the path the kernel resolved, and on a Mac several
 * top-level names are symbolic links: /var, /tmp and /etc lead into /private (a profile rule
 * about "/tmp" would never match anything).  Every path is therefore rewritten through a map
 * of links (FROM -> TO) before it goes into a profile; the map always holds the three links of
 * every Mac and may learn more from the host facts (a workspace reached through a link).  On a
 * Mac itself the executor resolves real paths with realpath(3) first, and the map changes
 * nothing that realpath left.
 *
 * Strings.  A profile is Scheme text.  A path that contains a double quote, a backslash, a NUL
 * byte, a control character or invalid UTF-8, or that is not absolute, is refused with an
 * error that names the problem; nothing is ever escaped, so no path can end a string early
 * and become profile text (R26).
 */
#ifndef CONFINE_MAC_PATH_H
#define CONFINE_MAC_PATH_H

#include <stdbool.h>
#include <stddef.h>

#include "confine.h"
#include "util/util.h"

/* Why `s` (length `len`, which may include NUL bytes) cannot be written into a profile as a
 * string, or NULL when it can.  The answer is a static English phrase ("it contains a double
 * quote").  Only absolute paths are accepted when `path` is true. */
const char *cf_mac_string_problem(const char *s, size_t len, bool path);

/* The same for a regex literal (#"..."), which keeps backslashes: only a double quote could
 * end it. */
const char *cf_mac_regex_problem(const char *re);

/* Checks a path for a profile; on failure fills err with `what`, the path shown safely (control
 * characters as \xNN) and the reason, and returns CONFINE_E_INVALID. */
int cf_mac_check_path(const char *path, const char *what, struct confine_error *err);

/* A copy of s for a message: bytes below 0x20, 0x7f and '\' shown as \xNN.  NULL on oom. */
char *cf_mac_shown(const char *s, size_t len);

/* The links of a Mac: each FROM is an absolute canonical-looking path that is a link to TO. */
struct cf_mac_links {
	struct cf_strv from, to;
};

/* The links every Mac has: /var, /tmp and /etc into /private. */
int cf_mac_links_default(struct cf_mac_links *l, struct confine_error *err);
void cf_mac_links_release(struct cf_mac_links *l);
/* Adds (or replaces) a link; both paths are checked. */
int cf_mac_links_add(struct cf_mac_links *l, const char *from, const char *to,
		     struct confine_error *err);

/*
 * The canonical form of an absolute path: normalised lexically ('.', '..', '//'), then the
 * longest link that is a prefix (on component boundaries) is replaced by its target, again
 * until none applies.  More than 40 replacements is a loop (CONFINE_E_INVALID).  Returns 0 and
 * a malloc'd *out.
 */
int cf_mac_canon(const struct cf_mac_links *l, const char *path, char **out,
		 struct confine_error *err);

#endif

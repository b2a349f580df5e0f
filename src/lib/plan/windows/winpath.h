/* SPDX-License-Identifier: MIT */
/*
 * Windows paths for the pure stages.  The rule model, the policy and the matcher work on
 * '/'-separated absolute paths; a Windows path enters them in an internal form:
 *
 *     C:\Users\Ana\Proj   ->   /c:/users/ana/proj
 *
 * a leading '/', the drive letter and its ':' as the first component, '/' as the separator
 * and ASCII letters folded to lower case.  Folding once at the border makes every comparison
 * downstream (first match, "within the workspace", the glob matcher) case-insensitive the way
 * NTFS is for ASCII, without the policy learning about Windows.  Letters outside ASCII are
 * compared as they are (NTFS folds them with a table the planner does not have); the plan
 * says so.
 *
 * Only plain drive paths are accepted.  UNC paths (\\server\share), device and namespace paths
 * (\\?\, \\.\, \??\), drive-relative paths (C:foo), rooted paths without a drive (\foo),
 * alternate data streams (file:stream), reserved device names (NUL, CON, COM1...) and
 * components that end in a dot or a space (Win32 strips those, so "secret." opens "secret")
 * are refused with an error that names the reason: each of them can make a path mean
 * something else to the file system than to the planner.  Pure.
 */
#ifndef CONFINE_WINPATH_H
#define CONFINE_WINPATH_H

#include <stdbool.h>

#include "confine.h"
#include "util/util.h"

/* An absolute Windows path ("C:\a\b" or "C:/a/b") to the internal form.  `what` names the
 * input in an error ("workspace", "rule"...). */
int cf_win_path_internal(const char *win, const char *what, char **out, struct confine_error *err);

/* A rule pattern as a Windows user writes it (absolute "C:\...", "~", "~\...", or relative to
 * the workspace, with '*' and '?' wildcards) to a pattern in the internal form that
 * cf_rule_resolve understands: "~/..." and relative patterns keep their shape with '/' and
 * folded letters; absolute ones become "/c:/...". */
int cf_win_pattern_internal(const char *pattern, char **out, struct confine_error *err);

/* True when `p` is an internal drive path: "/x:" or "/x:/...". */
bool cf_win_is_drive_path(const char *p);

/* True when `p` is the root of a drive in the internal form ("/c:"). */
bool cf_win_is_drive_root(const char *p);

/*
 * Original spellings, so that the plan shows "C:\Users\Ana\Proj\.git\hooks" rather than the
 * folded form: every Windows path the planner was given (home, workspace, temp roots) is
 * remembered with its internal form; a path is shown with the spelling of its longest
 * remembered prefix and the rest as folded.
 */
struct cf_win_names {
	struct cf_strv internal, shown;
};
void cf_win_names_release(struct cf_win_names *n);
/* Remembers `shown` (a Windows spelling, normalised) for `internal`. */
int cf_win_names_add(struct cf_win_names *n, const char *internal, const char *win);
/* The Windows spelling of an internal path (malloc'd, NULL on oom): drive letter in upper
 * case, '\' as separator, remembered spellings where they apply.  Anything that is not a
 * drive path is returned as it is. */
char *cf_win_path_show(const struct cf_win_names *n, const char *internal);

/* Rewrites the internal paths quoted in an error ('/c:/users/ana') into their Windows
 * spelling, for errors that come from the shared stages (grants, the policy). */
void cf_win_error_paths(const struct cf_win_names *n, struct confine_error *err);

/* The command line CreateProcess gets for argv, quoted so that CommandLineToArgvW and the C
 * runtime split it back into the same arguments.  argv[0] is parsed by other rules (no
 * escapes), so a '"' in it is an error, as is an empty argv.  Pure. */
int cf_win_cmdline(const struct cf_strv *argv, char **out, struct confine_error *err);

#endif

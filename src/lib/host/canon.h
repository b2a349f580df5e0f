/* SPDX-License-Identifier: MIT */
/* Host path canonicalisation for struct cf_resolve_ctx and struct cf_host.  Touches the OS. */
#ifndef CONFINE_CANON_H
#define CONFINE_CANON_H

#include "confine.h"

/*
 * Canonicalises the absolute `path`, whose components may or may not exist (R7): the path is
 * normalised lexically ("." "..", "//"), the longest leading part that resolves has its
 * symlinks resolved (realpath), and the rest is appended as written.  A component that cannot
 * be resolved (missing, a dangling or looping symlink, not searchable) ends the resolved part.
 * `ctx` is NULL or a struct cf_kind_memo (kind_memo.h), whose answers then replace realpath's
 * walk where no symlink is on the way; the function fits the callbacks of rules.h and host.h
 * as is.  Returns 0
 * and a malloc'd *out, CONFINE_E_INVALID for a relative path, CONFINE_E_OS or
 * CONFINE_E_NOMEM.
 */
int cf_host_canonicalize(void *ctx, const char *path, char **out, struct confine_error *err);

/*
 * A path a caller gave (explain, the content decision): taken relative to the current
 * directory when it is not absolute, then canonicalised as above.  Returns 0 and a malloc'd
 * *out, CONFINE_E_OS when the current directory cannot be read (getcwd), or as above.
 */
int cf_host_canonicalize_arg(const char *path, char **out, struct confine_error *err);

#endif

/* SPDX-License-Identifier: MIT */
#ifndef CONFINE_HOST_WORKSPACE_H
#define CONFINE_HOST_WORKSPACE_H

#include "confine.h"

/*
 * The workspace a run was given (R1's first part), as the Linux run and the macOS executor
 * resolve it: `given` through its symbolic links (realpath), which must be a directory.  *out is
 * the resolved path (malloc'd) whenever it resolves, also when it is refused for not being a
 * directory.  0, or CONFINE_E_WORKSPACE ("workspace refused", `given` as the subject; the hint
 * to create it when it does not exist).  Touches the OS.
 */
int cf_workspace_resolve(const char *given, char **out, struct confine_error *err);

#endif

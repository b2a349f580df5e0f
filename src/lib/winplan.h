/* SPDX-License-Identifier: MIT */
/* The Windows plan of a request, on any OS: `confine plan --target windows`. */
#ifndef CONFINE_PLAN_WINDOWS_REQUEST_H
#define CONFINE_PLAN_WINDOWS_REQUEST_H

#include <stdbool.h>

#include "confine.h"

/*
 * Compiles the request for a Windows host described by `facts` (the text form of
 * plan/windows/facts.h; NULL: defaults) with `home` (a Windows path; NULL: the facts' or the
 * default).  The request's workspace, session rules (--allow/--ask/--deny and
 * --session-rules files, read here), network choice and command are used; the workspace and
 * user rule files live on the Windows host and are not read (the plan says so).  Returns 0
 * with a malloc'd text or JSON in *out.  Touches the OS only to read the session rule files.
 */
int cf_plan_windows_request(const confine_request *req, const char *facts, const char *home,
			    bool json, char **out, struct confine_error *err);

#endif

/* SPDX-License-Identifier: MIT */
/* The macOS plan of a request, on any OS: `confine plan --target macos`. */
#ifndef CONFINE_PLAN_MACOS_REQUEST_H
#define CONFINE_PLAN_MACOS_REQUEST_H

#include <stdbool.h>

#include "confine.h"

/*
 * Compiles the request for a Mac described by `facts` (the text form of plan/macos/facts.h;
 * NULL: defaults) with `home` (NULL: the facts', else `default_home`, else /Users/user).  The
 * request's workspace (a Mac path; default HOME/project), session rules (--allow/--ask/--deny
 * and --session-rules files, read here), network choice and command are used; the workspace
 * and user rule files live on the Mac and are not read, and the plan says so, as it says
 * which facts were assumed.  Returns 0 with a malloc'd text or JSON in *out.  Touches the OS
 * only to read the session rule files.
 */
int cf_plan_macos_request(const confine_request *req, const char *facts, const char *home,
			  const char *default_home, bool json, char **out,
			  struct confine_error *err);

#endif

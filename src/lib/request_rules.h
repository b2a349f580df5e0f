/* SPDX-License-Identifier: MIT */
/* A request's session layer as the plans and executors of macOS and Windows read it (the Linux
 * run loads it into its policy and network policy itself, run.c). */
#ifndef CONFINE_REQUEST_RULES_H
#define CONFINE_REQUEST_RULES_H

#include <stddef.h>

#include "confine.h"

/* How many --net-allow patterns the request has (SPEC 12). */
size_t cf_request_net_allows(const confine_request *req);

struct cf_ruleset;
/* The session layer of a request (SPEC 2): its session rules, then its --session-rules files
 * (host/rulefile.h's loader: a file that is missing, unreadable, too large or malformed
 * refuses), appended to *rs.  The plans and executors for macOS and Windows use it. */
int cf_request_session_rules(const confine_request *req, struct cf_ruleset *rs,
			     struct confine_error *err);

#endif

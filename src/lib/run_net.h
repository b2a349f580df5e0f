/* SPDX-License-Identifier: MIT */
/* What R43 adds to a run's network by domain (run_net.c). */
#ifndef CONFINE_RUN_NET_H
#define CONFINE_RUN_NET_H

#include "confine.h"
#include "util/util.h"

/* After the rules are loaded and the mode is known: the asker, the upstream proxy from the
 * rules or `env` (the caller's environment).  A malformed upstream URL refuses the run
 * (CONFINE_E_INVALID).  Pure. */
int cf_run_net_prepare(confine_run *run, const confine_request *req, const struct cf_strv *env,
		       struct confine_error *err);
/* After the command's environment is built: no variable of it holds the upstream's password. */
int cf_run_net_scrub(confine_run *run, struct confine_error *err);
void cf_run_net_release(confine_run *run);

#endif

/* SPDX-License-Identifier: MIT */
/* `confine plan --target windows|macos`: the host described by facts, on any OS. */
#ifndef CONFINE_CLI_PLAN_FOREIGN_H
#define CONFINE_CLI_PLAN_FOREIGN_H

#include "args.h"

/* The options only the plans for Windows and macOS have. */
struct cli_foreign_host {
	const char *facts; /* --host-facts FILE */
	const char *home;  /* --home DIR (a path of the target) */
};

/* Prints the plan of the parsed request for `target` (CONFINE_TARGET_WINDOWS or _MACOS);
 * returns the exit status.  On that system itself without --host-facts or --home, the plan of
 * this host (as `run --print-plan`).  A Mac without --home has the home /Users/$USER (or
 * /Users/user), and the plan says it was assumed. */
int cli_plan_foreign(const struct cli_opts *o, const struct cli_foreign_host *h,
		     enum confine_target target, bool has_command);

#endif

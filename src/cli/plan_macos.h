/* SPDX-License-Identifier: MIT */
/* `confine plan --target macos`: the Mac described by facts, on any OS. */
#ifndef CONFINE_CLI_PLAN_MACOS_H
#define CONFINE_CLI_PLAN_MACOS_H

#include "args.h"
#include "plan_windows.h"

/* Prints the macOS plan of the parsed request (with its --host-facts FILE and --home DIR);
 * returns the exit status.  Without --home, the home is
 * /Users/$USER (or /Users/user) and the plan says it was assumed. */
int cli_plan_macos(const struct cli_opts *o, const struct cli_win_host *h, bool has_command);

#endif

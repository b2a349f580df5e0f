/* SPDX-License-Identifier: MIT */
/* `confine plan --target windows`: the Windows host described by facts, on any OS. */
#ifndef CONFINE_CLI_PLAN_WINDOWS_H
#define CONFINE_CLI_PLAN_WINDOWS_H

#include "args.h"

/* The options only a Windows plan has. */
struct cli_win_host {
	const char *facts; /* --host-facts FILE */
	const char *home;  /* --home DIR (a Windows path) */
};

/* The text of a host-facts file (at most 1 MiB), malloc'd; NULL with err filled. */
char *cli_read_facts(const char *file, struct confine_error *err);

/* Prints the Windows plan of the parsed request; returns the exit status.  On Windows without
 * --host-facts or --home, the plan of this host (as `run --print-plan`). */
int cli_plan_windows(const struct cli_opts *o, const struct cli_win_host *h, bool has_command);

#endif

/* SPDX-License-Identifier: MIT */
/* The command-line tool: one file per subcommand; each returns the process exit status. */
#ifndef CONFINE_CLI_H
#define CONFINE_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "confine.h"
#include "util/util.h"

/* Exit status of confine's own failures (R3). */
#define CLI_EXIT_CONFINE 125

/* Prints `confine: <what>: '<subject>': <reason>` and a `hint:` line when known. */
void cli_report(const struct confine_error *err);
/* Prints a usage error for `cmd` and returns CLI_EXIT_CONFINE. */
int cli_usage_error(const char *cmd, const char *fmt, ...) CF_PRINTF(2, 3);

struct cli_opts;
enum cli_cmd;
/* Parses the options of run, plan or explain and handles --help, a parse error and a missing
 * operand (when missing_operand is not NULL, the message).  Returns true when the command goes
 * on; false with *status the exit status otherwise.  The caller frees o->req either way. */
bool cli_begin(enum cli_cmd cmd, int argc, char **argv, const char *help,
	       const char *missing_operand, struct cli_opts *o, int *status);

/* Applies CONFINE_SANDBOX_POLICY unless --policy was given; warns about a bad value (R19). */
void cli_apply_policy_env(struct cli_opts *o);

/* Opens a file confine writes after the run (the --report FILE of `option`) before the run:
 * every component as it is (a symlink is refused), created 0600 when missing, not truncated
 * yet, and registered as a private file of the request (hidden from the sandbox, R30).
 * 0 and *fd, or a negative code with err filled. */
int cli_open_private(confine_request *req, const char *option, const char *path, int *fd,
		     struct confine_error *err);
/* Replaces the content of a file opened by cli_open_private; 0, or -1 with errno. */
int cli_write_private(int fd, const char *text, size_t len);

int cmd_run(int argc, char **argv);
int cmd_probe(int argc, char **argv);
int cmd_plan(int argc, char **argv);
int cmd_explain(int argc, char **argv);
int cmd_check(int argc, char **argv);

#endif

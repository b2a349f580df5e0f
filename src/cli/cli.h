/* SPDX-License-Identifier: MIT */
/* The command-line tool: one file per subcommand; each returns the process exit status. */
#ifndef CONFINE_CLI_H
#define CONFINE_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "confine.h"

/* Exit status of confine's own failures (R3). */
#define CLI_EXIT_CONFINE 125

/* A string that a command, a workspace or a request chose, as a person should read it (R38,
 * confine_display_escape with `flags`): valid until eight more calls (a ring the CLI owns);
 * "(out of memory)" when there is none. */
const char *cli_esc(const char *s, unsigned flags);
/* cli_esc(s, CONFINE_DISPLAY_QUOTES): a subject between quotes in a message. */
const char *cli_q(const char *s);

/* Prints `confine: <what>: '<subject>': <reason>` and a `hint:` line when known, each string
 * escaped (R38: the subject and the reason name files and arguments). */
void cli_report(const struct confine_error *err);
/* Fills err with an out-of-memory failure (when still empty); returns CONFINE_E_NOMEM. */
int cli_nomem(struct confine_error *err);
/* The first n bytes of s (at most), NUL-terminated; NULL on out-of-memory. */
char *cli_strndup(const char *s, size_t n);

/* Prints a usage error for `cmd` and returns CLI_EXIT_CONFINE. */
int cli_usage_error(const char *cmd, const char *fmt, ...) CONFINE_PRINTF(2, 3);

struct cli_opts;
enum cli_cmd;
/* Parses the options of run, plan or explain and handles --help, a parse error and a missing
 * operand (when missing_operand is not NULL, the message).  Returns true when the command goes
 * on; false with *status the exit status otherwise.  The caller frees o->req either way. */
bool cli_begin(enum cli_cmd cmd, int argc, char **argv, const char *help,
	       const char *missing_operand, struct cli_opts *o, int *status);

/* Applies CONFINE_BACKEND unless --backend was given; a bad value is a usage error (false,
 * *status set).  cli_begin does it. */
bool cli_apply_backend_env(struct cli_opts *o, const char *cmd, int *status);

/* run --print-plan: the prepared run's plan as text or JSON on stdout (a failure said).
 * Returns the exit status: 0, or CLI_EXIT_CONFINE. */
int cli_print_plan(confine_run *run, bool json, struct confine_error *err);

/* probe: the results as {"backends": [...]} or as text, each after a blank line but the
 * first: the library's forms.  Returns 0, or -1 after saying why. */
int cli_print_probes(const struct confine_probe_result *v, size_t n, bool json);
/* probe: a backend that cannot run, on stderr: its name, the reason and code, the hint (R38:
 * the reason quotes PATH entries and bwrap's own output). */
void cli_say_unavailable(const struct confine_probe_result *r);

/* Applies CONFINE_SANDBOX_POLICY unless --policy was given; warns about a bad value (R19). */
void cli_apply_policy_env(struct cli_opts *o);

/* The --help texts of run, plan, explain and card (cmd_*.c), written by hand: the unit test
 * tests/unit/cli/test-help checks them against the option table of args.c. */
extern const char cli_help_run[], cli_help_plan[], cli_help_explain[], cli_help_card[];

int cmd_run(int argc, char **argv);
int cmd_probe(int argc, char **argv);
int cmd_plan(int argc, char **argv);
int cmd_explain(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_card(int argc, char **argv);
int cmd_cache(int argc, char **argv);

/* The approval card as text, for a person (cmd_card.c). */
void cli_print_card(FILE *f, const struct confine_card *card);

#endif

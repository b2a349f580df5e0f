/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

static const char usage[] =
    "usage: confine COMMAND [OPTIONS]\n"
    "\n"
    "Run a command inside an operating-system sandbox built from one rule model.\n"
    "\n"
    "commands:\n"
    "  run [OPTIONS] [--] COMMAND [ARG...]   run COMMAND sandboxed\n"
    "  probe [--json]                        which backends work here, with stable codes\n"
    "  explain [OPTIONS] [--json] PATH...    which rule decides read and write for PATH\n"
    "  check [--workspace DIR] [FILE...]     validate rule files\n"
    "  plan --target linux|macos|windows [OPTIONS] [--json] [-- COMMAND...]\n"
    "                                        print the compiled plan, run nothing\n"
    "  card [OPTIONS] [--json] -- COMMAND... the approval card and digest of an escalation\n"
    "                                        or write grant\n"
    "\n"
    "`confine COMMAND --help` describes each command's options.\n";

int main(int argc, char **argv)
{
	if (argc < 2) {
		fputs(usage, stderr);
		return CLI_EXIT_CONFINE;
	}
	const char *cmd = argv[1];
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
		fputs(usage, stdout);
		return 0;
	}
	if (!strcmp(cmd, "--version")) {
		printf("confine %s\n", CONFINE_VERSION);
		return 0;
	}
	if (!strcmp(cmd, "run"))
		return cmd_run(argc - 1, argv + 1);
	if (!strcmp(cmd, "probe"))
		return cmd_probe(argc - 1, argv + 1);
	if (!strcmp(cmd, "plan"))
		return cmd_plan(argc - 1, argv + 1);
	if (!strcmp(cmd, "explain"))
		return cmd_explain(argc - 1, argv + 1);
	if (!strcmp(cmd, "check"))
		return cmd_check(argc - 1, argv + 1);
#ifndef _WIN32
	if (!strcmp(cmd, "card"))
		return cmd_card(argc - 1, argv + 1);
#endif
	fprintf(stderr, "confine: unknown command: '%s'\nhint: run 'confine --help' for the list\n",
		cmd);
	return CLI_EXIT_CONFINE;
}

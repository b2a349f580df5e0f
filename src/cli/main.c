/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <string.h>

#include "cli.h"

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
    "  cache list|clear [-w DIR | --all]     the tool caches' stores (R39): list, empty\n"
    "  help [COMMAND]                        this text, or COMMAND's options\n"
    "  --version                             confine's version\n"
    "\n"
    "`confine help COMMAND` (or `confine COMMAND --help`) describes each command's options.\n";

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
};

static const struct command commands[] = {
    {"run", cmd_run},	      {"probe", cmd_probe}, {"plan", cmd_plan},
    {"explain", cmd_explain}, {"check", cmd_check},
#ifndef _WIN32
    {"card", cmd_card},
#endif
#if !defined(_WIN32) && !defined(__APPLE__)
    {"cache", cmd_cache},
#endif
};

static const struct command *find(const char *name)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

static int unknown(const char *cmd)
{
	fprintf(stderr, "confine: unknown command: '%s'\nhint: run 'confine --help' for the list\n",
		cli_q(cmd));
	return CLI_EXIT_CONFINE;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fputs(usage, stderr);
		return CLI_EXIT_CONFINE;
	}
	const char *cmd = argv[1];
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || (!strcmp(cmd, "help") && argc == 2)) {
		fputs(usage, stdout);
		return 0;
	}
	if (!strcmp(cmd, "--version")) {
		/* The library's own version: the one that runs. */
		printf("confine %s\n", confine_version()->text);
		return 0;
	}
	if (!strcmp(cmd, "help")) {
		/* confine help COMMAND: that command's own --help. */
		const struct command *c = find(argv[2]);
		if (!c)
			return unknown(argv[2]);
		char *hargv[] = {argv[2], "--help", NULL};
		return c->fn(2, hargv);
	}
	const struct command *c = find(cmd);
	return c ? c->fn(argc - 1, argv + 1) : unknown(cmd);
}

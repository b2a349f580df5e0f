/* SPDX-License-Identifier: MIT */
/*
 * confine check [--workspace DIR] [FILE...]: validates rule files the way `run` loads them,
 * and reports every problem of every file as FILE:LINE:COLUMN: POINTER: message (R5), so one
 * run lists all there is to fix.  Beyond the syntax of SPEC 2.1 it resolves each pattern
 * (SPEC 2.2: reserved characters, relative paths in the user file) and applies R10 to the
 * workspace file, since those refuse a `run` as surely as a syntax error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char usage[] =
    "usage: confine check [--workspace DIR] [FILE...]\n"
    "\n"
    "Validate rule files and print every error as FILE:LINE:COLUMN: POINTER: message.\n"
    "Without FILE, checks the two standard files: WORKSPACE/.confine/rules.json and\n"
    "${XDG_CONFIG_HOME:-~/.config}/confine/rules.json (a missing one means no rules).\n"
    "A FILE is checked as the user file when it is that file, as a workspace file when it is\n"
    "named .confine/rules.json, and as a session rule file (--session-rules) otherwise.\n"
    "\n"
    "options:\n"
    "  -w, --workspace DIR   workspace root (default: the current directory)\n"
    "  -h, --help            show this help\n"
    "\n"
    "exit status: 0 all files valid, 1 errors found, 125 invalid arguments\n";

/* Checks one file (the library's confine_rules_check) and prints its problems in document
 * order; returns its number of errors, or -1 on out-of-memory. */
static int check_file(const confine_request *req, const char *file, enum confine_rule_file kind,
		      bool standard)
{
	struct confine_error err = {0};
	confine_check *c = NULL;
	int r = confine_rules_check(req, file, kind, &c, &err);
	if (r == CONFINE_E_NOTFOUND && standard) {
		printf("%s: not found (no rules)\n", cli_esc(file, 0));
		return 0;
	}
	if (r == CONFINE_E_NOMEM)
		return -1;
	if (r < 0) {
		printf("%s: %s: %s\n", cli_esc(file, 0), err.what, cli_esc(err.reason, 0));
		return 1;
	}
	size_t n = confine_check_problem_count(c), rules = confine_check_rule_count(c);
	size_t net = confine_check_net_rule_count(c);
	for (size_t i = 0; i < n; i++) {
		const struct confine_check_problem *p = confine_check_problem(c, i);
		/* One line, escaped whole: the file names and messages quote what the file holds.
		 */
		size_t len = strlen(file) + strlen(p->pointer) + strlen(p->message) + 64;
		char *line = malloc(len);
		if (!line) {
			confine_check_free(c);
			return -1;
		}
		snprintf(line, len, "%s:%d:%d: %s%s%s", file, p->line, p->column, p->pointer,
			 p->pointer[0] ? ": " : "", p->message);
		printf("%s\n", cli_esc(line, 0));
		free(line);
	}
	if (n == 0 && net)
		printf("%s: ok (%zu rule%s, %zu network rule%s)\n", cli_esc(file, 0), rules,
		       rules == 1 ? "" : "s", net, net == 1 ? "" : "s");
	else if (n == 0)
		printf("%s: ok (%zu rule%s)\n", cli_esc(file, 0), rules, rules == 1 ? "" : "s");
	confine_check_free(c);
	return (int)n;
}

/* The file of `kind` (workspace or user) where a run reads it; NULL with *e set when there is
 * none (no home) or out-of-memory. */
static char *standard_file(const confine_request *req, enum confine_rule_file kind, int *e)
{
	struct confine_error err = {0};
	char *f = NULL;
	int r = confine_request_rule_file(req, kind, &f, &err);
	*e = r == CONFINE_E_NOMEM ? -1 : 0;
	if (r == CONFINE_E_NOTFOUND)
		printf("confine: check: the user rule file is unknown (HOME is not set)\n");
	return r < 0 ? NULL : f;
}

int cmd_check(int argc, char **argv)
{
	const char *ws_arg = NULL;
	int i, status = CLI_EXIT_CONFINE, errors = 0, bad_files = 0, e = 0;
	confine_request *req = NULL;
	struct confine_error err = {0};
	char *file = NULL;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(usage, stdout);
			return 0;
		}
		if (!strcmp(a, "-w") || !strcmp(a, "--workspace")) {
			if (i + 1 >= argc)
				return cli_usage_error("check", "%s needs a directory", a);
			ws_arg = argv[++i];
		} else if (!strncmp(a, "--workspace=", 12)) {
			ws_arg = a + 12;
		} else if (a[0] == '-' && a[1]) {
			return cli_usage_error("check", "unknown option '%s'", a);
		} else {
			break;
		}
	}

	if (confine_request_new(&req, &err) < 0 ||
	    confine_request_set_workspace(req, ws_arg, &err) < 0) {
		cli_report(&err);
		goto out;
	}
	/* The workspace file first: it also says when the workspace is no directory. */
	if ((e = confine_request_rule_file(req, CONFINE_RULE_FILE_WORKSPACE, &file, &err)) < 0) {
		if (e == CONFINE_E_NOMEM)
			fprintf(stderr, "confine: check: out of memory\n");
		else
			fprintf(stderr, "confine: check: %s: '%s': %s\n", err.what,
				cli_q(err.subject), cli_esc(err.reason, 0));
		goto out;
	}
	if (i >= argc) {
		e = check_file(req, file, CONFINE_RULE_FILE_WORKSPACE, true);
		errors += e > 0 ? e : 0;
		bad_files += e > 0;
		confine_free(file);
		file = NULL;
		if (e >= 0 && (file = standard_file(req, CONFINE_RULE_FILE_USER, &e))) {
			e = check_file(req, file, CONFINE_RULE_FILE_USER, true);
			errors += e > 0 ? e : 0;
			bad_files += e > 0;
		}
		if (e < 0) {
			fprintf(stderr, "confine: check: out of memory\n");
			goto out;
		}
	}
	for (; i < argc; i++) {
		e = check_file(req, argv[i], CONFINE_RULE_FILE_AUTO, false);
		if (e < 0) {
			fprintf(stderr, "confine: check: out of memory\n");
			goto out;
		}
		errors += e;
		bad_files += e > 0;
	}
	fflush(stdout);
	if (errors) {
		fprintf(stderr, "confine: check: %d error%s in %d file%s\n", errors,
			errors == 1 ? "" : "s", bad_files, bad_files == 1 ? "" : "s");
		status = 1;
	} else {
		status = 0;
	}
out:
	confine_free(file);
	confine_request_free(req);
	return status;
}

/* SPDX-License-Identifier: MIT */
/* confine plan --target linux|macos|windows [OPTIONS] [--json] [-- COMMAND...] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "cli.h"
#include "inject.h"
#include "plan_foreign.h"

const char cli_help_plan[] =
    "usage: confine plan --target linux|macos|windows [OPTIONS] [--json] [-- COMMAND...]\n"
    "\n"
    "Print the plan compiled from the rules for a target system; run nothing.\n"
    "Options as for 'confine run': -w/--workspace, --allow/--ask/--deny, --session-rules,\n"
    "--no-network, --net-allow/--net-deny, --policy, --backend, --inject-env, --inject-path\n"
    "(linux).\n"
    "For --target windows, on any OS: --host-facts FILE describes the Windows host (see\n"
    "confine(1)), --home DIR its profile directory; --workspace is a Windows path.\n"
    "For --target macos, on any OS: the Seatbelt profile; --host-facts FILE describes the\n"
    "Mac (see confine(1)), --home DIR its home (default /Users/$USER, said so in the plan);\n"
    "--workspace is a path on the Mac.  Compiled and tested on Linux; never run on a Mac.\n";

int cmd_plan(int argc, char **argv)
{
	struct confine_error err = {0};
	struct cli_opts o;
	confine_run *run = NULL;
	int status = CLI_EXIT_CONFINE;
	if (!cli_begin(CLI_PLAN, argc, argv, cli_help_plan, NULL, &o, &status))
		goto out;
	struct cli_foreign_host win = {.facts = o.host_facts, .home = o.home};
	status = CLI_EXIT_CONFINE;
	if (!o.target) {
		status = cli_usage_error("plan", "--target is required (linux, macos or windows)");
		goto out;
	}
	if (o.n_inject && strcmp(o.target, "linux")) {
		status = cli_usage_error("plan", "--inject-env and --inject-path are planned for "
						 "--target linux only");
		goto out;
	}
	if (!strcmp(o.target, "windows")) {
		status = cli_plan_foreign(&o, &win, CONFINE_TARGET_WINDOWS, o.first_operand < argc);
		goto out;
	}
	if (!strcmp(o.target, "macos")) {
		status = cli_plan_foreign(&o, &win, CONFINE_TARGET_MACOS, o.first_operand < argc);
		goto out;
	}
#ifdef _WIN32
	status = cli_usage_error("plan", "the Windows build compiles plans for --target windows "
					 "and --target macos");
	goto out;
#endif
#ifdef __APPLE__
	status = cli_usage_error("plan", "the macOS build compiles plans for --target macos and "
					 "--target windows");
	goto out;
#endif
	if (win.facts || win.home) {
		status = cli_usage_error(
		    "plan", "--host-facts and --home go with --target windows or --target macos");
		goto out;
	}
	if (strcmp(o.target, "linux")) {
		fprintf(stderr,
			"confine: cannot compile plan: '%s': this version compiles plans for linux "
			"only; the %s backend is not implemented yet\n",
			o.target, o.target);
		goto out;
	}
	if (o.first_operand >= argc) {
		const char *placeholder[] = {"COMMAND"};
		if (confine_request_set_argv(o.req, 1, placeholder, &err) < 0) {
			cli_report(&err);
			goto out;
		}
	}
	if (cli_load_injections(&o, false, &err) < 0) {
		cli_report(&err);
		goto out;
	}
	/* A plan is data: it needs no working backend. */
	confine_request_set_policy(o.req, CONFINE_POLICY_OFF, NULL);
	if (confine_request_set_dry_run(o.req, true, &err) < 0 ||
	    confine_run_prepare(o.req, &run, &err) < 0) {
		cli_report(&err);
		goto out;
	}
	status = cli_print_plan(run, o.json, &err);
out:
	confine_run_free(run);
	confine_request_free(o.req);
	return status;
}

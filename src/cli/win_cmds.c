/* SPDX-License-Identifier: MIT */
/*
 * The subcommands of the Windows build (SPEC 10): run and probe on the Windows executor;
 * explain and check are not in this build yet and say so.  plan is cmd_plan.c.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <windows.h>

#include "args.h"
#include "cli.h"

static const char run_help[] =
    "usage: confine run [OPTIONS] [--] COMMAND [ARG...]\n"
    "\n"
    "Run COMMAND with write protection: a write-restricted token that can write only to the\n"
    "workspace, the temp directories and what the rules allow.  On Windows reads are NOT\n"
    "protected and the network is NOT restricted; 'confine plan --target windows' lists\n"
    "every rule that is not enforced.  This backend is compiled and tested under Wine, not\n"
    "on Windows itself.\n"
    "\n"
    "options:\n"
    "  -w, --workspace DIR        workspace root (default: the current directory)\n"
    "  --allow/--ask/--deny PATH[:read|write|both]   session rules, first match wins\n"
    "  --session-rules FILE       more session rules, rule-file format\n"
    "  --no-network               accepted, NOT enforced on Windows (the plan says so)\n"
    "  --policy required|off      'off' runs without a sandbox (also CONFINE_SANDBOX_POLICY)\n"
    "  --env, --pass-env, --unset-env, --clearenv   the environment, as on Linux\n"
    "  --print-plan [--json]      print the plan and exit without running\n"
    "\n"
    "exit status: the command's own; 125 when confine failed before the command started;\n"
    "126 not executable; 127 not found.\n";

static confine_run *volatile current;
static HANDLE done_event;

/*
 * Ctrl-C and Ctrl-Break go to every process of the console, the command included: confine
 * ignores them and waits for the command to answer.  Closing the console, logging off or
 * shutting down end the job, and the handler holds the process until the main thread has
 * removed the ACL edits (Windows gives it a few seconds).
 */
static BOOL WINAPI on_console(DWORD ev)
{
	if (ev == CTRL_C_EVENT || ev == CTRL_BREAK_EVENT)
		return TRUE;
	if (current)
		confine_run_forward_signal(current, SIGTERM);
	if (done_event)
		WaitForSingleObject(done_event, 4000);
	return FALSE;
}

int cmd_run(int argc, char **argv)
{
	struct confine_error err = {0};
	struct cli_opts o;
	confine_run *run = NULL;
	int status = CLI_EXIT_CONFINE;

	if (!cli_begin(CLI_RUN, argc, argv, run_help, "no command given", &o, &status))
		goto out;
	if (o.json && !o.print_plan) {
		status = cli_usage_error("run", "--json goes with --print-plan");
		goto out;
	}
	const char *audit_env = getenv("CONFINE_AUDIT");
	if (o.audit || (audit_env && *audit_env) || o.escalate || o.grants || o.receipt) {
		status =
		    cli_usage_error("run", "--audit (CONFINE_AUDIT), --escalate, --grant-write and "
					   "--receipt are not in the Windows build yet");
		goto out;
	}
	if (o.report) {
		status = cli_usage_error("run", "--report is not in the Windows build yet");
		goto out;
	}
	cli_apply_policy_env(&o);
	if (confine_run_prepare(o.req, &run, &err) < 0) {
		cli_report(&err);
		goto out;
	}
	if (o.print_plan) {
		status = cli_print_plan(run, o.json, &err);
		goto out;
	}
	done_event = CreateEventW(NULL, TRUE, FALSE, NULL);
	current = run;
	SetConsoleCtrlHandler(on_console, TRUE);
	if (confine_run_start(run, &err) < 0) {
		cli_report(&err);
		goto out;
	}
	if (confine_run_wait(run, &status, &err) < 0)
		cli_report(&err);
out:
	current = NULL;
	confine_run_free(run);
	if (done_event)
		SetEvent(done_event);
	confine_request_free(o.req);
	return status;
}

int cmd_probe(int argc, char **argv)
{
	struct confine_probe_result res = {.size = sizeof(res)};
	struct confine_error err = {0};
	bool json = false;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			json = true;
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs("usage: confine probe [--json]\n\nWhether the Windows backend works "
			      "here, and what it gives: write protection only.\n",
			      stdout);
			return 0;
		} else {
			return cli_usage_error("probe", "unknown option '%s'", argv[i]);
		}
	}
	if (confine_probe_windows(&res, &err) < 0) {
		cli_report(&err);
		return CLI_EXIT_CONFINE;
	}
	if (cli_print_probes(&res, 1, json) < 0)
		return CLI_EXIT_CONFINE;
	return res.available ? 0 : 1;
}

int cmd_explain(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "confine: not available on Windows: 'explain': this version of the "
			"Windows build does not explain decisions\nhint: 'confine plan --target "
			"windows' shows every ACE and every rule that is not enforced\n");
	return CLI_EXIT_CONFINE;
}

int cmd_check(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "confine: not available on Windows: 'check': this version of the Windows "
			"build does not validate rule files on their own\nhint: 'confine run "
			"--print-plan -- cmd' reads them and names the first error\n");
	return CLI_EXIT_CONFINE;
}

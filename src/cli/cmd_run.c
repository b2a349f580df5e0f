/* SPDX-License-Identifier: MIT */
/* confine run [OPTIONS] [--] COMMAND [ARG...] */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/args.h"
#include "cli/cli.h"

static const char help[] =
    "usage: confine run [OPTIONS] [--] COMMAND [ARG...]\n"
    "\n"
    "Run COMMAND inside the sandbox: the host is visible read-only, the workspace is\n"
    "writable, /tmp is private, credentials and host sockets are hidden, secrets are removed\n"
    "from the environment.\n"
    "\n"
    "options:\n"
    "  -w, --workspace DIR        workspace root (default: the current directory)\n"
    "  --allow PATH[:ACCESS]      session rule; ACCESS is read, write or both (default both)\n"
    "  --ask PATH[:ACCESS]        session rule: ask (enforced as deny until approved)\n"
    "  --deny PATH[:ACCESS]       session rule: deny.  Rules match in the order given: put\n"
    "                             the more specific rule first\n"
    "  --session-rules FILE       more session rules, rule-file format\n"
    "  --no-network               no network (own network namespace, loopback only)\n"
    "  --policy required|off      'off' runs without a sandbox (also CONFINE_SANDBOX_POLICY)\n"
    "  --backend auto|bwrap       Linux backend\n"
    "  --env NAME=VALUE           set a variable\n"
    "  --pass-env PATTERN         keep matching variables even if they look secret\n"
    "  --unset-env PATTERN        remove matching variables\n"
    "  --clearenv                 keep only PATH HOME USER LOGNAME SHELL TERM LANG LC_* TZ\n"
    "  --tmp-size SIZE            size cap of the private /tmp (default 1G; K, M, G)\n"
    "  --limit pids=N,mem=SIZE    at most N processes (counting confine's own two) and SIZE\n"
    "                             of memory, through a cgroup; refused where the host does\n"
    "                             not let confine create one (see 'confine probe')\n"
    "  --timeout SECONDS          kill the whole sandbox after SECONDS (status 137)\n"
    "  --print-plan               print the plan and exit without running\n"
    "\n"
    "exit status: the command's own; 128+N when it died by signal N; 125 when confine\n"
    "failed before the command started; 126 not executable; 127 not found.\n";

static confine_run *current;

static void forward(int sig)
{
	if (current)
		confine_run_forward_signal(current, sig);
}

/* What was not protected while the command ran (R23): said on stderr, after the command's own
 * output. */
static void report_events(const confine_run *run)
{
	size_t n;
	const struct confine_event *e = confine_run_events(run, &n);
	for (size_t i = 0; i < n; i++) {
		if (!strcmp(e[i].kind, "missing_protected_created"))
			fprintf(
			    stderr,
			    "confine: warning: protected path created during the run: '%s': it "
			    "did not exist at launch, so rule '%s' could not protect it while the "
			    "command ran\nhint: inspect it; from the next run on it is protected\n",
			    e[i].path, e[i].rule);
		else if (!strcmp(e[i].kind, "dynamic_glob_created"))
			fprintf(
			    stderr,
			    "confine: warning: file matching a glob rule created during the run: "
			    "'%s': rule '%s' protects only what exists at launch\nhint: inspect "
			    "it; "
			    "from the next run on it is protected\n",
			    e[i].path, e[i].rule);
		else
			fprintf(
			    stderr,
			    "confine: warning: post-run check failed (%s): %s\nhint: files created "
			    "during the run may match protected paths; check them by hand\n",
			    e[i].kind, e[i].detail);
	}
}

int cmd_run(int argc, char **argv)
{
	struct confine_error err = {0};
	struct cli_opts o;
	confine_run *run = NULL;
	int status = CLI_EXIT_CONFINE, r;
	const char *timeout_text = "";

	if (!cli_begin(CLI_RUN, argc, argv, help, "no command given", &o, &status))
		goto out;
	if (o.json && !o.print_plan) {
		status = cli_usage_error("run", "--json goes with --print-plan");
		goto out;
	}
	cli_apply_policy_env(&o);

	r = confine_run_prepare(o.req, &run, &err);
	if (r < 0) {
		cli_report(&err);
		goto out;
	}
	if (o.print_plan) {
		char *text = NULL;
		if (confine_run_plan_text(run, o.json, &text, &err) < 0) {
			cli_report(&err);
			goto out;
		}
		fputs(text, stdout);
		free(text);
		status = 0;
		goto out;
	}

	/* Signals received while the command runs are forwarded to it (R4). */
	struct sigaction sa = {.sa_handler = forward};
	sigemptyset(&sa.sa_mask);
	current = run;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGQUIT, &sa, NULL);
	for (int i = 1; i < o.first_operand; i++)
		if (!strncmp(argv[i], "--timeout", 9))
			timeout_text = argv[i][9] == '=' ? argv[i] + 10 : argv[i + 1];
	r = confine_run_start(run, &err);
	if (r < 0) {
		cli_report(&err);
		goto out;
	}
	r = confine_run_wait(run, &status, &err);
	if (r < 0)
		cli_report(&err);
	if (confine_run_timed_out(run))
		fprintf(
		    stderr,
		    "confine: command timed out: '%s': the sandbox was killed after %s seconds\n",
		    argv[o.first_operand], timeout_text);
	report_events(run);
out:
	current = NULL;
	confine_run_free(run);
	confine_request_free(o.req);
	return status;
}

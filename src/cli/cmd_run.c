/* SPDX-License-Identifier: MIT */
/* confine run [OPTIONS] [--] COMMAND [ARG...] */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fcntl.h>
#include <unistd.h>

#include "cli/args.h"
#include "util/util.h"
#include "cli/cli.h"
#include "cli/net_report.h"

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
    "  --net-allow D[,D...]       network by domain: the command gets its own network\n"
    "                             namespace and reaches only these hosts, through confine's\n"
    "                             HTTP and SOCKS5 proxy (D: example.com, *.example.com, an\n"
    "                             address; each with an optional :PORT).  Unlisted hosts are\n"
    "                             denied and reported\n"
    "  --net-deny D[,D...]        deny these hosts (checked before the allows)\n"
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
    "\n"
    "signals: SIGINT, SIGTERM, SIGHUP and SIGQUIT are forwarded to the command.  After a\n"
    "SIGTERM, SIGHUP, SIGQUIT or a second SIGINT the command has 5 seconds to end; then the\n"
    "whole sandbox is killed (status 137).\n"
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
		else if (!strcmp(e[i].kind, "ipc_endpoint_created"))
			fprintf(
			    stderr,
			    "confine: warning: host socket or FIFO created during the run: '%s': "
			    "confine hides the host's IPC endpoints that exist at launch, so the "
			    "command could reach this one\nhint: if it belongs to a service the "
			    "command must not use, stop and check the command's actions; from the "
			    "next run on it is hidden\n",
			    e[i].path);
		else
			fprintf(
			    stderr,
			    "confine: warning: post-run check failed (%s): %s\nhint: files created "
			    "during the run may match protected paths; check them by hand\n",
			    e[i].kind, e[i].detail);
	}
}

/*
 * --report FILE (SPEC 7.3): written after the run, whatever happened, so that a host can tell
 * a 125 of confine's from a 125 of the command's.  Opened with O_NOFOLLOW and created 0600: a
 * symlink planted at FILE (by the command, if FILE is in the workspace) is refused.
 */
static int write_report(const char *file, const confine_run *run, int status,
			const struct confine_error *err)
{
	struct cf_buf b;
	size_t n = 0;
	const struct confine_event *ev = run ? confine_run_events(run, &n) : NULL;
	bool from_command = run && confine_run_status_from_command(run);
	cf_buf_init(&b);
	cf_buf_addf(&b, "{\"version\": \"%s\", \"exit_status\": %d, \"status_from\": \"%s\"",
		    CONFINE_VERSION, status, from_command ? "command" : "confine");
	cf_buf_addf(&b, ", \"timed_out\": %s",
		    run && confine_run_timed_out(run) ? "true" : "false");
	cf_buf_add(&b, ", \"error\": ");
	if (err->code) {
		cf_buf_addf(&b, "{\"code\": %d, \"kind\": \"%s\", \"what\": ", err->code,
			    confine_strerror(err->code));
		cf_buf_add_json(&b, err->what);
		cf_buf_add(&b, ", \"subject\": ");
		cf_buf_add_json(&b, err->subject);
		cf_buf_add(&b, ", \"reason\": ");
		cf_buf_add_json(&b, err->reason);
		cf_buf_add(&b, ", \"hint\": ");
		cf_buf_add_json(&b, err->hint);
		cf_buf_add(&b, "}");
	} else {
		cf_buf_add(&b, "null");
	}
	cf_buf_add(&b, ", \"events\": [");
	for (size_t i = 0; i < n; i++) {
		cf_buf_add(&b, i ? ", {\"kind\": " : "{\"kind\": ");
		cf_buf_add_json(&b, ev[i].kind);
		cf_buf_add(&b, ", \"path\": ");
		cf_buf_add_json(&b, ev[i].path);
		cf_buf_add(&b, ", \"rule\": ");
		cf_buf_add_json(&b, ev[i].rule);
		cf_buf_add(&b, ", \"detail\": ");
		cf_buf_add_json(&b, ev[i].detail);
		cf_buf_add(&b, "}");
	}
	cf_buf_add(&b, "]");
	cli_net_report_json(&b, run);
	cf_buf_add(&b, "}\n");
	if (b.oom) {
		cf_buf_release(&b);
		fprintf(stderr, "confine: cannot write the report: '%s': out of memory\n", file);
		return -1;
	}
	int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	ssize_t k = fd >= 0 ? write(fd, b.s, b.len) : -1;
	int e = errno;
	if (fd >= 0)
		close(fd);
	bool whole = k == (ssize_t)b.len;
	cf_buf_release(&b);
	if (!whole) {
		fprintf(stderr, "confine: cannot write the report: '%s': %s\n", file,
			k < 0 ? strerror(e) : "short write");
		if (e == ELOOP)
			fprintf(stderr, "hint: the report path is a symlink; name a new file\n");
		return -1;
	}
	return 0;
}

int cmd_run(int argc, char **argv)
{
	struct confine_error err = {0};
	struct cli_opts o;
	confine_run *run = NULL;
	int status = CLI_EXIT_CONFINE, r;

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
		    argv[o.first_operand], o.timeout);
	if (confine_run_killed_after_grace(run))
		fprintf(stderr,
			"confine: command did not end: '%s': it was asked to end by a signal and "
			"was still running after the grace period; the whole sandbox was killed\n",
			argv[o.first_operand]);
	report_events(run);
	cli_net_warnings(run);
out:
	if (o.report && write_report(o.report, run, status, &err) < 0)
		status = status == 0 ? CLI_EXIT_CONFINE : status;
	current = NULL;
	confine_run_free(run);
	confine_request_free(o.req);
	return status;
}

/* SPDX-License-Identifier: MIT */
/* confine run [OPTIONS] [--] COMMAND [ARG...] */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fcntl.h>
#include <unistd.h>

#include "args.h"
#include "cli.h"
#include "inject.h"
#include "net_ask.h"
#include "net_report.h"
#include "secrets.h"

const char cli_help_run[] =
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
    "                             address; each with an optional :PORT); names resolve inside\n"
    "                             through confine, so clients that ignore the proxy are\n"
    "                             decided the same way.  Unlisted hosts are asked about on a\n"
    "                             terminal, else denied, and reported.  The landlock backend:\n"
    "                             the proxy on the host's loopback with a per-run secret, TCP\n"
    "                             only to it, no resolver inside\n"
    "  --net-deny D[,D...]        deny these hosts (checked before the allows)\n"
    "  --no-net-ask               do not ask on the terminal about a host no rule names\n"
    "                             (with a terminal the connection waits for the answer:\n"
    "                             once, for the run, or deny); it is denied\n"
    "  --policy required|off      'off' runs without a sandbox (also CONFINE_SANDBOX_POLICY)\n"
    "  --backend auto|bwrap|landlock\n"
    "                             Linux backend (also CONFINE_BACKEND); auto falls back to\n"
    "                             landlock when bwrap cannot run, saying what is weaker\n"
    "  --env NAME=VALUE           set a variable\n"
    "  --pass-env PATTERN         keep matching variables even if they look secret\n"
    "  --unset-env PATTERN        remove matching variables\n"
    "  --clearenv                 keep only PATH HOME USER LOGNAME SHELL TERM LANG LC_* TZ\n"
    "  --tmp-size SIZE            size cap of the private /tmp (default 1G; K, M, G)\n"
    "  --cache-size SIZE          bound of confine's tool-cache stores (default 4G): package\n"
    "                             managers read your caches and write into a store of the\n"
    "                             workspace's, never into yours (see 'confine cache'); 0\n"
    "                             turns that off\n"
    "  --limit pids=N,mem=SIZE    at most N processes (counting confine's own two) and SIZE\n"
    "                             of memory, through a cgroup; refused where the host does\n"
    "                             not let confine create one (see 'confine probe')\n"
    "  --timeout DURATION         kill the whole sandbox after DURATION (status 137):\n"
    "                             seconds (30, 2.5, 30s), minutes (2m) or hours (1h)\n"
    "  --tty, --no-tty            the command gets a terminal of its own that confine\n"
    "                             relays (the default when confine's stdin, stdout or\n"
    "                             stderr is a terminal), or none: confine's descriptors\n"
    "  --report FILE              write the post-run report (JSON) to FILE\n"
    "  --audit FILE               append one JSON line per spawn attempt to FILE (also\n"
    "                             CONFINE_AUDIT); FILE is hidden from the sandbox\n"
    "\n"
    "approvals ('confine card' prints the card, its request id and digest):\n"
    "  --escalate                 run COMMAND once outside the sandbox: no rule or guard\n"
    "                             applies.  Needs --request-id and --receipt of its card,\n"
    "                             or a typed 'yes' on a terminal\n"
    "  --grant-write PATH:file|subtree  write access to an existing file or directory tree\n"
    "                             for this run only (at most 8; needs --reason and approval)\n"
    "  --reason TEXT              why the command needs the write targets\n"
    "  --receipt DIGEST           the digest of the approved card of exactly this request,\n"
    "                             with --request-id of that card; spent when the run starts\n"
    "  --request-id ID            the id the card, the report and the audit line carry\n"
    "  --inject-env NAME=FILE     read-only file injection: FILE's content (as read now) in\n"
    "                             a sealed file of the sandbox, its path in $NAME (set last)\n"
    "  --inject-path TARGET=FILE  read-only file injection at TARGET inside the sandbox: over\n"
    "                             an existing file of the host (never changed), or in /tmp\n"
    "                             (at most 128 injections, 8 MiB each, 16 MiB in all)\n"
    "\n"
    "secrets the command can use but never read:\n"
    "  --ssh-agent                an ssh-agent (SSH_AUTH_SOCK) served from yours, which stays\n"
    "                             hidden: only the --ssh-key keys are listed and used, only\n"
    "                             to sign in to a host your known_hosts and the network rules\n"
    "                             allow (or SSHSIG); add, remove, lock are refused\n"
    "  --ssh-key FILE.pub|SHA256:...  a key the command may use (repeatable)\n"
    "  --secret NAME=SOURCE@HOST[,HOST...]  $NAME holds a placeholder; the proxy puts the\n"
    "                             real value (SOURCE: your variable, or file:/PATH) in its\n"
    "                             place only in requests to HOST, and refuses it elsewhere\n"
    "  --tls-inspect HOST[,HOST...]  terminate the command's TLS to HOST with a CA made for\n"
    "                             the run (implied for a --secret's hosts)\n"
    "\n"
    "signals: SIGINT, SIGTERM, SIGHUP and SIGQUIT are forwarded to the command.  After a\n"
    "SIGTERM, SIGHUP, SIGQUIT or a second SIGINT the command has 5 seconds to end; then the\n"
    "whole sandbox is killed (status 137).\n"
    "  --print-plan               print the plan and exit without running\n"
    "  --json                     with --print-plan: the plan as JSON\n"
    "\n"
    "exit status: the command's own; 128+N when it died by signal N; 125 when confine\n"
    "failed before the command started; 126 not executable; 127 not found.\n";

static confine_run *current;

/* A failure after the command ran (its audit line, its report, the post-run checks): said, and
 * never in place of the command's exit status (README: exit status). */
static void report_after_run(const struct confine_error *e, bool ran, int status)
{
	struct confine_error said = *e;
	if (ran) {
		size_t n = strlen(said.hint);
		snprintf(said.hint + n, sizeof(said.hint) - n,
			 "%sthe command ran: the exit status is its own (%d)", n ? "; " : "",
			 status);
	}
	cli_report(&said);
}

static void forward(int sig)
{
	if (current)
		confine_run_forward_signal(current, sig);
}

/* SPEC 3.3: each denial the command printed in a directory of the landlock backend that took
 * no new entry, explained. */
static void explain_denials(confine_run *run)
{
	size_t n = 0;
	const char *const *paths = confine_run_denied_paths(run, &n);
	for (size_t i = 0; i < n; i++) {
		char *why = NULL;
		if (confine_run_explain_denial(run, paths[i], &why, NULL) == 0 && why)
			fprintf(
			    stderr,
			    "confine: warning: %s\nhint: run the command again (what exists when "
			    "a run starts gets its own rule), make the directory it needs before "
			    "the run, or use the bwrap backend\n",
			    cli_esc(why, 0));
		confine_free(why);
	}
}

/* R41: a stop from outside (kill -TSTP; the keyboard's Ctrl-Z goes to the command's own
 * terminal) gives the user's terminal back first; SIGCONT (forwarded) takes it again. */
static void stop_self(int sig);

static void on_tstp(void (*handler)(int))
{
	struct sigaction sa = {.sa_handler = handler, .sa_flags = SA_RESTART | SA_NODEFER};
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTSTP, &sa, NULL);
}

static void stop_self(int sig)
{
	int e = errno;
	confine_run_restore_terminal(current);
	/* The default action now (the handler runs with SA_NODEFER), so that a stop in an
	 * orphaned process group is dropped as the kernel drops it; back in place after SIGCONT. */
	on_tstp(SIG_DFL);
	raise(sig);
	on_tstp(stop_self);
	errno = e;
}

/* A signal that ends confine without its own handling: the user's terminal as it was first
 * (R41), then the signal's default action. */
static void fatal(int sig)
{
	confine_run_restore_terminal(current);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void terminal_signals(void)
{
	static const int fatal_signals[] = {SIGALRM, SIGUSR1, SIGUSR2, SIGVTALRM, SIGPROF,
					    SIGXCPU, SIGXFSZ, SIGSEGV, SIGBUS,	  SIGFPE,
					    SIGILL,  SIGABRT, SIGSYS};
	struct sigaction sa = {.sa_handler = forward, .sa_flags = SA_RESTART};
	sigemptyset(&sa.sa_mask);
	sigaction(SIGWINCH, &sa, NULL);
	sigaction(SIGCONT, &sa, NULL);
	on_tstp(stop_self);
	sa.sa_handler = fatal;
	sa.sa_flags = SA_RESETHAND | SA_NODEFER;
	for (size_t i = 0; i < sizeof(fatal_signals) / sizeof(fatal_signals[0]); i++)
		sigaction(fatal_signals[i], &sa, NULL);
}

/* The command ran into a limit of --limit. */
static bool say_limit_event(const struct confine_event *e, const char *cmd)
{
	if (!strcmp(e->kind, "memory_limit_killed")) {
		fprintf(stderr,
			"confine: command killed by its memory limit: '%s': %s\nhint: "
			"raise the limit (--limit mem=SIZE, such as 2G), or let the command "
			"use less memory\n",
			cli_q(cmd), cli_esc(e->detail, 0));
		return true;
	}
	if (!strcmp(e->kind, "pids_limit_reached")) {
		fprintf(stderr,
			"confine: warning: process limit reached: '%s': %s\nhint: raise "
			"the limit (--limit pids=N; N counts confine's own two processes)\n",
			cli_q(cmd), cli_esc(e->detail, 0));
		return true;
	}
	return false;
}

/* A protected path made during the run (R23): kept, renamed, or unprotected while it ran. */
static bool say_protected_event(const struct confine_event *e)
{
	if (!strcmp(e->kind, "missing_protected_created")) {
		fprintf(stderr,
			"confine: warning: protected path created during the run: '%s': it "
			"did not exist at launch, so rule '%s' could not protect it while the "
			"command ran\nhint: inspect it; from the next run on it is protected\n",
			cli_q(e->path), cli_q(e->rule));
		return true;
	}
	if (!strcmp(e->kind, "protected_created_disabled")) {
		fprintf(stderr,
			"confine: warning: protected path created during the run: '%s': "
			"it did not exist at launch, and the host would act on it later "
			"(rule '%s'), so it was renamed to '%s'\nhint: inspect it; if you "
			"asked the command to create it, move it back yourself\n",
			cli_q(e->path), cli_q(e->rule), cli_q(e->detail));
		return true;
	}
	if (!strcmp(e->kind, "protected_created_kept")) {
		fprintf(stderr,
			"confine: warning: protected path created during the run: '%s': "
			"the host would act on it later (rule '%s'), and %s\nhint: inspect "
			"it and remove it before you run git or confine here again\n",
			cli_q(e->path), cli_q(e->rule), cli_esc(e->detail, 0));
		return true;
	}
	if (!strcmp(e->kind, "protected_link_disabled")) {
		fprintf(stderr,
			"confine: warning: protected name made as a link during the run: "
			"'%s': it is a symlink or a hard link of another file, so what is "
			"written to it later would land where rule '%s' protects nothing; "
			"it was renamed to '%s'\nhint: inspect it; if you made the link "
			"yourself, move it back\n",
			cli_q(e->path), cli_q(e->rule), cli_q(e->detail));
		return true;
	}
	if (!strcmp(e->kind, "protected_link_kept")) {
		fprintf(stderr,
			"confine: warning: protected name made as a link during the run: "
			"'%s': it is a symlink or a hard link of another file (rule '%s'), "
			"and %s\nhint: remove it before you store a secret under that "
			"name\n",
			cli_q(e->path), cli_q(e->rule), cli_esc(e->detail, 0));
		return true;
	}
	return false;
}

/* A new repository the host's git would act on. */
static bool say_git_event(const struct confine_event *e)
{
	if (!strcmp(e->kind, "git_moved_aside")) {
		fprintf(stderr,
			"confine: warning: new repository: '%s': the host's git would run "
			"or follow it, so it was moved to '%s'\nhint: inspect it; move it "
			"back only if you wrote it yourself\n",
			cli_q(e->path), cli_q(e->detail));
		return true;
	}
	if (!strcmp(e->kind, "git_config_filtered")) {
		fprintf(stderr,
			"confine: warning: new repository: '%s': keys the host's git would "
			"act on were taken out: %s\nhint: inspect the original; set again "
			"with 'git config' only what you trust\n",
			cli_q(e->path), cli_esc(e->detail, 0));
		return true;
	}
	if (!strcmp(e->kind, "git_moved_aside_more")) {
		fprintf(stderr,
			"confine: warning: new repository: '%s': %s were moved aside as "
			"well\nhint: look for names ending in .confine-disabled\n",
			cli_q(e->path), cli_esc(e->detail, 0));
		return true;
	}
	return false;
}

/* What the launch-time scans could not cover: an unreadable directory, a glob match or a host
IPC endpoint made during the run. */
static bool say_scan_event(const struct confine_event *e)
{
	if (!strcmp(e->kind, "unreadable_directory_skipped")) {
		fprintf(stderr,
			"confine: warning: directory skipped by the glob scan: '%s': %s\n"
			"hint: make it readable again (chmod u+rx) if the command should see "
			"it\n",
			cli_q(e->path), cli_esc(e->detail, 0));
		return true;
	}
	if (!strcmp(e->kind, "dynamic_glob_created")) {
		fprintf(stderr,
			"confine: warning: file matching a glob rule created during the run: "
			"'%s': rule '%s' protects only what exists at launch\nhint: inspect "
			"it; "
			"from the next run on it is protected\n",
			cli_q(e->path), cli_q(e->rule));
		return true;
	}
	if (!strcmp(e->kind, "ipc_endpoint_created")) {
		fprintf(stderr,
			"confine: warning: host socket or FIFO created during the run: '%s': "
			"it is in an area the command could write, and confine hides only the "
			"host's IPC endpoints that exist at launch\nhint: inspect it before a "
			"program of yours connects to it; from the next run on it is hidden\n",
			cli_q(e->path));
		return true;
	}
	return false;
}

/* What was not protected while the command ran (R23): said on stderr, after the command's own
 * output. */
static void report_events(const confine_run *run, const char *cmd)
{
	const struct confine_event *e;
	for (size_t i = 0; (e = confine_run_event(run, i)); i++) {
		size_t kl = strlen(e->kind);
		if (kl > 9 && !strcmp(e->kind + kl - 9, "_appeared"))
			continue; /* another process's doing: in the report, not this run's */
		if (!say_limit_event(e, cmd) && !say_protected_event(e) && !say_git_event(e) &&
		    !say_scan_event(e))
			fprintf(
			    stderr,
			    "confine: warning: post-run check failed (%s): %s\nhint: files created "
			    "during the run may match protected paths; check them by hand\n",
			    cli_esc(e->kind, 0), cli_esc(e->detail, 0));
	}
}

/* An allow that a guard or an override outranks does nothing: said before the command starts,
 * with what does lift a guard. */
static void report_notices(const confine_run *run, const char *cmd)
{
	const struct confine_event *e;
	for (size_t i = 0; (e = confine_run_notice(run, i)); i++) {
		bool guard = !strcmp(e->kind, "allow_outranked_by_guard");
		fprintf(stderr, "confine: warning: allow has no effect: '%s': %s\n", cli_q(e->path),
			cli_esc(e->detail, 0));
		if (guard)
			fprintf(
			    stderr,
			    "hint: only a one-time approval runs '%s' past a guard: 'confine card' "
			    "with the same options and command prints the card and the line that "
			    "runs the command once outside the sandbox; or give it what it needs "
			    "another way (a file in the workspace, --inject-env NAME=FILE)\n",
			    cli_q(cmd));
		else
			fprintf(stderr, "hint: remove the allow: the command can never change "
					"confine's rule files, cache, report or audit log\n");
	}
}

/* The approval of an escalation or write grant on a terminal (SPEC 7.1): the card, then a
 * typed "yes".  The answer is read from the terminal that is standard input, one line. */
static int approve_on_terminal(struct cli_opts *o, const char *cmd, struct confine_error *err)
{
	struct confine_card *card = NULL;
	char line[64];
	int r = confine_card_new(o->req, &card, err);
	if (r < 0)
		return r;
	fputc('\n', stderr);
	cli_print_card(stderr, card);
	fprintf(stderr, "\nType yes to approve this request once, anything else to refuse: ");
	fflush(stderr);
	ssize_t n;
	do
		n = read(0, line, sizeof(line) - 1);
	while (n < 0 && errno == EINTR);
	line[n > 0 ? n : 0] = '\0';
	line[strcspn(line, "\r\n")] = '\0';
	if (strcmp(line, "yes")) {
		r = confine_error_set(err, CONFINE_E_APPROVAL, "not approved", cmd,
				      "the answer was not 'yes'; nothing was run");
	} else if ((r = confine_request_set_receipt(o->req, card->digest, err)) == 0) {
		/* The run carries the id of the card that was approved. */
		r = confine_request_set_id(o->req, card->request_id, err);
	}
	confine_card_free(card);
	return r;
}

/* Opens the records the run keeps (SPEC 7.3, 8) before anything can run; the audit log also
 * when the arguments did not parse, so that the refusal is recorded. */
static int open_records(struct cli_opts *o, int argc, char **argv, bool parsed,
			struct confine_error *err)
{
	const char *audit = parsed ? o->audit : cli_find_option(argc, argv, "--audit");
	const char *env = getenv("CONFINE_AUDIT");
	int r = 0;
	if (!audit && env && *env)
		audit = env;
	if (!o->req)
		return 0;
	if (parsed && o->print_plan)
		return confine_request_plan_record_files(o->req, audit, o->report, err);
	if (audit && (r = confine_request_set_audit_file(o->req, audit, err)) < 0)
		return r;
	if (parsed && o->report &&
	    (r = confine_request_set_report_file(o->req, o->report, err)) < 0)
		return r;
	return 0;
}

/* The checks of a parsed request before it is prepared: a command, --json only with
 * --print-plan, the policy and backend from the environment, the injected files and keys read,
 * an escalation or write grant approved.  False when the attempt is refused (said; *status
 * set when it is not CLI_EXIT_CONFINE). */
static bool accept_request(struct cli_opts *o, int argc, char **argv, int *status,
			   struct confine_error *err)
{
	if (o->first_operand >= argc) {
		confine_error_set(err, CONFINE_E_INVALID, "invalid arguments", "run",
				  "no command given");
		*status = cli_usage_error("run", "no command given");
		return false;
	}
	if (o->json && !o->print_plan) {
		confine_error_set(err, CONFINE_E_INVALID, "invalid arguments", "run",
				  "--json goes with --print-plan");
		*status = cli_usage_error("run", "--json goes with --print-plan");
		return false;
	}
	cli_apply_policy_env(o);
	if (!cli_apply_backend_env(o, "run", status)) {
		confine_error_set(err, CONFINE_E_INVALID, "invalid arguments", "CONFINE_BACKEND",
				  "not a backend");
		return false;
	}
	if (cli_load_injections(o, true, err) < 0 || cli_load_ssh_keys(o, err) < 0) {
		cli_report(err);
		return false;
	}
	if ((o->escalate || o->grants) && !o->receipt && !o->print_plan && isatty(0) && isatty(2) &&
	    approve_on_terminal(o, argv[o->first_operand], err) < 0) {
		cli_report(err);
		return false;
	}
	return true;
}

/* What the prepared run says before anything runs: the backend's degradation (SPEC 3.3),
 * allows that do nothing, the landlock backend's limits. */
static void say_before_run(const confine_run *run, const char *cmd)
{
	if (confine_run_fallback_note(run))
		fprintf(stderr, "confine: warning: %s\n",
			cli_esc(confine_run_fallback_note(run), 0));
	report_notices(run, cmd);
	if (confine_run_landlock_note(run))
		fprintf(
		    stderr,
		    "confine: warning: %s\nhint: entries that exist when a run starts get their "
		    "own rule: make what the command needs there before the run (mkdir "
		    "node_modules build), or use the bwrap backend\n",
		    cli_esc(confine_run_landlock_note(run), 0));
}

/* Signals received while the command runs are forwarded to it (R4). */
static void forward_signals(confine_run *run)
{
	struct sigaction sa = {.sa_handler = forward};
	sigemptyset(&sa.sa_mask);
	current = run;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGQUIT, &sa, NULL);
	terminal_signals();
}

/* What the run leaves to say after the command's own output: a timeout, a kill after the
 * grace period, the post-run events, the network, the landlock denials, the secrets, the
 * tool caches trimmed. */
static void say_after_run(confine_run *run, const struct cli_opts *o, const char *cmd)
{
	if (confine_run_timed_out(run)) {
		size_t tl = strlen(o->timeout);
		bool unit = tl && !(o->timeout[tl - 1] >= '0' && o->timeout[tl - 1] <= '9');
		fprintf(stderr,
			"confine: command timed out: '%s': the sandbox was killed after %s%s\n",
			cli_q(cmd), cli_esc(o->timeout, 0), unit ? "" : " seconds");
	}
	if (confine_run_killed_after_grace(run))
		fprintf(stderr,
			"confine: command did not end: '%s': it was asked to end by a signal and "
			"was still running after the grace period; the whole sandbox was killed\n",
			cli_q(cmd));
	report_events(run, cmd);
	cli_net_warnings(run);
	explain_denials(run);
	cli_secret_warnings(run);
	if (confine_run_cache_trimmed(run))
		fprintf(stderr,
			"confine: tool caches over their bound: '%s': emptied after the run, to "
			"keep all stores within --cache-size (the least recently used first)\n"
			"hint: raise --cache-size, or see 'confine cache list'\n",
			cli_q(confine_run_cache_trimmed(run)));
}

/* Starts the prepared command, waits for it and says what the run left to say; *status is
 * the command's (left as it is when the start failed). */
static void run_command(confine_run *run, const struct cli_opts *o, const char *cmd, int *status,
			struct confine_error *err)
{
	forward_signals(run);
	int r = confine_run_start(run, err);
	if (r < 0) {
		cli_report(err);
		return;
	}
	r = confine_run_wait(run, status, err);
	if (r == CONFINE_E_RECORD)
		*err = (struct confine_error){0}; /* the audit line's: said below, once */
	else if (r < 0)
		report_after_run(err, confine_run_status_from_command(run), *status);
	say_after_run(run, o, cmd);
}

/* The audit line's failure and the report (SPEC 7.3, 8), after the run or its refusal. */
static void close_records(const struct cli_opts *o, const confine_run *run, int status,
			  const struct confine_error *err)
{
	bool ran = run && confine_run_status_from_command(run);
	struct confine_error werr = {0};
	if (confine_request_audit_error(o->req, &werr) < 0)
		report_after_run(&werr, ran, status);
	werr = (struct confine_error){0};
	if (confine_request_write_report(o->req, run, status, err, &werr) < 0)
		report_after_run(&werr, ran, status);
}

int cmd_run(int argc, char **argv)
{
	struct confine_error err = {0}, rec_err = {0};
	struct cli_opts o;
	confine_run *run = NULL;
	int status = CLI_EXIT_CONFINE, r;
	struct cli_net_ask ask = {-1};

	r = cli_parse(CLI_RUN, argc, argv, &o, &err);
	if (r == 0 && o.help) {
		fputs(cli_help_run, stdout);
		status = 0;
		goto out;
	}
	if (open_records(&o, argc, argv, r == 0, &rec_err) < 0) {
		cli_report(&rec_err);
		if (r == 0)
			goto out;
	}
	if (r < 0) {
		cli_report(&err);
		if (!err.hint[0])
			fprintf(stderr, "hint: see 'confine run --help'\n");
		goto refused;
	}
	if (!accept_request(&o, argc, argv, &status, &err))
		goto refused;

	if (!o.print_plan)
		cli_net_ask_setup(o.req, o.no_net_ask, &ask); /* R43 */
	/* A printed plan creates nothing on the host that only a run needs. */
	r = confine_request_set_dry_run(o.req, o.print_plan, &err);
	if (r == 0)
		r = confine_run_prepare(o.req, &run, &err);
	if (r < 0) {
		cli_report(&err);
		status = r == CONFINE_E_NOTFOUND ? 127
			 : r == CONFINE_E_NOEXEC ? 126
						 : CLI_EXIT_CONFINE;
		goto out;
	}
	say_before_run(run, argv[o.first_operand]);
	if (o.print_plan)
		status = cli_print_plan(run, o.json, &err);
	else
		run_command(run, &o, argv[o.first_operand], &status, &err);
	goto out;
refused:
	/* An attempt that never reached the library's prepare is recorded all the same (R24). */
	if (o.req)
		confine_request_audit_refusal(o.req, status, &err, NULL);
out:
	if (o.req)
		close_records(&o, run, status, &err);
	current = NULL;
	confine_run_free(run);
	confine_request_free(o.req);
	cli_net_ask_close(&ask);
	return status;
}

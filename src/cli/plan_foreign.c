/* SPDX-License-Identifier: MIT */
/* confine plan --target windows|macos [--host-facts FILE] [--home DIR] [OPTIONS] [--json]:
 * the plan for a Windows host or a Mac, described by facts or this host itself. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "plan_foreign.h"

#ifndef O_NONBLOCK
#define O_NONBLOCK 0 /* Windows: no FIFO an open could wait on */
#endif
#ifndef O_CLOEXEC
#define O_CLOEXEC 0
#endif
#ifndef O_BINARY
#define O_BINARY 0 /* POSIX: every file is */
#endif

/* The text of a host-facts file (at most 1 MiB), malloc'd; NULL with err filled. */
static char *read_facts(const char *file, struct confine_error *err)
{
	const size_t max = 1u << 20;
	const char *hint = "pass --host-facts a file of host facts ('confine help plan' says "
			   "where their format is)";
	/* Not blocked by a FIFO: a regular file or nothing. */
	int fd = open(file, O_RDONLY | O_BINARY | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	int e = fd < 0 ? errno : fstat(fd, &st) < 0 ? errno : 0;
	if (!e && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
		close(fd);
		confine_error_set(err, CONFINE_E_INVALID, "cannot read host facts", file,
				  "it is not a regular file (a FIFO, a socket or a device)");
		confine_error_hint(err, "%s", hint);
		return NULL;
	}
	if (!e && S_ISDIR(st.st_mode))
		e = EISDIR;
	FILE *f = e ? NULL : fdopen(fd, "rb");
	if (!f) {
		e = e ? e : errno;
		if (fd >= 0)
			close(fd);
		confine_error_set_os(err, CONFINE_E_INVALID, "cannot read host facts", file,
				     fd < 0 ? "open" : "fstat", e);
		confine_error_hint(err, "%s", hint);
		return NULL;
	}
	char *s = malloc(max + 1);
	size_t len = s ? fread(s, 1, max, f) : 0;
	e = ferror(f) ? errno : 0;
	fclose(f);
	if (!s) {
		cli_nomem(err);
		return NULL;
	}
	if (e || len >= max) {
		free(s);
		if (e)
			confine_error_set_os(err, CONFINE_E_INVALID, "cannot read host facts", file,
					     "fread", e);
		else
			confine_error_set(err, CONFINE_E_INVALID, "cannot read host facts", file,
					  "the file is larger than 1 MiB");
		confine_error_hint(err, "%s", hint);
		return NULL;
	}
	s[len] = '\0';
	return s;
}

/* Whether `target` is this build's own system, whose plan a run would use. */
static bool native(enum confine_target target)
{
#if defined(_WIN32)
	return target == CONFINE_TARGET_WINDOWS;
#elif defined(__APPLE__)
	return target == CONFINE_TARGET_MACOS;
#else
	(void)target;
	return false;
#endif
}

/* The plan a run on this host would use (as `run --print-plan`); returns the exit status. */
static int plan_here(const struct cli_opts *o)
{
	struct confine_error err = {0};
	confine_run *run = NULL;
	int status = CLI_EXIT_CONFINE;
	confine_request_set_policy(o->req, CONFINE_POLICY_OFF, NULL); /* a valid value */
	if (confine_run_prepare(o->req, &run, &err) < 0)
		cli_report(&err);
	else
		status = cli_print_plan(run, o->json, &err);
	confine_run_free(run);
	return status;
}

int cli_plan_foreign(const struct cli_opts *o, const struct cli_foreign_host *h,
		     enum confine_target target, bool has_command)
{
	struct confine_error err = {0};
	char *facts = NULL, *text = NULL;
	int status = CLI_EXIT_CONFINE;
	bool here = native(target) && !h->facts && !h->home;
	/* Without a command a Mac's plan and this host's name a placeholder; a plan for a
	 * described Windows host has no command line then. */
	const char *placeholder[] = {"COMMAND"};
	if (!has_command && (here || target == CONFINE_TARGET_MACOS) &&
	    confine_request_set_argv(o->req, 1, placeholder, &err) < 0) {
		cli_report(&err);
		goto out;
	}
	if (here) {
		status = plan_here(o);
		goto out;
	}
	if (h->facts && !(facts = read_facts(h->facts, &err))) {
		cli_report(&err);
		goto out;
	}
	if (confine_request_plan_target(o->req, target, facts, h->home, o->json, &text, &err) < 0) {
		if (h->facts && err.line > 0)
			fprintf(stderr, "confine: in %s:%d:\n", cli_q(h->facts), err.line);
		cli_report(&err);
		goto out;
	}
	fputs(text, stdout);
	status = 0;
out:
	free(facts);
	confine_free(text);
	return status;
}

/* SPDX-License-Identifier: MIT */
/* confine plan --target windows|macos [--host-facts FILE] [--home DIR] [OPTIONS] [--json]:
 * the plan for a Windows host or a Mac, described by facts or this host itself. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "plan_foreign.h"

char *cli_read_facts(const char *file, struct confine_error *err)
{
	const size_t max = 1u << 20;
	FILE *f = fopen(file, "rb");
	if (!f) {
		confine_error_set(err, CONFINE_E_INVALID, "cannot read host facts", file,
				  "the file cannot be opened");
		return NULL;
	}
	char *s = malloc(max + 1);
	size_t len = s ? fread(s, 1, max, f) : 0;
	bool failed = ferror(f);
	fclose(f);
	if (!s) {
		cli_nomem(err);
		return NULL;
	}
	if (failed || len >= max) {
		free(s);
		confine_error_set(err, CONFINE_E_INVALID, "cannot read host facts", file,
				  failed ? "the file cannot be read"
					 : "the file is larger than 1 MiB");
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
	if (h->facts && !(facts = cli_read_facts(h->facts, &err))) {
		cli_report(&err);
		goto out;
	}
	if (confine_request_plan_target(o->req, target, facts, h->home, o->json, &text, &err) < 0) {
		if (h->facts && err.line > 0)
			fprintf(stderr, "confine: in %s:%d:\n", h->facts, err.line);
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

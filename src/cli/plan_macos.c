/* SPDX-License-Identifier: MIT */
/* confine plan --target macos [--host-facts FILE] [--home DIR] [OPTIONS] [--json] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "plan_macos.h"

int cli_plan_macos(const struct cli_opts *o, const struct cli_win_host *h, bool has_command)
{
	struct confine_error err = {0};
	char *facts = NULL, *text = NULL;
	int status = CLI_EXIT_CONFINE;
	const char *placeholder[] = {"COMMAND"};
	if (!has_command && confine_request_set_argv(o->req, 1, placeholder, &err) < 0) {
		cli_report(&err);
		goto out;
	}
#ifdef __APPLE__
	/* On a Mac itself, without described facts, the plan is the one a run would use. */
	if (!h->facts && !h->home) {
		confine_run *run = NULL;
		confine_request_set_policy(o->req, CONFINE_POLICY_OFF, NULL); /* a valid value */
		if (confine_run_prepare(o->req, &run, &err) < 0 ||
		    confine_run_plan_text(run, o->json, &text, &err) < 0) {
			cli_report(&err);
			confine_run_free(run);
			goto out;
		}
		confine_run_free(run);
		fputs(text, stdout);
		status = 0;
		goto out;
	}
#endif
	if (h->facts && !(facts = cli_read_facts(h->facts, &err))) {
		cli_report(&err);
		goto out;
	}
	if (confine_request_plan_target(o->req, CONFINE_TARGET_MACOS, facts, h->home, o->json,
					&text, &err) < 0) {
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

/* SPDX-License-Identifier: MIT */
/* confine plan --target windows [--host-facts FILE] [--home DIR] [OPTIONS] [--json] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "plan_windows.h"

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

int cli_plan_windows(const struct cli_opts *o, const struct cli_win_host *h, bool has_command)
{
	struct confine_error err = {0};
	char *facts = NULL, *text = NULL;
	int status = CLI_EXIT_CONFINE;
#ifdef _WIN32
	/* On Windows itself, without described facts, the plan is the one a run would use. */
	if (!h->facts && !h->home) {
		confine_run *run = NULL;
		const char *placeholder[] = {"COMMAND"};
		if (!has_command && confine_request_set_argv(o->req, 1, placeholder, &err) < 0) {
			cli_report(&err);
			goto out;
		}
		confine_request_set_policy(o->req, CONFINE_POLICY_OFF, NULL);
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
	if (confine_request_plan_target(o->req, CONFINE_TARGET_WINDOWS, facts, h->home, o->json,
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

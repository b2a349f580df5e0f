/* SPDX-License-Identifier: MIT */
/* What run, plan, probe and explain share: the policy from the environment, the printed plan,
 * the printed probe results. */
#include <stdio.h>
#include <stdlib.h>

#include "args.h"
#include "cli.h"

void cli_apply_policy_env(struct cli_opts *o)
{
	if (o->policy_given)
		return;
	const char *v = getenv("CONFINE_SANDBOX_POLICY");
	enum confine_policy p;
	if (!v)
		return;
	/* A value that is no policy reads as required (p), the safe reading, and is said. */
	if (confine_policy_parse(v, &p, NULL) < 0)
		fprintf(stderr,
			"confine: warning: ignoring CONFINE_SANDBOX_POLICY: '%s': expected "
			"'required' or 'off'; using 'required'\n",
			cli_q(v));
	confine_request_set_policy(o->req, p, NULL); /* p is valid: the parser's answer */
}

bool cli_begin(enum cli_cmd cmd, int argc, char **argv, const char *help,
	       const char *missing_operand, struct cli_opts *o, int *status)
{
	struct confine_error err = {0};
	*status = CLI_EXIT_CONFINE;
	if (cli_parse(cmd, argc, argv, o, &err) < 0) {
		cli_report(&err);
		fprintf(stderr, "hint: see 'confine %s --help'\n", cli_q(argv[0]));
		return false;
	}
	if (o->help) {
		fputs(help, stdout);
		*status = 0;
		return false;
	}
	if (missing_operand && o->first_operand >= argc) {
		*status = cli_usage_error(argv[0], "%s", missing_operand);
		return false;
	}
	return cli_apply_backend_env(o, argv[0], status);
}

bool cli_apply_backend_env(struct cli_opts *o, const char *cmd, int *status)
{
	/* CONFINE_BACKEND (SPEC 1) when --backend is not given.  A value that is not a backend
	 * is refused: read as auto it could turn a "bwrap or nothing" setting into a fallback. */
	const char *bv = getenv("CONFINE_BACKEND");
	enum confine_backend b;
	if (!o->backend_given && bv) {
		if (confine_backend_parse(bv, &b, NULL) < 0) {
			*status = cli_usage_error(cmd,
						  "CONFINE_BACKEND is '%s': expected 'auto', "
						  "'bwrap' or 'landlock'",
						  bv);
			return false;
		}
		confine_request_set_backend(o->req, b, NULL);
	}
	return true;
}

int cli_print_plan(confine_run *run, bool json, struct confine_error *err)
{
	char *text = NULL;
	if (confine_run_plan_text(run, json, &text, err) < 0) {
		cli_report(err);
		return CLI_EXIT_CONFINE;
	}
	fputs(text, stdout);
	confine_free(text);
	return 0;
}

void cli_say_unavailable(const struct confine_probe_result *r)
{
	fprintf(stderr, "confine: sandbox backend unavailable: '%s': %s [%s]\n", cli_q(r->backend),
		cli_esc(r->reason, 0), cli_esc(r->code, 0));
	if (r->hint[0])
		fprintf(stderr, "hint: %s\n", cli_esc(r->hint, 0));
}

int cli_print_probes(const struct confine_probe_result *v, size_t n, bool json)
{
	struct confine_error err = {0};
	char **s = calloc(n, sizeof(*s));
	int r = s ? 0 : cli_nomem(&err);
	for (size_t i = 0; i < n && r == 0; i++)
		r = json ? confine_probe_json(&v[i], &s[i], &err)
			 : confine_probe_text(&v[i], &s[i], &err);
	if (r < 0) {
		cli_report(&err);
	} else if (json) {
		fputs("{\"backends\": [", stdout);
		for (size_t i = 0; i < n; i++)
			printf("%s%s", i ? ", " : "", s[i]);
		fputs("]}\n", stdout);
	} else {
		for (size_t i = 0; i < n; i++) {
			if (i)
				putchar('\n');
			fputs(s[i], stdout);
		}
	}
	for (size_t i = 0; s && i < n; i++)
		confine_free(s[i]);
	free(s);
	return r < 0 ? -1 : 0;
}

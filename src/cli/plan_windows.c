/* SPDX-License-Identifier: MIT */
/* confine plan --target windows [--host-facts FILE] [--home DIR] [OPTIONS] [--json] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/plan_windows.h"
#include "winplan.h"
#include "util/util.h"

int cli_win_host_options(int *argc, char **argv, struct cli_win_host *h)
{
	int out = 1;
	memset(h, 0, sizeof(*h));
	for (int i = 1; i < *argc; i++) {
		const char *a = argv[i], **slot = NULL, *v = NULL;
		size_t n = 0;
		if (!strcmp(a, "--")) {
			while (i < *argc)
				argv[out++] = argv[i++];
			break;
		}
		if (!strncmp(a, "--host-facts", n = strlen("--host-facts")))
			slot = &h->facts;
		else if (!strncmp(a, "--home", n = strlen("--home")))
			slot = &h->home;
		if (slot && (a[n] == '\0' || a[n] == '=')) {
			if (a[n] == '=') {
				v = a + n + 1;
			} else if (i + 1 < *argc) {
				v = argv[++i];
			} else {
				cli_usage_error("plan", "%s needs a value", a);
				return -1;
			}
			*slot = v;
			continue;
		}
		argv[out++] = argv[i];
	}
	argv[out] = NULL;
	*argc = out;
	return 0;
}

char *cli_read_facts(const char *file, struct confine_error *err)
{
	FILE *f = fopen(file, "rb");
	struct cf_buf b;
	char chunk[4096];
	size_t k;
	if (!f) {
		cf_err(err, CONFINE_E_INVALID, "cannot read host facts", file,
		       "the file cannot be opened");
		return NULL;
	}
	cf_buf_init(&b);
	while ((k = fread(chunk, 1, sizeof(chunk), f)) > 0 && b.len < (1u << 20))
		cf_buf_addn(&b, chunk, k);
	fclose(f);
	if (b.len >= (1u << 20)) {
		cf_buf_release(&b);
		cf_err(err, CONFINE_E_INVALID, "cannot read host facts", file,
		       "the file is larger than 1 MiB");
		return NULL;
	}
	char *s = b.s ? cf_buf_take(&b) : cf_strdup("");
	if (!s)
		cf_nomem(err);
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
	if (cf_plan_windows_request(o->req, facts, h->home, o->json, &text, &err) < 0) {
		if (h->facts && err.line > 0)
			fprintf(stderr, "confine: in %s:%d:\n", h->facts, err.line);
		cli_report(&err);
		goto out;
	}
	fputs(text, stdout);
	status = 0;
out:
	free(facts);
	free(text);
	return status;
}

/* SPDX-License-Identifier: MIT */
/*
 * confine_card_new: the card of a command (R32), prepared as a run prepares it (the workspace,
 * the rule layers, the grants, the environment, the program), then made by approve/card.c from
 * those facts.  It lives beside the run, not in record/, so that record/ never calls the run.
 */
#include <stdlib.h>

#include "approve/card.h"
#include "request.h"
#include "util/util.h"

extern char **environ;

int confine_card_new(const confine_request *req, struct confine_card **out,
		     struct confine_error *err)
{
	confine_rules *rules = NULL;
	struct cf_strv base = {0};
	char *program = NULL;
	int r;
	*out = NULL;
	if (!req->argv.n)
		return cf_err(err, CONFINE_E_INVALID, "no command given", "",
			      "a card is for a command");
	/* The workspace, the rule layers and the grants, exactly as a run prepares them. */
	if ((r = confine_rules_load(req, &rules, err)) < 0)
		return r;
	confine_run *run = (confine_run *)rules;
	if (req->env_base_set) {
		for (size_t i = 0; i < req->env_base.n; i++)
			if (cf_strv_add(&base, req->env_base.v[i]) < 0)
				goto oom;
	} else {
		for (char **e = environ; e && *e; e++)
			if (cf_strv_add(&base, *e) < 0)
				goto oom;
	}
	if ((r = cf_env_build((const char *const *)base.v, base.n, &req->env, &run->plan.env,
			      &run->plan.env_removed, err)) < 0)
		goto out;
	if ((r = cf_resolve_program(req->argv.v[0], run->record.cwd, &run->plan.env, &program,
				    err)) < 0)
		goto out;
	struct cf_card_input in;
	cf_record_card_input(run, !run->record.grants.n, program, &in);
	r = cf_card_make(&in, run->record.id, out, err);
	goto out;
oom:
	r = cf_nomem(err);
out:
	free(program);
	cf_strv_release(&base);
	confine_rules_free(rules);
	return r;
}

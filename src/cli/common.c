/* SPDX-License-Identifier: MIT */
/* What run, plan and explain share: the policy from the environment. */
#include <stdio.h>
#include <stdlib.h>

#include "cli/args.h"
#include "cli/cli.h"

void cli_apply_policy_env(struct cli_opts *o)
{
	if (o->policy_given)
		return;
	const char *v = getenv("CONFINE_SANDBOX_POLICY");
	enum confine_policy p;
	if (!v)
		return;
	if (!confine_policy_parse(v, &p))
		fprintf(stderr,
			"confine: warning: ignoring CONFINE_SANDBOX_POLICY: '%s': expected "
			"'required' or 'off'; using 'required'\n",
			v);
	confine_request_set_policy(o->req, p);
}

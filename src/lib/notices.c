/* SPDX-License-Identifier: MIT */
/*
 * What a person should know before the command starts: an allow they wrote that a built-in
 * guard or override outranks (SPEC 2.3: no allow of a lower layer lifts them).  Without this
 * the allow is silently without effect: `--allow ~/.npmrc:read` and npm quietly uses another
 * registry than the one configured there.  Pure: the run's policy.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "request.h"
#include "util/util.h"

static int add_notice(confine_run *run, const char *kind, const char *path, const char *rule,
		      const char *detail)
{
	struct confine_event *v = realloc(run->notices, (run->n_notices + 1) * sizeof(*v));
	if (!v)
		return CONFINE_E_NOMEM;
	run->notices = v;
	struct confine_event *e = &v[run->n_notices++];
	memset(e, 0, sizeof(*e));
	e->size = sizeof(*e);
	snprintf(e->kind, sizeof(e->kind), "%s", kind);
	snprintf(e->path, sizeof(e->path), "%s", path);
	snprintf(e->rule, sizeof(e->rule), "%s", rule);
	snprintf(e->detail, sizeof(e->detail), "%s", detail);
	return 0;
}

/* One allow of the session, workspace or user layer, for each access it names: outranked when
 * the decision on its own path comes from the override or guard layer.  An allow of a directory
 * that merely contains guarded paths (--allow ~:read) is not: the guards below it were never
 * the allow's to give.  A glob allow is checked on its wildcard-free part. */
static int check_allow(confine_run *run, const struct cf_rule *a)
{
	static const unsigned accs[] = {CF_ACC_READ, CF_ACC_WRITE};
	const struct cf_rule *seen = NULL;
	unsigned denied = 0;
	char path[4096];
	snprintf(path, sizeof(path), "%.*s", (int)a->prefix_len, a->path);
	for (size_t k = 0; k < 2; k++) {
		if (!(a->access & accs[k]))
			continue;
		struct cf_decision d;
		cf_policy_decide(&run->policy_rules, path, accs[k], &d);
		if (d.action == CF_ALLOW || !d.rule ||
		    (d.layer != CF_LAYER_GUARD && d.layer != CF_LAYER_OVERRIDE))
			continue;
		denied |= accs[k];
		seen = d.rule;
	}
	if (!denied)
		return 0;
	char detail[4160];
	bool guard = seen->layer == CF_LAYER_GUARD;
	snprintf(detail, sizeof(detail), "%s '%s' outranks the %s allow '%s' for %s; %s",
		 guard ? "the built-in guard" : "the override", seen->pattern,
		 cf_layer_name(a->layer), a->pattern, cf_access_name(denied),
		 guard ? "no rule lifts a guard"
		       : "it keeps confine's own state, and nothing lifts it");
	return add_notice(run, guard ? "allow_outranked_by_guard" : "allow_outranked_by_override",
			  path, seen->pattern, detail);
}

int cf_run_notices(confine_run *run)
{
	static const enum cf_layer layers[] = {CF_LAYER_SESSION, CF_LAYER_WORKSPACE, CF_LAYER_USER};
	free(run->notices);
	run->notices = NULL;
	run->n_notices = 0;
	/* Without a sandbox (policy off, an approved escalation) no guard applies. */
	if (run->policy != CONFINE_POLICY_REQUIRED)
		return 0;
	for (size_t l = 0; l < sizeof(layers) / sizeof(layers[0]); l++) {
		const struct cf_ruleset *rs = &run->policy_rules.layers[layers[l]];
		for (size_t i = 0; i < rs->n; i++) {
			const struct cf_rule *a = &rs->v[i];
			if (a->action != CF_ALLOW || !a->path || !strcmp(a->source, "grant"))
				continue;
			int r = check_allow(run, a);
			if (r < 0)
				return r;
		}
	}
	return 0;
}

const struct confine_event *cf_run_notice_list(const confine_run *run, size_t *n)
{
	*n = run->n_notices;
	return run->notices;
}

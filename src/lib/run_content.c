/* SPDX-License-Identifier: MIT */
/*
 * Secrets by content (R40) in a run and in explain: what a file a guard decides by content
 * holds (host/certclass.h).  Touches the OS.
 */
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "abi.h"
#include "host/canon.h"
#include "host/certclass.h"
#include "host/matches.h"
#include "request.h"
#include "util/util.h"

/* R40: what a file decided by content holds.  explain reads the file; a run answers from its
 * scan (the public matches it set apart), so that the plan agrees with what the scan read. */
enum cf_content cf_run_content_of_file(void *ctx, const char *path)
{
	(void)ctx;
	return cf_cert_classify_path(path, NULL, NULL);
}

enum cf_content cf_run_content_of_scan(void *ctx, const char *path)
{
	return cf_matches_public(ctx, path) ? CF_CONTENT_CERTS : CF_CONTENT_UNKNOWN;
}

/* The bytes of struct confine_content_decision in ABI v1. */
#define CONTENT_V1 CF_SIZE_THROUGH(struct confine_content_decision, why)

static void content_of(const confine_run *run, const char *canon,
		       struct confine_content_decision *d)
{
	/* Is a guard decided by content the rule that covers it (before classification)? */
	const struct cf_ruleset *g = &run->policy_rules.layers[CF_LAYER_GUARD];
	bool covered = false;
	for (size_t i = 0; i < g->n && !covered; i++)
		covered = g->v[i].content && g->v[i].glob &&
			  cf_pattern_match(g->v[i].path, canon, g->v[i].fold_case);
	if (!covered)
		return;
	const char *w = NULL;
	enum cf_content c = cf_cert_classify_path(canon, NULL, &w);
	d->content = c == CF_CONTENT_CERTS ? CONFINE_CONTENT_CERTIFICATES
		     : c == CF_CONTENT_KEY ? CONFINE_CONTENT_PRIVATE_KEY
					   : CONFINE_CONTENT_UNCLASSIFIED;
	snprintf(d->why, sizeof(d->why), "%s", w ? w : "");
}

int confine_rules_explain_content(const confine_rules *pol, const char *path,
				  struct confine_content_decision *out, struct confine_error *err)
{
	const confine_run *run = (const confine_run *)pol;
	if (!pol || !path || !out)
		return cf_err(err, CONFINE_E_INVALID, "invalid argument",
			      !pol    ? "rules"
			      : !path ? "path"
				      : "out",
			      "it is NULL");
	int r = cf_sized_check(out, CONTENT_V1, "struct confine_content_decision", err);
	if (r < 0)
		return r;
	struct confine_content_decision d = {.size = sizeof(d), .content = CONFINE_CONTENT_NONE};
	char *canon = NULL;
	r = cf_host_canonicalize_arg(path, &canon, err);
	if (r < 0)
		return r;
	content_of(run, canon, &d);
	free(canon);
	return cf_sized_out(out, CONTENT_V1, &d, sizeof(d), "struct confine_content_decision", err);
}

int confine_content_decision_json(const struct confine_content_decision *d, char **out,
				  struct confine_error *err)
{
	if (!d || !out)
		return cf_err(err, CONFINE_E_INVALID, "invalid argument", d ? "out" : "decision",
			      "it is NULL");
	struct cf_buf b;
	cf_buf_init(&b);
	if (d->content == CONFINE_CONTENT_NONE) {
		cf_buf_add(&b, "null");
	} else {
		cf_buf_addf(&b, "{\"class\": \"%s\", \"why\": ",
			    d->content == CONFINE_CONTENT_CERTIFICATES	? "certificates"
			    : d->content == CONFINE_CONTENT_PRIVATE_KEY ? "private_key"
									: "unclassified");
		cf_buf_add_json(&b, d->why);
		cf_buf_add(&b, "}");
	}
	if (!(*out = cf_buf_take(&b)))
		return cf_nomem(err);
	return 0;
}

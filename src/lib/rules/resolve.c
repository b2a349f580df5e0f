/* SPDX-License-Identifier: MIT */
/*
 * Pattern resolution (SPEC 2.2): from what a user wrote to an absolute, normalised pattern
 * whose wildcard-free prefix is canonical on the host (R7).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/pattern.h"
#include "rules/rules.h"
#include "util/util.h"

/* Fills err for a bad rule, naming where it was written: the rule file and the position of the
 * rule when it has one (callers print FILE:LINE:COLUMN), else the pattern itself. */
static int rule_error(const struct cf_rule *r, struct confine_error *err, const char *fmt, ...)
    CF_PRINTF(3, 4);
static int rule_error(const struct cf_rule *r, struct confine_error *err, const char *fmt, ...)
{
	char reason[sizeof(err->reason)];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	bool in_file = r->source && r->line > 0;
	if (err && err->code == 0) {
		cf_err(err, CONFINE_E_RULES, "invalid rule", in_file ? r->source : r->pattern, "%s",
		       reason);
		if (in_file) {
			err->line = r->line;
			err->column = r->column;
		}
	}
	return CONFINE_E_RULES;
}

int cf_rule_resolve(struct cf_rule *r, const struct cf_resolve_ctx *ctx, struct confine_error *err)
{
	int rc = CONFINE_E_NOMEM;
	char *joined = NULL, *norm = NULL, *prefix = NULL, *canon = NULL, *final = NULL;
	const char *pat = r->pattern;

	if (!pat || !pat[0]) {
		rc = rule_error(r, err, "the path is empty");
		goto out;
	}
	size_t len = strlen(pat);
	if (len > CF_RULES_MAX_PATTERN) {
		rc = rule_error(r, err, "the path is longer than %d bytes", CF_RULES_MAX_PATTERN);
		goto out;
	}
	const char *bad = strpbrk(pat, "[]{}");
	if (bad) {
		rc = rule_error(r, err,
				"'%s': '%c' is reserved (only '*', '**' and '?' are wildcards)",
				pat, *bad);
		goto out;
	}

	if (pat[0] == '~' && (pat[1] == '\0' || pat[1] == '/')) {
		if (!ctx || !ctx->home) {
			rc = rule_error(r, err, "'%s': the home directory is not known", pat);
			goto out;
		}
		joined = cf_path_join(ctx->home, pat[1] ? pat + 2 : ".");
	} else if (pat[0] == '~') {
		/* "~user" would mean another user's home; a sandbox has no business guessing. */
		rc = rule_error(r, err, "'%s': only '~' and '~/' are supported, not '~user'", pat);
		goto out;
	} else if (pat[0] == '/') {
		joined = cf_path_normalize(pat);
	} else {
		if (r->layer == CF_LAYER_USER) {
			rc = rule_error(r, err,
					"relative path '%s' in the user rule file (it would mean a "
					"different place in every workspace; start it with '/' or "
					"'~/')",
					pat);
			goto out;
		}
		if (!ctx || !ctx->workspace) {
			rc =
			    rule_error(r, err, "relative path '%s' but no workspace is known", pat);
			goto out;
		}
		joined = cf_path_join(ctx->workspace, pat);
	}
	if (!joined)
		goto nomem;
	norm = joined;
	joined = NULL;

	bool glob = cf_has_wildcard(norm, strlen(norm));
	size_t plen = glob ? cf_pattern_literal_prefix(norm) : strlen(norm);

	if (ctx && ctx->canonicalize) {
		prefix = cf_strndup(norm, plen);
		if (!prefix)
			goto nomem;
		rc = ctx->canonicalize(ctx->ctx, prefix, &canon, err);
		if (rc < 0)
			goto out;
		/* The canonical prefix replaces the literal one; the wildcard part follows. */
		const char *rest = norm + plen;
		while (*rest == '/')
			rest++;
		if (!*rest)
			final = cf_strdup(canon);
		else
			final = cf_asprintf("%s%s%s", canon, strcmp(canon, "/") ? "/" : "", rest);
		if (!final)
			goto nomem;
		plen = strlen(canon);
	} else {
		final = norm;
		norm = NULL;
	}

	free(r->path);
	r->path = final;
	final = NULL;
	r->glob = glob;
	r->prefix_len = glob ? plen : strlen(r->path);
	rc = 0;
	goto out;
nomem:
	rc = cf_nomem(err);
out:
	free(joined);
	free(norm);
	free(prefix);
	free(canon);
	free(final);
	return rc;
}

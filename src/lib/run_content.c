/* SPDX-License-Identifier: MIT */
/*
 * Secrets by content (R40) in a run and in explain: what a file a guard decides by content
 * holds (host/certclass.h).  Touches the OS.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host/canon.h"
#include "host/certclass.h"
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

int confine_rules_explain_content(const confine_rules *pol, const char *path,
				  enum confine_content *out, char *why, size_t why_cap,
				  struct confine_error *err)
{
	const confine_run *run = (const confine_run *)pol;
	char *abs = NULL, *canon = NULL;
	*out = CONFINE_CONTENT_NONE;
	if (why && why_cap)
		why[0] = '\0';
	if (path[0] == '/') {
		abs = cf_strdup(path);
	} else {
		char cwd[PATH_MAX];
		abs = getcwd(cwd, sizeof(cwd)) ? cf_path_join(cwd, path) : NULL;
	}
	if (!abs)
		return cf_nomem(err);
	int r = cf_host_canonicalize(NULL, abs, &canon, err);
	free(abs);
	if (r < 0)
		return r;
	/* Is a guard decided by content the rule that covers it (before classification)? */
	const struct cf_ruleset *g = &run->policy_rules.layers[CF_LAYER_GUARD];
	bool covered = false;
	for (size_t i = 0; i < g->n && !covered; i++)
		covered = g->v[i].content && g->v[i].glob &&
			  cf_pattern_match(g->v[i].path, canon, g->v[i].fold_case);
	if (covered) {
		const char *w = NULL;
		enum cf_content c = cf_cert_classify_path(canon, NULL, &w);
		*out = c == CF_CONTENT_CERTS ? CONFINE_CONTENT_CERTIFICATES
		       : c == CF_CONTENT_KEY ? CONFINE_CONTENT_PRIVATE_KEY
					     : CONFINE_CONTENT_UNCLASSIFIED;
		if (why && why_cap)
			snprintf(why, why_cap, "%s", w ? w : "");
	}
	free(canon);
	return 0;
}

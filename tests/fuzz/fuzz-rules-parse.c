/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: the rule-file parser, its position index, and the resolver on whatever rules
 * come out.  Besides memory errors it checks the contract: a return of 0 exactly when there is
 * no diagnostic, every diagnostic placed and pointed, every rule within the limits, every
 * resolved pattern absolute, normalised and matching its own text.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rules/rules.h"
#include "util/util.h"

#define CHECK(c)                                                                                   \
	do {                                                                                       \
		if (!(c))                                                                          \
			abort();                                                                   \
	} while (0)

static int canon_identity(void *ctx, const char *path, char **out, struct confine_error *err)
{
	(void)ctx;
	*out = cf_strdup(path);
	return *out ? 0 : cf_nomem(err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cf_ruleset rs = {0};
	struct cf_diags d = {0};
	struct confine_error err = {0};
	enum cf_layer layer = (size && (data[0] & 1)) ? CF_LAYER_USER : CF_LAYER_WORKSPACE;
	int rc = cf_rules_parse((const char *)data, size, "fuzz.json", layer, &rs, &d, &err);
	if (rc == CONFINE_E_NOMEM)
		goto out;
	CHECK((rc == 0) == (d.n == 0));
	CHECK(rc == 0 || rc == CONFINE_E_RULES);
	CHECK(rc == 0 || (err.code == rc && err.line >= 1));
	for (size_t i = 0; i < d.n; i++) {
		CHECK(d.v[i].line >= 1 && d.v[i].column >= 1);
		CHECK(d.v[i].pointer[0] == '\0' || d.v[i].pointer[0] == '/');
		CHECK(d.v[i].message && d.v[i].message[0]);
		if (i)
			CHECK(
			    d.v[i - 1].line < d.v[i].line ||
			    (d.v[i - 1].line == d.v[i].line && d.v[i - 1].column <= d.v[i].column));
	}
	struct cf_resolve_ctx ctx = {
	    .home = "/home/u",
	    .workspace = "/ws",
	    .canonicalize = canon_identity,
	};
	for (size_t i = 0; i < rs.n; i++) {
		struct cf_rule *r = &rs.v[i];
		size_t n = strlen(r->pattern);
		CHECK(n > 0 && n <= CF_RULES_MAX_PATTERN);
		CHECK(r->access >= CF_ACC_READ && r->access <= CF_ACC_BOTH);
		CHECK(r->action == CF_ALLOW || r->action == CF_ASK || r->action == CF_DENY);
		CHECK(r->line >= 1 && r->column >= 1 && r->index >= 0);
		struct confine_error rerr = {0};
		if (cf_rule_resolve(r, &ctx, &rerr) < 0) {
			CHECK(rerr.code != 0 && r->path == NULL);
			continue;
		}
		CHECK(r->path && r->path[0] == '/');
		char *norm = cf_path_normalize(r->path);
		CHECK(norm && strcmp(norm, r->path) == 0);
		free(norm);
		CHECK(r->prefix_len >= 1 && r->prefix_len <= strlen(r->path));
		CHECK(cf_pattern_match(r->path, r->path, false));
		CHECK(cf_pattern_covers(r->path, r->path, true));
	}
out:
	cf_ruleset_release(&rs);
	cf_diags_release(&d);
	return 0;
}

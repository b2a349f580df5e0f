/* SPDX-License-Identifier: MIT */
/* PLACEHOLDER: being written (pattern resolution). */
#include "rules/rules.h"
#include "util/util.h"

int cf_rule_resolve(struct cf_rule *r, const struct cf_resolve_ctx *ctx, struct confine_error *err)
{
	return cf_err(err, CONFINE_E_RULES, "invalid rule", r->pattern, "not implemented yet");
}

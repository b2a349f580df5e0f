/* SPDX-License-Identifier: MIT */
/* PLACEHOLDER: being written (rule-file parser).  Refuses every rule file. */
#include "rules/rules.h"
#include "util/util.h"

int cf_rules_parse(const char *text, size_t len, const char *file, enum cf_layer layer,
		   struct cf_ruleset *out, struct cf_diags *diags, struct confine_error *err)
{
	return cf_err(err, CONFINE_E_RULES, "cannot parse rule file", file, "not implemented yet");
}

int cf_rule_parse_cli(const char *arg, char **pattern, unsigned *access, struct confine_error *err)
{
	return cf_err(err, CONFINE_E_INVALID, "invalid rule", arg, "not implemented yet");
}

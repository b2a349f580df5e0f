/* SPDX-License-Identifier: MIT */
/* PLACEHOLDER: being written (glob matcher). */
#include "rules/rules.h"
#include "util/util.h"

bool cf_pattern_covers(const char *pat, const char *path, bool fold_case)
{
	return cf_path_within(path, pat);
}

bool cf_pattern_match(const char *pat, const char *path, bool fold_case)
{
	return false;
}

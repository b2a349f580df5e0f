/* SPDX-License-Identifier: MIT */
#ifndef CONFINE_LL_LISTING_H
#define CONFINE_LL_LISTING_H

#include "plan/landlock/ll_plan.h"

/* Lists each directory of `dirs` (what cf_ll_plan_dirs asked for) without following symlinks:
 * name and kind of every entry.  A directory that cannot be listed gets a listing with its
 * errno (the planner gives its entries nothing).  Touches the OS. */
int cf_host_ll_listings(const struct cf_strv *dirs, struct cf_ll_listings *out,
			struct confine_error *err);

#endif

/* SPDX-License-Identifier: MIT */
/* The allow-list of visibly printable code points (R38), generated from the Unicode data files
 * by scripts/gen-display-table into display_table.c.  Pure. */
#ifndef CONFINE_DISPLAY_TABLE_H
#define CONFINE_DISPLAY_TABLE_H

#include <stddef.h>
#include <stdint.h>

struct cf_cp_range {
	uint32_t lo, hi; /* inclusive */
};

/* Sorted, disjoint, not adjacent. */
extern const struct cf_cp_range cf_display_visible[];
extern const size_t cf_display_visible_n;
extern const char cf_display_unicode_version[];

#endif

/* SPDX-License-Identifier: MIT */
/* Loading and compiling one golden macOS case (tests/golden/macos/CASE, see macos.c). */
#ifndef CONFINE_MACOS_CASE_H
#define CONFINE_MACOS_CASE_H

#include <stdbool.h>

#include "plan/macos/sbpl.h"

struct mc_case {
	bool ok; /* compiled: plan is filled */
	struct cf_mac_plan plan;
};

/* The file DIR/NAME, NULL when it does not exist. */
char *mc_slurp(const char *dir, const char *name, size_t *len);
/* Its lines without line ends, empty and '#' lines left out; 0 when it does not exist. */
int mc_lines(const char *dir, const char *name, struct cf_strv *out);
/* Compiles the case: the plan text, or "error: WHAT: 'SUBJECT': REASON\n". */
char *mc_compile(const char *dir, struct mc_case *out);
void mc_release(struct mc_case *c);

#endif

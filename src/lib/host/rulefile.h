/* SPDX-License-Identifier: MIT */
#ifndef CONFINE_RULEFILE_H
#define CONFINE_RULEFILE_H

#include <stddef.h>

#include "confine.h"

/*
 * Reads a rule file for the parser: only a regular file (a FIFO planted at
 * .confine/rules.json must not hang a run), at most CF_RULES_MAX_FILE_BYTES + 1 bytes (the
 * parser reports the limit).  Returns 0 with a malloc'd *text, CONFINE_E_NOTFOUND when the
 * file does not exist, CONFINE_E_RULES (with err: what, subject, reason) when it exists but
 * cannot be read, or CONFINE_E_NOMEM.  Touches the OS.
 */
int cf_rulefile_read(const char *path, char **text, size_t *len, struct confine_error *err);

#endif

/* SPDX-License-Identifier: MIT */
/* What a landlock run says about the split directories of its writable areas (ll_notes.c). */
#ifndef CONFINE_LL_NOTES_H
#define CONFINE_LL_NOTES_H

#include <stdbool.h>

#include "confine.h"

/* Whether confine's supervisor makes the new entries of those directories here (SPEC 3.3):
 * not under Yama ptrace_scope 2 or 3, nor with CONFINE_LANDLOCK_BROKER=off in confine's own
 * environment (a test of that case, and a comparison for benches).  Touches the OS. */
bool cf_ll_can_broker(void);

/* Under the landlock backend without the supervisor's help: the note said before the run
 * (run->ll_note) and the denial scan of the command's stderr turned on, so that each EACCES
 * there is explained after it (confine_run_explain_denial). */
int cf_ll_split_note(confine_run *run, struct confine_error *err);

#endif

/* SPDX-License-Identifier: MIT */
#ifndef CONFINE_RECORD_OUTFILE_H
#define CONFINE_RECORD_OUTFILE_H

#include <stdbool.h>

#include "confine.h"

/* Opens confine's own output file `path` for writing (appending, or truncated), creating it
 * 0600; returns the descriptor (O_CLOEXEC) and its canonical path in *canon, or -1 with err
 * filled (`what` names the failure).  Touches the OS. */
int cf_open_record_file(const char *what, const char *path, bool append, char **canon,
			struct confine_error *err);

/* The canonical path cf_open_record_file would give `path`, without opening or creating
 * anything (for --print-plan).  0, or -1 with err filled.  Touches the OS (realpath). */
int cf_record_file_canon(const char *what, const char *path, char **canon,
			 struct confine_error *err);

#endif

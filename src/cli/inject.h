/* SPDX-License-Identifier: MIT */
/* --inject-env NAME=FILE and --inject-path TARGET=FILE (SPEC 6): reading the files. */
#ifndef CONFINE_CLI_INJECT_H
#define CONFINE_CLI_INJECT_H

#include <stdbool.h>

#include "confine.h"

struct cli_opts;

/*
 * Validates every injection of o (names, targets, duplicates, count) before any FILE is opened,
 * refuses them under policy off when `run` is true (SPEC 4), then reads each FILE (O_NOFOLLOW,
 * its size checked on the descriptor before a byte is read) and adds it to o->req.
 */
int cli_load_injections(struct cli_opts *o, bool run, struct confine_error *err);

#endif

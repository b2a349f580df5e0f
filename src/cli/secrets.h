/* SPDX-License-Identifier: MIT */
/* The CLI's side of the secrets the command uses but never reads (R44, R45). */
#ifndef CONFINE_CLI_SECRETS_H
#define CONFINE_CLI_SECRETS_H

#include "confine.h"

struct cli_opts;

/* --ssh-key: a fingerprint as given, or the first line of FILE.pub; each added to o->req. */
int cli_load_ssh_keys(struct cli_opts *o, struct confine_error *err);

/* After the run, on stderr: what the ssh-agent filter refused and where a placeholder was
 * refused (the report and the audit line hold every request). */
void cli_secret_warnings(const confine_run *run);

#endif

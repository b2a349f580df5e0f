/* SPDX-License-Identifier: MIT */
/* The secrets' part of the report and the audit line (R44, R45). */
#ifndef CONFINE_RECORD_SECRETS_RECORD_H
#define CONFINE_RECORD_SECRETS_RECORD_H

#include "record/json.h"
#include "request.h"

void cf_record_secrets(struct cf_jobj *j, const confine_run *run);
/* The plan's text with lines for the ssh-agent filter and the secrets appended (names, keys'
 * fingerprints, hosts; never a value or a placeholder); takes text, NULL on out-of-memory. */
char *cf_secrets_plan_text(const confine_run *run, char *text);

#endif

/* SPDX-License-Identifier: MIT */
/* The secrets' part of the report and the audit line (R44, R45). */
#ifndef CONFINE_RECORD_SECRETS_RECORD_H
#define CONFINE_RECORD_SECRETS_RECORD_H

#include "record/json.h"
#include "request.h"

void cf_record_secrets(struct cf_jobj *j, const confine_run *run);

#endif

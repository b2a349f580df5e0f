/* SPDX-License-Identifier: MIT */
/* The secrets' part of the report and the audit line (R44, R45). */
#ifndef CONFINE_RECORD_SECRETS_RECORD_H
#define CONFINE_RECORD_SECRETS_RECORD_H

#include "agent/agent_run.h"
#include "net/secrets_run.h"
#include "record/json.h"
#include "record/run_facts.h"

void cf_record_secrets(struct cf_jobj *j, const struct cf_run_facts *f);
/* The plan's text with lines for the ssh-agent filter and the secrets appended (names, keys'
 * fingerprints, hosts; never a value or a placeholder); takes text, NULL on out-of-memory. */
char *cf_secrets_plan_text(const struct cf_run_agent *agent, const struct cf_run_secrets *rs,
			   enum confine_backend backend, char *text);

#endif

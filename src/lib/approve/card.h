/* SPDX-License-Identifier: MIT */
/* Approval cards (SPEC 7): the struct of confine.h built from a canonical request. */
#ifndef CONFINE_APPROVE_CARD_H
#define CONFINE_APPROVE_CARD_H

#include "approve/encoding.h"
#include "record/json.h"
#include "record/record.h"

/* Builds the card: title, texts, copies of every string, and the digest of the canonical
 * encoding.  `id` is the request id.  Pure. */
int cf_card_make(const struct cf_card_input *in, const char *id, struct confine_card **out,
		 struct confine_error *err);

/* The card as a JSON object (for the report's asks and for confine_card_json). */
json_t *cf_card_to_json(const struct confine_card *card);

/* The executable argv[0] names, as execvp would find it, canonical.  Touches the OS. */
int cf_resolve_program(const char *arg0, const char *cwd, const struct cf_strv *env, char **out,
		       struct confine_error *err);

/* The card input of an attempt's record (its id, argv, cwd, --env assignments and grants) in
 * `workspace`.  Pure. */
void cf_card_input_of(const struct cf_run_record *r, const char *workspace, bool escalate,
		      const char *program, struct cf_card_input *in);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * The canonical request of an approval (SPEC 7): the bytes whose SHA-256 is the digest on the
 * card and the receipt a run must present.  Versioned: a change of the encoding is a new
 * version string, never a silent change of what an old receipt meant.  doc/approvals.md
 * describes it byte by byte.  Pure.
 */
#ifndef CONFINE_APPROVE_ENCODING_H
#define CONFINE_APPROVE_ENCODING_H

#include <stdbool.h>

#include "policy/grants.h"
#include "util/util.h"

#define CF_REQUEST_ENCODING "confine-request-v2"

/* What an approval covers; every string canonical (absolute, symlinks resolved). */
struct cf_card_input {
	const char *id;			/* the request id: each card is its own approval */
	bool reusable;			/* the receipt may be presented again (else spent once) */
	bool escalate;			/* run outside the sandbox; else a write grant */
	const struct cf_strv *argv;	/* exact, as given */
	const char *program;		/* the executable argv[0] names, looked up in PATH */
	const char *cwd;		/* where the command starts */
	const char *workspace;		/* the workspace root */
	const struct cf_strv *env_set;	/* the request's own NAME=VALUE assignments, in order */
	const struct cf_grants *grants; /* the validated write targets and reason (grant only) */
};

/* Appends the canonical encoding of `in` to out (check out->oom).  Pure. */
void cf_request_encode(const struct cf_card_input *in, struct cf_buf *out);

/* The card's title, from the kind of request, the program's name and the targets only (never
 * from the reason or any other text a requester wrote); NULL on out-of-memory.  Pure. */
char *cf_card_title(const struct cf_card_input *in);

#endif

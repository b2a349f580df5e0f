/* SPDX-License-Identifier: MIT */
/*
 * Approvals, the post-run report and the audit log (SPEC 7, 8): the part of a request and of a
 * run that says what was approved and what is recorded.  Kept apart from request.h so that the
 * run's own fields and these grow without touching each other.
 */
#ifndef CONFINE_RECORD_H
#define CONFINE_RECORD_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "policy/grants.h"
#include "record/denials.h"
#include "util/sha256.h"
#include "util/util.h"

#define CF_REQUEST_ID_MAX 64

/* Whether an audit line could not be written (SPEC 8): shared by a request and every run made
 * from it, so that the failure reaches the caller whichever of them it asks
 * (confine_request_audit_error), and the report can say it. */
struct cf_audit_state {
	int refs;   /* atomic */
	char *path; /* the log's canonical path, for messages */
	/* Runs of one request may fail on threads of their own at once: the one that claims it
	 * (atomic) fills err, then sets failed (release); a reader sees err only through
	 * cf_audit_state_error (acquire). */
	int claimed;
	bool failed;
	struct confine_error err; /* the first failure */
};
/* The recorded failure, complete, or NULL when there is none (yet). */
const struct confine_error *cf_audit_state_error(const struct cf_audit_state *st);

/* In struct confine_request: what the caller asked for. */
struct cf_request_record {
	bool escalate;			    /* run outside the sandbox once (SPEC 7.1) */
	struct cf_strv grants;		    /* "PATH:file|subtree", as given (SPEC 7.2) */
	char *reason;			    /* the grants' reason */
	char *receipt;			    /* the approved digest */
	bool reusable;			    /* the approval may be presented again (not spent) */
	char id[CF_REQUEST_ID_MAX + 1];	    /* "" until set or generated */
	int audit_fd;			    /* -1: no audit log */
	char *audit_path;		    /* canonical */
	struct cf_audit_state *audit_state; /* with audit_fd */
	int report_fd;			    /* -1: no report file */
	char *report_path;		    /* canonical */
	bool denial_scan;		    /* tee the command's stderr for denial paths */
};

/* In struct confine_run: the facts a report and an audit line carry. */
struct cf_tee;
struct confine_card;

struct cf_run_record {
	char id[CF_REQUEST_ID_MAX + 1];
	struct cf_strv argv;   /* as requested */
	char *cwd;	       /* the canonical current directory at prepare */
	char *workspace_given; /* as requested, for an attempt that failed before resolving it */
	bool network;
	bool escalate;	/* asked for */
	bool escalated; /* approved: this run goes outside the sandbox */
	bool approved;	/* an escalation or grant matched its receipt */
	bool reusable;	/* asked for a reusable approval (its receipt is never spent) */
	bool id_given;	/* the request named its id (a receipt goes with its card's id) */
	char *receipt;
	struct cf_strv env_set; /* --env assignments (they are part of an approval) */
	struct cf_grants grants;
	char *program; /* the executable an approved run executes (escalation) */
	struct confine_card *card;
	int audit_fd;			    /* a duplicate of the request's; -1: none */
	struct cf_audit_state *audit_state; /* the request's, shared */
	bool audited;			    /* this attempt's audit line is written */
	struct timespec wall_start, mono_start;
	char policy_digest[CF_SHA256_HEX]; /* "" until computed */
	/* the stderr tee (exec/linux/tee.c) and what it found */
	bool tee_wanted;
	int tee_fd;  /* read end; -1 when not teeing */
	int tee_out; /* the caller's stderr at the start, duplicated; -1: none */
	struct cf_tee *tee;
	struct cf_denials denials;
};

void cf_request_record_init(struct cf_request_record *r);
/* A new reference to the shared state (NULL stays NULL), and its release. */
struct cf_audit_state *cf_audit_state_ref(struct cf_audit_state *s);
void cf_audit_state_unref(struct cf_audit_state *s);
void cf_request_record_release(struct cf_request_record *r);

#endif

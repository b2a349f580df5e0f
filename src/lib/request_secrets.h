/* SPDX-License-Identifier: MIT */
/*
 * What a request asks for secrets the command may use but never read (R44, R45): the
 * filtering ssh-agent and its keys, the credential placeholders and the hosts whose TLS confine
 * terminates.  Validated when added; resolved (environment, files) when the run is prepared.
 * Pure.
 */
#ifndef CONFINE_REQUEST_SECRETS_H
#define CONFINE_REQUEST_SECRETS_H

#include <stdbool.h>

#include "util/util.h"

/* --secret NAME=SOURCE@HOST[,HOST...] */
struct cf_secret_spec {
	char *name;	      /* the command's variable */
	char *source;	      /* a variable of the caller, or "file:PATH" */
	struct cf_strv hosts; /* network patterns (rules/netrules.h syntax) */
};

struct cf_secret_req {
	bool ssh_agent;
	struct cf_strv ssh_keys; /* public key lines or "SHA256:..." fingerprints, as given */
	struct cf_secret_spec *v;
	size_t n, cap;
	struct cf_strv inspect; /* --tls-inspect patterns */
};

void cf_secret_req_release(struct cf_secret_req *s);

/* At most this many secrets and inspected hosts per request. */
#define CF_SECRETS_MAX 32
#define CF_SECRET_HOSTS_MAX 32

#endif

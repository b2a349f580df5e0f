/* SPDX-License-Identifier: MIT */
/*
 * The credential placeholders of one run (R45): the request's secrets resolved when the run
 * is prepared (each value read from the caller's variable or file, the file hidden from the
 * sandbox, a random placeholder made), the run's CA and the command's trust bundle when TLS is
 * inspected, the command's environment, and the records.  Linux only; touches the OS.
 */
#ifndef CONFINE_NET_SECRETS_RUN_H
#define CONFINE_NET_SECRETS_RUN_H

#include "net/secrets.h"

struct cf_tls;

struct cf_run_secrets {
	bool on; /* secrets or inspected hosts */
	struct cf_secrets s;
	struct cf_strv inspect; /* every inspected pattern: --tls-inspect and the secrets' hosts */
	struct cf_tls *tls;
	char *bundle; /* the trust bundle (the system's roots and the run's CA), until placed */
	size_t bundle_len;
	struct cf_strv sources; /* the caller's variables the values came from */
};

/* After the backend is chosen, before the injections are taken: resolves everything; for
 * bwrap the trust bundle becomes an injection of the run (SSL_CERT_FILE). */
int cf_run_secrets_prepare(confine_run *run, const confine_request *req, const struct cf_strv *env,
			   struct confine_error *err);
/* After the environment is built: no variable holds a real value; NAME holds the placeholder;
 * the trust variables point to the bundle. */
int cf_run_secrets_env(confine_run *run, struct confine_error *err);
/* The landlock backend, once its TMPDIR exists: the bundle as a file there (no injection on
 * that backend), and the trust variables pointing to it. */
int cf_run_secrets_landlock(confine_run *run, struct confine_error *err);
/* What the proxy takes (NULL members: none). */
void cf_run_secrets_netrun(confine_run *run, struct cf_secrets **s, struct cf_tls **tls);
void cf_run_secrets_release(confine_run *run);

#endif

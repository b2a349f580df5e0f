/* SPDX-License-Identifier: MIT */
/*
 * Credential placeholders (R45): each secret's real value, the random placeholder the command
 * holds instead, and the hosts the value may go to; finding a placeholder in what the command
 * sends, in the forms a client or an attacker may give it (as it is, percent-encoded, base64
 * at any alignment, hex), and putting the real value in its place in a request head.  Pure:
 * bytes in, bytes out.
 */
#ifndef CONFINE_NET_SECRETS_H
#define CONFINE_NET_SECRETS_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "confine.h"
#include "net/decide.h"
#include "util/util.h"

/* "confine-placeholder-" and 32 lower-case hex digits (128 bits of getrandom). */
#define CF_PLACEHOLDER_PREFIX "confine-placeholder-"
#define CF_PLACEHOLDER_LEN (sizeof(CF_PLACEHOLDER_PREFIX) - 1 + 32)
/* The forms of a placeholder that are searched for: plain, hex, base64 and base64url at three
 * alignments each (the percent-decoded text is searched for the plain form). */
#define CF_SECRET_FORMS 8
/* The longest form (base64 of the placeholder: 4/3 of it, rounded up). */
#define CF_SECRET_FORM_MAX (2 * CF_PLACEHOLDER_LEN + 4)
/* How much of a request body is searched. */
#define CF_SECRET_BODY_SCAN (1u << 20)
/* Placeholder events kept. */
#define CF_SECRET_MAX_EVENTS 4096

struct cf_secret {
	char *name;
	char *value; /* the real value: never in a record, a message or the command's view */
	size_t value_len;
	char placeholder[CF_PLACEHOLDER_LEN + 1];
	struct cf_net_policy hosts; /* the listed hosts, as allow rules of the session layer */
	struct cf_strv host_list;   /* the same as written, for the records */
	char form[CF_SECRET_FORMS][CF_SECRET_FORM_MAX + 1];
	size_t form_len[CF_SECRET_FORMS];
	const char *form_name[CF_SECRET_FORMS]; /* "plain", "hex", "base64" */
	bool form_ci[CF_SECRET_FORMS];		/* matched without regard to case */
};

struct cf_secrets {
	struct cf_secret *v;
	size_t n;
	struct cf_net_policy inspect; /* hosts whose TLS the proxy terminates */
	size_t n_inspect;
	/* what became of the placeholders, from any thread */
	pthread_mutex_t lock;
	struct confine_secret_event *events;
	size_t n_events, dropped;
};

/* Prepares an empty set (the lock).  Pure apart from the mutex. */
void cf_secrets_init(struct cf_secrets *s);
/* Releases everything; the values are wiped first. */
void cf_secrets_release(struct cf_secrets *s);

/*
 * Adds a secret: `value` (len bytes, copied; no CR, LF or NUL), the placeholder (made by the
 * caller from random bytes), the hosts (network patterns).  Its search forms are computed
 * here.  0, CONFINE_E_INVALID or CONFINE_E_NOMEM.
 */
int cf_secrets_add(struct cf_secrets *s, const char *name, const char *value, size_t len,
		   const char *placeholder, const struct cf_strv *hosts, struct confine_error *err);
/* Adds a host pattern whose TLS is terminated. */
int cf_secrets_inspect_add(struct cf_secrets *s, const char *pattern, struct confine_error *err);

/* Whether the value of secret i may go to host:port (ip for an address). */
bool cf_secret_listed(const struct cf_secret *sec, const char *host, const struct cf_ip *ip,
		      uint16_t port);
/* Whether the proxy terminates TLS to host:port: an --tls-inspect host or a secret's. */
bool cf_secrets_inspected(const struct cf_secrets *s, const char *host, const struct cf_ip *ip,
			  uint16_t port);

/* A placeholder found: which secret, in which form. */
struct cf_secret_hit {
	const struct cf_secret *secret;
	const char *encoding; /* "plain", "percent", "hex", "base64" */
};

/*
 * Looks for any secret's placeholder in buf[0..n): every form, and the plain form in the
 * percent-decoded text.  `skip` (may be NULL) names the secrets not to look for: skip[i] true
 * leaves secret i out.  Returns whether one was found (*hit says which, the first secret in
 * order).
 */
bool cf_secrets_find(const struct cf_secrets *s, const char *buf, size_t n, const bool *skip,
		     struct cf_secret_hit *hit);

/*
 * A request head bound for host:port, n bytes (the blank line included): every line, the
 * request line too, has each placeholder of a secret listed for this host replaced by the
 * real value, also inside the base64 of an Authorization or Proxy-Authorization header of the
 * Basic scheme.  Appends the result to out.  *replaced[i] (an array of s->n) tells which
 * secrets were put in and where[i] the first place ("request line", "header NAME").  The
 * placeholders of secrets not listed for the host are left as they are (the caller refuses the
 * request: cf_secrets_find).
 */
void cf_secrets_substitute_head(const struct cf_secrets *s, const char *host,
				const struct cf_ip *ip, uint16_t port, const char *head, size_t n,
				struct cf_buf *out, bool *replaced, char (*where)[64]);

/* Records what became of a placeholder (thread-safe; at most 4096 kept). */
void cf_secrets_record(struct cf_secrets *s, const char *name, const char *host, uint16_t port,
		       const char *outcome, const char *where, const char *encoding);

/* A streaming search over a body: bytes fed in order, a placeholder split across two pieces
 * is found all the same; at most CF_SECRET_BODY_SCAN bytes are looked at. */
struct cf_secret_scan {
	char carry[3 * CF_SECRET_FORM_MAX];
	size_t carry_len;
	size_t seen;
};
bool cf_secrets_scan_feed(const struct cf_secrets *s, struct cf_secret_scan *st, const char *buf,
			  size_t n, const bool *skip, struct cf_secret_hit *hit);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * The caller's known_hosts for confine's filtering agent (R44): which hosts a server's host key
 * belongs to, so that a signature is given only for a session bound to a host the network
 * rules allow.  The format is sshd(8)'s SSH_KNOWN_HOSTS FILE FORMAT: an optional marker
 * (@revoked, @cert-authority), comma-separated host patterns ("name", "[name]:port", with
 * '*', '?' and a leading '!') or one hashed name ("|1|SALT|HASH", HMAC-SHA1 of the name keyed
 * with the salt), the key type and the key.  Pure apart from Nettle's HMAC.
 */
#ifndef CONFINE_AGENT_KNOWN_HOSTS_H
#define CONFINE_AGENT_KNOWN_HOSTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "confine.h"
#include "net/decide.h"

enum cf_kh_marker { CF_KH_PLAIN, CF_KH_REVOKED, CF_KH_CA };

struct cf_kh_entry {
	enum cf_kh_marker marker;
	char *hosts; /* the host field as written */
	uint8_t *blob;
	size_t blob_len;
};

struct cf_known_hosts {
	struct cf_kh_entry *v;
	size_t n, cap;
	size_t skipped; /* lines that are not entries (comments aside) */
};

/* Appends the entries of one file's text; a line that is not an entry is counted and skipped.
 * 0 or CONFINE_E_NOMEM. */
int cf_known_hosts_parse(struct cf_known_hosts *kh, const char *text, size_t len);
void cf_known_hosts_release(struct cf_known_hosts *kh);

/* Whether a hashed name ("|1|SALT|HASH") is the hash of `name`. */
bool cf_kh_hashed_is(const char *hashed, size_t n, const char *name);

/* What the network rules say about the host a session is bound to. */
struct cf_kh_verdict {
	bool allowed;
	char host[CF_HOST_MAX + 16]; /* "name:port" the key is known for (the allowed one when
				      * allowed); "" when it is in no entry */
	char why[200];		     /* when refused */
};

/*
 * Decides a host key: allowed when an entry of known_hosts (not @revoked, not
 * @cert-authority) holds this key for a host and port that the network rules allow: in
 * `mode` CONFINE_NET_DOMAINS the rules' decision must be allow; CONFINE_NET_ON allows every
 * host no rule denies; CONFINE_NET_OFF none.  A hashed name is compared with the names and
 * addresses the allow rules name literally (a '*.' rule cannot be hashed); a pattern with a
 * wildcard or a '!' is never taken for a host (except under CONFINE_NET_ON, where the key
 * being known is enough).  A key that any @revoked entry holds is refused.  Pure.
 */
void cf_kh_decide(const struct cf_known_hosts *kh, const uint8_t *key, size_t kn,
		  const struct cf_net_policy *net, enum confine_net_mode mode,
		  struct cf_kh_verdict *out);

#endif

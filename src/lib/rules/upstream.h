/* SPDX-License-Identifier: MIT */
/*
 * The caller's upstream proxy (R43).  Where the machine itself must go through a proxy (a
 * company's), confine's proxy reaches the hosts it allowed through that one, with an HTTP
 * CONNECT that carries the upstream proxy's credentials: the command never sees them (its
 * proxy variables name confine's proxy).  Which upstream: network.upstream of the user rule
 * file, else HTTPS_PROXY (https_proxy first) of confine's caller.  NO_PROXY (no_proxy first) of
 * the caller names the hosts confine's proxy connects to directly, as curl reads it: "*" (all),
 * names with the names below them (a leading dot is the same), address literals and ranges,
 * each with an optional ":PORT".  Pure.
 */
#ifndef CONFINE_RULES_UPSTREAM_H
#define CONFINE_RULES_UPSTREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/addr.h"

#define CF_UPSTREAM_MAX_ADDRS 8

struct cf_noproxy {
	char host[CF_HOST_MAX + 1]; /* a name (suffix match) or an address */
	bool is_ip;
	struct cf_ip ip;
	unsigned bits;
	uint16_t port; /* 0: any */
};

struct cf_upstream {
	char host[CF_HOST_MAX + 1];
	bool is_ip;
	struct cf_ip ip;
	uint16_t port;
	char shown[CF_HOST_MAX + 24]; /* "http://HOST:PORT", no credentials: for messages */
	char auth[600];		      /* "Basic BASE64(user:password)", "" without credentials */
	char password[256];	      /* decoded, "" none: no variable of the command may hold it */
	char password_raw[256];	      /* as written in the URL (percent-encoded), the same */
	char userinfo_raw[512];	      /* "USER:PASSWORD" as written in the URL, the same */
	bool all_direct;	      /* NO_PROXY "*" */
	struct cf_noproxy *np;
	size_t n_np;
	/* The executor's: the upstream proxy's addresses, looked up once when the proxy starts
	 * (none: every request through it fails, with `resolve_error`). */
	struct cf_ip addrs[CF_UPSTREAM_MAX_ADDRS];
	size_t n_addrs;
	char resolve_error[160];
};

/*
 * Parses "http://[USER[:PASSWORD]@]HOST[:PORT][/]" (the scheme may be left out; the port is 80
 * when not given; user and password percent-decoded) into *out.  Returns NULL or a static
 * reason: another scheme (https://, socks5://), a path, a malformed host or port.
 */
const char *cf_upstream_parse(const char *url, struct cf_upstream *out);

/* Adds the entries of a NO_PROXY list (commas and spaces between them); an entry that is none
 * of the forms above is left out.  0, or -1 out of memory. */
int cf_upstream_no_proxy(struct cf_upstream *u, const char *list);

/* Whether a request for host (a normalised name, or the literal ip when ip is not NULL) and
 * port goes directly, not through the upstream proxy. */
bool cf_upstream_direct(const struct cf_upstream *u, const char *host, const struct cf_ip *ip,
			uint16_t port);

void cf_upstream_release(struct cf_upstream *u);

#endif

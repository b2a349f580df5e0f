/* SPDX-License-Identifier: MIT */
/*
 * Network rules (SPEC 12, R31): the "network" section of a rule file
 * ({"allow": [...], "deny": [...]}) and --net-allow/--net-deny.  A pattern is
 *
 *   example.com          that name only (not its subdomains)
 *   *.example.com        every name strictly below example.com (not example.com itself)
 *   192.0.2.7, 2001:db8::1, [2001:db8::1]
 *                        that address (only a rule naming an address lets the proxy reach a
 *                        loopback, private or link-local address, or connect to a literal)
 *   10.0.0.0/8, fd00::/8, [fd00::/8]
 *                        every address of that range (cf_ip_prefix_parse), the same way
 *   any of them + ":PORT"  (an IPv6 address or range with a port is written in brackets)
 *
 * Pure.
 */
#ifndef CONFINE_RULES_NETRULES_H
#define CONFINE_RULES_NETRULES_H

#include <stdbool.h>
#include <stdint.h>

#include "util/addr.h"
#include "rules/rules.h"

/* Longest pattern: a name of 253 characters, "*." and ":65535". */
#define CF_NET_PATTERN_MAX (CF_HOST_MAX + 8)

struct cf_net_rule {
	char *pattern;		    /* as written */
	char host[CF_HOST_MAX + 1]; /* normalised name (without "*.") or canonical address */
	bool subdomains;	    /* "*.": names strictly below host */
	bool is_ip;		    /* an address or an address range */
	struct cf_ip ip;	    /* the address, or the range's network address */
	unsigned bits;		    /* is_ip: the prefix length (32 or 128 for one address) */
	uint16_t port;		    /* 0: any port */
	enum cf_action action;	    /* CF_ALLOW or CF_DENY */
	enum cf_layer layer;
	char *source;	  /* rule file path or "session" */
	int index;	  /* position in its list ("allow" or "deny"), or among session rules */
	int line, column; /* position in its file; 0 for the session */
};

struct cf_net_rules {
	struct cf_net_rule *v;
	size_t n, cap;
	/* R43: "upstream" of the section: the upstream proxy's URL (rules/upstream.h), checked;
	 * NULL when the file names none.  Not in a workspace file. */
	char *upstream;
};

/*
 * Parses one pattern (n bytes) into r's host, subdomains, is_ip, ip and port; the caller sets
 * the rest.  Returns NULL, or a static reason for the refusal.
 */
const char *cf_net_pattern_parse(const char *s, size_t n, struct cf_net_rule *r);

/* Appends a copy of r (pattern and source duplicated); 0 or CONFINE_E_NOMEM. */
int cf_net_rules_add(struct cf_net_rules *rs, const struct cf_net_rule *r,
		     struct confine_error *err);
/* Appends copies of every rule of src; 0 or CONFINE_E_NOMEM. */
int cf_net_rules_extend(struct cf_net_rules *rs, const struct cf_net_rules *src,
			struct confine_error *err);
void cf_net_rules_release(struct cf_net_rules *rs);

/* Number of allow rules. */
size_t cf_net_rules_allows(const struct cf_net_rules *rs);

/*
 * Parses a rule file like cf_rules_parse and also its "network" section: each entry is checked
 * (FILE:LINE:COLUMN and the JSON pointer "/network/allow/2" on error, every error reported) and
 * appended to `net` when net is not NULL.  In the workspace layer an allow is an error (R31,
 * R10's reasoning: a repository cannot grant itself an exfiltration channel).  A file may hold
 * "rules", "network" or both; at least one of them.  Pure.
 */
int cf_rules_parse_net(const char *text, size_t len, const char *file, enum cf_layer layer,
		       struct cf_ruleset *out, struct cf_net_rules *net, struct cf_diags *diags,
		       struct confine_error *err);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * The network decision (SPEC 12, R31): which rule decides a host and port.  Layers as in SPEC
 * 2.3 (session, workspace, user; the workspace layer holds denies only); within a layer the
 * deny list is checked before the allow list, each in the order written, and the first match
 * decides.  A host no rule matches is `ask` (the fallback), which the proxy enforces as deny
 * and reports.  Pure.
 */
#ifndef CONFINE_NET_DECIDE_H
#define CONFINE_NET_DECIDE_H

#include "rules/netrules.h"

struct cf_net_policy {
	struct cf_net_rules layers[CF_LAYER_FALLBACK];
};

struct cf_net_decision {
	enum cf_action action;
	enum cf_layer layer;
	const struct cf_net_rule *rule; /* NULL for the fallback */
};

/* One request the proxy decided, as the library keeps it: the fields of the public struct
 * confine_net_event (include/confine.h, which hands it out with a pointer to `decision`). */
struct cf_net_event {
	int64_t time_ms;
	char protocol[8];
	struct confine_net_decision decision;
	char outcome[24];
	char address[64];
	char detail[256];
	char answer[16];
};

void cf_net_policy_release(struct cf_net_policy *p);
/* Appends copies of rs to `layer`.  An allow in the workspace layer is CONFINE_E_RULES (the
 * parser refuses it first; this holds for rules that come from elsewhere). */
int cf_net_policy_add(struct cf_net_policy *p, enum cf_layer layer, const struct cf_net_rules *rs,
		      struct confine_error *err);
/* Allow rules in every layer: the mode is "domains" when there is one. */
size_t cf_net_policy_allows(const struct cf_net_policy *p);
/* Every network rule in every layer. */
size_t cf_net_policy_count(const struct cf_net_policy *p);

/*
 * Decides `host` (normalised: cf_net_host_parse) and `port`.  `ip` is the address when host is
 * an IP literal, NULL for a domain name: a name rule never matches an address and an address
 * rule never matches a name.
 */
void cf_net_decide(const struct cf_net_policy *p, const char *host, const struct cf_ip *ip,
		   uint16_t port, struct cf_net_decision *out);

/*
 * The decision for a name on no particular port, for the resolver inside (R43), which learns
 * the name before the port: DENY only when the name is denied on every port (each port a rule
 * matching the name names, and every other port), ALLOW when it is allowed on some port, else
 * ASK.  *out is the decision that says so: the allowing one, or the one for the ports no rule
 * names.  An address text is never a name here.
 */
enum cf_action cf_net_decide_name(const struct cf_net_policy *p, const char *host,
				  struct cf_net_decision *out);

/*
 * NO_PROXY of the command (SPEC 12): the names its clients connect to directly, never through
 * the proxy.  "localhost,127.0.0.1" is the sandbox's own loopback (a test server the command
 * starts), unless an allow rule can reach a loopback address (127.0.0.0/8, ::1) or names
 * localhost: then the command means the host's, which only the proxy reaches, and NULL is
 * returned (no NO_PROXY at all), so that no allowed request goes around the proxy.
 */
const char *cf_net_no_proxy(const struct cf_net_policy *p);

/*
 * May the proxy connect to `ip` (a resolved address, or the literal that was asked for) on
 * `port`?  No when a rule denies the address, or when the address is loopback, private,
 * link-local, multicast or otherwise special (cf_ip_special) and no rule allows it by address
 * (DNS rebinding: a public name that resolves to 127.0.0.1 or 169.254.169.254).  Returns NULL,
 * or the reason written into buf; *by is the decision on the address itself.
 */
const char *cf_net_address_check(const struct cf_net_policy *p, const struct cf_ip *ip,
				 uint16_t port, struct cf_net_decision *by, char *buf, size_t cap);

#endif

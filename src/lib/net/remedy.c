/* SPDX-License-Identifier: MIT */
/* Remedies for the proxy's refusals (see remedy.h).  Pure. */
#include <stdio.h>
#include <string.h>

#include "net/remedy.h"

static size_t put(char *buf, size_t cap, int n)
{
	if (n < 0 || cap == 0)
		return 0;
	return (size_t)n < cap ? (size_t)n : cap - 1;
}

/* HOST:PORT as explain --net takes it (an IPv6 address in brackets). */
static void host_port(const char *host, uint16_t port, char *buf, size_t cap)
{
	bool v6 = strchr(host, ':') != NULL;
	if (!port) /* a name the resolver inside refused (R43): on every port */
		snprintf(buf, cap, "%s", host);
	else
		snprintf(buf, cap, "%s%s%s:%u", v6 ? "[" : "", host, v6 ? "]" : "", port);
}

size_t cf_net_address_remedy(const struct cf_net_policy *p, const struct cf_ip *ip, uint16_t port,
			     char *buf, size_t cap)
{
	char why[256], a[CF_IP_TEXT], hp[CF_IP_TEXT + 16];
	struct cf_net_decision by;
	if (cap)
		buf[0] = '\0';
	if (!cf_net_address_check(p, ip, port, &by, why, sizeof(why)))
		return 0;
	cf_ip_format(ip, a, sizeof(a));
	if (by.rule && by.action == CF_DENY) {
		host_port(a, port, hp, sizeof(hp));
		return put(buf, cap,
			   snprintf(buf, cap,
				    "the rule '%s' denies the address; 'confine explain --net %s' "
				    "shows the rules",
				    by.rule->pattern, hp));
	}
	struct cf_ip net;
	unsigned bits;
	char range[CF_IP_TEXT + 8] = "";
	if (cf_ip_special_range(ip, &net, &bits) && bits < (ip->family == 4 ? 32u : 128u)) {
		char n[CF_IP_TEXT];
		cf_ip_format(&net, n, sizeof(n));
		snprintf(range, sizeof(range), "%s/%u", n, bits);
	}
	return put(
	    buf, cap,
	    snprintf(buf, cap,
		     "if the command must reach it, allow the address too: --net-allow %s%s%s "
		     "(a name alone never opens a loopback, private or link-local address)",
		     a, range[0] ? ", or its whole range: --net-allow " : "", range));
}

size_t cf_net_event_remedy(const struct cf_net_policy *p, const struct cf_net_event *e, char *buf,
			   size_t cap)
{
	const struct confine_net_decision *d = &e->decision;
	char hp[300];
	if (cap)
		buf[0] = '\0';
	if (!strcmp(e->outcome, "address_refused")) {
		struct cf_ip ip;
		if (!cf_ip_parse(e->address, strlen(e->address), &ip))
			return 0;
		return cf_net_address_remedy(p, &ip, d->port, buf, cap);
	}
	if (!strcmp(e->outcome, "denied") && d->host[0]) {
		host_port(d->host, d->port, hp, sizeof(hp));
		if (d->has_rule)
			return put(
			    buf, cap,
			    snprintf(buf, cap,
				     "'confine explain --net %s' shows the rules; a deny comes "
				     "before an allow of its layer",
				     hp));
		return put(buf, cap,
			   snprintf(buf, cap,
				    "allow it with --net-allow %s (or in your user rule file, "
				    "confine-rules(5))",
				    d->host));
	}
	if (!strcmp(e->outcome, "unauthenticated"))
		return put(
		    buf, cap,
		    snprintf(buf, cap,
			     "use the proxy URL confine set in HTTP_PROXY, HTTPS_PROXY and "
			     "ALL_PROXY, credentials included (they change with every run)"));
	return 0;
}

/* SPDX-License-Identifier: MIT */
/* The network decision (see decide.h).  Pure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net/decide.h"
#include "util/util.h"

void cf_net_policy_release(struct cf_net_policy *p)
{
	for (int l = 0; l < CF_LAYER_FALLBACK; l++)
		cf_net_rules_release(&p->layers[l]);
}

int cf_net_policy_add(struct cf_net_policy *p, enum cf_layer layer, const struct cf_net_rules *rs,
		      struct confine_error *err)
{
	if (layer >= CF_LAYER_FALLBACK)
		return cf_err(err, CONFINE_E_INVALID, "invalid network rules", "", "no such layer");
	for (size_t i = 0; i < rs->n; i++) {
		const struct cf_net_rule *r = &rs->v[i];
		if (layer == CF_LAYER_WORKSPACE && r->action == CF_ALLOW) {
			cf_err(err, CONFINE_E_RULES, "invalid rule", r->source,
			       "'%s': a workspace rule file may deny domains but not allow them",
			       r->pattern);
			if (err && err->line == 0) {
				err->line = r->line;
				err->column = r->column;
			}
			return CONFINE_E_RULES;
		}
		struct cf_net_rule c = *r;
		c.layer = layer;
		int rc = cf_net_rules_add(&p->layers[layer], &c, err);
		if (rc < 0)
			return rc;
	}
	if (rs->upstream && layer != CF_LAYER_WORKSPACE) {
		/* R43: the last file of a layer that names one wins. */
		char *u = cf_strdup(rs->upstream);
		if (!u)
			return cf_nomem(err);
		free(p->layers[layer].upstream);
		p->layers[layer].upstream = u;
	}
	return 0;
}

size_t cf_net_policy_allows(const struct cf_net_policy *p)
{
	size_t n = 0;
	for (int l = 0; l < CF_LAYER_FALLBACK; l++)
		n += cf_net_rules_allows(&p->layers[l]);
	return n;
}

size_t cf_net_policy_count(const struct cf_net_policy *p)
{
	size_t n = 0;
	for (int l = 0; l < CF_LAYER_FALLBACK; l++)
		n += p->layers[l].n;
	return n;
}

static bool matches(const struct cf_net_rule *r, const char *host, const struct cf_ip *ip,
		    uint16_t port)
{
	if (r->port && r->port != port)
		return false;
	if (r->is_ip || ip)
		return r->is_ip && ip && cf_ip_in_prefix(ip, &r->ip, r->bits);
	if (!r->subdomains)
		return !strcmp(r->host, host);
	size_t hl = strlen(host), rl = strlen(r->host);
	return hl > rl + 1 && host[hl - rl - 1] == '.' && !strcmp(host + hl - rl, r->host);
}

void cf_net_decide(const struct cf_net_policy *p, const char *host, const struct cf_ip *ip,
		   uint16_t port, struct cf_net_decision *out)
{
	static const enum cf_action order[] = {CF_DENY, CF_ALLOW};
	for (int l = 0; l < CF_LAYER_FALLBACK; l++) {
		const struct cf_net_rules *rs = &p->layers[l];
		for (size_t pass = 0; pass < 2; pass++) {
			for (size_t i = 0; i < rs->n; i++) {
				const struct cf_net_rule *r = &rs->v[i];
				if (r->action != order[pass] || !matches(r, host, ip, port))
					continue;
				*out = (struct cf_net_decision){r->action, (enum cf_layer)l, r};
				return;
			}
		}
	}
	*out = (struct cf_net_decision){CF_ASK, CF_LAYER_FALLBACK, NULL};
}

enum cf_action cf_net_decide_name(const struct cf_net_policy *p, const char *host,
				  struct cf_net_decision *out)
{
	/* Port 0 matches only the rules without a port: the decision on every port no rule
	 * names. */
	cf_net_decide(p, host, NULL, 0, out);
	bool ask = out->action == CF_ASK;
	if (out->action == CF_ALLOW)
		return CF_ALLOW;
	for (int l = 0; l < CF_LAYER_FALLBACK; l++) {
		const struct cf_net_rules *rs = &p->layers[l];
		for (size_t i = 0; i < rs->n; i++) {
			const struct cf_net_rule *r = &rs->v[i];
			if (!r->port || r->is_ip || !matches(r, host, NULL, r->port))
				continue;
			struct cf_net_decision d;
			cf_net_decide(p, host, NULL, r->port, &d);
			if (d.action == CF_ALLOW) {
				*out = d;
				return CF_ALLOW;
			}
			ask |= d.action == CF_ASK;
		}
	}
	if (ask && out->action != CF_ASK)
		*out = (struct cf_net_decision){CF_ASK, CF_LAYER_FALLBACK, NULL};
	return out->action;
}

const char *cf_net_address_check(const struct cf_net_policy *p, const struct cf_ip *ip,
				 uint16_t port, struct cf_net_decision *by, char *buf, size_t cap)
{
	char text[CF_IP_TEXT];
	cf_ip_format(ip, text, sizeof(text));
	cf_net_decide(p, text, ip, port, by);
	if (by->rule && by->action == CF_DENY) {
		snprintf(buf, cap, "the address %s is denied by rule '%s'", text,
			 by->rule->pattern);
		return buf;
	}
	const char *cls = cf_ip_special(ip);
	if (cls && !(by->rule && by->action == CF_ALLOW)) {
		snprintf(buf, cap,
			 "the address %s is %s %s address, which confine's proxy refuses unless a "
			 "rule names it",
			 text, strchr("aeiou", cls[0]) ? "an" : "a", cls);
		return buf;
	}
	return NULL;
}

const char *cf_net_no_proxy(const struct cf_net_policy *p)
{
	struct cf_ip lo4, lo6;
	cf_ip_parse("127.0.0.1", 9, &lo4);
	cf_ip_parse("::1", 3, &lo6);
	for (int l = 0; l < CF_LAYER_FALLBACK; l++) {
		for (size_t i = 0; i < p->layers[l].n; i++) {
			const struct cf_net_rule *r = &p->layers[l].v[i];
			if (r->action != CF_ALLOW)
				continue;
			/* Any address of 127.0.0.0/8 is the host's loopback too. */
			bool loop = r->is_ip && ((r->ip.family == 4 && r->ip.b[0] == 127) ||
						 cf_ip_in_prefix(&lo4, &r->ip, r->bits) ||
						 cf_ip_in_prefix(&lo6, &r->ip, r->bits));
			if (loop || (!r->is_ip && !strcmp(r->host, "localhost")))
				return NULL;
		}
	}
	return "localhost,127.0.0.1";
}

/* SPDX-License-Identifier: MIT */
/* What `confine run` says about the network-by-domain proxy's decisions (SPEC 12): a summary
 * of what was refused on stderr after the run, and every decision in the --report file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/net_report.h"

static const char *action_name(enum confine_action a)
{
	return a == CONFINE_ALLOW ? "allow" : a == CONFINE_ASK ? "ask" : "deny";
}

static const char *mode_name(enum confine_net_mode m)
{
	return m == CONFINE_NET_DOMAINS ? "domains" : m == CONFINE_NET_OFF ? "off" : "on";
}

static void target(const struct confine_net_event *e, char *buf, size_t cap)
{
	bool v6 = strchr(e->decision.host, ':') != NULL;
	snprintf(buf, cap, "%s%s%s:%u", v6 ? "[" : "", e->decision.host, v6 ? "]" : "",
		 e->decision.port);
}

#define MAX_LINES 10

void cli_net_warnings(const confine_run *run)
{
	size_t n, dropped;
	const struct confine_net_event *ev = confine_run_net_events(run, &n, &dropped);
	size_t shown = 0, refused = 0;
	for (size_t i = 0; i < n; i++) {
		const struct confine_net_event *e = &ev[i];
		if (!strcmp(e->outcome, "connected") || !strcmp(e->outcome, "closed"))
			continue;
		refused++;
		/* One line per host, port and outcome: the first time it was refused. */
		bool seen = false;
		for (size_t j = 0; j < i && !seen; j++)
			seen = !strcmp(ev[j].outcome, e->outcome) &&
			       !strcmp(ev[j].decision.host, e->decision.host) &&
			       ev[j].decision.port == e->decision.port;
		if (seen || shown == MAX_LINES)
			continue;
		size_t times = 0;
		for (size_t j = i; j < n; j++)
			times += !strcmp(ev[j].outcome, e->outcome) &&
				 !strcmp(ev[j].decision.host, e->decision.host) &&
				 ev[j].decision.port == e->decision.port;
		char t[300];
		target(e, t, sizeof(t));
		fprintf(stderr, "confine: network request %s: '%s': %s (%zu time%s)\n",
			!strcmp(e->outcome, "denied") || !strcmp(e->outcome, "address_refused")
			    ? "denied"
			    : "failed",
			e->decision.host[0] ? t : "?", e->detail, times, times == 1 ? "" : "s");
		shown++;
	}
	if (refused) {
		fprintf(stderr,
			"hint: allow a host with --net-allow HOST or in your user rule file; "
			"'confine explain --net HOST:PORT' shows which rule decides\n");
	}
	if (dropped)
		fprintf(stderr,
			"confine: network: %zu more decisions were not kept (the report keeps "
			"%zu)\n",
			dropped, n);
}

void cli_net_report_json(struct cf_buf *b, const confine_run *run)
{
	size_t n, dropped;
	const struct confine_net_event *ev = run ? confine_run_net_events(run, &n, &dropped) : NULL;
	if (!run)
		n = dropped = 0;
	cf_buf_addf(b, ", \"network\": {\"mode\": \"%s\", \"dropped\": %zu, \"decisions\": [",
		    run ? mode_name(confine_run_net_mode(run)) : "on", dropped);
	for (size_t i = 0; i < n; i++) {
		const struct confine_net_event *e = &ev[i];
		const struct confine_net_decision *d = &e->decision;
		cf_buf_addf(b, "%s{\"time_ms\": %lld, \"protocol\": ", i ? ", " : "",
			    (long long)e->time_ms);
		cf_buf_add_json(b, e->protocol);
		cf_buf_add(b, ", \"host\": ");
		cf_buf_add_json(b, d->host);
		cf_buf_addf(b, ", \"port\": %u, \"decision\": \"%s\", \"layer\": ", d->port,
			    action_name(d->action));
		cf_buf_add_json(b, d->layer);
		cf_buf_add(b, ", \"rule\": ");
		if (d->has_rule) {
			cf_buf_add(b, "{\"source\": ");
			cf_buf_add_json(b, d->source);
			cf_buf_addf(b,
				    ", \"list\": \"%s\", \"index\": %d, \"line\": %d, "
				    "\"column\": %d, \"pattern\": ",
				    d->list, d->index, d->line, d->column);
			cf_buf_add_json(b, d->pattern);
			cf_buf_add(b, "}");
		} else {
			cf_buf_add(b, "null");
		}
		cf_buf_add(b, ", \"outcome\": ");
		cf_buf_add_json(b, e->outcome);
		cf_buf_add(b, ", \"address\": ");
		cf_buf_add_json(b, e->address);
		cf_buf_add(b, ", \"detail\": ");
		cf_buf_add_json(b, e->detail);
		cf_buf_add(b, "}");
	}
	cf_buf_add(b, "]}");
}

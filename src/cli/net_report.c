/* SPDX-License-Identifier: MIT */
/* What `confine run` says about the network-by-domain proxy's decisions (SPEC 12): a summary
 * of what was refused, on stderr after the run (the report and the audit line hold every
 * decision: record/facts.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/net_report.h"

static void target(const struct confine_net_event *e, char *buf, size_t cap)
{
	bool v6 = strchr(e->decision.host, ':') != NULL;
	if (!e->decision.port) /* a name the resolver inside refused: every port */
		snprintf(buf, cap, "%s", e->decision.host);
	else
		snprintf(buf, cap, "%s%s%s:%u", v6 ? "[" : "", e->decision.host, v6 ? "]" : "",
			 e->decision.port);
}

#define MAX_LINES 10

/* Whether an earlier line gave this hint already. */
static bool hinted(const confine_run *run, const struct confine_net_event *ev, size_t i,
		   const char *hint)
{
	char other[600];
	for (size_t j = 0; j < i; j++)
		if (confine_run_net_hint(run, &ev[j], other, sizeof(other)) && !strcmp(other, hint))
			return true;
	return false;
}

void cli_net_warnings(const confine_run *run)
{
	size_t n, dropped;
	const struct confine_net_event *ev = confine_run_net_events(run, &n, &dropped);
	size_t shown = 0, refused = 0, unhinted = 0;
	for (size_t i = 0; i < n; i++) {
		const struct confine_net_event *e = &ev[i];
		if (!strcmp(e->outcome, "connected") || !strcmp(e->outcome, "closed") ||
		    !strcmp(e->outcome, "auth_challenge"))
			continue;
		if (!strcmp(e->protocol, "dns") && !strcmp(e->outcome, "unavailable")) {
			fprintf(stderr, "confine: network: the resolver inside the sandbox: %s\n",
				e->detail);
			continue;
		}
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
			!strcmp(e->outcome, "denied") || !strcmp(e->outcome, "address_refused") ||
				!strcmp(e->outcome, "unauthenticated")
			    ? "denied"
			    : "failed",
			e->decision.host[0] ? cli_q(t) : "?", cli_esc(e->detail, 0), times,
			times == 1 ? "" : "s");
		shown++;
		/* The exact remedy of this refusal (the address to allow, the rule to look at),
		 * once per remedy. */
		char hint[600];
		if (!confine_run_net_hint(run, e, hint, sizeof(hint)))
			unhinted++;
		else if (!hinted(run, ev, i, hint))
			fprintf(stderr, "hint: %s\n", cli_esc(hint, 0));
	}
	if (refused > shown || unhinted)
		fprintf(stderr,
			"hint: 'confine explain --net HOST:PORT' shows which rule decides a "
			"host; the --report file lists every decision\n");
	if (dropped)
		fprintf(stderr,
			"confine: network: %zu more decisions were not kept (the report keeps "
			"%zu)\n",
			dropped, n);
}

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
			!strcmp(e->outcome, "denied") || !strcmp(e->outcome, "address_refused") ||
				!strcmp(e->outcome, "unauthenticated")
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

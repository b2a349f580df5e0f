/* SPDX-License-Identifier: MIT */
/* What `confine run` says about the network-by-domain proxy's decisions (SPEC 12): a summary
 * of what was refused, on stderr after the run (the report and the audit line hold every
 * decision: record/run_facts.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "net_report.h"

static void target(const struct confine_net_event *e, char *buf, size_t cap)
{
	bool v6 = strchr(e->decision->host, ':') != NULL;
	if (!e->decision->port) /* a name the resolver inside refused: every port */
		snprintf(buf, cap, "%s", e->decision->host);
	else
		snprintf(buf, cap, "%s%s%s:%u", v6 ? "[" : "", e->decision->host, v6 ? "]" : "",
			 e->decision->port);
}

#define MAX_LINES 10

/* The remedy of the i-th event, or NULL (none known, or out of memory). */
static char *hint_of(const confine_run *run, size_t i)
{
	char *h = NULL;
	if (confine_run_net_hint(run, i, &h, NULL) < 0 || !h[0]) {
		confine_free(h);
		return NULL;
	}
	return h;
}

/* Whether an earlier line gave this hint already. */
static bool hinted(const confine_run *run, size_t i, const char *hint)
{
	bool seen = false;
	for (size_t j = 0; j < i && !seen; j++) {
		char *other = hint_of(run, j);
		seen = other && !strcmp(other, hint);
		confine_free(other);
	}
	return seen;
}

/* The same host, port and outcome. */
static bool same(const struct confine_net_event *a, const struct confine_net_event *b)
{
	return !strcmp(a->outcome, b->outcome) && !strcmp(a->decision->host, b->decision->host) &&
	       a->decision->port == b->decision->port;
}

void cli_net_warnings(const confine_run *run)
{
	size_t n = confine_run_net_event_count(run), dropped = confine_run_net_events_dropped(run);
	size_t shown = 0, refused = 0, unhinted = 0;
	for (size_t i = 0; i < n; i++) {
		const struct confine_net_event *e = confine_run_net_event(run, i);
		if (!strcmp(e->outcome, "connected") || !strcmp(e->outcome, "closed") ||
		    !strcmp(e->outcome, "auth_challenge") ||
		    !strcmp(e->outcome, "secret_refused")) /* said by cli/secrets.c */
			continue;
		if (!strcmp(e->protocol, "dns") && !strcmp(e->outcome, "unavailable")) {
			fprintf(stderr, "confine: network: the resolver inside the sandbox: %s\n",
				cli_esc(e->detail, 0));
			continue;
		}
		refused++;
		/* One line per host, port and outcome: the first time it was refused. */
		bool seen = false;
		for (size_t j = 0; j < i && !seen; j++)
			seen = same(confine_run_net_event(run, j), e);
		if (seen || shown == MAX_LINES)
			continue;
		size_t times = 0;
		for (size_t j = i; j < n; j++)
			times += same(confine_run_net_event(run, j), e);
		char t[300];
		target(e, t, sizeof(t));
		fprintf(stderr, "confine: network request %s: '%s': %s (%zu time%s)\n",
			!strcmp(e->outcome, "denied") || !strcmp(e->outcome, "address_refused") ||
				!strcmp(e->outcome, "unauthenticated")
			    ? "denied"
			    : "failed",
			e->decision->host[0] ? cli_q(t) : "?", cli_esc(e->detail, 0), times,
			times == 1 ? "" : "s");
		shown++;
		/* The exact remedy of this refusal (the address to allow, the rule to look at),
		 * once per remedy. */
		char *hint = hint_of(run, i);
		if (!hint)
			unhinted++;
		else if (!hinted(run, i, hint))
			fprintf(stderr, "hint: %s\n", cli_esc(hint, 0));
		confine_free(hint);
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

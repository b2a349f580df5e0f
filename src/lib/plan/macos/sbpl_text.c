/* SPDX-License-Identifier: MIT */
/* The macOS plan as stable text and JSON (`confine plan --target macos`). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/macos/sbpl.h"
#include "util/utf8.h"
#include "util/util.h"

/* What the profile enforces, stated in every plan. */
static const char *const enforced[] = {
    "reads: deny by default; the system roots, the workspace, the temp roots and what the "
    "rules allow are readable; the rest of the home directory is not",
    "writes: the workspace, the temp roots, write allows and approved targets; a protected path "
    "inside them cannot be written, removed or renamed, nor any directory above it up to the "
    "writable root",
    "rules: first match wins as on every system (the profile lists them in reverse, Seatbelt "
    "applies the last match); ask is enforced as deny; glob rules are matched by Seatbelt on "
    "every access, so files created during the run are protected too",
    "unix sockets: only in the workspace and the temp roots, never under a guarded path",
    "processes: signals reach only processes of the same sandbox; the command starts in a new "
    "session",
};

const char *const cf_mac_not_enforced[] = {
    "Mach services are all reachable ((allow mach*) is load-bearing: programs look services "
    "up as they start); a command can ask a system service (launchd, the pasteboard, a "
    "download service) to act for it outside the profile, and --no-network removes the "
    "command's own sockets, not what such a service does",
    "no syscall filter (seccomp is Linux); macOS lets TIOCSTI reach only the controlling "
    "terminal, and the command has none",
    "/private/tmp and $TMPDIR are the host's, shared with the user's other programs (no "
    "private /tmp); --tmp-size, --limit and a pid namespace are not provided",
    "hard links: a link the command makes, in a writable place, to a file it must not read is "
    "judged by the path it is opened through (not verified on a Mac)",
    "case: a wildcard-free allow matches the canonical spelling only; every other spelling of "
    "the name is denied, not allowed (denies and globs match every spelling)",
    "sandbox-exec is deprecated by Apple; it still enforces, and the probe checks that it "
    "applies a profile",
};
const size_t cf_mac_n_not_enforced = sizeof(cf_mac_not_enforced) / sizeof(char *);

const char cf_mac_tested[] =
    "compiled and tested on Linux only (golden profiles, an independent Scheme reader, POSIX "
    "regexes, a fuzzer); this profile has never been run on a Mac";

static const char *network_text(const struct cf_mac_plan *plan, char *buf, size_t n)
{
	switch (plan->network) {
	case CF_MAC_NET_ON:
		return "on";
	case CF_MAC_NET_OFF:
		return "off (no socket reaches the network; unix sockets in the workspace and the "
		       "temp roots only)";
	case CF_MAC_NET_PROXY:
		snprintf(buf, n, "only through the proxy at localhost:%u", plan->proxy_port);
		return buf;
	}
	return "?";
}

/* The profile as a person reads it (R38): a path of the request or the workspace in one of its
 * string literals may hold an invisible or reordering character, escaped here line by line
 * (R26 leaves no line break in a literal); the backslashes of its regexes stay as they are.
 * sandbox-exec is given the profile itself, not this text. */
static void add_profile(struct cf_buf *b, const char *profile)
{
	for (const char *p = profile; *p;) {
		size_t n = strcspn(p, "\n");
		cf_buf_add_display_n(b, p, n, CF_DISPLAY_BACKSLASH_RAW);
		p += n;
		if (*p == '\n') {
			cf_buf_addc(b, '\n');
			p++;
		}
	}
}

char *cf_mac_plan_text(const struct cf_mac_plan *plan)
{
	struct cf_buf b;
	char net[96];
	cf_buf_init(&b);
	cf_buf_add(&b, "target: macos\n");
	cf_buf_add(&b, "backend: Seatbelt, " CF_MAC_SANDBOX_EXEC
		       " -p PROFILE -- COMMAND (the profile inline, no file)\n");
	/* R38: what the request, the workspace or the host chose is escaped for display. */
	cf_buf_add(&b, "home: ");
	cf_buf_add_display(&b, plan->home, 0);
	cf_buf_add(&b, "\nworkspace: ");
	cf_buf_add_display(&b, plan->workspace, 0);
	cf_buf_add(&b, "\ncwd: ");
	cf_buf_add_display(&b, plan->cwd, 0);
	cf_buf_addc(&b, '\n');
	cf_buf_addf(&b, "network: %s\n", network_text(plan, net, sizeof(net)));
	if (plan->injections.n) {
		cf_buf_add(&b, "injections (scratch files: literal read allow, write deny):");
		for (size_t i = 0; i < plan->injections.n; i++) {
			cf_buf_addc(&b, ' ');
			cf_buf_add_display(&b, plan->injections.v[i], 0);
		}
		cf_buf_addc(&b, '\n');
	}
	cf_buf_add(&b, "enforced on macOS:\n");
	for (size_t i = 0; i < sizeof(enforced) / sizeof(enforced[0]); i++)
		cf_buf_addf(&b, "  - %s\n", enforced[i]);
	cf_buf_add(&b, "not enforced on macOS:\n");
	for (size_t i = 0; i < cf_mac_n_not_enforced; i++)
		cf_buf_addf(&b, "  - %s\n", cf_mac_not_enforced[i]);
	cf_buf_addf(&b, "tested: %s\n", cf_mac_tested);
	cf_display_lines(&b, "note: ", &plan->notes, 0);
	if (plan->assumed)
		cf_buf_add(&b, "note: this plan was computed without the Mac's file system: every "
			       "path the facts do not list is assumed to exist as a directory\n");
	if (plan->env_removed.n) {
		cf_display_words(&b, "environment removed:", &plan->env_removed, false);
		cf_buf_addc(&b, '\n');
	}
	cf_display_words(&b, "command:", &plan->argv, true);
	cf_buf_addf(&b, "\nprofile (%zu bytes, %zu strings, %zu regexes):\n", strlen(plan->profile),
		    plan->strings.n, plan->regexes.n);
	add_profile(&b, plan->profile);
	return cf_buf_take(&b);
}

static void json_strv(struct cf_buf *b, const struct cf_strv *v)
{
	cf_buf_addc(b, '[');
	for (size_t i = 0; i < v->n; i++) {
		if (i)
			cf_buf_add(b, ", ");
		cf_buf_add_json(b, v->v[i]);
	}
	cf_buf_addc(b, ']');
}

char *cf_mac_plan_json(const struct cf_mac_plan *plan)
{
	static const char *const nets[] = {"on", "off", "proxy"};
	struct cf_buf b;
	cf_buf_init(&b);
	cf_buf_add(&b, "{\"target\": \"macos\", \"backend\": \"seatbelt\", \"sandbox_exec\": ");
	cf_buf_add_json(&b, CF_MAC_SANDBOX_EXEC);
	cf_buf_add(&b, ", \"home\": ");
	cf_buf_add_json(&b, plan->home);
	cf_buf_add(&b, ", \"workspace\": ");
	cf_buf_add_json(&b, plan->workspace);
	cf_buf_add(&b, ", \"cwd\": ");
	cf_buf_add_json(&b, plan->cwd);
	cf_buf_addf(&b, ", \"network\": \"%s\", \"proxy_port\": ", nets[plan->network]);
	if (plan->network == CF_MAC_NET_PROXY)
		cf_buf_addf(&b, "%u", plan->proxy_port);
	else
		cf_buf_add(&b, "null");
	cf_buf_addf(&b, ", \"assumed\": %s", plan->assumed ? "true" : "false");
	cf_buf_add(&b, ", \"guarantees\": {\"read_protection\": \"enforced: Seatbelt, deny by "
		       "default\", \"write_protection\": \"enforced: Seatbelt\", "
		       "\"network_isolation\": ");
	cf_buf_add_json(&b, plan->network == CF_MAC_NET_ON ? "not requested"
			    : plan->network == CF_MAC_NET_OFF
				? "enforced for the command's sockets (not for Mach services)"
				: "only the proxy's port (not for Mach services)");
	cf_buf_add(&b, ", \"syscall_filter\": \"not provided\", \"resource_limits\": \"not "
		       "provided\"}, \"enforced\": [");
	for (size_t i = 0; i < sizeof(enforced) / sizeof(enforced[0]); i++) {
		if (i)
			cf_buf_add(&b, ", ");
		cf_buf_add_json(&b, enforced[i]);
	}
	cf_buf_add(&b, "], \"not_enforced\": [");
	for (size_t i = 0; i < cf_mac_n_not_enforced; i++) {
		if (i)
			cf_buf_add(&b, ", ");
		cf_buf_add_json(&b, cf_mac_not_enforced[i]);
	}
	cf_buf_add(&b, "], \"tested\": ");
	cf_buf_add_json(&b, cf_mac_tested);
	cf_buf_add(&b, ", \"notes\": ");
	json_strv(&b, &plan->notes);
	cf_buf_add(&b, ", \"injections\": ");
	json_strv(&b, &plan->injections);
	cf_buf_add(&b, ", \"env_removed\": ");
	json_strv(&b, &plan->env_removed);
	cf_buf_add(&b, ", \"argv\": ");
	json_strv(&b, &plan->argv);
	cf_buf_add(&b, ", \"profile\": ");
	cf_buf_add_json(&b, plan->profile);
	cf_buf_add(&b, "}\n");
	return cf_buf_take(&b);
}

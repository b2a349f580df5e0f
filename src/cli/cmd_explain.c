/* SPDX-License-Identifier: MIT */
/* confine explain [OPTIONS] [--json] [--access read|write] PATH...  (R11) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "cli.h"

const char cli_help_explain[] =
    "usage: confine explain [OPTIONS] [--json] [--access read|write] PATH...\n"
    "       confine explain [OPTIONS] [--json] --net HOST[:PORT] [--net ...] [PATH...]\n"
    "\n"
    "Print which rule decides read and write access to each PATH, and why: the decision\n"
    "(allow, ask or deny), the layer (override, guard, session, workspace, user, fallback)\n"
    "and the rule's file, line and pattern.  'ask' is enforced as deny until approved.  A\n"
    "built-in guard is a deny that no rule lifts: only an escalation runs past it.\n"
    "\n"
    "--net HOST[:PORT] prints which network rule decides HOST (port 443 when none is given;\n"
    "an IPv6 address with a port in brackets): allow, deny, or ask (no rule: enforced as\n"
    "deny), its layer and the rule, and the network mode the rules give a run.\n"
    "\n"
    "Options as for 'confine run': -w/--workspace, --allow/--ask/--deny, --session-rules,\n"
    "--net-allow/--net-deny, --no-network, --policy, --backend.\n";

static const char *action_name(enum confine_action a)
{
	return a == CONFINE_ALLOW ? "allow" : a == CONFINE_ASK ? "ask" : "deny";
}

static void print_text(const struct confine_decision *d)
{
	/* Paths, rule files and patterns come from the workspace and the request (R38). */
	printf("%s  %-5s  %-5s  %-9s", cli_esc(d->path, 0),
	       d->access == CONFINE_ACCESS_READ ? "read" : "write", action_name(d->action),
	       d->layer);
	if (!d->has_rule)
		printf("  (no rule matches)\n");
	else if (d->line > 0)
		printf("  %s:%d:%d  %s\n", cli_esc(d->source, 0), d->line, d->column,
		       cli_esc(d->pattern, 0));
	else
		printf("  %s rule %d  %s\n", cli_esc(d->source, 0), d->index,
		       cli_esc(d->pattern, 0));
	if (!strcmp(d->layer, "guard"))
		printf("  a built-in guard: no allow lifts it (below a host-socket guard, an allow "
		       "gives back the one path it names); only an escalation runs outside the "
		       "guards: 'confine card -- COMMAND'\n");
	if (d->has_outranked)
		printf("  outranked: %s:%d:%d  %s allows it, but a workspace file never lifts a %s "
		       "of the user file (R10b)\n",
		       cli_esc(d->outranked_source, 0), d->outranked_line, d->outranked_column,
		       cli_esc(d->outranked_pattern, 0), action_name(d->action));
}

/* R40: what a file a guard decides by content holds, and so whether the guard applies. */
static void content_text(const struct confine_content_decision *cd)
{
	enum confine_content c = cd->content;
	const char *why = cd->why;
	if (c == CONFINE_CONTENT_NONE)
		return;
	if (c == CONFINE_CONTENT_CERTIFICATES)
		printf("  content: %s: public, the guard on its name does not apply (R40)\n", why);
	else if (c == CONFINE_CONTENT_PRIVATE_KEY)
		printf("  content: %s: a secret, the guard on its name applies (R40)\n", why);
	else
		printf("  content: not classified (%s): treated as a secret, the guard on its name "
		       "applies (R40)\n",
		       why);
}

/* One element of the JSON array: the library's object for it (taken), with what the file
 * holds inside it when a guard decides by content (R40). */
static void print_json(char *obj, const char *content, bool first)
{
	size_t n = strlen(obj);
	fputs(first ? "  " : ",\n  ", stdout);
	if (content && n && obj[n - 1] == '}') {
		obj[n - 1] = '\0';
		printf("%s, \"content\": %s}", obj, content);
	} else {
		fputs(obj, stdout);
	}
	confine_free(obj);
}

static const char *mode_text(enum confine_net_mode m)
{
	return m == CONFINE_NET_DOMAINS ? "domains" : m == CONFINE_NET_OFF ? "off" : "on";
}

static void net_text(const struct confine_net_decision *d, enum confine_net_mode mode)
{
	bool v6 = strchr(d->host, ':') != NULL;
	printf("%s%s%s:%u  %-5s  %-9s", v6 ? "[" : "", cli_esc(d->host, 0), v6 ? "]" : "", d->port,
	       action_name(d->action), d->layer);
	if (!d->has_rule)
		printf("  (no rule matches: ask, enforced as deny)");
	else if (d->line > 0)
		printf("  %s:%d:%d  %s %s", cli_esc(d->source, 0), d->line, d->column, d->list,
		       cli_esc(d->pattern, 0));
	else
		printf("  %s rule %d  %s %s", cli_esc(d->source, 0), d->index, d->list,
		       cli_esc(d->pattern, 0));
	if (mode != CONFINE_NET_DOMAINS)
		printf("  [not enforced: the network is %s]", mode_text(mode));
	putchar('\n');
}

/* --access read|write: the accesses to explain (both without it); false on another value. */
static bool accesses_of(const char *access, int accesses[2], int *n)
{
	accesses[0] = CONFINE_ACCESS_READ, accesses[1] = CONFINE_ACCESS_WRITE, *n = 2;
	if (!access)
		return true;
	*n = 1;
	if (!strcmp(access, "read"))
		accesses[0] = CONFINE_ACCESS_READ;
	else if (!strcmp(access, "write"))
		accesses[0] = CONFINE_ACCESS_WRITE;
	else
		return false;
	return true;
}

/* --net HOST...: the network rule that decides each host, in the order given. */
static int explain_hosts(const confine_rules *pol, const struct cli_opts *o, bool *first,
			 struct confine_error *err)
{
	enum confine_net_mode mode = confine_rules_net_mode(pol);
	for (int i = 0; i < o->n_net_explain; i++) {
		struct confine_net_decision d = {.size = sizeof(d)};
		char *obj = NULL;
		int r = confine_rules_explain_net(pol, o->net_explain[i], &d, err);
		if (r == 0 && o->json)
			r = confine_net_decision_json(&d, mode, &obj, err);
		if (r < 0)
			return r;
		if (o->json)
			print_json(obj, NULL, *first);
		else
			net_text(&d, mode);
		*first = false;
	}
	return 0;
}

/* The rule that decides each access to `path`, and whether its content makes it public. */
static int explain_path(const confine_rules *pol, const char *path, bool json, const int *accesses,
			int n_acc, bool *first, struct confine_error *err)
{
	struct confine_content_decision cd = {.size = sizeof(cd)};
	char *content = NULL;
	int r = confine_rules_explain_content(pol, path, &cd, err);
	if (r == 0 && json && cd.content != CONFINE_CONTENT_NONE)
		r = confine_content_decision_json(&cd, &content, err);
	if (r < 0)
		return r;
	for (int a = 0; a < n_acc; a++) {
		struct confine_decision d = {.size = sizeof(d)};
		char *obj = NULL;
		r = confine_rules_explain(pol, path, (enum confine_access)accesses[a], &d, err);
		if (r == 0 && json)
			r = confine_decision_json(&d, &obj, err);
		if (r < 0) {
			confine_free(content);
			return r;
		}
		if (json)
			print_json(obj, content, *first);
		else
			print_text(&d);
		*first = false;
	}
	if (!json)
		content_text(&cd);
	confine_free(content);
	return 0;
}

int cmd_explain(int argc, char **argv)
{
	struct confine_error err = {0};
	struct cli_opts o;
	confine_rules *pol = NULL;
	int status = CLI_EXIT_CONFINE, accesses[2], n_acc;
	bool first = true;

	if (!cli_begin(CLI_EXPLAIN, argc, argv, cli_help_explain, NULL, &o, &status))
		goto out;
	status = CLI_EXIT_CONFINE;
	if (o.first_operand >= argc && !o.n_net_explain) {
		status = cli_usage_error("explain", "no PATH given (or --net HOST)");
		goto out;
	}
	if (!accesses_of(o.access, accesses, &n_acc)) {
		status = cli_usage_error("explain", "--access takes 'read' or 'write', not '%s'",
					 o.access);
		goto out;
	}
	if (confine_rules_load(o.req, &pol, &err) < 0) {
		cli_report(&err);
		goto out;
	}
	if (o.json)
		fputs("[\n", stdout);
	if (explain_hosts(pol, &o, &first, &err) < 0) {
		cli_report(&err);
		goto out;
	}
	for (int i = o.first_operand; i < argc; i++)
		if (explain_path(pol, argv[i], o.json, accesses, n_acc, &first, &err) < 0) {
			cli_report(&err);
			goto out;
		}
	if (o.json)
		fputs("\n]\n", stdout);
	status = 0;
out:
	confine_rules_free(pol);
	confine_request_free(o.req);
	return status;
}

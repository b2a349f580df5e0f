/* SPDX-License-Identifier: MIT */
/* confine card [--json] [run options] -- COMMAND [ARG...]: the approval card (SPEC 7). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "cli.h"

const char cli_help_card[] =
    "usage: confine card [--json] [RUN OPTIONS] [--] COMMAND [ARG...]\n"
    "\n"
    "Print the approval card of a request, its request id and digest: by default an\n"
    "escalation, running COMMAND once outside the sandbox; with --grant-write, a run inside\n"
    "the sandbox with write access to at most 8 targets.  Nothing is run.  A person who\n"
    "approves the card gives its id and digest back: 'confine run --request-id ID --receipt\n"
    "DIGEST' with the same options runs exactly this request, once: the receipt is spent\n"
    "when that run starts, and a second run with it is refused.  Each card has a new id\n"
    "(unless --request-id names one), so a new approval of the same request is a new card.\n"
    "\n"
    "Options as for 'confine run': -w/--workspace, --allow/--ask/--deny, --session-rules,\n"
    "--net-allow/--net-deny, --no-network, --policy, --backend, --env, --pass-env,\n"
    "--unset-env, --clearenv, --tmp-size, --limit, --timeout, --report, --audit, --escalate\n"
    "(the default), --inject-env, --inject-path.\n"
    "\n"
    "options:\n"
    "  --json                       the card as one JSON object\n"
    "  --grant-write PATH:file|subtree   a write target (at most 8; repeat the option)\n"
    "  --reason TEXT                why the command needs them (at most 240 characters)\n"
    "  --request-id ID              the id the card, the report and the audit line carry\n"
    "\n"
    "The digest is the SHA-256 of the canonical request (confine-request-v2: request id,\n"
    "once or reusable, kind, program, argv, cwd, workspace, --env assignments, targets,\n"
    "reason); see doc/approvals.md.\n";

/* One argument as a person should read it (R38): in double quotes, every character outside
 * the allow-list of visible ones escaped, the quote itself as \". */
static void put_arg(FILE *f, const char *a, unsigned flags)
{
	fprintf(f, "\"%s\"", cli_esc(a, flags | CONFINE_DISPLAY_QUOTES));
}

static bool non_ascii(const char *s)
{
	for (; s && *s; s++)
		if ((unsigned char)*s >= 0x80)
			return true;
	return false;
}

/* A value with letters outside ASCII is shown a second time with every one escaped: a Cyrillic
 * "\u{0443}" looks like a Latin "y", and the person approves what the bytes are. */
static void put_line(FILE *f, const char *label, const char *value)
{
	fprintf(f, "  %-11s %s\n", label, cli_esc(value, 0));
	if (non_ascii(value))
		fprintf(f, "  %-11s %s\n", "  (ascii)", cli_esc(value, CONFINE_DISPLAY_ASCII));
}

static void put_command(FILE *f, const struct confine_card *c, unsigned flags)
{
	fprintf(f, "  %-11s ", flags ? "  (ascii)" : "command");
	for (size_t i = 0; i < c->argc; i++) {
		if (i)
			fputc(' ', f);
		put_arg(f, c->argv[i], flags);
	}
	fputc('\n', f);
}

void cli_print_card(FILE *f, const struct confine_card *c)
{
	/* The title is escaped by the library already (R38). */
	fprintf(f, "%s\n\n", c->title);
	put_command(f, c, 0);
	bool other = false;
	for (size_t i = 0; i < c->argc; i++)
		other |= non_ascii(c->argv[i]);
	if (other)
		put_command(f, c, CONFINE_DISPLAY_ASCII);
	put_line(f, "program", c->program);
	put_line(f, "cwd", c->cwd);
	put_line(f, "workspace", c->workspace);
	put_line(f, "where", c->where);
	put_line(f, "uses", c->uses);
	put_line(f, "guards", c->guards);
	if (c->n_targets) {
		fprintf(f, "  %-11s %zu, every one listed:\n", "targets", c->n_targets);
		const struct confine_card_target *t;
		for (size_t i = 0; (t = confine_card_target(c, i)); i++) {
			fprintf(f, "    %zu. %s (%s)\n", i + 1, cli_esc(t->path, 0),
				!strcmp(t->scope, "file") ? "file"
							  : "directory and everything in it");
			if (non_ascii(t->path))
				fprintf(f, "       %s\n", cli_esc(t->path, CONFINE_DISPLAY_ASCII));
		}
		put_line(f, "reason", c->reason);
	}
	for (size_t i = 0; i < c->n_env; i++)
		put_line(f, i ? "" : "env", c->env[i]);
	put_line(f, "request id", c->request_id);
	fprintf(f, "  %-11s %s (SHA-256 of %s)\n", "digest", c->digest, c->encoding);
}

int cmd_card(int argc, char **argv)
{
	struct confine_error err = {0};
	struct cli_opts o;
	struct confine_card *card = NULL;
	int status = CLI_EXIT_CONFINE;

	if (!cli_begin(CLI_CARD, argc, argv, cli_help_card, "no command given", &o, &status))
		goto out;
	cli_apply_policy_env(&o);
	if (confine_card_new(o.req, &card, &err) < 0) {
		cli_report(&err);
		status = err.code == CONFINE_E_NOTFOUND ? 127
			 : err.code == CONFINE_E_NOEXEC ? 126
							: CLI_EXIT_CONFINE;
		goto out;
	}
	if (o.json) {
		char *text = NULL;
		if (confine_card_json(card, &text, &err) < 0) {
			cli_report(&err);
			goto out;
		}
		printf("%s\n", text);
		confine_free(text);
	} else {
		cli_print_card(stdout, card);
		printf("\napprove with: confine run %s--request-id %s --receipt %s [the same "
		       "options] -- COMMAND\n",
		       card->n_targets ? "" : "--escalate ", card->request_id, card->digest);
	}
	status = 0;
out:
	confine_card_free(card);
	confine_request_free(o.req);
	return status;
}

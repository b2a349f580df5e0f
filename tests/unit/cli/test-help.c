/* SPDX-License-Identifier: MIT */
/*
 * The --help texts of run, plan, explain and card (written by hand in src/cli/cmd_*.c) against
 * the option table cli_parse reads (src/cli/args.c): each option a subcommand takes is named
 * in its help, with its short name, and each option a help names is one the table knows.
 */
#include <stdio.h>
#include <string.h>

#include "cli/args.h"
#include "cli/cli.h"
#include "../tap.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const struct {
	enum cli_cmd cmd;
	const char *name;
	const char *help;
} helps[] = {
    {CLI_RUN, "run", cli_help_run},
    {CLI_PLAN, "plan", cli_help_plan},
    {CLI_EXPLAIN, "explain", cli_help_explain},
    {CLI_CARD, "card", cli_help_card},
};

static bool in_word(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '-' || c == '_';
}

/* Whether `help` names `opt` as a word of its own: "--net" is not named by "--net-allow". */
static bool names(const char *help, const char *opt)
{
	size_t n = strlen(opt);
	for (const char *p = strstr(help, opt); p; p = strstr(p + 1, opt))
		if ((p == help || !in_word(p[-1])) && !in_word(p[n]))
			return true;
	return false;
}

static const struct cli_option *in_table(const char *name, size_t len)
{
	size_t n;
	const struct cli_option *t = cli_options(&n);
	for (size_t i = 0; i < n; i++)
		if ((strlen(t[i].name) == len && !strncmp(t[i].name, name, len)) ||
		    (t[i].alias && strlen(t[i].alias) == len && !strncmp(t[i].alias, name, len)))
			return &t[i];
	return NULL;
}

/* Every option the table gives `cmd` is in its help.  --help itself is exempt: the top-level
 * usage says `confine COMMAND --help` for every command. */
static void table_in_help(size_t h)
{
	size_t n;
	const struct cli_option *t = cli_options(&n);
	int count = 0;
	for (size_t i = 0; i < n; i++) {
		if (!(t[i].cmds & (1u << helps[h].cmd)) || (t[i].flags & CLI_OPT_STOP))
			continue;
		count++;
		TAP_OK(names(helps[h].help, t[i].name), "confine %s --help names %s", helps[h].name,
		       t[i].name);
		if (t[i].alias)
			TAP_OK(names(helps[h].help, t[i].alias), "confine %s --help names %s (%s)",
			       helps[h].name, t[i].alias, t[i].name);
	}
	TAP_OK(count >= 8, "confine %s takes %d options of the table", helps[h].name, count);
}

/* Every option-like word of the help ("-w", "--net-allow") is an option of the table. */
static void help_in_table(size_t h)
{
	const char *help = helps[h].help;
	int count = 0;
	for (const char *p = help; *p; p++) {
		if (*p != '-' || (p > help && in_word(p[-1])))
			continue;
		const char *s = p + (p[1] == '-' ? 2 : 1);
		if (!(*s >= 'a' && *s <= 'z'))
			continue;
		size_t len = (size_t)(s - p);
		while (in_word(p[len]))
			len++;
		if (!in_table(p, len))
			TAP_OK(0,
			       "confine %s --help names '%.*s', an option the table does not know",
			       helps[h].name, (int)len, p);
		count++;
		p += len - 1;
	}
	TAP_OK(count >= 8, "confine %s --help names %d options, each in the table", helps[h].name,
	       count);
}

/* The check itself: names() sees a word, not a part of a longer one. */
static void matcher(void)
{
	TAP_OK(!names("  --net-allow D\n", "--net"), "--net-allow does not name --net");
	TAP_OK(names("(--net HOST)", "--net"), "(--net HOST) names --net");
	TAP_OK(names("--allow/--ask/--deny", "--ask"), "--allow/--ask/--deny names --ask");
	TAP_OK(!names("read-only", "-only"), "read-only names no option");
	TAP_OK(in_table("--json", 6) && !in_table("--jso", 5), "in_table takes whole names");
}

int main(void)
{
	matcher();
	for (size_t h = 0; h < N(helps); h++) {
		table_in_help(h);
		help_in_table(h);
	}
	return tap_done();
}

/* SPDX-License-Identifier: MIT */
/* confine cache list [--json] | confine cache clear [-w DIR | --all]  (R39) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"

static const char help[] =
    "usage: confine cache list [--json]\n"
    "       confine cache clear [-w DIR | --all]\n"
    "\n"
    "Package managers run by 'confine run' read your caches (~/.npm, ~/.cargo, ~/.cache,\n"
    "...) and write into a store of confine's, one per workspace, never into yours; 'run\n"
    "--print-plan' shows which.  'list' shows the stores, their workspace and size; 'clear'\n"
    "removes the store of the workspace (-w DIR, default the current directory) or, with\n"
    "--all, every store.  'run --cache-size SIZE' bounds them all (default 4G).\n";

static void human(uint64_t b, char *out, size_t cap)
{
	const char *u[] = {"B", "K", "M", "G", "T"};
	double v = (double)b;
	size_t i = 0;
	while (v >= 1024 && i < 4) {
		v /= 1024;
		i++;
	}
	if (b == UINT64_MAX)
		snprintf(out, cap, "over the bound");
	else
		snprintf(out, cap, i ? "%.1f%s" : "%.0f%s", v, u[i]);
}

static void list_text(const struct confine_cache_store *s)
{
	char size[32], when[32] = "never";
	human(s->bytes, size, sizeof(size));
	time_t t = (time_t)s->last_used;
	struct tm tm;
	if (t && localtime_r(&t, &tm))
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M", &tm);
	/* Paths the user's workspaces chose: escaped (R38). */
	printf("%-8s %-16s %s\n", size, when,
	       s->workspace[0] ? cli_esc(s->workspace, 0) : "(workspace unknown)");
	printf("         %s\n", cli_esc(s->dir, 0));
}

static int list(bool json)
{
	struct confine_error err = {0};
	confine_caches *c = NULL;
	char *text = NULL;
	if (confine_cache_list(&c, &err) < 0 || (json && confine_caches_json(c, &text, &err) < 0)) {
		cli_report(&err);
		confine_caches_free(c);
		return CLI_EXIT_CONFINE;
	}
	size_t n = confine_cache_count(c);
	if (json)
		printf("%s\n", text);
	for (size_t i = 0; !json && i < n; i++)
		list_text(confine_cache_store(c, i));
	if (!json && !n)
		printf("no tool caches\n");
	confine_free(text);
	confine_caches_free(c);
	return 0;
}

int cmd_cache(int argc, char **argv)
{
	struct confine_error err = {0};
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		fputs(help, argc < 2 ? stderr : stdout);
		return argc < 2 ? CLI_EXIT_CONFINE : 0;
	}
	if (!strcmp(argv[1], "list")) {
		bool json = argc == 3 && !strcmp(argv[2], "--json");
		if (argc > 3 || (argc == 3 && !json))
			return cli_usage_error("cache", "'list' takes only --json");
		return list(json);
	}
	if (strcmp(argv[1], "clear"))
		return cli_usage_error("cache", "unknown action '%s' (list or clear)", argv[1]);
	const char *ws = ".";
	bool all = false;
	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--all"))
			all = true;
		else if ((!strcmp(argv[i], "-w") || !strcmp(argv[i], "--workspace")) &&
			 i + 1 < argc)
			ws = argv[++i];
		else if (!strncmp(argv[i], "--workspace=", 12))
			ws = argv[i] + 12;
		else
			return cli_usage_error("cache", "'clear' takes -w DIR or --all, not '%s'",
					       argv[i]);
	}
	if (confine_cache_clear(all ? NULL : ws, &err) < 0) {
		cli_report(&err);
		return CLI_EXIT_CONFINE;
	}
	return 0;
}

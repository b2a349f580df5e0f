/* SPDX-License-Identifier: MIT */
/*
 * `confine probe` in the macOS build (SPEC 9, R18): whether Seatbelt applies confine's
 * profiles here, with what it does and does not enforce.  Chosen by src/cli/meson.build on
 * Apple systems in place of cmd_probe.c.  NEVER COMPILED OR RUN BY CI.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const char usage[] =
    "usage: confine probe [--json]\n"
    "\n"
    "Checks that /usr/bin/sandbox-exec applies a trivial profile and confine's own, and that\n"
    "a denied write is refused; prints a stable code: available, binary_missing,\n"
    "binary_invalid, required_feature_missing, probe_timeout, probe_failed.\n"
    "The macOS backend is compiled and tested on Linux; it has not been run on a Mac by CI.\n";

int cmd_probe(int argc, char **argv)
{
	bool json = false;
	struct confine_probe_result r = {.size = sizeof(r)};
	struct confine_error err = {0};
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(usage, stdout);
			return 0;
		}
		if (strcmp(argv[i], "--json"))
			return cli_usage_error("probe", "unexpected argument '%s'", argv[i]);
		json = true;
	}
	if (confine_probe_seatbelt(&r, &err) < 0) {
		cli_report(&err);
		return CLI_EXIT_CONFINE;
	}
	if (cli_print_probes(&r, 1, json) < 0)
		return CLI_EXIT_CONFINE;
	if (!r.available) {
		fflush(stdout);
		cli_say_unavailable(&r);
	}
	return r.available ? 0 : 1;
}

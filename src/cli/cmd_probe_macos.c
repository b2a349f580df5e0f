/* SPDX-License-Identifier: MIT */
/*
 * `confine probe` in the macOS build (SPEC 9, R18): whether Seatbelt applies confine's
 * profiles here, with what it does and does not enforce.  Chosen by src/cli/meson.build on
 * Apple systems in place of cmd_probe.c.  NEVER COMPILED OR RUN BY CI.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "plan/macos/sbpl.h"
#include "util/util.h"

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
	struct confine_probe_result r;
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
	if (json) {
		struct cf_buf b;
		cf_buf_init(&b);
		cf_buf_add(&b, "{\"backends\": [{\"backend\": ");
		cf_buf_add_json(&b, r.backend);
		cf_buf_addf(&b, ", \"available\": %s, \"code\": ", r.available ? "true" : "false");
		cf_buf_add_json(&b, r.code);
		cf_buf_add(&b, ", \"path\": ");
		cf_buf_add_json(&b, r.path);
		cf_buf_add(&b, ", \"reason\": ");
		cf_buf_add_json(&b, r.reason);
		cf_buf_add(&b, ", \"hint\": ");
		cf_buf_add_json(&b, r.hint);
		cf_buf_add(&b, ", \"guarantees\": {\"read_protection\": ");
		cf_buf_add_json(&b, r.read_protection);
		cf_buf_add(&b, ", \"write_protection\": ");
		cf_buf_add_json(&b, r.write_protection);
		cf_buf_add(&b, ", \"network_isolation\": ");
		cf_buf_add_json(&b, r.network_isolation);
		cf_buf_add(&b, ", \"syscall_filter\": ");
		cf_buf_add_json(&b, r.syscall_filter);
		cf_buf_add(&b, ", \"process_scoping\": ");
		cf_buf_add_json(&b, r.process_scoping);
		cf_buf_add(&b, ", \"resource_limits\": ");
		cf_buf_add_json(&b, r.resource_limits);
		cf_buf_add(&b, "}, \"not_enforced\": [");
		for (size_t i = 0; i < cf_mac_n_not_enforced; i++) {
			if (i)
				cf_buf_add(&b, ", ");
			cf_buf_add_json(&b, cf_mac_not_enforced[i]);
		}
		cf_buf_add(&b, "], \"tested\": ");
		cf_buf_add_json(&b, cf_mac_tested);
		cf_buf_add(&b, "}]}\n");
		if (b.oom)
			fputs("confine: out of memory\n", stderr);
		else
			fputs(b.s, stdout);
		cf_buf_release(&b);
	} else {
		printf("backend:            %s\n", r.backend);
		printf("available:          %s\n", r.available ? "yes" : "no");
		printf("code:               %s\n", r.code);
		printf("path:               %s\n", r.path);
		printf("read protection:    %s\n", r.read_protection);
		printf("write protection:   %s\n", r.write_protection);
		printf("network isolation:  %s\n", r.network_isolation);
		printf("syscall filter:     %s\n", r.syscall_filter);
		printf("process scoping:    %s\n", r.process_scoping);
		printf("resource limits:    %s\n", r.resource_limits);
		printf("not enforced on macOS:\n");
		for (size_t i = 0; i < cf_mac_n_not_enforced; i++)
			printf("  - %s\n", cf_mac_not_enforced[i]);
		printf("tested:             %s\n", cf_mac_tested);
	}
	if (!r.available) {
		fflush(stdout);
		fprintf(stderr, "confine: sandbox backend unavailable: '%s': %s [%s]\n", r.backend,
			r.reason, r.code);
		if (r.hint[0])
			fprintf(stderr, "hint: %s\n", r.hint);
	}
	return r.available ? 0 : 1;
}

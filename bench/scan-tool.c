/* SPDX-License-Identifier: MIT */
/*
 * bench/scan-tool ROOT PATTERN...: one glob scan (R14) of ROOT for every PATTERN (relative to
 * ROOT, e.g. "**" then "/" then "*.pem"), as confine runs it before a launch; prints the
 * number of matches.  Exists so that bench/scan can time the scan alone against find(1).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/scan.h"
#include "util/util.h"

int main(int argc, char **argv)
{
	struct cf_ruleset rs = {0};
	struct cf_matches m = {0};
	struct confine_error err = {0};
	if (argc < 3) {
		fprintf(stderr, "usage: scan-tool ROOT PATTERN...\n");
		return 2;
	}
	for (int i = 2; i < argc; i++) {
		char *path = cf_path_join(argv[1], argv[i]);
		const char *w = path ? strpbrk(path, "*?") : NULL;
		while (w && w > path && *w != '/')
			w--;
		struct cf_rule r = {.pattern = argv[i],
				    .path = path,
				    .access = CF_ACC_BOTH,
				    .action = CF_DENY,
				    .layer = CF_LAYER_USER,
				    .source = "bench",
				    .index = i - 2,
				    .glob = w != NULL,
				    .prefix_len = w ? (size_t)(w - path) : 0};
		if (!path || cf_ruleset_add(&rs, &r, &err) < 0)
			return 1;
		free(path);
	}
	struct cf_scan_budget b = CF_SCAN_BUDGET_DEFAULT;
	if (cf_scan_globs(&rs, &b, &m, &err) < 0) {
		fprintf(stderr, "scan-tool: %s: '%s': %s\n", err.what, err.subject, err.reason);
		return 1;
	}
	printf("%zu matches\n", m.n);
	cf_matches_release(&m);
	cf_ruleset_release(&rs);
	return 0;
}

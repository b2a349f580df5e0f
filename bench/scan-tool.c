/* SPDX-License-Identifier: MIT */
/*
 * bench/scan-tool [--cache DIR] ROOT PATTERN...: one glob scan (R14) of ROOT for every PATTERN
 * (relative to ROOT, e.g. "**" then "/" then "*.pem"), as confine runs it before a launch;
 * prints the number of matches.  Exists so that bench/scan can time the scan alone against
 * find(1).  With --cache DIR the scan is incremental (R32) with its cache file in DIR, as a
 * run's launch scan is (then saved as the post-run scan saves it), and the line says how many
 * directories were read and how many reused.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/matches.h"
#include "host/scan.h"
#include "util/util.h"

int main(int argc, char **argv)
{
	struct cf_ruleset rs = {0};
	struct cf_matches m = {0};
	struct confine_error err = {0};
	const char *cache = NULL;
	if (argc > 2 && !strcmp(argv[1], "--cache")) {
		cache = argv[2];
		argc -= 2;
		argv += 2;
	}
	if (argc < 3) {
		fprintf(stderr, "usage: scan-tool [--cache DIR] ROOT PATTERN...\n");
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
	struct cf_scan_state st = {0};
	int rc = cache ? cf_scan_cached(&st, cache, &rs, &b, &m, &err)
		       : cf_scan_globs(&rs, &b, &m, &err);
	if (rc < 0) {
		fprintf(stderr, "scan-tool: %s: '%s': %s\n", err.what, err.subject, err.reason);
		return 1;
	}
	if (cache) {
		cf_scan_state_save(&st, cache);
		printf("%zu matches, %zu directories read (%zu recent), %zu reused; cache: %s\n",
		       m.n, st.stats.dirs_read, st.stats.dirs_recent, st.stats.dirs_reused,
		       st.why ? st.why : "used");
	} else {
		printf("%zu matches\n", m.n);
	}
	cf_scan_state_release(&st);
	cf_matches_release(&m);
	cf_ruleset_release(&rs);
	return 0;
}

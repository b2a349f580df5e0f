/* SPDX-License-Identifier: MIT */
/*
 * `confine probe`: which sandbox backends work here, with the stable codes of SPEC 3.2 (R18).
 *
 * --json prints one object, {"backends": [ {...}, ... ]}, one entry per backend of this OS
 * ("bwrap" and "landlock" on Linux).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/* A format: the minimum Landlock ABI is the library's. */
static const char usage[] =
    "usage: confine probe [--json] [--no-cache] [-w|--workspace DIR]\n"
    "\n"
    "Checks whether each sandbox backend works on this machine and prints a stable code.\n"
    "bwrap: available, binary_missing, path_rejected, binary_invalid, version_unreadable,\n"
    "version_too_old, required_feature_missing, user_namespace_disabled,\n"
    "proc_mount_restricted, probe_timeout, probe_failed, binary_identity_changed.\n"
    "landlock (minimum Landlock ABI %d): available, landlock_unavailable,\n"
    "landlock_abi_too_old, seccomp_unavailable.\n"
    "\n"
    "  --json            print {\"backends\": [{\"backend\", \"available\", \"code\", \"path\",\n"
    "                    \"version\", \"reason\", \"hint\", \"cached\", \"landlock_abi\", "
    "\"seccomp\",\n"
    "                    \"cgroup\", \"guarantees\": {\"read_protection\", \"write_protection\",\n"
    "                    \"network_isolation\", \"syscall_filter\", \"process_scoping\",\n"
    "                    \"resource_limits\"}, \"not_provided\": [...]}, ...]}; path,\n"
    "                    version, reason and hint are null when unknown\n"
    "  --no-cache        probe now instead of trusting a success of the last 300 s\n"
    "  -w, --workspace DIR\n"
    "                    a bwrap inside DIR is never used (default: the current directory,\n"
    "                    as for `confine run`)\n"
    "\n"
    "Exit status: 0 when a backend is available, 1 when none is, 125 on a usage error.\n";

int cmd_probe(int argc, char **argv)
{
	bool json = false, use_cache = true;
	const char *workspace = NULL;
	struct confine_probe_result r;
	struct confine_error err = {0};
	char *cwd = NULL;
	int status = CLI_EXIT_CONFINE;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			printf(usage, CONFINE_LANDLOCK_MIN_ABI);
			return 0;
		} else if (!strcmp(a, "--json")) {
			json = true;
		} else if (!strcmp(a, "--no-cache")) {
			use_cache = false;
		} else if (!strcmp(a, "--workspace") || !strcmp(a, "-w")) {
			if (++i >= argc)
				return cli_usage_error("probe", "%s needs a directory", a);
			workspace = argv[i];
		} else if (!strncmp(a, "--workspace=", strlen("--workspace="))) {
			workspace = a + strlen("--workspace=");
		} else {
			return cli_usage_error("probe", "unexpected argument '%s'", a);
		}
		if (workspace && !workspace[0])
			return cli_usage_error("probe", "the workspace is an empty string");
	}
	/* The same default as `confine run`, so that the probe predicts what a run would see. */
	if (!workspace) {
		cwd = getcwd(NULL, 0);
		workspace = cwd;
	}
	struct confine_probe_result all[2] = {{.size = sizeof(all[0])}, {.size = sizeof(all[1])}};
	int rc = confine_probe_bwrap(getenv("PATH"), workspace, use_cache, &all[0], &err);
	if (rc == 0)
		rc = confine_probe_landlock(&all[1], &err);
	if (rc < 0) {
		cli_report(&err);
		goto out;
	}
	if (cli_print_probes(all, 2, json) < 0)
		goto out;
	fflush(stdout);
	bool any = false;
	for (int i = 0; i < 2; i++) {
		r = all[i];
		any = any || r.available;
		if (r.available)
			continue;
		cli_say_unavailable(&r);
	}
	/* What `run --backend auto` would do, in one line. */
	if (!json && any)
		printf("\nauto: %s\n",
		       all[0].available ? "bwrap"
					: "landlock (bwrap is unavailable; see what landlock does "
					  "not provide above)");
	status = any ? 0 : 1;
out:
	free(cwd);
	return status;
}

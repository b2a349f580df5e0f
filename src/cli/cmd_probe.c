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

#include "cli/cli.h"
#include "util/util.h"

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

/* A JSON string, or null for an empty one. */
static void json_str_or_null(struct cf_buf *b, const char *s)
{
	if (s[0])
		cf_buf_add_json(b, s);
	else
		cf_buf_add(b, "null");
}

static void add_json(struct cf_buf *b, const struct confine_probe_result *r);

/* {"backends": [bwrap, landlock]}: one entry per backend of this OS. */
static void print_json(const struct confine_probe_result *r, size_t n)
{
	struct cf_buf b;
	cf_buf_init(&b);
	cf_buf_add(&b, "{\"backends\": [");
	for (size_t i = 0; i < n; i++) {
		if (i)
			cf_buf_add(&b, ", ");
		add_json(&b, &r[i]);
	}
	cf_buf_add(&b, "]}\n");
	if (b.oom)
		fputs("confine: out of memory\n", stderr);
	else
		fputs(b.s, stdout);
	cf_buf_release(&b);
}

static void add_json(struct cf_buf *b_, const struct confine_probe_result *r)
{
	struct cf_buf b = *b_;
	cf_buf_add(&b, "{\"backend\": ");
	cf_buf_add_json(&b, r->backend);
	cf_buf_addf(&b, ", \"available\": %s, \"code\": ", r->available ? "true" : "false");
	cf_buf_add_json(&b, r->code);
	cf_buf_add(&b, ", \"path\": ");
	json_str_or_null(&b, r->path);
	cf_buf_add(&b, ", \"version\": ");
	json_str_or_null(&b, r->version);
	cf_buf_add(&b, ", \"reason\": ");
	json_str_or_null(&b, r->reason);
	cf_buf_add(&b, ", \"hint\": ");
	json_str_or_null(&b, r->hint);
	cf_buf_addf(&b, ", \"cached\": %s, \"landlock_abi\": %d, \"seccomp\": %s, \"cgroup\": %s",
		    r->cached ? "true" : "false", r->landlock_abi, r->seccomp ? "true" : "false",
		    r->cgroup ? "true" : "false");
	cf_buf_add(&b, ", \"guarantees\": {\"read_protection\": ");
	cf_buf_add_json(&b, r->read_protection);
	cf_buf_add(&b, ", \"write_protection\": ");
	cf_buf_add_json(&b, r->write_protection);
	cf_buf_add(&b, ", \"network_isolation\": ");
	cf_buf_add_json(&b, r->network_isolation);
	cf_buf_add(&b, ", \"syscall_filter\": ");
	cf_buf_add_json(&b, r->syscall_filter);
	cf_buf_add(&b, ", \"process_scoping\": ");
	cf_buf_add_json(&b, r->process_scoping);
	cf_buf_add(&b, ", \"resource_limits\": ");
	cf_buf_add_json(&b, r->resource_limits);
	cf_buf_add(&b, ", \"network_by_domain\": ");
	cf_buf_add_json(&b, r->network_by_domain);
	cf_buf_add(&b, "}, \"not_provided\": [");
	/* "; "-separated in the struct; an array here. */
	const char *p = r->not_provided;
	for (bool first = true; *p; first = false) {
		const char *end = strstr(p, "; ");
		size_t len = end ? (size_t)(end - p) : strlen(p);
		char item[1024];
		snprintf(item, sizeof(item), "%.*s", (int)len, p);
		if (!first)
			cf_buf_add(&b, ", ");
		cf_buf_add_json(&b, item);
		p += len + (end ? 2 : 0);
	}
	cf_buf_add(&b, "]}");
	*b_ = b;
}

static void print_text(const struct confine_probe_result *r)
{
	printf("backend:            %s\n", r->backend);
	printf("available:          %s\n", r->available ? "yes" : "no");
	printf("code:               %s%s\n", r->code, r->cached ? " (cached)" : "");
	printf("path:               %s\n", r->path[0] ? cli_esc(r->path, 0) : "-");
	printf("version:            %s\n", r->version[0] ? r->version : "-");
	if (r->landlock_abi > 0)
		printf("landlock:           ABI %d\n", r->landlock_abi);
	else
		printf("landlock:           unavailable\n");
	printf("seccomp:            %s\n", r->seccomp ? "yes" : "no");
	printf("cgroup:             %s\n", r->cgroup ? "yes" : "no");
	printf("read protection:    %s\n", r->read_protection);
	printf("write protection:   %s\n", r->write_protection);
	printf("network isolation:  %s\n", r->network_isolation);
	printf("syscall filter:     %s\n", r->syscall_filter);
	printf("process scoping:    %s\n", r->process_scoping);
	printf("resource limits:    %s\n", r->resource_limits);
	printf("network by domain:  %s\n", r->network_by_domain);
	if (r->not_provided[0])
		printf("not provided:       %s\n", r->not_provided);
}

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
	struct confine_probe_result all[2];
	int rc = confine_probe_bwrap(getenv("PATH"), workspace, use_cache, &all[0], &err);
	if (rc == 0)
		rc = confine_probe_landlock(&all[1], &err);
	if (rc < 0) {
		cli_report(&err);
		goto out;
	}
	if (json) {
		print_json(all, 2);
	} else {
		print_text(&all[0]);
		putchar('\n');
		print_text(&all[1]);
	}
	fflush(stdout);
	bool any = false;
	for (int i = 0; i < 2; i++) {
		r = all[i];
		any = any || r.available;
		if (r.available)
			continue;
		/* The reason quotes PATH entries and bwrap's own output (R38). */
		fprintf(stderr, "confine: sandbox backend unavailable: '%s': %s [%s]\n", r.backend,
			cli_esc(r.reason, 0), r.code);
		if (r.hint[0])
			fprintf(stderr, "hint: %s\n", cli_esc(r.hint, 0));
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

/* SPDX-License-Identifier: MIT */
/*
 * `confine probe` on macOS (SPEC 9, R18): does Seatbelt work here?  Three steps, each under a
 * time limit, none cached (a run costs milliseconds):
 *   1. /usr/bin/sandbox-exec is a regular, root-owned executable file (binary_missing,
 *      binary_invalid);
 *   2. it applies a trivial profile: (version 1) (allow default) around /usr/bin/true
 *      (probe_failed, probe_timeout);
 *   3. it accepts the fixed part of confine's own profiles, deny by default included, and
 *      /usr/bin/true still runs under it (required_feature_missing: this macOS does not know
 *      an operation the profile names, or a load-bearing allow is missing); and a write the
 *      profile denies is refused (probe_failed: the profile is not enforced).
 * NEVER COMPILED OR RUN BY CI (see macos.h).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "abi.h"
#include "exec/macos/macos.h"
#include "plan/macos/sbpl.h"
#include "util/util.h"

#define STEP_MS 5000

extern char **environ;

/* Runs sandbox-exec -p PROFILE -- ARGV...; returns the R3 status, -1 on a spawn error, -2 on
 * a timeout (the process is killed). */
static int run_under(const char *profile, const char *const *cmd)
{
	char *argv[8];
	size_t n = 0;
	argv[n++] = (char *)CF_MAC_SANDBOX_EXEC;
	argv[n++] = (char *)"-p";
	argv[n++] = (char *)profile;
	argv[n++] = (char *)"--";
	for (size_t i = 0; cmd[i] && n < 7; i++)
		argv[n++] = (char *)cmd[i];
	argv[n] = NULL;
	pid_t pid;
	struct confine_error e = {0};
	if (cf_mac_spawn(CF_MAC_SANDBOX_EXEC, argv, environ, "/", &pid, &e) < 0)
		return -1;
	int ws = 0, r = cf_mac_wait(pid, STEP_MS, NULL, &ws);
	if (r == 1)
		return cf_mac_exit_status(ws);
	kill(-pid, SIGKILL);
	kill(pid, SIGKILL);
	cf_mac_wait(pid, 0, NULL, &ws);
	return r == 0 ? -2 : -1;
}

int cf_mac_profile_applies(const char *profile)
{
	const char *const true_cmd[] = {"/usr/bin/true", NULL};
	return run_under(profile, true_cmd);
}

static void set(char *dst, size_t n, const char *s)
{
	snprintf(dst, n, "%s", s);
}

static void fail(struct confine_probe_result *res, const char *code, const char *reason,
		 const char *hint)
{
	res->available = false;
	set(res->code, sizeof(res->code), code);
	set(res->reason, sizeof(res->reason), reason);
	set(res->hint, sizeof(res->hint), hint);
}

int cf_probe_seatbelt(struct confine_probe_result *res, struct confine_error *err)
{
	memset(res, 0, sizeof(*res));
	res->size = sizeof(*res);
	set(res->backend, sizeof(res->backend), "seatbelt");
	set(res->read_protection, sizeof(res->read_protection),
	    "Seatbelt, deny by default (never run by CI)");
	set(res->write_protection, sizeof(res->write_protection), "Seatbelt (never run by CI)");
	set(res->network_isolation, sizeof(res->network_isolation),
	    "sockets only; not Mach services");
	set(res->syscall_filter, sizeof(res->syscall_filter), "not provided");
	set(res->process_scoping, sizeof(res->process_scoping),
	    "signals within the sandbox only; Mach services reachable");
	set(res->resource_limits, sizeof(res->resource_limits), "not provided");
	set(res->network_by_domain, sizeof(res->network_by_domain), "not provided");
	set(res->path, sizeof(res->path), CF_MAC_SANDBOX_EXEC);

	struct stat st;
	if (lstat(CF_MAC_SANDBOX_EXEC, &st) < 0) {
		fail(res, "binary_missing", strerror(errno),
		     "sandbox-exec is part of macOS; without it confine cannot sandbox here "
		     "(--policy off runs without a sandbox)");
		return 0;
	}
	if (!S_ISREG(st.st_mode) || st.st_uid != 0 || (st.st_mode & 0022) || !(st.st_mode & 0111)) {
		fail(res, "binary_invalid",
		     "/usr/bin/sandbox-exec is not a root-owned executable file that only root may "
		     "change",
		     "check the system's integrity (System Integrity Protection keeps /usr/bin)");
		return 0;
	}

	const char *const true_cmd[] = {"/usr/bin/true", NULL};
	int r = run_under("(version 1)(allow default)", true_cmd);
	if (r == -2) {
		fail(res, "probe_timeout", "sandbox-exec did not finish a trivial profile in time",
		     "try again; a loaded machine can be slow");
		return 0;
	}
	if (r != 0) {
		fail(res, "probe_failed", "sandbox-exec did not apply a trivial profile",
		     "run '/usr/bin/sandbox-exec -p \"(version 1)(allow default)\" /usr/bin/true' "
		     "to see its message");
		return 0;
	}

	char *base = NULL;
	int k = cf_mac_base_profile(&base, err);
	if (k < 0)
		return k;
	r = run_under(base, true_cmd);
	if (r != 0) {
		free(base);
		fail(
		    res, r == -2 ? "probe_timeout" : "required_feature_missing",
		    "sandbox-exec refused confine's profile, or /usr/bin/true did not run under it",
		    "this macOS may not know an operation the profile names; please report the "
		    "macOS version with the output of 'confine plan --target macos'");
		return 0;
	}

	/* Enforcement: a write outside everything the profile allows must be refused. */
	char target[64];
	snprintf(target, sizeof(target), "/private/var/tmp/confine-probe-%ld", (long)getpid());
	unlink(target);
	const char *const touch[] = {"/usr/bin/touch", target, NULL};
	r = run_under(base, touch);
	free(base);
	bool created = access(target, F_OK) == 0;
	unlink(target);
	if (r == 0 || created) {
		fail(res, "probe_failed",
		     "a write the profile denies was not refused: Seatbelt does not enforce here",
		     "do not rely on the sandbox on this machine; report the macOS version");
		return 0;
	}
	res->available = true;
	set(res->code, sizeof(res->code), "available");
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * Probe of the landlock backend (SPEC 3.3, R28): the kernel's Landlock ABI and seccomp.  No
 * process is started: both answers come from system calls that change nothing.
 */
#include <stdio.h>
#include <string.h>

#include "abi.h"
#include "host/kernel.h"
#include "probe/result.h"
#include "plan/landlock/ll_plan.h"

#define SET(field, ...) snprintf((field), sizeof(field), __VA_ARGS__)

/* Whether the landlock backend works here, from the host facts in r: r->available, or the code,
 * reason and hint of what it lacks. */
static void verdict(struct confine_probe_result *r)
{
	size_t n;
	const struct cf_ll_abi_entry *t = cf_ll_abi_table(&n);
	if (r->landlock_abi <= 0) {
		SET(r->code, "landlock_unavailable");
		SET(r->reason,
		    "the kernel offers no Landlock (not built in, or not enabled at boot)");
		SET(r->hint,
		    "boot with Landlock enabled (CONFIG_SECURITY_LANDLOCK=y and 'landlock' in the "
		    "lsm= list, Linux >= 6.12 for ABI %d), or make bubblewrap work (see the bwrap "
		    "backend's hint)",
		    CONFINE_LANDLOCK_MIN_ABI);
	} else if (r->landlock_abi < CONFINE_LANDLOCK_MIN_ABI) {
		const char *name = "", *why = "";
		for (size_t i = 0; i < n; i++)
			if (t[i].required && t[i].abi > r->landlock_abi) {
				name = t[i].name;
				why = t[i].missing;
				break;
			}
		SET(r->code, "landlock_abi_too_old");
		SET(r->reason, "Landlock ABI %d lacks %s: %s; the minimum is ABI %d",
		    r->landlock_abi, name, why, CONFINE_LANDLOCK_MIN_ABI);
		SET(r->hint,
		    "use a kernel with Landlock ABI %d (Linux 6.12 or later), or make "
		    "bubblewrap work",
		    CONFINE_LANDLOCK_MIN_ABI);
	} else if (!r->seccomp) {
		SET(r->code, "seccomp_unavailable");
		SET(r->reason, "the kernel refuses seccomp filters (SPEC 3.1)");
		SET(r->hint, "use a kernel built with CONFIG_SECCOMP_FILTER, outside a container "
			     "that blocks seccomp(2)");
	} else {
		r->available = true;
		SET(r->code, "available");
	}
}

/* What the landlock backend enforces here, and what it does not; "not provided" throughout when
 * it is unavailable. */
static void guarantees(struct confine_probe_result *r)
{
	if (r->available) {
		const char *opener_missing =
		    cf_opener_missing(cf_ipc_guard_missing(r->landlock_abi, r->seccomp));
		SET(r->read_protection,
		    "enforced (Landlock path rules; hidden names stay visible)");
		SET(r->write_protection, "enforced (Landlock; EACCES instead of EROFS)");
		SET(r->network_isolation, "enforced with --no-network (Landlock + socket filter)");
		SET(r->syscall_filter, "enforced (seccomp)");
		SET(r->process_scoping, "enforced (Landlock scoping, ABI %d)", r->landlock_abi);
		SET(r->resource_limits, "%s",
		    r->cgroup ? "enforced with --limit (cgroup)"
			      : "not provided: confine cannot create a cgroup here (--limit is "
				"refused)");
		/* SPEC 12 on this backend: the proxy on the host's loopback, TCP connects only
		 * to it (Landlock's port rule, ABI 4, and confine's connect guard). */
		if (r->landlock_abi >= 4)
			SET(r->network_by_domain,
			    "enforced with --net-allow (proxy on 127.0.0.1, per-run port and "
			    "secret; TCP connects only to it: Landlock + connect guard; no DNS)");
		else
			SET(r->network_by_domain,
			    "not provided: Landlock ABI %d has no TCP rules (ABI 4); --net-allow "
			    "is refused",
			    r->landlock_abi);
		SET(r->not_provided,
		    "%s"
		    "name hiding (names and metadata of hidden paths stay visible); EROFS (EACCES "
		    "instead); private /tmp (a per-run TMPDIR under the host's /tmp); private "
		    "/dev/shm; pid namespace (host processes visible, not signalable or "
		    "traceable); masked /proc files; SysV IPC (every shm*, msg*, sem* call "
		    "refused with EPERM: no IPC namespace); terminals by name (only the "
		    "command's own: its standard descriptors, and the ptys it makes through "
		    "TIOCGPTPEER)%s%s%s%s",
		    r->landlock_abi >= 4
			? "own network namespace with --net-allow (the proxy listens on the host's "
			  "loopback behind a per-run secret; no listen(2), no UDP); a resolver "
			  "inside (names resolve only through the proxy: a client that ignores "
			  "the proxy variables reaches nothing); "
			: "network by domain (--net-allow is refused: no Landlock TCP rules); ",
		    r->cgroup ? "" : "; daemon reaping (no cgroup)",
		    r->landlock_abi >= 9
			? ""
			: "; unix sockets (socket(AF_UNIX) and datagram socketpairs refused: "
			  "Landlock ABI < 9 cannot govern connect to pathname sockets)",
		    /* R36: confine's opener makes the command's read-opens (opener.c). */
		    opener_missing ? "; FIFO reads (a FIFO outside the writable areas opens for "
				     "reading like a file: confine's opener needs "
				   : "",
		    opener_missing ? opener_missing : "");
		if (opener_missing) {
			size_t k = strlen(r->not_provided);
			snprintf(r->not_provided + k, sizeof(r->not_provided) - k,
				 "; writing is refused)");
		}
	} else {
		cf_probe_result_none(r);
	}
}

int cf_probe_landlock(struct confine_probe_result *r, struct confine_error *err)
{
	(void)err;
	cf_probe_result_begin(r, "landlock");
	if (r->landlock_abi > 0)
		SET(r->version, "abi %d (minimum %d)", r->landlock_abi, CONFINE_LANDLOCK_MIN_ABI);
	verdict(r);
	guarantees(r);
	return 0;
}

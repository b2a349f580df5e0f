/* SPDX-License-Identifier: MIT */
/*
 * The host side of the IPC guard (R36; the guard itself is confine-init's, src/helper/guard.c).
 * Linux only; touches the OS.
 */
#ifndef CONFINE_IPCGUARD_H
#define CONFINE_IPCGUARD_H

#include <stdbool.h>

#include "confine.h"
#include "plan/bwrap/plan.h"

/* Descriptors made for confine-init, each to be handed on and closed by the caller, who
 * frees v. */
struct cf_ipc_fds {
	int list; /* cf_ipc_list_fd: the list (also in v) */
	int *v;
	size_t n;
};

/* The list of --ipc-fd (helper_proto.h) for the plan, in a sealed memfd: every writable area
 * (read-write binds but pins, which lie in one, by a new descriptor of source[i], the O_PATH
 * bwrap mounts; tmpfs mounts, /dev, /proc by path) and every allow path (plan->ipc_allow).
 * The caller owns fds->v (free) and its descriptors, also on failure (fds->list -1). */
int cf_ipc_list_fd(const struct cf_plan *plan, const int *source, struct cf_ipc_fds *fds,
		   struct confine_error *err);

/* What confine-init gets for R35 and R36: fds->env (the command's environment,
 * hostside.h), and under plan->ipc_guard fds->ipc and fds->ipc_filter (the list above and the
 * guard's seccomp program).  Every descriptor made is in *made, also on failure. */
int cf_helper_fds(const struct cf_plan *plan, const int *source, struct cf_bwrap_fds *fds,
		  struct cf_ipc_fds *made, struct confine_error *err);

#endif

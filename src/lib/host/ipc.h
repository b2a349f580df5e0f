/* SPDX-License-Identifier: MIT */
/*
 * The host's IPC endpoints that a sandbox must not reach (SPEC 3.4, R29): pathname sockets the
 * host has bound and sockets and FIFOs under /run.  Touches the OS.
 */
#ifndef CONFINE_HOST_IPC_H
#define CONFINE_HOST_IPC_H

#include "util/util.h"

/*
 * Appends to `out`, sorted (cf_path_cmp) and without duplicates, the canonical path of every
 * pathname socket of /proc/net/unix that is a socket in this mount namespace (one unlinked
 * after bind, or bound in another mount namespace, is listed there but is not) and of every socket
 * and FIFO below /run and /var/run, except those within `workspace`, /tmp, /proc, /sys, /dev and
 * `skip` (may be NULL).  0 or a negative CONFINE_E_* code.
 */
int cf_host_ipc_endpoints(const char *workspace, const char *skip, struct cf_strv *out,
			  struct confine_error *err);

/*
 * The directories among the parents of `endpoints` (sorted, as above) that hold nothing but
 * sockets and FIFOs, at least two of which are endpoints: each can be hidden as one mount
 * instead of a mount per socket (bubblewrap's cost grows with the square of its mounts; a host
 * with 500 bound sockets took a second per launch).  Appended sorted to `out`.  0 or
 * CONFINE_E_NOMEM.
 */
int cf_host_ipc_groups(const struct cf_strv *endpoints, struct cf_strv *out,
		       struct confine_error *err);
struct cf_scan_state; /* host/scan.h */
/*
 * The same, incremental (R32): the walk of /run reuses the records of the sweep before (in
 * `st`; the first sweep of a run loads them from the cache file in `cache_dir`, may be NULL)
 * for every directory that did not change, and leaves its own there.  The result is the one
 * of a full sweep.  cf_scan_state_save stores them.
 */
int cf_host_ipc_endpoints_cached(struct cf_scan_state *st, const char *cache_dir,
				 const char *workspace, const char *skip, struct cf_strv *out,
				 struct confine_error *err);

#endif

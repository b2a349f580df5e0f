/* SPDX-License-Identifier: MIT */
/*
 * Network by domain for one run (SPEC 12): the proxy's unix sockets in a private directory on
 * the host, the proxy thread for the command's lifetime, and its decisions afterwards.
 */
#ifndef CONFINE_NET_NETRUN_H
#define CONFINE_NET_NETRUN_H

#include "confine.h"
#include "net/decide.h"

struct cf_netrun;

/* Creates /tmp/confine-net.XXXXXX (0700) with the handoff socket proxy.sock (0600) and starts
 * the proxy over it.  `policy` is borrowed until cf_netrun_free.  Touches the OS. */
int cf_netrun_start(const struct cf_net_policy *policy, struct cf_netrun **out,
		    struct confine_error *err);
/* An O_PATH descriptor of the directory, for bwrap's --ro-bind-fd (owned by the netrun). */
int cf_netrun_dir_fd(const struct cf_netrun *n);
/* The directory's host path. */
const char *cf_netrun_dir(const struct cf_netrun *n);
/* Stops the proxy and hands over its decisions (malloc'd array, the caller frees it). */
int cf_netrun_finish(struct cf_netrun *n, struct confine_net_event **events, size_t *n_events,
		     size_t *dropped, struct confine_error *err);
/* Stops the proxy if it runs, removes the sockets and the directory.  Accepts NULL. */
void cf_netrun_free(struct cf_netrun *n);

#endif

/* SPDX-License-Identifier: MIT */
/* confine-init's relay to confine's network proxy (SPEC 12); see relay.c. */
#ifndef CONFINE_HELPER_RELAY_H
#define CONFINE_HELPER_RELAY_H

#include <signal.h>
#include <sys/types.h>

/* A non-blocking listening socket on 127.0.0.1:port; -1 with errno. */
int cf_relay_listen(int port);

/* A non-blocking connection to the proxy's handoff socket; -1 with errno. */
int cf_relay_connect(void);

/* pid 1's loop with the relay: forwards the signals of `set` (blocked) to `child`, reaps
 * every orphan, hands every connection of the two listeners over to the proxy through
 * `handoff`; returns the command's exit status (128+N for death by signal N) once it has
 * ended. */
int cf_relay_run(int http_l, int socks_l, int handoff, const sigset_t *set, pid_t child);

#endif

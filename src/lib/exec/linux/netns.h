/* SPDX-License-Identifier: MIT */
/*
 * The inside of a network-by-domain sandbox on the bwrap backend (R43): its network namespace,
 * which has only loopback, gets a resolver and a route for every TCP connection to confine's
 * proxy.  Linux only; touches the OS.
 *
 * Who may change that namespace: it belongs to the sandbox's user namespace, which confine's
 * own user created, so a process of confine's that joins that user namespace holds every
 * capability there (and none anywhere else).  confine-init, which runs without capabilities,
 * cannot; bwrap has dropped them.  So after confine-init reports READY and before the command
 * starts, confine forks a child that joins the user namespace and then the network namespace
 * of pid 1 of the sandbox, and there:
 *   - opens the resolver's sockets: UDP and TCP on port 53 of every address of the namespace
 *     (its /etc/resolv.conf names 127.0.0.1; any other loopback address a program was given
 *     still reaches it), and the listeners of the transparent connections on
 *     127.0.0.1:CF_NET_TRANSPARENT_PORT and [::1]:CF_NET_TRANSPARENT_PORT;
 *   - adds an nftables table "confine" with one chain at the NAT output hook: every DNS query
 *     (UDP or TCP to port 53) to an address outside loopback is redirected to the resolver, and
 *     every other TCP connection to an address outside loopback to the transparent listener,
 *     where confine learns the address asked for (SO_ORIGINAL_DST);
 *   - adds, last, a default route through loopback for IPv4 and IPv6 in a table of its own,
 *     which only TCP and UDP to port 53 look up (routing rules by protocol and port): UDP to
 *     any other port still finds no route and fails at once (ENETUNREACH), and without the
 *     redirect no route exists at all, as before.
 * then hands the sockets to confine and exits.  The sockets live in the sandbox's namespace
 * but are served by confine's proxy on the host: no process inside relays a byte.
 *
 * nftables is spoken directly over netlink (no nft program, no library): a table, a chain, six
 * rules.  Where the kernel has no nf_tables (or NAT for it), nothing is added and the sandbox
 * stays as it was: names do not resolve inside and only clients that use the proxy variables
 * reach the network (fail closed); the reason is returned.
 */
#ifndef CONFINE_NETNS_H
#define CONFINE_NETNS_H

#include <sys/types.h>

#include "confine.h"

/* What the setup hands over: every descriptor belongs to the caller; -1 when absent (IPv6
 * disabled in the namespace). */
struct cf_netns_fds {
	int dns_udp4, dns_udp6; /* port 53, every address (IP_PKTINFO / IPV6_RECVPKTINFO) */
	int dns_tcp4, dns_tcp6; /* port 53, listening */
	int tcp4, tcp6;		/* the transparent listeners */
};

void cf_netns_fds_init(struct cf_netns_fds *f);
void cf_netns_fds_close(struct cf_netns_fds *f);

/*
 * Sets up the network namespace of `pid` (pid 1 of the sandbox), which `pidfd` (may be -1)
 * holds, so that the number cannot be another process's by the time the namespace is opened.
 * Returns 0 with *out filled, or CONFINE_E_OS with err naming the step and the system call that
 * failed (nothing was changed then, or only what does nothing without the rest).
 */
int cf_netns_setup(pid_t pid, int pidfd, struct cf_netns_fds *out, struct confine_error *err);

struct cf_launch;
/* At READY of a network-by-domain launch on the bwrap backend, before the command starts: the
 * setup of pid 1's namespace, its sockets handed to the launch's proxy; a failure is recorded
 * with the proxy's decisions (the sandbox stays without a resolver: fail closed). */
void cf_netns_attach(const struct cf_launch *lc);

#endif

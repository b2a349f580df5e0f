/* SPDX-License-Identifier: MIT */
/*
 * Where the network-by-domain proxy is reached inside the sandbox (SPEC 12): shared by the plan
 * (pure), the executor and confine-init, which listens on 127.0.0.1:PORT and hands every
 * connection over to confine's proxy through its socket.  The ports are fixed: the sandbox has a
 * network namespace of its own, so they are always free, and the plan is the same on every run.
 */
#ifndef CONFINE_NET_NETCONST_H
#define CONFINE_NET_NETCONST_H

#define CF_NET_HTTP_PORT 3128
#define CF_NET_SOCKS_PORT 1080
/* Where every other TCP connection of the command to an address outside loopback arrives,
 * redirected by the namespace's nftables rule (R43, exec/linux/netns.h); served by confine's
 * proxy itself. */
#define CF_NET_TRANSPARENT_PORT 3129
/* The directory of the proxy's sockets inside the sandbox: in the sandbox's own /dev (a tmpfs
 * bwrap makes, read-only once set up), so that no mount point is ever needed on the host. */
#define CF_NET_DIR "/dev/.confine-net"
/* The proxy's handoff socket (SOCK_SEQPACKET): confine-init hands each connection it accepts
 * over to the proxy, one message each: 'H' or 'S' and the socket itself (SCM_RIGHTS). */
#define CF_NET_HANDOFF_SOCK "proxy.sock"
#define CF_NET_HANDOFF_HTTP 'H'
#define CF_NET_HANDOFF_SOCKS 'S'

#endif

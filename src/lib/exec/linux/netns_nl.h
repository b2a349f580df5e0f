/* SPDX-License-Identifier: MIT */
/*
 * The netlink messages of the sandbox's network setup (netns.c): the nftables batch that
 * redirects DNS and TCP to confine, and the default routes through loopback.  Built into a
 * caller's buffer with no allocation and no library call but memcpy and memset, so that the
 * child that joins the namespace builds them after fork.  Linux only.
 */
#ifndef CONFINE_NETNS_NL_H
#define CONFINE_NETNS_NL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cf_nlb {
	uint8_t *buf;
	size_t cap, len;
	bool full; /* something did not fit: send nothing */
	uint32_t seq;
	unsigned acks; /* messages that ask for an acknowledgement */
};

/*
 * The nftables batch: table inet "confine", chain "out" (type nat, hook output, priority
 * -100), and for IPv4 (and IPv6 when `v6`): UDP and TCP to port 53 of an address outside
 * loopback redirected to port 53, every other TCP connection to such an address redirected to
 * `port`.
 */
void cf_nl_nft_batch(struct cf_nlb *b, uint16_t port, bool v6);

/* The routing table of the redirected traffic: only TCP, and UDP to port 53, is routed at all
 * (cf_nl_routing_rules); everything else to an address outside loopback finds no route and
 * fails at once (ENETUNREACH), as it did before. */
#define CF_NL_TABLE 100

/* RTM_NEWROUTE: the default route of `family` (4 or 6) in CF_NL_TABLE, through the loopback
 * device (ifindex 1), with 127.0.0.1 or ::1 as the source address. */
void cf_nl_default_route(struct cf_nlb *b, int family);
/* RTM_NEWRULE: TCP, and UDP to port 53, of `family` look up CF_NL_TABLE (Linux 4.17). */
void cf_nl_routing_rules(struct cf_nlb *b, int family);

/*
 * Sends b on the netlink socket fd and reads the acknowledgements: 0 when every message was
 * accepted, else minus the first error the kernel reported (or of a system call); gives up
 * after about two seconds without an answer (-ETIMEDOUT).
 */
int cf_nl_talk(int fd, const struct cf_nlb *b);

#endif

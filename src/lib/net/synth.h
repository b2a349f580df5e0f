/* SPDX-License-Identifier: MIT */
/*
 * Synthetic addresses of one run (R43): the resolver inside answers every name it does not
 * refuse with an address of its own from 198.18.0.0/15, and a connection to that address is
 * decided on the name it stands for.  Why that range: RFC 2544 sets it aside for benchmarking,
 * it is never routed on the Internet, and it lies outside the private ranges (10/8, 172.16/12,
 * 192.168/16, fc00::/7) that a rule may allow for a company's own hosts, so no real
 * destination a rule can name is shadowed; confine's proxy refuses it as a literal ("reserved")
 * unless a rule names it.  IPv4 only: the sandbox reaches the network only through confine,
 * so one family is enough, and the resolver answers AAAA queries with no address (a client
 * then uses the A record at once instead of trying IPv6 first).
 *
 * A name keeps its address for the whole run; at most CF_SYNTH_MAX names (then the resolver
 * answers SERVFAIL for new ones).  Addresses ending in .0 and .255 are not handed out.  Pure.
 */
#ifndef CONFINE_NET_SYNTH_H
#define CONFINE_NET_SYNTH_H

#include <stdbool.h>
#include <stddef.h>

#include "util/addr.h"

#define CF_SYNTH_NET "198.18.0.0"
#define CF_SYNTH_BITS 15
#define CF_SYNTH_MAX 65536

struct cf_synth;

/* NULL when out of memory. */
struct cf_synth *cf_synth_new(void);
void cf_synth_free(struct cf_synth *s);

/* The address of `name` (normalised), given one now if it had none.  0, or -1 when the table
 * is full or out of memory. */
int cf_synth_addr(struct cf_synth *s, const char *name, struct cf_ip *out);

/* The name an address stands for; NULL when it was never handed out. */
const char *cf_synth_name(const struct cf_synth *s, const struct cf_ip *ip);

/* Whether the address lies in the synthetic range (handed out or not). */
bool cf_synth_in_range(const struct cf_ip *ip);

/* Names handed out so far. */
size_t cf_synth_count(const struct cf_synth *s);

#endif

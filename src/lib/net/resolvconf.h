/* SPDX-License-Identifier: MIT */
/*
 * The resolver configuration a network-by-domain sandbox sees (R43), bound read-only over the
 * host's files, so that every name a program resolves goes to the resolver inside and nowhere
 * else: glibc, musl, Go's own resolver, Node (getaddrinfo, and c-ares for dns.resolve) all read
 * /etc/resolv.conf; glibc and Go read /etc/nsswitch.conf and /etc/hosts first.
 *   - resolv.conf: "nameserver 127.0.0.1" only, with the host's search, domain and options
 *     lines (a short name means what it means on the host);
 *   - hosts: the host's lines for loopback addresses (localhost, the machine's own name) and
 *     localhost's own lines; a line for another address would answer a name without the
 *     name's decision, so it goes: that name is asked of the resolver inside like any other;
 *   - nsswitch.conf: the host's, with "hosts: files dns": a module that asks another service
 *     (systemd-resolved over its socket, mDNS, NIS) would resolve a name on the host.
 * Each input is the host file's text (NULL: it has none); lines are copied only when they hold
 * nothing but printable ASCII and tabs.  Pure.
 */
#ifndef CONFINE_NET_RESOLVCONF_H
#define CONFINE_NET_RESOLVCONF_H

#include "util/util.h"

/* The largest host file read. */
#define CF_RESOLVCONF_MAX_INPUT 65536

void cf_resolv_conf(const char *host_text, struct cf_buf *out);
void cf_hosts_file(const char *host_text, struct cf_buf *out);
void cf_nsswitch(const char *host_text, struct cf_buf *out);

#endif

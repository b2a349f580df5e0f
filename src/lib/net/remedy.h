/* SPDX-License-Identifier: MIT */
/*
 * The remedy for a request confine's proxy refused (SPEC 12), as a person would type it: the
 * exact --net-allow that lets an allowed name reach the private address it resolved to, the
 * explain line for a deny rule, the proxy URL for a request without the run's credentials.
 * Pure: the event and the policy that decided it.
 */
#ifndef CONFINE_NET_REMEDY_H
#define CONFINE_NET_REMEDY_H

#include <stddef.h>

#include "confine.h"
#include "net/decide.h"

/* Writes the remedy for an address of an allowed name that the proxy refused (port as asked):
 * a rule's deny of the address names explain; a special address (loopback, private...) names
 * --net-allow ADDRESS and its range.  Returns the length written ("" for an address that is
 * not refused). */
size_t cf_net_address_remedy(const struct cf_net_policy *p, const struct cf_ip *ip, uint16_t port,
			     char *buf, size_t cap);

/* Writes the remedy for one decision of the proxy; "" (0) for a connected request and for
 * failures confine cannot remedy (a name that does not resolve, a server that refuses). */
size_t cf_net_event_remedy(const struct cf_net_policy *p, const struct cf_net_event *e, char *buf,
			   size_t cap);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * The host's resolver for the proxy (see resolver.h): getaddrinfo, addresses deduplicated in
 * the resolver's order.  Alone in this file so that the test build's confine links a resolver
 * of its own instead (tests/tools/testresolve.c: names from a hosts file, never real DNS);
 * production binaries contain only this one.
 */
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "net/resolver.h"

int cf_net_lookup(const char *name, struct cf_ip *out, size_t max, char *reason, size_t cap)
{
	struct addrinfo hints =
			    {
				.ai_family = AF_UNSPEC,
				.ai_socktype = SOCK_STREAM,
				/* Only families this host can reach; never a numeric form (the
				 * proxy decided on a name that is not one). */
				.ai_flags = AI_ADDRCONFIG,
			    },
			*res = NULL;
	int rc = getaddrinfo(name, NULL, &hints, &res);
	if (rc != 0) {
		snprintf(reason, cap, "%s",
			 rc == EAI_SYSTEM ? "the resolver failed" : gai_strerror(rc));
		return -1;
	}
	size_t n = 0;
	for (struct addrinfo *a = res; a && n < max; a = a->ai_next) {
		struct cf_ip ip = {0};
		if (a->ai_family == AF_INET) {
			ip.family = 4;
			memcpy(ip.b, &((struct sockaddr_in *)a->ai_addr)->sin_addr, 4);
		} else if (a->ai_family == AF_INET6) {
			ip.family = 6;
			memcpy(ip.b, &((struct sockaddr_in6 *)a->ai_addr)->sin6_addr, 16);
			static const unsigned char mapped[12] = {0, 0, 0, 0, 0,	   0,
								 0, 0, 0, 0, 0xff, 0xff};
			if (!memcmp(ip.b, mapped, 12)) {
				memmove(ip.b, ip.b + 12, 4);
				memset(ip.b + 4, 0, 12);
				ip.family = 4;
			}
		} else {
			continue;
		}
		bool dup = false;
		for (size_t i = 0; i < n && !dup; i++)
			dup = cf_ip_equal(&out[i], &ip);
		if (!dup)
			out[n++] = ip;
	}
	freeaddrinfo(res);
	if (n == 0) {
		snprintf(reason, cap, "the name has no IPv4 or IPv6 address");
		return -1;
	}
	return (int)n;
}

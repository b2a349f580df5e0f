/* SPDX-License-Identifier: MIT */
/*
 * Name resolution for confine's proxy (SPEC 12): lookups run on worker threads, so one slow
 * name never holds up the proxy's other connections; the event loop learns of each finished
 * lookup through a descriptor it polls.  A lookup cannot be cancelled (getaddrinfo has no
 * such thing), so the resolver outlives its owner until its last worker is done: the owner
 * drops its reference and never waits.
 */
#ifndef CONFINE_NET_RESOLVER_H
#define CONFINE_NET_RESOLVER_H

#include <stdbool.h>
#include <stddef.h>

#include "util/addr.h"

#define CF_RESOLVE_MAX_ADDRS 16

struct cf_resolve_job {
	char name[CF_HOST_MAX + 1];
	/* results */
	int error; /* 0, or a negative code (lookup.c) */
	char reason[160];
	size_t n;
	struct cf_ip addrs[CF_RESOLVE_MAX_ADDRS];
	/* the owner's */
	void *owner; /* NULL: the owner went away; the job is dropped when done */
	struct cf_resolve_job *next;
};

/*
 * Looks a name up on the host: its addresses, at most `max`, in the order of preference the
 * resolver gives.  Returns the number found (> 0), or a negative value with the reason in
 * `reason`.  Blocking; called on a worker thread.  In its own translation unit (lookup.c) so
 * that a test build can provide another one.
 */
int cf_net_lookup(const char *name, struct cf_ip *out, size_t max, char *reason, size_t cap);

struct cf_resolver;

/* Starts a resolver with up to `threads` workers (started as lookups need them).  *notify_fd
 * becomes readable when a lookup has finished; it belongs to the resolver.  Returns 0 or -1
 * with errno. */
int cf_resolver_new(unsigned threads, struct cf_resolver **out, int *notify_fd);
/* Queues a job (taken over until it comes back from cf_resolver_done).  Returns 0 or -1. */
int cf_resolver_submit(struct cf_resolver *r, struct cf_resolve_job *job);
/* The next finished job, or NULL. */
struct cf_resolve_job *cf_resolver_done(struct cf_resolver *r);
/* The owner is done: queued jobs are dropped, workers end after their current lookup, and the
 * last one frees what is left.  Never waits. */
void cf_resolver_release(struct cf_resolver *r);
/* Lookups started so far (for tests). */
unsigned long cf_resolver_lookups(struct cf_resolver *r);

#endif

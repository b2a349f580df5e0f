/* SPDX-License-Identifier: MIT */
/*
 * confine's network-by-domain proxy (SPEC 12, R31): an HTTP proxy (CONNECT and absolute-URI
 * requests) and a SOCKS5 proxy (CONNECT) in one event loop on a thread of its own.  For every
 * request it decides on the name before anything is resolved, resolves on worker threads,
 * refuses loopback, private, link-local and other special addresses unless a rule names them,
 * connects, and relays both ways with back-pressure through fixed-size buffers.  Bounded
 * everywhere: head size, header count, head and connect timeouts (slowloris), idle tunnels,
 * the number of connections, the number of decisions kept.  Every decision is recorded.
 */
#ifndef CONFINE_NET_PROXY_H
#define CONFINE_NET_PROXY_H

#include "confine.h"
#include "net/decide.h"

struct cf_upstream;

struct cf_proxy_config {
	unsigned max_conns;	     /* connections at once; more wait in the listen backlog */
	unsigned head_timeout_ms;    /* from accept to a complete request (slowloris) */
	unsigned connect_timeout_ms; /* from the decision to an established connection */
	unsigned idle_timeout_ms;    /* an established connection that moves no byte */
	unsigned linger_ms;	   /* reading what a refused client still sends, after the reply */
	unsigned resolver_threads; /* lookups at once */
	size_t max_events;	   /* decisions kept; the rest are counted */
	/* R43: the asker of live asks (confine_request_set_net_ask; NULL: ASK is denied), and
	 * the caller's upstream proxy (NULL: none; borrowed until cf_proxy_free). */
	confine_net_ask_fn ask;
	void *ask_user;
	unsigned ask_timeout_ms; /* how long a request waits for the answer */
	const struct cf_upstream *upstream;
};

#define CF_PROXY_CONFIG_DEFAULT                                                                    \
	{                                                                                          \
		.max_conns = 1024, .head_timeout_ms = 30000, .connect_timeout_ms = 30000,          \
		.idle_timeout_ms = 15 * 60 * 1000, .linger_ms = 2000, .resolver_threads = 8,       \
		.max_events = 4096, .ask_timeout_ms = CONFINE_NET_ASK_TIMEOUT_MS                   \
	}

struct cf_proxy_stats {
	unsigned long accepted;	     /* connections accepted */
	unsigned long active;	     /* open now */
	unsigned long peak;	     /* most open at once */
	unsigned long lookups;	     /* names given to the resolver */
	unsigned long long up, down; /* bytes relayed to and from upstream servers */
	unsigned long wakeups;	     /* rounds of the loop (a loop that spins shows here) */
};

struct cf_proxy;

/*
 * A proxy over its listening sockets, which it takes over (any may be -1): `http_fd` and
 * `socks_fd` are stream sockets whose clients speak HTTP or SOCKS5; `handoff_fd` is a
 * SOCK_SEQPACKET unix socket where each message hands over one client connection: one byte,
 * 'H' (HTTP) or 'S' (SOCKS5), with the connected TCP socket as SCM_RIGHTS.  This is how
 * confine-init passes the command's connections on without relaying a byte itself.
 * `policy` is borrowed and must stay unchanged until cf_proxy_free.  Touches the OS (epoll,
 * eventfd).
 */
int cf_proxy_new(const struct cf_proxy_config *cfg, const struct cf_net_policy *policy, int http_fd,
		 int socks_fd, int handoff_fd, struct cf_proxy **out, struct confine_error *err);
/*
 * A proxy on one stream socket (the landlock backend's loopback TCP listener) whose clients
 * speak HTTP or SOCKS5, told apart by their first byte (5 or 4: SOCKS), and must all send the
 * credentials CF_PROXY_USER:secret (net/auth.h): Proxy-Authorization Basic, or RFC 1929
 * username/password.  A request without them gets 407 (or the SOCKS5 refusal) and is recorded
 * with the outcome "unauthenticated".  Takes over listen_fd; `secret` is copied.
 */
int cf_proxy_new_auth(const struct cf_proxy_config *cfg, const struct cf_net_policy *policy,
		      int listen_fd, const char *secret, struct cf_proxy **out,
		      struct confine_error *err);
/*
 * R43: the sockets of the sandbox's own network namespace (exec/linux/netns.h), taken over (any
 * may be -1): the resolver's UDP and TCP sockets on port 53, IPv4 and IPv6, and the listeners
 * of the transparent connections.  From then on names resolve inside to synthetic addresses and
 * every TCP connection of the command reaches the proxy.  Called once, from any thread, while
 * the loop runs.  0 or CONFINE_E_NOMEM (the descriptors are closed then).
 */
struct cf_inside_fds {
	int udp4, udp6, tcp4, tcp6; /* the resolver's */
	int listen4, listen6;	    /* the transparent connections' */
};
int cf_proxy_inside(struct cf_proxy *p, const struct cf_inside_fds *fds, struct confine_error *err);
/* R43: the sandbox's namespace could not be set up (`why`): recorded with the decisions
 * (protocol "dns", outcome "unavailable") when the proxy stops.  Any thread. */
void cf_proxy_inside_failed(struct cf_proxy *p, const struct confine_error *why);

/* R45: the credential placeholders (searched for in every request head) and the inspector
 * (NULL: none) that takes plain-HTTP requests and tunnels to inspected hosts once connected.
 * Both borrowed until cf_proxy_free; set before cf_proxy_start. */
struct cf_secrets;
struct cf_inspector;
void cf_proxy_set_secrets(struct cf_proxy *p, struct cf_secrets *s, struct cf_inspector *in);
/* Runs the event loop on a thread of its own (every signal blocked there). */
int cf_proxy_start(struct cf_proxy *p, struct confine_error *err);
/* Ends the loop and closes every connection; waits for the thread.  Idempotent. */
void cf_proxy_stop(struct cf_proxy *p);
/* Counters, at any time. */
void cf_proxy_stats(struct cf_proxy *p, struct cf_proxy_stats *out);
/* The decisions in the order made; valid until cf_proxy_free; read them after stop. */
const struct cf_net_event *cf_proxy_events(const struct cf_proxy *p, size_t *n, size_t *dropped);
void cf_proxy_free(struct cf_proxy *p);

#endif

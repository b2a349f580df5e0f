/* SPDX-License-Identifier: MIT */
/* Inside confine's proxy: the loop (proxy.c) and the connections (proxy_conn.c). */
#ifndef CONFINE_NET_PROXY_INT_H
#define CONFINE_NET_PROXY_INT_H

#include <pthread.h>
#include <stdint.h>

#include "net/http.h"
#include "net/proxy.h"
#include "net/pump.h"
#include "net/resolver.h"
#include "net/socks.h"

enum ref_what {
	W_LISTEN_HTTP,
	W_LISTEN_SOCKS,
	W_LISTEN_HANDOFF,
	W_LISTEN_MIXED,
	W_HANDOFF,
	W_WAKE,
	W_RESOLVER,
	W_CLIENT,
	W_UPSTREAM,
	/* The inside of the sandbox (R43): proxy_inside.c, proxy_transparent.c, proxy_ask.c */
	W_DNS_UDP,
	W_DNS_LISTEN,
	W_DNS_TCP,
	W_LISTEN_TRANSPARENT,
	W_ASK,
	W_INSIDE_SET,
};

struct conn;
struct handoff;
/* What an epoll event points at. */
struct ref {
	enum ref_what what;
	struct conn *c;
	struct handoff *h;
	void *x; /* W_DNS_TCP: its struct cf_dns_tcp; W_DNS_UDP, W_LISTEN_TRANSPARENT: the fd */
};

/* A connection to the handoff socket: each message is one byte ('H' HTTP, 'S' SOCKS5) and the
 * client's connection itself (SCM_RIGHTS). */
struct handoff {
	int fd; /* -1 once closed */
	struct ref ref;
	bool in_epoll;
	struct handoff *next_free;
};
#define CF_PROXY_MAX_HANDOFFS 16

/* K_TRANSPARENT: a TCP connection of the command to any address outside loopback, redirected
 * to the proxy inside the sandbox's namespace (R43, proxy_transparent.c). */
enum conn_kind { K_HTTP, K_SOCKS, K_TRANSPARENT };
enum conn_state {
	S_HEAD,	    /* reading the request (HTTP head, SOCKS greeting and request) */
	S_RESOLVE,  /* the name is with the resolver */
	S_CONNECT,  /* connecting to addrs[next_addr] */
	S_RELAY,    /* both ways */
	S_REPLY,    /* sending a refusal, then S_LINGER */
	S_LINGER,   /* reading what the client still sends, so the refusal is not reset away */
	S_ASK,	    /* a name no rule covers waits for the host's answer (R43, proxy_ask.c) */
	S_UPSTREAM, /* CONNECT sent to the upstream proxy, its answer awaited (proxy_upstream.c) */
};

/* One direction of a relay: `pre` goes out first (a reply, a forwarded head, bytes that came
 * with the request), then the pump. */
struct dir {
	char *pre;
	size_t pre_off, pre_len;
	struct cf_pump pump;
	bool pump_on;
};

struct conn {
	struct cf_proxy *p;
	struct ref cref, uref;
	int cfd, ufd;
	unsigned cev, uev; /* current epoll interest; ~0u: not registered */
	enum conn_kind kind;
	bool sniff; /* from the mixed listener: the first byte tells HTTP from SOCKS5 */
	enum conn_state st;
	bool closed;
	uint64_t deadline; /* ms, monotonic: the current state's bound */
	/* the client's bytes before the relay */
	char *in;
	size_t in_len, in_cap;
	size_t body_off; /* where the client's data after the request starts in `in` */
	struct cf_http_scan scan;
	struct cf_socks socks;
	bool c_eof; /* the client ended its side before the relay */
	/* the request and its decision */
	const char *proto; /* "http", "connect", "socks5" */
	char host[CF_HOST_MAX + 1];
	bool is_ip;
	struct cf_ip ip;
	uint16_t port;
	struct cf_net_decision dec;
	bool decided, recorded;
	bool offered_creds;	   /* an HTTP request carried a Proxy-Authorization header */
	int64_t decided_at;	   /* ms since the epoch */
	struct cf_http_head *head; /* an absolute-URI request's head, for forwarding */
	/* resolution and connection */
	struct cf_resolve_job *job;
	struct cf_ip addrs[CF_RESOLVE_MAX_ADDRS];
	size_t n_addrs, next_addr;
	char why[320]; /* the last refusal or failure */
	/* the response head of an absolute-URI request */
	bool resp_head;
	char *rin;
	size_t rin_len, rin_cap;
	struct cf_http_scan rscan;
	struct cf_buf resp_pre; /* 1xx heads forwarded while waiting for the final one */
	/* to the client before the relay: the SOCKS method reply, a refusal */
	char *out;
	size_t out_off, out_len;
	struct dir c2u, u2c;
	struct conn *next_free;
	/* R43: a transparent connection (proxy_transparent.c) */
	bool synthetic; /* to a synthetic address: host is the name it stands for */
	bool gate;	/* the client's first bytes are still to be checked: none goes upstream */
	char *refusal;	/* a refusal waiting for the client's first bytes (S_HEAD) */
	int refusal_status;
	/* R43: a live ask (proxy_ask.c): the question this connection waits for, and the answer
	 * that decided it ("" none, "once", "run", "deny", "timeout", "earlier") */
	uint64_t ask_id;
	char answer[16];
	/* R43: through the caller's upstream proxy (proxy_upstream.c) */
	bool via_upstream;
	struct cf_ip target; /* the checked address of the target, "" when it was not resolved */
	bool has_target;
};

struct cf_proxy {
	struct cf_proxy_config cfg;
	const struct cf_net_policy *policy;
	int ep, wake_fd, http_fd, socks_fd, handoff_fd, mixed_fd, resolver_fd;
	struct ref r_http, r_socks, r_handoff, r_mixed, r_wake, r_resolver;
	/* The credentials every client must send ("" none): HTTP Basic of userpass
	 * ("confine:SECRET"), SOCKS5 user and pass (net/auth.h). */
	char userpass[64], user[16], pass[40];
	struct handoff *handoffs[CF_PROXY_MAX_HANDOFFS];
	size_t n_handoffs;
	struct handoff *free_handoffs; /* closed in this round */
	bool listening;
	struct cf_resolver *resolver;
	pthread_t thread;
	bool started, stopped;
	struct conn **conns; /* open connections */
	size_t n_conns, cap_conns;
	struct conn *free_list; /* closed in this round, freed after it */
	pthread_mutex_t lock;	/* stats */
	struct cf_proxy_stats stats;
	struct cf_net_event *events;
	size_t n_events, cap_events, dropped;
	/* The events of HTTP requests refused for carrying no credentials at all: a client's
	 * first try, which a 407 answers (cf_proxy_stop pairs each with its retry). */
	size_t *challenges;
	size_t n_challenges, cap_challenges;
	/* R43: the resolver inside and the transparent listeners (NULL until the sandbox's
	 * namespace is set up: cf_proxy_inside), live asks, the upstream proxy. */
	struct cf_inside *inside; /* the loop's */
	int inside_efd;		  /* cf_proxy_inside wakes the loop: new sockets */
	struct ref r_inside;
	struct cf_inside_fds inside_new; /* handed over, not installed yet (under lock) */
	bool inside_pending;
	char inside_error[240]; /* why it could not be set up (under lock), "" */
	struct cf_ask_state *ask;
	const struct cf_upstream *upstream;
	/* R45: the run's credential placeholders and the inspector (proxy_secrets.c); NULL
	 * without secrets or inspected hosts. */
	struct cf_secrets *secrets;
	struct cf_inspector *inspector;
};

uint64_t cf_proxy_now(void);
/* Registers or updates the epoll interest of the connection's descriptors. */
void cf_proxy_update(struct conn *c);
/* Closes the connection (freed after the current round). */
void cf_proxy_close(struct conn *c);
/* Records the decision of c once, with its outcome.  Returns whether it was kept (false when
 * recorded before, or over the bound of decisions kept). */
bool cf_proxy_record(struct conn *c, const char *outcome, const struct cf_ip *addr,
		     const char *detail);
/* Marks the event just recorded as a first try without credentials. */
void cf_proxy_challenged(struct cf_proxy *p);
/* A new event at the end of the list (zeroed), or NULL when over the bound of decisions kept
 * (counted as dropped) or out of memory. */
struct cf_net_event *cf_proxy_event_new(struct cf_proxy *p);
/* A client connection (non-blocking) becomes a connection of the proxy; false when there was
 * no memory (the descriptor is closed). */
bool cf_proxy_conn_new(struct cf_proxy *p, int fd, enum conn_kind kind, bool sniff);

/* proxy_conn.c */
void cf_conn_refuse(struct conn *c, int status, uint8_t socks_code, const char *text);
void cf_conn_close_upstream(struct conn *c);
/* Sends n bytes to the client as its last (then it lingers and closes), or resets the
 * connection when n is 0. */
void cf_conn_last_words(struct conn *c, const void *data, size_t n);
int cf_conn_out_append(struct conn *c, const void *data, size_t n);
/* Appends n bytes to the queue *buf, whose bytes [*off, *len) are still to go, compacting what
 * went; 0, or -1 on out-of-memory (the queue as it was). */
int cf_queue_append(char **buf, size_t *off, size_t *len, const void *data, size_t n);
void cf_conn_client(struct conn *c, uint32_t events);
void cf_conn_upstream(struct conn *c, uint32_t events);
void cf_conn_resolved(struct conn *c, struct cf_resolve_job *job);
void cf_conn_timeout(struct conn *c);
void cf_conn_release(struct conn *c);
/* The decision on c->host (a name, or the literal c->ip) and c->port, then resolution and the
 * connection (proxy_conn.c). */
void cf_conn_decide(struct conn *c);
/* A refusal with its record: outcome, HTTP status or SOCKS code, the address, why and the
 * remedy. */
void cf_conn_fail(struct conn *c, const char *outcome, int status, uint8_t socks_code,
		  const struct cf_ip *addr, const char *why, const char *hint);
/* An allowed request goes on: resolution of the name, or the check of the literal. */
void cf_conn_allowed(struct conn *c);
/* The refusal of a decision that is not allow. */
void cf_conn_deny(struct conn *c);

/* Accepts from a listener until it has no more or the bound of connections is reached. */
void cf_proxy_accept_all(struct cf_proxy *p, int lfd, enum conn_kind kind, bool sniff);

/* proxy_inside.c (R43): the resolver inside and the transparent listeners. */
void cf_inside_event(struct cf_proxy *p, struct ref *r, uint32_t events);
/* The loop installs the sockets cf_proxy_inside handed over (those of a sandbox launched again
 * replace the earlier ones). */
void cf_inside_install(struct cf_proxy *p);
/* The eventfd of cf_proxy_inside, made with the proxy; 0 or -1. */
int cf_inside_init(struct cf_proxy *p);
void cf_inside_listen(struct cf_proxy *p, bool on);
void cf_inside_sweep(struct cf_proxy *p, uint64_t now);
bool cf_inside_busy(struct cf_proxy *p);
void cf_inside_release(struct cf_proxy *p);
/* The loop has ended: a failure of the setup becomes a decision of the run. */
void cf_inside_stopped(struct cf_proxy *p);
/* The name a synthetic address stands for; NULL when none (or no resolver inside). */
const char *cf_inside_name(struct cf_proxy *p, const struct cf_ip *ip);

/* proxy_transparent.c (R43) */
/* A connection the transparent listener accepted: where it was going, then the decision. */
void cf_transparent_begin(struct conn *c);
/* Connected upstream: the relay starts, the client's bytes held until they are checked. */
void cf_transparent_relay_start(struct conn *c, const struct cf_ip *a);
/* The client's first bytes while the gate is closed: 0 going on, -1 ended. */
int cf_transparent_gate(struct conn *c);
/* A refusal (cf_conn_refuse): a TLS alert, an HTTP error, or a reset, after the client's first
 * bytes say which it understands. */
void cf_transparent_refuse(struct conn *c, int status, const char *text);
/* S_HEAD of a refused transparent connection: its first bytes arrive. */
void cf_transparent_refusing(struct conn *c, uint32_t ev);

/* proxy_ask.c (R43) */
/* A decision of ASK: true when the connection waits for the host's answer (or was allowed by
 * an earlier answer for the run), false when nobody is asked (then it is denied). */
bool cf_ask_begin(struct conn *c);
int cf_ask_init(struct cf_proxy *p);
void cf_ask_answered(struct cf_proxy *p);
void cf_ask_timeout(struct conn *c);
void cf_ask_release(struct cf_proxy *p);

/* proxy_upstream.c (R43) */
/* Whether c goes through the upstream proxy; then c->addrs are the upstream proxy's (none:
 * the request was refused here, for the upstream proxy has no address). */
bool cf_upstream_route(struct conn *c);
uint16_t cf_upstream_port(const struct cf_upstream *u);
/* "through the upstream proxy HOST:PORT", for the record of a connection. */
void cf_upstream_detail(const struct cf_upstream *u, char *buf, size_t cap);
/* Connected to the upstream proxy: its CONNECT goes out. */
void cf_upstream_connected(struct conn *c);
/* The upstream proxy's answer (S_UPSTREAM): 0 going on, -1 ended or moved on. */
int cf_upstream_read(struct conn *c);
/* The relay starts: what the server sent with the upstream's answer goes to the client after
 * the reply.  0 or -1 (out of memory). */
int cf_upstream_leftover(struct conn *c);

/* proxy_secrets.c (R45): true when the request was refused (or taken over by the
 * inspector), and the caller must leave c alone. */
bool cf_proxy_secrets_head(struct conn *c, size_t head_len);
bool cf_proxy_secrets_socks(struct conn *c);
bool cf_proxy_secrets_take(struct conn *c);

/* proxy_relay.c */
void cf_dir_release(struct dir *d);
/* Connected to `a`: the relay starts (and the decision is recorded as connected). */
void cf_relay_start(struct conn *c, const struct cf_ip *a);
/* Moves what can be moved both ways: 1 when something moved, 0 when nothing, -1 when the
 * connection was ended (closed or refused). */
int cf_relay_progress(struct conn *c);

#endif

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
	W_UPSTREAM
};

struct conn;
struct handoff;
/* What an epoll event points at. */
struct ref {
	enum ref_what what;
	struct conn *c;
	struct handoff *h;
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

enum conn_kind { K_HTTP, K_SOCKS };
enum conn_state {
	S_HEAD,	   /* reading the request (HTTP head, SOCKS greeting and request) */
	S_RESOLVE, /* the name is with the resolver */
	S_CONNECT, /* connecting to addrs[next_addr] */
	S_RELAY,   /* both ways */
	S_REPLY,   /* sending a refusal, then S_LINGER */
	S_LINGER,  /* reading what the client still sends, so the refusal is not reset away */
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
	struct confine_net_event *events;
	size_t n_events, cap_events, dropped;
	/* The events of HTTP requests refused for carrying no credentials at all: a client's
	 * first try, which a 407 answers (cf_proxy_stop pairs each with its retry). */
	size_t *challenges;
	size_t n_challenges, cap_challenges;
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

/* proxy_conn.c */
void cf_conn_refuse(struct conn *c, int status, uint8_t socks_code, const char *text);
void cf_conn_close_upstream(struct conn *c);
int cf_conn_out_append(struct conn *c, const void *data, size_t n);
/* Appends n bytes to the queue *buf, whose bytes [*off, *len) are still to go, compacting what
 * went; 0, or -1 on out-of-memory (the queue as it was). */
int cf_queue_append(char **buf, size_t *off, size_t *len, const void *data, size_t n);
void cf_conn_client(struct conn *c, uint32_t events);
void cf_conn_upstream(struct conn *c, uint32_t events);
void cf_conn_resolved(struct conn *c, struct cf_resolve_job *job);
void cf_conn_timeout(struct conn *c);
void cf_conn_release(struct conn *c);

/* proxy_relay.c */
void cf_dir_release(struct dir *d);
/* Connected to `a`: the relay starts (and the decision is recorded as connected). */
void cf_relay_start(struct conn *c, const struct cf_ip *a);
/* Moves what can be moved both ways: 1 when something moved, 0 when nothing, -1 when the
 * connection was ended (closed or refused). */
int cf_relay_progress(struct conn *c);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * R43 in confine's proxy engine, in-process, with real sockets on 127.0.0.0/8 only and a
 * resolver of this file that counts every lookup:
 *   - live asks: an unlisted name asked and answered once, for the run, no, and not in time;
 *     requests for the same host waiting together asked once; without an asker, denied;
 *     a name refused by the answer never looked up;
 *   - an upstream proxy of this file on 127.0.0.8 that requires credentials: CONNECT and plain
 *     HTTP through it, with its credentials; wrong credentials; NO_PROXY; a denied name never
 *     reaching it;
 *   - the resolver inside, on sockets of this test: A answers from 198.18.0.0/15, the same
 *     address again, NXDOMAIN for a denied name (recorded once), no AAAA, PTR, TCP framing,
 *     and no lookup on the host for any of it.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "net/dns.h"
#include "net/proxy.h"
#include "net/resolver.h"
#include "rules/upstream.h"
#include "policy/policy.h"
#include "rules/netrules.h"
#include "../tap.h"

#define SERVER "127.0.0.5"
#define UPSTREAM "127.0.0.8"

/* ---- the resolver: every name below is 127.0.0.5; each lookup counted ------------------- */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static char looked_up[64][64];
static int n_looked;

int cf_net_lookup(const char *name, struct cf_ip *out, size_t max, char *reason, size_t cap)
{
	pthread_mutex_lock(&lock);
	if (getenv("DBG"))
		fprintf(stderr, "lookup %s\n", name);
	if (n_looked < 64)
		snprintf(looked_up[n_looked++], sizeof(looked_up[0]), "%s", name);
	pthread_mutex_unlock(&lock);
	if (strstr(name, ".test") && max) {
		cf_ip_parse(SERVER, strlen(SERVER), out);
		return 1;
	}
	snprintf(reason, cap, "unknown test name");
	return -1;
}

static int lookups_of(const char *name)
{
	int n = 0;
	pthread_mutex_lock(&lock);
	for (int i = 0; i < n_looked; i++)
		n += !strcmp(looked_up[i], name);
	pthread_mutex_unlock(&lock);
	return n;
}

/* ---- servers: echo and HTTP on 127.0.0.5, the upstream proxy on 127.0.0.8 ---------------- */

static int listen_on(const char *addr, int *port)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int one = 1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	struct sockaddr_in a = {.sin_family = AF_INET};
	inet_pton(AF_INET, addr, &a.sin_addr);
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(fd, 256) < 0) {
		perror("bind");
		exit(1);
	}
	socklen_t l = sizeof(a);
	getsockname(fd, (struct sockaddr *)&a, &l);
	*port = ntohs(a.sin_port);
	return fd;
}

static int connect_to(const char *addr, int port)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	inet_pton(AF_INET, addr, &a.sin_addr);
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Reads until `until` appears (NULL: until EOF) or ms pass. */
static size_t recv_until(int fd, char *buf, size_t cap, const char *until, int ms)
{
	size_t len = 0;
	buf[0] = '\0';
	while (len < cap - 1) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		if (poll(&p, 1, ms) <= 0)
			break;
		ssize_t k = recv(fd, buf + len, cap - 1 - len, 0);
		if (k <= 0)
			break;
		len += (size_t)k;
		buf[len] = '\0';
		if (until && strstr(buf, until))
			break;
	}
	return len;
}

static int echo_port, http_port, up_port;
static int up_connects;		   /* CONNECTs the upstream proxy answered with 200 */
static char up_last_target[300];   /* the last CONNECT's target */
static bool up_last_authorised;	   /* ...and whether it carried the right credentials */
static const char *up_credentials; /* "Basic ..." the upstream wants */

/* Both ways between two sockets until either ends. */
static void splice_both(int a, int b)
{
	char buf[16384];
	struct pollfd p[2] = {{.fd = a, .events = POLLIN}, {.fd = b, .events = POLLIN}};
	for (;;) {
		if (poll(p, 2, 10000) <= 0)
			return;
		for (int i = 0; i < 2; i++) {
			if (!p[i].revents)
				continue;
			ssize_t k = recv(p[i].fd, buf, sizeof(buf), 0);
			if (k <= 0 || send(p[1 - i].fd, buf, (size_t)k, MSG_NOSIGNAL) != k)
				return;
		}
	}
}

static void *one_conn(void *arg)
{
	int fd = (int)(intptr_t)arg, kind = fd >> 24;
	fd &= 0xffffff;
	char buf[8192];
	if (kind == 0) { /* echo */
		splice_both(fd, fd);
	} else if (kind == 1) { /* HTTP: one answer */
		if (recv_until(fd, buf, sizeof(buf), "\r\n\r\n", 10000)) {
			static const char ok[] =
			    "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello";
			send(fd, ok, sizeof(ok) - 1, MSG_NOSIGNAL);
		}
	} else { /* the upstream proxy: CONNECT NAME:PORT with credentials, then a tunnel */
		recv_until(fd, buf, sizeof(buf), "\r\n\r\n", 10000);
		char target[300] = "";
		sscanf(buf, "CONNECT %299s HTTP/1.1", target);
		char want[700];
		snprintf(want, sizeof(want), "\r\nProxy-Authorization: %s\r\n", up_credentials);
		bool authorised = strstr(buf, want) != NULL;
		pthread_mutex_lock(&lock);
		snprintf(up_last_target, sizeof(up_last_target), "%s", target);
		up_last_authorised = authorised;
		pthread_mutex_unlock(&lock);
		const char *colon = strrchr(target, ':');
		int s = colon && authorised ? connect_to(SERVER, atoi(colon + 1)) : -1;
		if (!authorised) {
			static const char no[] =
			    "HTTP/1.1 407 Proxy Authentication Required\r\n"
			    "Proxy-Authenticate: Basic\r\nContent-Length: 0\r\n\r\n";
			send(fd, no, sizeof(no) - 1, MSG_NOSIGNAL);
		} else if (s >= 0) {
			pthread_mutex_lock(&lock);
			up_connects++;
			pthread_mutex_unlock(&lock);
			static const char ok[] = "HTTP/1.1 200 Connection established\r\n\r\n";
			send(fd, ok, sizeof(ok) - 1, MSG_NOSIGNAL);
			splice_both(fd, s);
			close(s);
		}
	}
	close(fd);
	return NULL;
}

static void *acceptor(void *arg)
{
	int l = (int)(intptr_t)arg, kind = l >> 24;
	l &= 0xffffff;
	for (;;) {
		int fd = accept4(l, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0)
			continue;
		pthread_t t;
		pthread_create(&t, NULL, one_conn, (void *)(intptr_t)(fd | kind << 24));
		pthread_detach(t);
	}
	return NULL;
}

static void servers_start(void)
{
	int ports[3], *want[3] = {&echo_port, &http_port, &up_port};
	const char *addr[3] = {SERVER, SERVER, UPSTREAM};
	for (int k = 0; k < 3; k++) {
		int l = listen_on(addr[k], &ports[k]);
		*want[k] = ports[k];
		pthread_t t;
		pthread_create(&t, NULL, acceptor, (void *)(intptr_t)(l | k << 24));
		pthread_detach(t);
	}
}

/* ---- the asker: answers from a script, each question counted ---------------------------- */

struct asked {
	char host[256];
	uint16_t port;
	char protocol[8];
};
static struct asked questions[64];
static int n_questions;
static bool hold; /* the asker waits until released */

static enum confine_net_answer asker(const struct confine_net_ask *q, void *user)
{
	(void)user;
	pthread_mutex_lock(&lock);
	if (getenv("DBG"))
		fprintf(stderr, "asked %s:%u %s\n", q->host, q->port, q->protocol);
	if (n_questions < 64) {
		struct asked *a = &questions[n_questions++];
		a->port = q->port;
		snprintf(a->host, sizeof(a->host), "%s", q->host);
		snprintf(a->protocol, sizeof(a->protocol), "%s", q->protocol);
	}
	pthread_cond_broadcast(&cond);
	while (hold && !strcmp(q->host, "many.test"))
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
	if (!strncmp(q->host, "once", 4))
		return CONFINE_NET_ANSWER_ONCE;
	if (!strncmp(q->host, "run", 3) || !strcmp(q->host, "many.test"))
		return CONFINE_NET_ANSWER_RUN;
	if (!strncmp(q->host, "late", 4)) {
		struct timespec ts = {3, 0}; /* well past the 1 s bound */
		nanosleep(&ts, NULL);
		return CONFINE_NET_ANSWER_ONCE;
	}
	return (enum confine_net_answer)42; /* not an answer: deny */
}

static int asked_about(const char *host)
{
	int n = 0;
	pthread_mutex_lock(&lock);
	for (int i = 0; i < n_questions; i++)
		n += !strcmp(questions[i].host, host);
	pthread_mutex_unlock(&lock);
	return n;
}

/* ---- the proxy ---------------------------------------------------------------------------- */

static void rule(struct cf_net_policy *p, enum cf_action a, const char *pat)
{
	struct cf_net_rules rs = {0};
	struct cf_net_rule r = {0};
	cf_net_pattern_parse(pat, strlen(pat), &r);
	r.pattern = (char *)pat;
	r.action = a;
	r.source = "test";
	cf_net_rules_add(&rs, &r, NULL);
	cf_net_policy_add(p, CF_LAYER_SESSION, &rs, NULL);
	cf_net_rules_release(&rs);
}

/* A proxy with an HTTP listener on 127.0.0.1; its port in *port. */
static struct cf_proxy *start(const struct cf_proxy_config *cfg, const struct cf_net_policy *pol,
			      int *port)
{
	int l = listen_on("127.0.0.1", port);
	struct cf_proxy *p = NULL;
	if (cf_proxy_new(cfg, pol, l, -1, -1, &p, NULL) < 0 || cf_proxy_start(p, NULL) < 0) {
		printf("Bail out! the proxy does not start\n");
		exit(1);
	}
	return p;
}

/* CONNECT host:echo_port, then "ping" through it: the reply's first line, and whether the
 * echo came back. */
static bool tunnel(int proxy, const char *host, char *status, size_t cap)
{
	int fd = connect_to("127.0.0.1", proxy);
	char req[400], buf[4096];
	snprintf(req, sizeof(req), "CONNECT %s:%d HTTP/1.1\r\nHost: %s\r\n\r\n", host, echo_port,
		 host);
	send(fd, req, strlen(req), MSG_NOSIGNAL);
	recv_until(fd, buf, sizeof(buf), "\r\n\r\n", 10000);
	snprintf(status, cap, "%.*s", (int)strcspn(buf, "\r\n"), buf);
	bool ok = false;
	if (strstr(buf, " 200 ")) {
		send(fd, "ping", 4, MSG_NOSIGNAL);
		recv_until(fd, buf, sizeof(buf), "ping", 10000);
		ok = !strcmp(buf, "ping");
	} else {
		/* the refusal's text */
		size_t n = strlen(buf);
		recv_until(fd, buf + n, sizeof(buf) - n, NULL, 3000);
		snprintf(status, cap, "%s", buf);
	}
	close(fd);
	return ok;
}

static const struct cf_net_event *event_of(struct cf_proxy *p, const char *host, int nth)
{
	size_t n;
	const struct cf_net_event *ev = cf_proxy_events(p, &n, NULL);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(ev[i].decision.host, host) && nth-- == 0)
			return &ev[i];
	return NULL;
}

struct par {
	int proxy;
	bool ok;
};

static void *par_tunnel(void *arg)
{
	struct par *x = arg;
	char st[4096];
	x->ok = tunnel(x->proxy, "many.test", st, sizeof(st));
	return NULL;
}

static void test_asks(void)
{
	struct cf_net_policy pol = {0};
	rule(&pol, CF_ALLOW, SERVER); /* the address: names ask, their address is reachable */
	struct cf_proxy_config cfg = CF_PROXY_CONFIG_DEFAULT;
	cfg.ask = asker;
	cfg.ask_timeout_ms = 1000;
	int port;
	struct cf_proxy *p = start(&cfg, &pol, &port);
	char st[4096];

	bool ok = tunnel(port, "once.test", st, sizeof(st));
	TAP_OK(ok, "asked, allowed once: the tunnel works");
	ok = tunnel(port, "once.test", st, sizeof(st));
	TAP_OK(ok, "the next request is asked again");
	TAP_INTEQ(asked_about("once.test"), 2, "once: asked twice");
	ok = tunnel(port, "run.test", st, sizeof(st));
	ok = tunnel(port, "run.test", st, sizeof(st)) && ok;
	TAP_OK(ok, "allowed for the run: both requests work");
	TAP_INTEQ(asked_about("run.test"), 1, "for the run: asked once");
	ok = tunnel(port, "no.test", st, sizeof(st));
	TAP_OK(!ok && strstr(st, " 403 ") && strstr(st, "'no.test:") &&
		   strstr(st, "the answer to the question was: deny") &&
		   strstr(st, "--net-allow no.test"),
	       "denied: 403 naming the answer and the remedy");
	TAP_INTEQ(lookups_of("no.test"), 0, "a name the answer refused was never looked up");

	/* Five requests for one host while its question is open: one question. */
	pthread_mutex_lock(&lock);
	hold = true;
	pthread_mutex_unlock(&lock);
	struct par x[5];
	pthread_t t[5];
	for (int i = 0; i < 5; i++) {
		x[i] = (struct par){.proxy = port};
		pthread_create(&t[i], NULL, par_tunnel, &x[i]);
	}
	/* The question has arrived, and the five requests are waiting (give them the time to
	 * connect: each is a connection of the proxy's once its request is read). */
	for (int i = 0; i < 500 && asked_about("many.test") == 0; i++)
		usleep(10000);
	struct cf_proxy_stats s;
	for (int i = 0; i < 500; i++) {
		cf_proxy_stats(p, &s);
		if (s.active >= 5)
			break;
		usleep(10000);
	}
	pthread_mutex_lock(&lock);
	hold = false;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
	int good = 0;
	for (int i = 0; i < 5; i++) {
		pthread_join(t[i], NULL);
		good += x[i].ok;
	}
	TAP_INTEQ(good, 5, "five requests waiting for one host all go on with its answer");
	TAP_INTEQ(asked_about("many.test"), 1, "and the host was asked once");
	ok = tunnel(port, "late.test", st, sizeof(st));
	TAP_OK(!ok && strstr(st, " 403 ") && strstr(st, "not answered in time"),
	       "no answer within the bound: denied");
	TAP_INTEQ(lookups_of("late.test"), 0, "and never looked up");
	cf_proxy_stop(p);

	const struct cf_net_event *e = event_of(p, "once.test", 0);
	TAP_OK(e && !strcmp(e->answer, "once") && !strcmp(e->outcome, "connected") &&
		   e->decision.action == CONFINE_ASK && !strcmp(e->protocol, "connect"),
	       "recorded: ask, answered once, connected");
	e = event_of(p, "run.test", 1);
	TAP_OK(e && !strcmp(e->answer, "earlier") && !strcmp(e->outcome, "connected"),
	       "the second request for the run's host: allowed by the earlier answer");
	e = event_of(p, "no.test", 0);
	TAP_OK(e && !strcmp(e->answer, "deny") && !strcmp(e->outcome, "denied"),
	       "recorded: answered deny, denied");
	e = event_of(p, "late.test", 0);
	TAP_OK(e && !strcmp(e->answer, "timeout") && !strcmp(e->outcome, "denied"),
	       "recorded: no answer in time, denied");
	cf_proxy_free(p);

	/* Without an asker a host no rule names is denied at once, as before. */
	cfg.ask = NULL;
	p = start(&cfg, &pol, &port);
	ok = tunnel(port, "once.test", st, sizeof(st));
	TAP_OK(!ok && strstr(st, " 403 ") && strstr(st, "no rule allows it"),
	       "without an asker: denied");
	cf_proxy_free(p);
	cf_net_policy_release(&pol);
}

/* ---- the upstream proxy ------------------------------------------------------------------ */

static void test_upstream(void)
{
	struct cf_net_policy pol = {0};
	rule(&pol, CF_ALLOW, "up.test");
	rule(&pol, CF_ALLOW, "direct.test");
	rule(&pol, CF_ALLOW, SERVER);
	struct cf_upstream u;
	char url[200];
	snprintf(url, sizeof(url), "http://us%%65r:pa%%20ss@" UPSTREAM ":%d", up_port);
	const char *why = cf_upstream_parse(url, &u);
	TAP_OK(why == NULL, "the upstream's URL");
	cf_upstream_no_proxy(&u, "direct.test");
	u.addrs[0] = u.ip;
	u.n_addrs = 1;
	up_credentials = "Basic dXNlcjpwYSBzcw=="; /* user:pa ss */
	struct cf_proxy_config cfg = CF_PROXY_CONFIG_DEFAULT;
	cfg.upstream = &u;
	int port;
	struct cf_proxy *p = start(&cfg, &pol, &port);
	char st[4096], want[64];

	bool ok = tunnel(port, "up.test", st, sizeof(st));
	TAP_OK(ok, "CONNECT through the upstream proxy");
	snprintf(want, sizeof(want), "up.test:%d", echo_port);
	pthread_mutex_lock(&lock);
	bool named = !strcmp(up_last_target, want) && up_last_authorised;
	int connects = up_connects;
	pthread_mutex_unlock(&lock);
	TAP_OK(named, "the upstream was asked for the name, with its credentials (%s)",
	       up_last_target);
	TAP_INTEQ(lookups_of("up.test"), 1,
		  "the name was resolved on the host first (and checked)");

	int fd = connect_to("127.0.0.1", port);
	char req[300], buf[4096];
	snprintf(req, sizeof(req), "GET http://up.test:%d/x HTTP/1.1\r\nHost: up.test\r\n\r\n",
		 http_port);
	send(fd, req, strlen(req), MSG_NOSIGNAL);
	recv_until(fd, buf, sizeof(buf), NULL, 10000);
	close(fd);
	TAP_OK(strstr(buf, "HTTP/1.1 200 OK") && strstr(buf, "hello"),
	       "plain HTTP through the upstream proxy's tunnel");

	ok = tunnel(port, "direct.test", st, sizeof(st));
	TAP_OK(ok, "a host NO_PROXY names: directly");
	pthread_mutex_lock(&lock);
	TAP_INTEQ(up_connects, connects + 1,
		  "the upstream saw the plain request, not the direct one");
	pthread_mutex_unlock(&lock);

	ok = tunnel(port, "evil.test", st, sizeof(st));
	TAP_OK(!ok && strstr(st, " 403 "), "a name no rule allows: refused before the upstream");
	pthread_mutex_lock(&lock);
	TAP_OK(!strstr(up_last_target, "evil.test"), "the upstream never heard of it");
	pthread_mutex_unlock(&lock);
	cf_proxy_stop(p);
	const struct cf_net_event *e = event_of(p, "up.test", 0);
	char detail[100];
	snprintf(detail, sizeof(detail), "through the upstream proxy http://" UPSTREAM ":%d",
		 up_port);
	TAP_OK(e && !strcmp(e->outcome, "connected") && !strcmp(e->detail, detail) &&
		   !strcmp(e->address, SERVER),
	       "recorded: connected through the upstream, with the checked address");
	TAP_OK(!strstr(e ? e->detail : "", "pa ss"), "the record holds no credentials");
	cf_proxy_free(p);

	/* Wrong credentials: the upstream says 407, confine says so. */
	up_credentials = "Basic bm90OnRoaXM=";
	p = start(&cfg, &pol, &port);
	ok = tunnel(port, "up.test", st, sizeof(st));
	TAP_OK(!ok && strstr(st, " 502 ") && strstr(st, "answered the CONNECT with 407"),
	       "the upstream refuses the credentials: 502 naming its 407");
	cf_proxy_free(p);
	cf_upstream_release(&u);
	cf_net_policy_release(&pol);
}

/* ---- the resolver inside ----------------------------------------------------------------- */

static size_t dns_query(const char *name, uint16_t type, uint8_t *out)
{
	static const uint8_t head[12] = {0xab, 0xcd, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0};
	memcpy(out, head, 12);
	size_t o = 12;
	for (const char *s = name; *s;) {
		size_t n = strcspn(s, ".");
		out[o++] = (uint8_t)n;
		memcpy(out + o, s, n);
		o += n;
		s += n + (s[n] == '.');
	}
	out[o++] = 0;
	out[o++] = (uint8_t)(type >> 8);
	out[o++] = (uint8_t)type;
	out[o++] = 0;
	out[o++] = 1;
	return o;
}

/* The answer over UDP to `port`: rcode, and the address of an A record (0.0.0.0 none). */
static int udp_ask(int port, const char *name, uint16_t type, char *addr, size_t cap)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	inet_pton(AF_INET, SERVER, &a.sin_addr);
	uint8_t q[300], r[600];
	size_t n = dns_query(name, type, q);
	sendto(fd, q, n, 0, (struct sockaddr *)&a, sizeof(a));
	struct pollfd p = {.fd = fd, .events = POLLIN};
	ssize_t k = poll(&p, 1, 5000) == 1 ? recv(fd, r, sizeof(r), 0) : -1;
	close(fd);
	snprintf(addr, cap, "-");
	if (k < 12 || r[0] != 0xab || r[1] != 0xcd)
		return -1;
	if (r[7] == 1 && (size_t)k >= n + 16 && r[n + 3] == 1)
		snprintf(addr, cap, "%u.%u.%u.%u", r[n + 12], r[n + 13], r[n + 14], r[n + 15]);
	else if (r[7] == 1 && r[n + 3] == 12)
		snprintf(addr, cap, "ptr %u", r[n + 12]);
	return r[3] & 0xf;
}

static void test_inside(void)
{
	struct cf_net_policy pol = {0};
	rule(&pol, CF_ALLOW, "api.test");
	rule(&pol, CF_DENY, "*.evil.test");
	struct cf_proxy_config cfg = CF_PROXY_CONFIG_DEFAULT;
	int port, dport, tport;
	struct cf_proxy *p = start(&cfg, &pol, &port);
	int u = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), one = 1;
	setsockopt(u, IPPROTO_IP, IP_PKTINFO, &one, sizeof(one));
	struct sockaddr_in a = {.sin_family = AF_INET};
	inet_pton(AF_INET, SERVER, &a.sin_addr);
	bind(u, (struct sockaddr *)&a, sizeof(a));
	socklen_t al = sizeof(a);
	getsockname(u, (struct sockaddr *)&a, &al);
	dport = ntohs(a.sin_port);
	int tl = listen_on(SERVER, &tport);
	struct cf_inside_fds fds = {u, -1, tl, -1, -1, -1};
	TAP_INTEQ(cf_proxy_inside(p, &fds, NULL), 0, "the resolver's sockets go to the proxy");
	int before = n_looked;
	char addr[64];
	TAP_OK(udp_ask(dport, "api.test", 1, addr, sizeof(addr)) == 0 &&
		   !strcmp(addr, "198.18.0.1"),
	       "an allowed name: 198.18.0.1 (%s)", addr);
	TAP_OK(udp_ask(dport, "other.test", 1, addr, sizeof(addr)) == 0 &&
		   !strcmp(addr, "198.18.0.2"),
	       "a name no rule names: an address too (asked when it is connected to)");
	TAP_OK(udp_ask(dport, "API.test", 1, addr, sizeof(addr)) == 0 &&
		   !strcmp(addr, "198.18.0.1"),
	       "the same name again (any case): the same address");
	for (int i = 0; i < 3; i++)
		TAP_OK(udp_ask(dport, "x.evil.test", 1, addr, sizeof(addr)) == 3,
		       "a denied name: NXDOMAIN (%d)", i + 1);
	TAP_OK(udp_ask(dport, "api.test", 28, addr, sizeof(addr)) == 0 && !strcmp(addr, "-"),
	       "AAAA: no address");
	TAP_OK(udp_ask(dport, "localhost", 1, addr, sizeof(addr)) == 0 &&
		   !strcmp(addr, "127.0.0.1"),
	       "localhost: the sandbox's own loopback");
	TAP_OK(udp_ask(dport, "app.localhost", 1, addr, sizeof(addr)) == 0 &&
		   !strcmp(addr, "127.0.0.1"),
	       "a name below localhost too");
	TAP_OK(udp_ask(dport, "1.0.18.198.in-addr.arpa", 12, addr, sizeof(addr)) == 0 &&
		   !strcmp(addr, "ptr 3"),
	       "PTR of 198.18.0.1: api.test (its first label, 3 bytes)");
	TAP_OK(udp_ask(dport, "9.9.18.198.in-addr.arpa", 12, addr, sizeof(addr)) == 3,
	       "PTR of an address never handed out: NXDOMAIN");

	/* TCP: a length, then the query; two queries on one connection. */
	int fd = connect_to(SERVER, tport);
	uint8_t q[300], r[1200];
	size_t n = dns_query("api.test", 1, q + 2);
	q[0] = 0;
	q[1] = (uint8_t)n;
	send(fd, q, n + 2, MSG_NOSIGNAL);
	send(fd, q, n + 2, MSG_NOSIGNAL);
	size_t got = 0;
	struct pollfd pf = {.fd = fd, .events = POLLIN};
	while (got < 2 * (n + 2 + 16) && poll(&pf, 1, 5000) == 1) {
		ssize_t k = recv(fd, r + got, sizeof(r) - got, 0);
		if (k <= 0)
			break;
		got += (size_t)k;
	}
	close(fd);
	size_t one_len = (size_t)r[0] << 8 | r[1];
	TAP_OK(got == 2 * (one_len + 2) && one_len == n + 16 && r[2 + n + 12] == 198 &&
		   r[2 + n + 15] == 1,
	       "over TCP: two answers, each with its length, 198.18.0.1");
	TAP_INTEQ(n_looked, before, "nothing was looked up on the host for any of it");

	/* The bound of TCP connections: 64 held idle, a 65th waits in the backlog until one of
	 * them goes. */
	int held[64];
	for (int i = 0; i < 64; i++)
		held[i] = connect_to(SERVER, tport);
	usleep(200 * 1000);
	fd = connect_to(SERVER, tport);
	send(fd, q, n + 2, MSG_NOSIGNAL);
	pf = (struct pollfd){.fd = fd, .events = POLLIN};
	struct cf_proxy_stats st0, st1;
	cf_proxy_stats(p, &st0);
	int early = poll(&pf, 1, 300);
	cf_proxy_stats(p, &st1);
	TAP_OK(st1.wakeups - st0.wakeups < 50,
	       "while at the bound the proxy's loop does not spin (%lu rounds in 300 ms)",
	       st1.wakeups - st0.wakeups);
	close(held[0]);
	ssize_t k = poll(&pf, 1, 5000) == 1 ? recv(fd, r, sizeof(r), 0) : -1;
	TAP_OK(early == 0 && k == (ssize_t)(n + 18),
	       "the 65th TCP connection is answered once one of 64 goes (early %d, %zd bytes)",
	       early, k);
	close(fd);
	for (int i = 1; i < 64; i++)
		close(held[i]);
	cf_proxy_stop(p);
	size_t ne;
	const struct cf_net_event *ev = cf_proxy_events(p, &ne, NULL);
	int dns = 0;
	for (size_t i = 0; i < ne; i++)
		dns += !strcmp(ev[i].protocol, "dns");
	const struct cf_net_event *e = event_of(p, "x.evil.test", 0);
	TAP_OK(dns == 1 && e && !strcmp(e->outcome, "denied") && e->decision.port == 0 &&
		   e->decision.has_rule && !strcmp(e->decision.pattern, "*.evil.test"),
	       "the refusal is recorded once, with its rule (%d dns events)", dns);
	cf_proxy_free(p);
	cf_net_policy_release(&pol);
}

int main(void)
{
	servers_start();
	test_asks();
	test_upstream();
	test_inside();
	return tap_done();
}

/* SPDX-License-Identifier: MIT */
/*
 * confine's proxy engine in-process (SPEC 12, R31), with real sockets on 127.0.0.0/8 only and a
 * resolver of this file (names from a table; every lookup counted, so a denied name is shown
 * never to reach it).  Allowed, denied (no rule, a deny rule), rebinding to loopback and to the
 * metadata address, literals, SOCKS5; then hostile clients: a 1 MB request line, a header
 * flood, slowloris, half-closed sockets, a lookup that hangs, the connection bound and 1,000
 * parallel connections, each while an ordinary request is answered.
 */
#include <errno.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "net/proxy.h"
#include "net/resolver.h"
#include "util/util.h"
#include "../tap.h"

#define SERVER_ADDR "127.0.0.5"

/* ---- the test resolver ---------------------------------------------------------------- */

static pthread_mutex_t res_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t res_cond = PTHREAD_COND_INITIALIZER;
static bool slow_released, slow_started;
static int lookups_of_denied, lookups_total;

int cf_net_lookup(const char *name, struct cf_ip *out, size_t max, char *reason, size_t cap)
{
	static const struct {
		const char *name;
		const char *addrs[2];
	} table[] = {
	    {"ok.test", {SERVER_ADDR}},	    {"other.test", {SERVER_ADDR}},
	    {"denied.test", {SERVER_ADDR}}, {"ruled.test", {SERVER_ADDR}},
	    {"rebind.test", {"127.0.0.1"}}, {"meta.test", {"169.254.169.254"}},
	    {"private.test", {"10.1.2.3"}}, {"multi.test", {"127.0.0.1", SERVER_ADDR}},
	    {"slow.test", {SERVER_ADDR}},
	};
	pthread_mutex_lock(&res_lock);
	lookups_total++;
	if (!strcmp(name, "denied.test") || !strcmp(name, "ruled.test"))
		lookups_of_denied++;
	if (!strcmp(name, "slow.test")) {
		slow_started = true;
		pthread_cond_broadcast(&res_cond);
		while (!slow_released)
			pthread_cond_wait(&res_cond, &res_lock);
	}
	pthread_mutex_unlock(&res_lock);
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		if (strcmp(table[i].name, name))
			continue;
		size_t n = 0;
		for (size_t k = 0; k < 2 && table[i].addrs[k] && n < max; k++)
			if (cf_ip_parse(table[i].addrs[k], strlen(table[i].addrs[k]), &out[n]))
				n++;
		return (int)n;
	}
	snprintf(reason, cap, "unknown test name");
	return -1;
}

/* ---- test servers on 127.0.0.5: echo and HTTP, one poll loop ---------------------------- */

struct srv {
	int echo_l, http_l;
	int echo_port, http_port;
	int stop_r, stop_w;
	pthread_t t;
	pthread_mutex_t lock;
	char last_head[4096];
	int http_served;
};

static int listen_on(const char *addr, int *port)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int one = 1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	struct sockaddr_in a = {.sin_family = AF_INET};
	inet_pton(AF_INET, addr, &a.sin_addr);
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(fd, 4096) < 0) {
		perror("bind");
		exit(1);
	}
	socklen_t l = sizeof(a);
	getsockname(fd, (struct sockaddr *)&a, &l);
	*port = ntohs(a.sin_port);
	return fd;
}

#define MAXC 2100
struct sconn {
	int fd;
	bool http;
	char buf[4096];
	size_t len;
};

static void *serve(void *arg)
{
	struct srv *s = arg;
	static struct sconn conns[MAXC];
	static struct pollfd pfd[MAXC + 3];
	size_t n = 0;
	for (;;) {
		pfd[0] = (struct pollfd){.fd = s->stop_r, .events = POLLIN};
		pfd[1] = (struct pollfd){.fd = s->echo_l, .events = POLLIN};
		pfd[2] = (struct pollfd){.fd = s->http_l, .events = POLLIN};
		for (size_t i = 0; i < n; i++)
			pfd[3 + i] = (struct pollfd){.fd = conns[i].fd, .events = POLLIN};
		if (poll(pfd, 3 + n, -1) < 0)
			continue;
		if (pfd[0].revents)
			break;
		/* Only the connections this poll looked at; the new ones come next round. */
		size_t polled = n;
		for (int l = 1; l <= 2; l++) {
			if (!pfd[l].revents || n == MAXC)
				continue;
			int fd = accept4(pfd[l].fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
			if (fd >= 0)
				conns[n++] = (struct sconn){.fd = fd, .http = l == 2};
		}
		for (size_t i = 0; i < polled; i++) {
			if (!pfd[3 + i].revents)
				continue;
			struct sconn *c = &conns[i];
			ssize_t k = recv(c->fd, c->buf + c->len, sizeof(c->buf) - 1 - c->len, 0);
			bool done = k == 0 || (k < 0 && errno != EAGAIN);
			if (k > 0 && !c->http) {
				send(c->fd, c->buf, (size_t)k, MSG_NOSIGNAL);
			} else if (k > 0) {
				c->len += (size_t)k;
				c->buf[c->len] = '\0';
				if (strstr(c->buf, "\r\n\r\n") || c->len == sizeof(c->buf) - 1) {
					pthread_mutex_lock(&s->lock);
					snprintf(s->last_head, sizeof(s->last_head), "%s", c->buf);
					s->http_served++;
					pthread_mutex_unlock(&s->lock);
					static const char resp[] =
					    "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: "
					    "keep-alive\r\nKeep-Alive: timeout=5\r\n\r\nhello";
					send(c->fd, resp, sizeof(resp) - 1, MSG_NOSIGNAL);
					done = true;
				}
			} else if (k == 0 && !c->http) {
				shutdown(c->fd, SHUT_WR); /* an echo passes the half-close on */
			}
			if (done) {
				close(c->fd);
				c->fd = -1;
			}
		}
		size_t keep = 0;
		for (size_t i = 0; i < n; i++)
			if (conns[i].fd >= 0)
				conns[keep++] = conns[i];
		n = keep;
	}
	for (size_t i = 0; i < n; i++)
		close(conns[i].fd);
	return NULL;
}

static void srv_start(struct srv *s)
{
	memset(s, 0, sizeof(*s));
	pthread_mutex_init(&s->lock, NULL);
	s->echo_l = listen_on(SERVER_ADDR, &s->echo_port);
	s->http_l = listen_on(SERVER_ADDR, &s->http_port);
	int p[2];
	if (pipe(p) < 0)
		exit(1);
	s->stop_r = p[0];
	s->stop_w = p[1];
	pthread_create(&s->t, NULL, serve, s);
}

static void srv_stop(struct srv *s)
{
	ssize_t k = write(s->stop_w, "x", 1);
	(void)k;
	pthread_join(s->t, NULL);
	close(s->echo_l);
	close(s->http_l);
	close(s->stop_r);
	close(s->stop_w);
}

/* ---- clients ---------------------------------------------------------------------------- */

static int connect_port(int port)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static bool send_all(int fd, const void *b, size_t n)
{
	const char *p = b;
	while (n) {
		ssize_t k = send(fd, p, n, MSG_NOSIGNAL);
		if (k <= 0)
			return false;
		p += k;
		n -= (size_t)k;
	}
	return true;
}

/* Reads until `until` appears (NULL: until EOF) or ms pass; returns the length read. */
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

/* One request through the HTTP proxy: the whole answer (until the proxy closes). */
static char *http_request(int proxy_port, const char *req)
{
	static char buf[65536];
	int fd = connect_port(proxy_port);
	if (fd < 0 || !send_all(fd, req, strlen(req))) {
		if (fd >= 0)
			close(fd);
		return "";
	}
	recv_until(fd, buf, sizeof(buf), NULL, 30000);
	close(fd);
	return buf;
}

/* CONNECT then an echo exchange through it. */
static bool tunnel_echo(int proxy_port, const char *target)
{
	char req[512], buf[4096];
	int fd = connect_port(proxy_port);
	if (fd < 0)
		return false;
	snprintf(req, sizeof(req), "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", target, target);
	bool ok = send_all(fd, req, strlen(req)) &&
		  recv_until(fd, buf, sizeof(buf), "\r\n\r\n", 30000) &&
		  !strncmp(buf, "HTTP/1.1 200 ", 13) && send_all(fd, "ping", 4) &&
		  recv_until(fd, buf, sizeof(buf), "ping", 30000) && !strcmp(buf, "ping");
	close(fd);
	return ok;
}

static int socks_connect(int port, const char *name, int dport, uint8_t cmd, uint8_t *code)
{
	int fd = connect_port(port);
	uint8_t req[300];
	size_t n = strlen(name);
	memcpy(req, "\x05\x01\x00", 3);
	req[3] = 5;
	req[4] = cmd;
	req[5] = 0;
	req[6] = 3;
	req[7] = (uint8_t)n;
	memcpy(req + 8, name, n);
	req[8 + n] = (uint8_t)(dport >> 8);
	req[9 + n] = (uint8_t)dport;
	char buf[64];
	*code = 0xff;
	if (!send_all(fd, req, 10 + n)) {
		close(fd);
		return -1;
	}
	size_t got = 0;
	while (got < 12) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		if (poll(&p, 1, 30000) <= 0)
			break;
		ssize_t k = recv(fd, buf + got, 12 - got, 0);
		if (k <= 0)
			break;
		got += (size_t)k;
	}
	if (got == 12 && buf[0] == 5 && buf[1] == 0)
		*code = (uint8_t)buf[3];
	return fd;
}

/* ---- the proxy under test ---------------------------------------------------------------- */

static struct cf_net_policy policy;

static void rule(enum cf_layer l, enum cf_action a, const char *pat)
{
	struct cf_net_rules rs = {0};
	struct cf_net_rule r = {0};
	cf_net_pattern_parse(pat, strlen(pat), &r);
	r.pattern = (char *)pat;
	r.action = a;
	r.source = l == CF_LAYER_SESSION ? "session" : "/u/rules.json";
	r.line = l == CF_LAYER_SESSION ? 0 : 7;
	r.column = 5;
	cf_net_rules_add(&rs, &r, NULL);
	cf_net_policy_add(&policy, l, &rs, NULL);
	cf_net_rules_release(&rs);
}

static struct cf_proxy *start_proxy(const struct cf_proxy_config *cfg, int *http_port,
				    int *socks_port)
{
	int hl = listen_on("127.0.0.1", http_port), sl = listen_on("127.0.0.1", socks_port);
	struct cf_proxy *p = NULL;
	struct confine_error err = {0};
	if (cf_proxy_new(cfg, &policy, hl, sl, -1, &p, &err) < 0 || cf_proxy_start(p, &err) < 0) {
		printf("# %s: %s\n", err.what, err.reason);
		exit(1);
	}
	return p;
}

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static struct srv srv;
static int hp, sp;

static bool ordinary_request_on(int port, const char *when)
{
	uint64_t t = now_ms();
	char target[64];
	snprintf(target, sizeof(target), "ok.test:%d", srv.echo_port);
	bool ok = tunnel_echo(port, target);
	TAP_OK(ok, "%s: an ordinary request is answered meanwhile (%llu ms)", when,
	       (unsigned long long)(now_ms() - t));
	return ok;
}

static bool ordinary_request_works(const char *when)
{
	return ordinary_request_on(hp, when);
}

static void test_decisions(void)
{
	char req[512], target[64];
	snprintf(target, sizeof(target), "ok.test:%d", srv.echo_port);
	TAP_OK(tunnel_echo(hp, target), "CONNECT to an allowed name: 200 and the tunnel works");
	snprintf(target, sizeof(target), "%s:%d", SERVER_ADDR, srv.echo_port);
	TAP_OK(tunnel_echo(hp, target), "CONNECT to an address a rule names");

	snprintf(req, sizeof(req),
		 "GET http://ok.test:%d/x?y HTTP/1.1\r\nHost: evil.test\r\nProxy-Connection: "
		 "keep-alive\r\nUser-Agent: t\r\n\r\n",
		 srv.http_port);
	char *resp = http_request(hp, req);
	TAP_OK(!strncmp(resp, "HTTP/1.1 200 OK\r\n", 17) && strstr(resp, "\r\n\r\nhello") &&
		   strstr(resp, "Connection: close\r\n") && !strstr(resp, "Keep-Alive"),
	       "absolute-URI GET: the response, with Connection: close");
	pthread_mutex_lock(&srv.lock);
	char expect[128];
	snprintf(expect, sizeof(expect), "GET /x?y HTTP/1.1\r\nHost: ok.test:%d\r\n",
		 srv.http_port);
	TAP_OK(!strncmp(srv.last_head, expect, strlen(expect)) &&
		   strstr(srv.last_head, "User-Agent: t\r\nConnection: close\r\n\r\n") &&
		   !strstr(srv.last_head, "evil.test") && !strstr(srv.last_head, "Proxy-"),
	       "the server got origin form, the URI's Host, no proxy headers");
	pthread_mutex_unlock(&srv.lock);

	snprintf(req, sizeof(req), "CONNECT denied.test:%d HTTP/1.1\r\n\r\n", srv.echo_port);
	resp = http_request(hp, req);
	TAP_OK(!strncmp(resp, "HTTP/1.1 403 Forbidden\r\n", 24) &&
		   strstr(resp, "confine: network request denied: 'denied.test:") &&
		   strstr(resp, "no rule allows it") && strstr(resp, "--net-allow denied.test"),
	       "an unlisted name: 403 naming confine, the host and the remedy");
	snprintf(req, sizeof(req), "GET http://ruled.test:%d/ HTTP/1.1\r\n\r\n", srv.http_port);
	resp = http_request(hp, req);
	TAP_OK(strstr(resp, "403 Forbidden") &&
		   strstr(resp, "denied by rule 'ruled.test' (/u/rules.json:7:5, user layer)"),
	       "a denied name: 403 naming the rule, its file, line and layer");
	pthread_mutex_lock(&res_lock);
	TAP_INTEQ(lookups_of_denied, 0, "a denied name never reaches the resolver");
	pthread_mutex_unlock(&res_lock);

	snprintf(req, sizeof(req), "CONNECT rebind.test:%d HTTP/1.1\r\n\r\n", srv.echo_port);
	resp = http_request(hp, req);
	TAP_OK(strstr(resp, "403 Forbidden") && strstr(resp, "127.0.0.1 is a loopback address") &&
		   strstr(resp, "--net-allow 127.0.0.1"),
	       "an allowed name that resolves to 127.0.0.1: refused");
	snprintf(req, sizeof(req), "CONNECT meta.test:80 HTTP/1.1\r\n\r\n");
	resp = http_request(hp, req);
	TAP_OK(strstr(resp, "403 Forbidden") && strstr(resp, "169.254.169.254 is a link-local"),
	       "an allowed name that resolves to 169.254.169.254: refused");
	snprintf(req, sizeof(req), "CONNECT private.test:80 HTTP/1.1\r\n\r\n");
	resp = http_request(hp, req);
	TAP_OK(strstr(resp, "403 Forbidden") && strstr(resp, "10.1.2.3 is a private"),
	       "an allowed name that resolves to 10.1.2.3: refused");
	snprintf(target, sizeof(target), "multi.test:%d", srv.echo_port);
	TAP_OK(tunnel_echo(hp, target), "a name with a refused and an allowed address: the allowed "
					"one");
	snprintf(req, sizeof(req), "CONNECT 127.0.0.1:%d HTTP/1.1\r\n\r\n", srv.echo_port);
	resp = http_request(hp, req);
	TAP_OK(strstr(resp, "403 Forbidden") && strstr(resp, "no rule allows it"),
	       "an address literal no rule names: 403");
	resp = http_request(hp, "GET http://nosuch.test/ HTTP/1.1\r\n\r\n");
	TAP_OK(strstr(resp, "502 Bad Gateway") && strstr(resp, "cannot resolve 'nosuch.test'"),
	       "an allowed name that does not resolve: 502");
	resp = http_request(hp, "GET /local HTTP/1.1\r\nHost: x\r\n\r\n");
	TAP_OK(strstr(resp, "400 Bad Request") && strstr(resp, "absolute URI"),
	       "an origin-form request: 400 explaining the proxy");

	uint8_t code;
	int fd = socks_connect(sp, "ok.test", srv.echo_port, 1, &code);
	char buf[64];
	TAP_INTEQ(code, 0, "SOCKS5 CONNECT to an allowed name: success");
	TAP_OK(send_all(fd, "ping", 4) && recv_until(fd, buf, sizeof(buf), "ping", 30000) == 4,
	       "and the tunnel works");
	close(fd);
	close(socks_connect(sp, "denied.test", srv.echo_port, 1, &code));
	TAP_INTEQ(code, 2, "SOCKS5 to an unlisted name: 'not allowed by ruleset'");
	close(socks_connect(sp, "rebind.test", srv.echo_port, 1, &code));
	TAP_INTEQ(code, 2, "SOCKS5 to a name that rebinds to loopback: not allowed");
	close(socks_connect(sp, "ok.test", srv.echo_port, 2, &code));
	TAP_INTEQ(code, 7, "SOCKS5 BIND: 'command not supported'");
}

static void test_hostile(void)
{
	/* A 1 MB request line: 414 after 8 KiB, read while the client still writes. */
	size_t big = 1024 * 1024;
	char *line = malloc(big);
	memset(line, 'a', big);
	memcpy(line, "GET http://ok.test/", 19);
	int fd = connect_port(hp);
	char buf[8192];
	struct pollfd pw = {.fd = fd, .events = POLLOUT};
	size_t sent = 0;
	while (sent < big && poll(&pw, 1, 2000) > 0) {
		ssize_t k = send(fd, line + sent, big - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (k <= 0)
			break;
		sent += (size_t)k;
	}
	recv_until(fd, buf, sizeof(buf), "\r\n\r\n", 30000);
	TAP_OK(!strncmp(buf, "HTTP/1.1 414 ", 13), "a 1 MB request line: 414 (%zu bytes sent)",
	       sent);
	close(fd);
	free(line);

	/* A header flood. */
	struct cf_buf b;
	cf_buf_init(&b);
	cf_buf_add(&b, "GET http://ok.test/ HTTP/1.1\r\n");
	for (int i = 0; i < 5000; i++)
		cf_buf_addf(&b, "X-Flood-%d: %d\r\n", i, i);
	fd = connect_port(hp);
	send_all(fd, b.s, b.len);
	recv_until(fd, buf, sizeof(buf), "\r\n\r\n", 30000);
	TAP_OK(!strncmp(buf, "HTTP/1.1 431 ", 13), "5000 header lines: 431");
	close(fd);
	cf_buf_release(&b);

	/* Slowloris, on a proxy with a head timeout of 400 ms: 50 connections trickling a head;
	 * served requests meanwhile, then a 408 for each. */
	struct cf_proxy_config scfg = CF_PROXY_CONFIG_DEFAULT;
	scfg.head_timeout_ms = 400;
	scfg.linger_ms = 300;
	int shp, ssp;
	struct cf_proxy *sp2 = start_proxy(&scfg, &shp, &ssp);
	int slow[50];
	for (int i = 0; i < 50; i++) {
		slow[i] = connect_port(shp);
		send_all(slow[i], "GET http://ok.test/ HTTP/1.1\r\nX", 31);
	}
	ordinary_request_on(shp, "50 slowloris connections");
	uint64_t t0 = now_ms();
	bool all_408 = true;
	for (int i = 0; i < 50; i++) {
		/* One more byte now and then: a deadline from accept, not from the last byte. */
		send(slow[i], "-", 1, MSG_NOSIGNAL);
		recv_until(slow[i], buf, sizeof(buf), "\r\n\r\n", 5000);
		all_408 &= !strncmp(buf, "HTTP/1.1 408 ", 13);
		close(slow[i]);
	}
	TAP_OK(all_408, "every slowloris connection gets 408 after the head timeout (%llu ms)",
	       (unsigned long long)(now_ms() - t0));
	cf_proxy_free(sp2);

	/* Half-closed: the request, then shutdown(SHUT_WR); the answer still comes. */
	char req[256];
	snprintf(req, sizeof(req), "GET http://ok.test:%d/ HTTP/1.1\r\n\r\n", srv.http_port);
	fd = connect_port(hp);
	send_all(fd, req, strlen(req));
	shutdown(fd, SHUT_WR);
	recv_until(fd, buf, sizeof(buf), NULL, 30000);
	TAP_OK(strstr(buf, "200 OK") && strstr(buf, "hello"),
	       "a client that half-closes after its request still gets the response");
	close(fd);
	snprintf(req, sizeof(req), "CONNECT ok.test:%d HTTP/1.1\r\n\r\n", srv.echo_port);
	fd = connect_port(hp);
	send_all(fd, req, strlen(req));
	recv_until(fd, buf, sizeof(buf), "\r\n\r\n", 30000);
	send_all(fd, "last words", 10);
	shutdown(fd, SHUT_WR);
	recv_until(fd, buf, sizeof(buf), NULL, 30000);
	TAP_STREQ(buf, "last words",
		  "a tunnel passes the half-close on: the echo, then end of file");
	close(fd);
	/* A client that sends its request and leaves at once: nothing breaks. */
	for (int i = 0; i < 20; i++) {
		fd = connect_port(hp);
		send_all(fd, req, strlen(req));
		struct linger lg = {1, 0};
		setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
		close(fd); /* a reset */
	}
	ordinary_request_works("20 clients reset mid-request");

	/* A lookup that hangs: other connections go on. */
	int sfd = connect_port(hp);
	snprintf(req, sizeof(req), "CONNECT slow.test:%d HTTP/1.1\r\n\r\n", srv.echo_port);
	send_all(sfd, req, strlen(req));
	pthread_mutex_lock(&res_lock);
	while (!slow_started)
		pthread_cond_wait(&res_cond, &res_lock);
	pthread_mutex_unlock(&res_lock);
	ordinary_request_works("a lookup hangs");
	pthread_mutex_lock(&res_lock);
	slow_released = true;
	pthread_cond_broadcast(&res_cond);
	pthread_mutex_unlock(&res_lock);
	recv_until(sfd, buf, sizeof(buf), "\r\n\r\n", 30000);
	TAP_OK(!strncmp(buf, "HTTP/1.1 200 ", 13), "the slow lookup's connection is made after it");
	close(sfd);
}

static void test_parallel(void)
{
	enum { N = 1000 };
	static int fds[N];
	char req[128], buf[256];
	snprintf(req, sizeof(req), "CONNECT ok.test:%d HTTP/1.1\r\n\r\n", srv.echo_port);
	int opened = 0;
	for (int i = 0; i < N; i++) {
		fds[i] = connect_port(hp);
		if (fds[i] >= 0 && send_all(fds[i], req, strlen(req)))
			opened++;
	}
	TAP_INTEQ(opened, N, "1,000 connections opened and asked");
	int tunnels = 0;
	for (int i = 0; i < N; i++)
		if (fds[i] >= 0 && recv_until(fds[i], buf, sizeof(buf), "\r\n\r\n", 30000) &&
		    !strncmp(buf, "HTTP/1.1 200 ", 13))
			tunnels++;
	TAP_INTEQ(tunnels, N, "1,000 tunnels established at once");
	ordinary_request_works("1,000 open tunnels");
	int echoed = 0;
	for (int i = 0; i < N; i++) {
		char msg[16];
		int n = snprintf(msg, sizeof(msg), "m%d", i);
		if (send_all(fds[i], msg, (size_t)n) &&
		    recv_until(fds[i], buf, sizeof(buf), msg, 30000) == (size_t)n)
			echoed++;
	}
	TAP_INTEQ(echoed, N, "each of them relays");
	for (int i = 0; i < N; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

static bool send_fd(int sock, char kind, int fd)
{
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(int))];
	} ctl;
	memset(&ctl, 0, sizeof(ctl));
	struct iovec iov = {.iov_base = &kind, .iov_len = 1};
	struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1};
	if (fd >= 0) {
		m.msg_control = ctl.buf;
		m.msg_controllen = sizeof(ctl.buf);
		struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	}
	return sendmsg(sock, &m, MSG_NOSIGNAL) == 1;
}

/* A TCP connection as confine-init hands it over: the accepted end goes to the proxy through
 * the handoff socket, the test keeps the client end. */
static int handed_over(int handoff, char kind)
{
	int lp, l = listen_on("127.0.0.1", &lp);
	int client = connect_port(lp);
	int accepted = accept(l, NULL, NULL);
	close(l);
	if (!send_fd(handoff, kind, accepted)) {
		close(client);
		client = -1;
	}
	close(accepted);
	return client;
}

/* The handoff socket (how confine-init passes connections on): connections handed over are
 * served; anything that is not a connected TCP socket is closed and changes nothing. */
static void test_handoff(void)
{
	char dir[] = "/tmp/confine-test-handoff.XXXXXX";
	if (!mkdtemp(dir)) {
		TAP_OK(0, "mkdtemp");
		return;
	}
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	snprintf(a.sun_path, sizeof(a.sun_path), "%s/proxy.sock", dir);
	int l = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (bind(l, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(l, 16) < 0) {
		TAP_OK(0, "handoff socket: %s", strerror(errno));
		return;
	}
	struct cf_proxy_config cfg = CF_PROXY_CONFIG_DEFAULT;
	struct cf_proxy *p = NULL;
	struct confine_error err = {0};
	if (cf_proxy_new(&cfg, &policy, -1, -1, l, &p, &err) < 0 || cf_proxy_start(p, &err) < 0) {
		TAP_OK(0, "proxy over a handoff socket: %s", err.reason);
		return;
	}
	int h = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	TAP_INTEQ(connect(h, (struct sockaddr *)&a, sizeof(a)), 0,
		  "connected to the handoff socket");

	/* Not connections: a pipe, a UDP socket, a listening socket, no descriptor, a bad kind. */
	int pp[2];
	if (pipe(pp) < 0)
		return;
	send_fd(h, 'H', pp[0]);
	int udp = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	send_fd(h, 'H', udp);
	int lp, lst = listen_on("127.0.0.1", &lp);
	send_fd(h, 'S', lst);
	send_fd(h, 'H', -1);
	int bad = handed_over(h, 'X');
	close(pp[0]);
	close(udp);
	close(lst);

	char buf[4096], req[128];
	int c = handed_over(h, 'H');
	snprintf(req, sizeof(req), "CONNECT ok.test:%d HTTP/1.1\r\n\r\n", srv.echo_port);
	send_all(c, req, strlen(req));
	recv_until(c, buf, sizeof(buf), "\r\n\r\n", 30000);
	TAP_OK(!strncmp(buf, "HTTP/1.1 200 ", 13), "a connection handed over as 'H' speaks HTTP");
	send_all(c, "ping", 4);
	size_t got = recv_until(c, buf, sizeof(buf), "ping", 30000);
	TAP_OK(got == 4, "and its tunnel works");
	if (got != 4)
		printf("# got %zu bytes: '%s'\n", got, buf);
	close(c);
	uint8_t greet[] = {5, 1, 0};
	c = handed_over(h, 'S');
	send_all(c, greet, sizeof(greet));
	recv_until(c, buf, 3, NULL, 30000);
	TAP_OK(buf[0] == 5 && buf[1] == 0, "a connection handed over as 'S' speaks SOCKS5");
	close(c);
	pp[1] = pp[1] >= 0 ? pp[1] : -1;
	struct pollfd pf = {.fd = bad, .events = POLLIN};
	TAP_OK(poll(&pf, 1, 5000) == 1 && recv(bad, buf, 1, 0) == 0,
	       "one handed over with an unknown kind is closed");
	close(bad);
	close(pp[1]);
	struct cf_proxy_stats st;
	cf_proxy_stats(p, &st);
	TAP_INTEQ(st.accepted, 2, "only the two TCP connections became connections");
	close(h);
	cf_proxy_free(p);
	unlink(a.sun_path);
	rmdir(dir);
}

/* The bound: with room for 4, a fifth waits in the backlog until one ends. */
static void test_bound(void)
{
	struct cf_proxy_config cfg = CF_PROXY_CONFIG_DEFAULT;
	cfg.max_conns = 4;
	int h, s;
	struct cf_proxy *p = start_proxy(&cfg, &h, &s);
	int idle[4];
	for (int i = 0; i < 4; i++)
		idle[i] = connect_port(h);
	struct cf_proxy_stats st;
	for (int i = 0; i < 500; i++) {
		cf_proxy_stats(p, &st);
		if (st.active == 4)
			break;
		struct timespec ts = {0, 2000000};
		nanosleep(&ts, NULL);
	}
	TAP_INTEQ(st.active, 4, "four connections held");
	int fifth = connect_port(h);
	char req[128], buf[256];
	snprintf(req, sizeof(req), "CONNECT ok.test:%d HTTP/1.1\r\n\r\n", srv.echo_port);
	send_all(fifth, req, strlen(req));
	struct pollfd pf = {.fd = fifth, .events = POLLIN};
	TAP_INTEQ(poll(&pf, 1, 200), 0, "a fifth gets no answer while four are open");
	cf_proxy_stats(p, &st);
	TAP_INTEQ(st.active, 4, "and is not accepted");
	close(idle[0]);
	recv_until(fifth, buf, sizeof(buf), "\r\n\r\n", 30000);
	TAP_OK(!strncmp(buf, "HTTP/1.1 200 ", 13), "once one ends, the fifth is served");
	close(fifth);
	for (int i = 1; i < 4; i++)
		close(idle[i]);
	cf_proxy_free(p);
}

/* ---- the proxy with credentials on one port (the landlock backend's) -------------------- */

static const char secret[] = "0123456789abcdef0123456789abcdef";

/* A SOCKS5 greeting (methods), the RFC 1929 exchange when user is set, then CONNECT: the bytes
 * the proxy answered, up to 14 (2 method choice, 2 auth status, 10 CONNECT reply). */
static size_t socks_auth(int port, const uint8_t *methods, size_t nm, const char *user,
			 const char *pass, const char *name, int dport, uint8_t *got)
{
	int fd = connect_port(port);
	uint8_t b[600];
	size_t n = 0, want = 2;
	b[n++] = 5;
	b[n++] = (uint8_t)nm;
	memcpy(b + n, methods, nm);
	n += nm;
	if (user) {
		b[n++] = 1;
		b[n++] = (uint8_t)strlen(user);
		memcpy(b + n, user, strlen(user));
		n += strlen(user);
		b[n++] = (uint8_t)strlen(pass);
		memcpy(b + n, pass, strlen(pass));
		n += strlen(pass);
		want += 2;
	}
	size_t nl = strlen(name);
	memcpy(b + n, "\x05\x01\x00\x03", 4);
	n += 4;
	b[n++] = (uint8_t)nl;
	memcpy(b + n, name, nl);
	n += nl;
	b[n++] = (uint8_t)(dport >> 8);
	b[n++] = (uint8_t)dport;
	want += 10;
	size_t k = 0;
	if (fd >= 0 && send_all(fd, b, n)) {
		while (k < want) {
			struct pollfd pf = {.fd = fd, .events = POLLIN};
			if (poll(&pf, 1, 30000) <= 0)
				break;
			ssize_t r = recv(fd, got + k, want - k, 0);
			if (r <= 0)
				break;
			k += (size_t)r;
		}
	}
	if (fd >= 0)
		close(fd);
	return k;
}

static void test_auth(void)
{
	int port;
	int fd = listen_on("127.0.0.1", &port);
	struct cf_proxy *p = NULL;
	struct confine_error err = {0};
	struct cf_proxy_config cfg = CF_PROXY_CONFIG_DEFAULT;
	cfg.linger_ms = 300;
	if (cf_proxy_new_auth(&cfg, &policy, fd, secret, &p, &err) < 0 ||
	    cf_proxy_start(p, &err) < 0) {
		printf("# %s: %s\n", err.what, err.reason);
		exit(1);
	}
	char req[1024];
	/* base64("confine:0123456789abcdef0123456789abcdef") */
	const char *good = "Y29uZmluZTowMTIzNDU2Nzg5YWJjZGVmMDEyMzQ1Njc4OWFiY2RlZg==";
	snprintf(req, sizeof(req), "GET http://ok.test:%d/a HTTP/1.1\r\n\r\n", srv.http_port);
	char *resp = http_request(port, req);
	TAP_OK(!strncmp(resp, "HTTP/1.1 407 Proxy Authentication Required\r\n", 44) &&
		   strstr(resp, "Proxy-Authenticate: Basic realm=\"confine\"\r\n") &&
		   strstr(resp, "proxy credentials"),
	       "credentials required: no Proxy-Authorization gets 407 with Proxy-Authenticate");
	/* A first try without credentials that nobody retries (other.test): stays a refusal. */
	snprintf(req, sizeof(req), "GET http://other.test:%d/a HTTP/1.1\r\n\r\n", srv.http_port);
	resp = http_request(port, req);
	TAP_OK(strstr(resp, " 407 ") != NULL, "a first try to other.test: 407");
	snprintf(req, sizeof(req),
		 "GET http://ok.test:%d/a HTTP/1.1\r\nProxy-Authorization: Basic "
		 "Y29uZmluZTowMTIzNDU2Nzg5YWJjZGVmMDEyMzQ1Njc4OWFiY2RlMA==\r\n\r\n",
		 srv.http_port);
	resp = http_request(port, req);
	TAP_OK(strstr(resp, " 407 ") != NULL, "a secret wrong in its last digit: 407");
	snprintf(req, sizeof(req),
		 "GET http://ok.test:%d/a HTTP/1.1\r\nProxy-Authorization: Bearer %s\r\n\r\n",
		 srv.http_port, good);
	resp = http_request(port, req);
	TAP_OK(strstr(resp, " 407 ") != NULL, "another scheme: 407");
	snprintf(req, sizeof(req),
		 "GET http://ok.test:%d/a HTTP/1.1\r\nproxy-authorization:   basic   %s\r\n\r\n",
		 srv.http_port, good);
	resp = http_request(port, req);
	TAP_OK(!strncmp(resp, "HTTP/1.1 200 OK\r\n", 17) && strstr(resp, "hello"),
	       "the right credentials (any case, extra blanks): the request goes through");
	pthread_mutex_lock(&srv.lock);
	TAP_OK(!strstr(srv.last_head, "roxy-") && !strstr(srv.last_head, secret) &&
		   !strstr(srv.last_head, good),
	       "the server never sees the credentials");
	pthread_mutex_unlock(&srv.lock);
	snprintf(req, sizeof(req),
		 "CONNECT ok.test:%d HTTP/1.1\r\nProxy-Authorization: Basic "
		 "Y29uZmluZTowMTIzNDU2Nzg5YWJjZGVmMDEyMzQ1Njc4OWFiY2RlZg\r\n\r\n",
		 srv.echo_port);
	int c = connect_port(port);
	char buf[4096];
	bool tun = c >= 0 && send_all(c, req, strlen(req)) &&
		   recv_until(c, buf, sizeof(buf), "\r\n\r\n", 30000) &&
		   !strncmp(buf, "HTTP/1.1 200 ", 13) && send_all(c, "ping", 4) &&
		   recv_until(c, buf, sizeof(buf), "ping", 30000) && !strcmp(buf, "ping");
	if (c >= 0)
		close(c);
	TAP_OK(tun, "CONNECT with the credentials (base64 without padding): the tunnel works");

	uint8_t got[16];
	static const uint8_t none[] = {0}, both[] = {0, 2};
	size_t k = socks_auth(port, none, 1, NULL, NULL, "ok.test", srv.echo_port, got);
	TAP_OK(k == 2 && got[0] == 5 && got[1] == 0xff,
	       "SOCKS5 offering only 'no authentication': no acceptable method (0xff)");
	k = socks_auth(port, both, 2, "confine", "0123456789abcdef0123456789abcdeX", "ok.test",
		       srv.echo_port, got);
	TAP_OK(k == 4 && got[1] == 2 && got[2] == 1 && got[3] != 0,
	       "SOCKS5 with a wrong password: username/password chosen, then failure");
	k = socks_auth(port, both, 2, "root", secret, "ok.test", srv.echo_port, got);
	TAP_OK(k == 4 && got[3] != 0, "SOCKS5 with the right password but another user: failure");
	k = socks_auth(port, both, 2, "confine", secret, "ok.test", srv.echo_port, got);
	TAP_OK(k == 14 && got[1] == 2 && got[2] == 1 && got[3] == 0 && got[4] == 5 && got[5] == 0,
	       "SOCKS5 with the credentials on the same port: authenticated and connected");
	k = socks_auth(port, both, 2, "confine", secret, "denied.test", srv.echo_port, got);
	TAP_OK(k == 14 && got[3] == 0 && got[5] == 2,
	       "an authenticated SOCKS5 request is still decided (denied.test: not allowed)");
	cf_proxy_stop(p);
	size_t n, dropped;
	const struct cf_net_event *ev = cf_proxy_events(p, &n, &dropped);
	int unauth = 0, unauth_http = 0, challenged = 0, other = 0;
	for (size_t i = 0; i < n; i++) {
		if (!strcmp(ev[i].outcome, "auth_challenge"))
			challenged += i == 0 && !strcmp(ev[i].decision.host, "ok.test");
		if (strcmp(ev[i].outcome, "unauthenticated"))
			continue;
		unauth++;
		other += !strcmp(ev[i].decision.host, "other.test");
		if (!strcmp(ev[i].protocol, "http") && !strcmp(ev[i].decision.host, "ok.test") &&
		    ev[i].decision.action == CONFINE_DENY && !ev[i].decision.has_rule)
			unauth_http++;
	}
	TAP_INTEQ(challenged, 1,
		  "the first try to ok.test without credentials, which the client retried with "
		  "them (the request with the right ones), is an auth_challenge, not a refusal");
	TAP_INTEQ(other, 1, "a first try nobody retried (other.test) stays unauthenticated");
	TAP_INTEQ(unauth, 6, "every other request without the right credentials is recorded (6)");
	TAP_INTEQ(unauth_http, 2,
		  "the HTTP ones with wrong credentials, with the host they asked for, as denied "
		  "(wrong credentials are never a challenge)");
	cf_proxy_free(p);
}

int main(void)
{
	struct rlimit rl;
	getrlimit(RLIMIT_NOFILE, &rl);
	rl.rlim_cur = rl.rlim_max;
	setrlimit(RLIMIT_NOFILE, &rl);
	srv_start(&srv);
	rule(CF_LAYER_SESSION, CF_ALLOW, "ok.test");
	rule(CF_LAYER_SESSION, CF_ALLOW, "other.test");
	rule(CF_LAYER_SESSION, CF_ALLOW, "slow.test");
	rule(CF_LAYER_SESSION, CF_ALLOW, "rebind.test");
	rule(CF_LAYER_SESSION, CF_ALLOW, "meta.test");
	rule(CF_LAYER_SESSION, CF_ALLOW, "private.test");
	rule(CF_LAYER_SESSION, CF_ALLOW, "multi.test");
	rule(CF_LAYER_SESSION, CF_ALLOW, "nosuch.test");
	rule(CF_LAYER_SESSION, CF_ALLOW, SERVER_ADDR);
	/* In one layer the deny comes first, whatever the order written. */
	rule(CF_LAYER_USER, CF_ALLOW, "ruled.test");
	rule(CF_LAYER_USER, CF_DENY, "ruled.test");

	struct cf_proxy_config cfg = CF_PROXY_CONFIG_DEFAULT;
	cfg.linger_ms = 300;
	struct cf_proxy *p = start_proxy(&cfg, &hp, &sp);
	test_decisions();
	test_hostile();
	test_parallel();
	struct cf_proxy_stats st;
	cf_proxy_stats(p, &st);
	TAP_OK(st.peak >= 1000 && st.peak <= cfg.max_conns, "peak %lu connections, within %u",
	       st.peak, cfg.max_conns);
	cf_proxy_stop(p);
	size_t n, dropped;
	const struct cf_net_event *ev = cf_proxy_events(p, &n, &dropped);
	bool saw_denied = false, saw_connected = false, saw_refused = false;
	for (size_t i = 0; i < n; i++) {
		if (!strcmp(ev[i].outcome, "denied") && !strcmp(ev[i].decision.host, "ruled.test"))
			saw_denied = ev[i].decision.has_rule &&
				     !strcmp(ev[i].decision.pattern, "ruled.test") &&
				     ev[i].decision.line == 7 &&
				     !strcmp(ev[i].decision.layer, "user") &&
				     ev[i].decision.action == CONFINE_DENY && ev[i].time_ms > 0;
		if (!strcmp(ev[i].outcome, "connected") && !strcmp(ev[i].protocol, "socks5"))
			saw_connected = !strcmp(ev[i].address, SERVER_ADDR) &&
					!strcmp(ev[i].decision.layer, "session");
		if (!strcmp(ev[i].outcome, "address_refused") &&
		    !strcmp(ev[i].decision.host, "meta.test"))
			saw_refused = !strcmp(ev[i].address, "169.254.169.254") &&
				      ev[i].decision.action == CONFINE_ALLOW;
	}
	TAP_OK(n > 1000 && dropped == 0, "%zu decisions recorded, none dropped", n);
	TAP_OK(saw_denied, "the deny is recorded with its rule, file, line, layer and time");
	TAP_OK(saw_connected, "a SOCKS5 connection is recorded with its address");
	TAP_OK(saw_refused, "a refused address is recorded as allowed by name, refused by address");
	cf_proxy_free(p);

	test_bound();
	test_handoff();
	test_auth();
	srv_stop(&srv);
	cf_net_policy_release(&policy);
	return tap_done();
}

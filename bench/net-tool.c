/* SPDX-License-Identifier: MIT */
/*
 * The network-by-domain benchmark's servers and clients (bench/net), on 127.0.0.0/8 only.
 *
 *   net-tool serve ADDR PORTFILE   HTTP server: "GET /bytes/N" answers N bytes (from memory);
 *                                  any other connection is an echo; a thread per connection.
 *                                  Writes its port to PORTFILE once listening.
 *   net-tool latency N HOST PORT [PROXYPORT]
 *                                  N times: connect (directly, or to 127.0.0.1:PROXYPORT and
 *                                  CONNECT HOST:PORT), one byte there and back, close; prints
 *                                  the median, the 90th and the 99th percentile in
 *                                  microseconds.  HOST may be a name: it is looked up once,
 *                                  before the clock starts (inside a network-by-domain sandbox:
 *                                  a synthetic address, so every connection goes through
 *                                  confine's transparent path).
 *   net-tool hold N HOST PORT [PROXYPORT]
 *                                  N connections opened one after another and all held open,
 *                                  then one byte there and back on each; prints how many were
 *                                  held and echoed, and the time it took.
 */
#include <netdb.h>
#include <pthread.h>
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static char block[1 << 20];

static void *one(void *arg)
{
	int c = (int)(intptr_t)arg, one_ = 1;
	setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one_, sizeof(one_));
	char buf[8192];
	ssize_t k = recv(c, buf, sizeof(buf) - 1, 0);
	if (k > 0) {
		buf[k] = '\0';
		unsigned long long n;
		if (sscanf(buf, "GET /bytes/%llu ", &n) == 1) {
			char h[128];
			int hl = snprintf(h, sizeof(h),
					  "HTTP/1.1 200 OK\r\nContent-Length: %llu\r\n\r\n", n);
			send(c, h, (size_t)hl, MSG_NOSIGNAL);
			while (n) {
				size_t part = n < sizeof(block) ? n : sizeof(block);
				ssize_t w = send(c, block, part, MSG_NOSIGNAL);
				if (w <= 0)
					break;
				n -= (unsigned long long)w;
			}
		} else {
			do
				send(c, buf, (size_t)k, MSG_NOSIGNAL);
			while ((k = recv(c, buf, sizeof(buf), 0)) > 0);
		}
	}
	close(c);
	return NULL;
}

static int serve(const char *addr, const char *portfile)
{
	int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one_ = 1;
	setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one_, sizeof(one_));
	struct sockaddr_in a = {.sin_family = AF_INET};
	if (inet_pton(AF_INET, addr, &a.sin_addr) != 1 || ntohl(a.sin_addr.s_addr) >> 24 != 127) {
		fprintf(stderr, "net-tool: serve on 127.0.0.0/8 only\n");
		return 2;
	}
	if (bind(l, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(l, 4096) < 0) {
		perror("net-tool: bind");
		return 1;
	}
	socklen_t al = sizeof(a);
	getsockname(l, (struct sockaddr *)&a, &al);
	char tmp[4096];
	snprintf(tmp, sizeof(tmp), "%s.tmp", portfile);
	FILE *f = fopen(tmp, "w");
	if (!f)
		return 1;
	fprintf(f, "%d\n", ntohs(a.sin_port));
	fclose(f);
	rename(tmp, portfile);
	memset(block, 'x', sizeof(block));
	pthread_attr_t at;
	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&at, 64 * 1024);
	for (;;) {
		int c = accept4(l, NULL, NULL, SOCK_CLOEXEC);
		if (c < 0)
			continue;
		pthread_t t;
		if (pthread_create(&t, &at, one, (void *)(intptr_t)c) != 0)
			close(c);
	}
}

/* HOST (a name or an IPv4 address) and PORT, or 127.0.0.1:PROXY; the name looked up once. */
static struct sockaddr_in target(const char *host, int port, int proxy)
{
	struct sockaddr_in a = {.sin_family = AF_INET,
				.sin_port = htons((uint16_t)(proxy ? proxy : port))};
	if (proxy) {
		inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
		return a;
	}
	if (inet_pton(AF_INET, host, &a.sin_addr) == 1)
		return a;
	struct addrinfo hints = {.ai_family = AF_INET, .ai_socktype = SOCK_STREAM}, *res = NULL;
	int rc = getaddrinfo(host, NULL, &hints, &res);
	if (rc) {
		fprintf(stderr, "net-tool: %s: %s\n", host, gai_strerror(rc));
		exit(1);
	}
	a.sin_addr = ((struct sockaddr_in *)res->ai_addr)->sin_addr;
	freeaddrinfo(res);
	return a;
}

/* A connection to the target, through CONNECT when proxy; -1 on failure (said). */
static int open_one(const struct sockaddr_in *a, const char *host, int port, int proxy)
{
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one_ = 1;
	setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one_, sizeof(one_));
	if (connect(s, (const struct sockaddr *)a, sizeof(*a)) < 0) {
		perror("net-tool: connect");
		close(s);
		return -1;
	}
	if (!proxy)
		return s;
	char buf[512];
	int l = snprintf(buf, sizeof(buf), "CONNECT %s:%d HTTP/1.1\r\n\r\n", host, port);
	send(s, buf, (size_t)l, 0);
	size_t got = 0;
	while (got < 4 || memcmp(buf + got - 4, "\r\n\r\n", 4)) {
		ssize_t k = recv(s, buf + got, 1, 0);
		if (k <= 0 || ++got == sizeof(buf)) {
			fprintf(stderr, "net-tool: the proxy refused: %.*s\n", (int)got, buf);
			close(s);
			return -1;
		}
	}
	return s;
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static int latency(int n, const char *host, int port, int proxy)
{
	uint64_t *t = calloc((size_t)n, sizeof(*t));
	struct sockaddr_in a = target(host, port, proxy);
	for (int i = 0; i < n; i++) {
		uint64_t t0 = now_ns();
		int s = open_one(&a, host, port, proxy);
		char buf[1];
		if (s < 0)
			return 1;
		if (send(s, "p", 1, 0) != 1 || recv(s, buf, 1, 0) != 1) {
			fprintf(stderr, "net-tool: no echo\n");
			return 1;
		}
		close(s);
		t[i] = now_ns() - t0;
	}
	qsort(t, (size_t)n, sizeof(*t), cmp);
	printf("median_us %.1f p90_us %.1f p99_us %.1f\n", t[n / 2] / 1000.0,
	       t[n * 9 / 10] / 1000.0, t[n * 99 / 100] / 1000.0);
	free(t);
	return 0;
}

static int hold(int n, const char *host, int port, int proxy)
{
	int *fds = calloc((size_t)n, sizeof(*fds));
	struct sockaddr_in a = target(host, port, proxy);
	uint64_t t0 = now_ns();
	int held = 0, echoed = 0;
	for (int i = 0; i < n; i++)
		if ((fds[i] = open_one(&a, host, port, proxy)) >= 0)
			held++;
	for (int i = 0; i < n; i++) {
		char c = (char)('a' + i % 26), back = 0;
		if (fds[i] >= 0 && send(fds[i], &c, 1, 0) == 1 && recv(fds[i], &back, 1, 0) == 1 &&
		    back == c)
			echoed++;
	}
	uint64_t t1 = now_ns();
	for (int i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	printf("held %d echoed %d ms %.0f\n", held, echoed, (t1 - t0) / 1e6);
	free(fds);
	return held == n && echoed == n ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "serve"))
		return serve(argv[2], argv[3]);
	if ((argc == 5 || argc == 6) && !strcmp(argv[1], "latency"))
		return latency(atoi(argv[2]), argv[3], atoi(argv[4]),
			       argc == 6 ? atoi(argv[5]) : 0);
	if ((argc == 5 || argc == 6) && !strcmp(argv[1], "hold"))
		return hold(atoi(argv[2]), argv[3], atoi(argv[4]), argc == 6 ? atoi(argv[5]) : 0);
	fprintf(stderr, "usage: net-tool serve ADDR PORTFILE | latency N HOST PORT [PROXYPORT] | "
			"hold N HOST PORT [PROXYPORT]\n");
	return 2;
}

/* SPDX-License-Identifier: MIT */
/*
 * Network by domain on the landlock backend (SPEC 12), the two walls in-process, with real
 * listeners on 127.0.0.0/8 only:
 *  - the Landlock ruleset the executor builds (cf_ll_build_ruleset with the proxy's port): a
 *    TCP connect to another port and every bind are EACCES, and, since Landlock matches ports
 *    and not addresses, a server on another address with the proxy's port IS reachable: the
 *    reason for the second wall;
 *  - the connect guard (connguard.c) behind the CF_SOCKETS_PROXY filter: only 127.0.0.1 on the
 *    proxy's port (and its IPv4-mapped form) is connected, by confine, from any thread and for
 *    blocking and non-blocking sockets; every other address and port is EACCES, and a thread
 *    that rewrites the address while the guard looks at it never reaches the other server;
 *    once the guard is gone, connect(2) is ENOSYS (fail closed).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "exec/linux/landlock/connguard.h"
#include "exec/linux/notif.h"
#include "exec/linux/harden.h"
#include "host/kernel.h"
#include "exec/linux/landlock/ruleset.h"
#include "tap.h"

#ifndef __NR_landlock_restrict_self
#define __NR_landlock_restrict_self 446
#endif

static int listen_on(const char *addr, int port)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	int one = 1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	inet_pton(AF_INET, addr, &a.sin_addr);
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(fd, 4096) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static int port_of(int fd)
{
	struct sockaddr_in a;
	socklen_t l = sizeof(a);
	getsockname(fd, (struct sockaddr *)&a, &l);
	return ntohs(a.sin_port);
}

/* Connections waiting on a listener, taken and closed. */
static int drain(int fd)
{
	int n = 0, c;
	while ((c = accept4(fd, NULL, NULL, SOCK_CLOEXEC)) >= 0) {
		close(c);
		n++;
	}
	return n;
}

/* 0 or the errno of a connect of a new socket of `family` to addr:port (blocking). */
static int try_connect(int family, const char *addr, int port)
{
	int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return 1000 + errno;
	struct sockaddr_storage ss = {0};
	socklen_t sl;
	if (family == AF_INET) {
		struct sockaddr_in *a = (struct sockaddr_in *)&ss;
		a->sin_family = AF_INET;
		a->sin_port = htons((uint16_t)port);
		inet_pton(AF_INET, addr, &a->sin_addr);
		sl = sizeof(*a);
	} else {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
		a->sin6_family = AF_INET6;
		a->sin6_port = htons((uint16_t)port);
		inet_pton(AF_INET6, addr, &a->sin6_addr);
		sl = sizeof(*a);
	}
	int r = connect(fd, (struct sockaddr *)&ss, sl) < 0 ? errno : 0;
	close(fd);
	return r;
}

static int try_bind(void)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	int r = bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 ? errno : 0;
	close(fd);
	return r;
}

static int proxy_port, other_port;

/* ---- Landlock alone ------------------------------------------------------------------- */

static void landlock_alone(int lp, int lsame, int lother)
{
	struct cf_ll_plan pl = {0};
	pl.net_proxy = true;
	pl.handled_net = CF_LL_NET_BIND_TCP | CF_LL_NET_CONNECT_TCP;
	struct confine_error err = {0};
	int rs = -1;
	int r = cf_ll_build_ruleset(&pl, (unsigned)proxy_port, NULL, &rs, &err);
	TAP_INTEQ(r, 0, "the ruleset with the proxy's port builds (%s)", err.reason);
	if (r < 0)
		return;
	int p[2];
	if (pipe(p) < 0)
		return;
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		int res[4] = {-1, -1, -1, -1};
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 &&
		    syscall(__NR_landlock_restrict_self, rs, 0U) == 0) {
			res[0] = try_connect(AF_INET, "127.0.0.1", proxy_port);
			res[1] = try_connect(AF_INET, "127.0.0.2", proxy_port);
			res[2] = try_connect(AF_INET, "127.0.0.1", other_port);
			res[3] = try_bind();
		}
		ssize_t k = write(p[1], res, sizeof(res));
		_exit(k == sizeof(res) ? 0 : 1);
	}
	close(p[1]);
	close(rs);
	int res[4] = {-2, -2, -2, -2};
	ssize_t k = read(p[0], res, sizeof(res));
	close(p[0]);
	waitpid(pid, NULL, 0);
	TAP_OK(k == sizeof(res), "the restricted child reported");
	TAP_INTEQ(res[0], 0, "Landlock: connect to 127.0.0.1 on the proxy's port: allowed");
	TAP_INTEQ(res[2], EACCES, "Landlock: connect to another port: EACCES");
	TAP_INTEQ(res[3], EACCES, "Landlock: bind(2), even to port 0: EACCES");
	TAP_INTEQ(res[1], 0,
		  "Landlock alone: another address on the proxy's port is reachable (ports, not "
		  "addresses: why the connect guard exists)");
	drain(lp);
	drain(lsame);
	drain(lother);
}

/* ---- the guard ------------------------------------------------------------------------ */

static struct sock_fprog prog;

static int load_program(void)
{
	struct cf_seccomp_opts o = {.sockets = CF_SOCKETS_PROXY};
	struct confine_error err = {0};
	int fd = -1;
	if (cf_seccomp_build_fd_opts(&o, &fd, &err) < 0)
		return -1;
	struct stat st;
	if (fstat(fd, &st) < 0 || st.st_size <= 0) {
		close(fd);
		return -1;
	}
	prog.filter = malloc((size_t)st.st_size);
	prog.len = (unsigned short)(st.st_size / (off_t)sizeof(struct sock_filter));
	ssize_t n = pread(fd, prog.filter, (size_t)st.st_size, 0);
	close(fd);
	return n == st.st_size ? 0 : -1;
}

static void *thread_connect(void *arg)
{
	*(int *)arg = try_connect(AF_INET, "127.0.0.1", proxy_port);
	return NULL;
}

/* The race: connects to `shared` while another thread flips it between the proxy and the
 * other address on the same port. */
static struct sockaddr_in shared;
static atomic_int racing, flips;
static void *flipper(void *arg)
{
	(void)arg;
	struct sockaddr_in a = shared, b = shared;
	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	inet_pton(AF_INET, "127.0.0.2", &b.sin_addr);
	for (unsigned i = 0; atomic_load(&racing); i++) {
		memcpy((void *)&shared, i & 1 ? &a : &b, sizeof(shared));
		if (i < 2)
			atomic_fetch_add(&flips, 1);
	}
	return NULL;
}

struct child_results {
	int proxy, mapped, same_port_other_addr, other_port, v6_loopback, nonblock, thread;
	int bad_fd, not_socket, socketpair_end;
	int race_ok, race_refused, race_other, race_n;
	int after_free;
};

static void child(int handoff, int go_r, int out_w)
{
	struct child_results r;
	memset(&r, -1, sizeof(r));
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		_exit(2);
	long lfd =
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
	if (lfd < 0 || cf_notif_send_listener(handoff, (int)lfd) < 0)
		_exit(3);
	close((int)lfd);
	close(handoff);
	r.proxy = try_connect(AF_INET, "127.0.0.1", proxy_port);
	r.mapped = try_connect(AF_INET6, "::ffff:127.0.0.1", proxy_port);
	r.same_port_other_addr = try_connect(AF_INET, "127.0.0.2", proxy_port);
	r.other_port = try_connect(AF_INET, "127.0.0.1", other_port);
	r.v6_loopback = try_connect(AF_INET6, "::1", proxy_port);
	{
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		struct sockaddr_in a = {.sin_family = AF_INET,
					.sin_port = htons((uint16_t)proxy_port)};
		inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
		int c = connect(fd, (struct sockaddr *)&a, sizeof(a));
		r.nonblock = c == 0 ? 0 : errno;
		if (c < 0 && errno == EINPROGRESS) {
			struct pollfd pf = {.fd = fd, .events = POLLOUT};
			int e = 0;
			socklen_t el = sizeof(e);
			if (poll(&pf, 1, 10000) == 1 &&
			    getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &el) == 0)
				r.nonblock = e;
		}
		close(fd);
	}
	pthread_t t;
	int tres = -1;
	if (pthread_create(&t, NULL, thread_connect, &tres) == 0)
		pthread_join(t, NULL);
	r.thread = tres;
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)proxy_port)};
	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	r.bad_fd = connect(987, (struct sockaddr *)&a, sizeof(a)) < 0 ? errno : 0;
	int pp[2];
	if (pipe(pp) == 0) {
		r.not_socket = connect(pp[0], (struct sockaddr *)&a, sizeof(a)) < 0 ? errno : 0;
		close(pp[0]);
		close(pp[1]);
	}
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0) {
		r.socketpair_end = connect(sv[0], (struct sockaddr *)&a, sizeof(a)) < 0 ? errno : 0;
		close(sv[0]);
		close(sv[1]);
	}
	/* The race. */
	shared = a;
	atomic_store(&racing, 1);
	pthread_t f;
	r.race_ok = r.race_refused = r.race_other = r.race_n = 0;
	if (pthread_create(&f, NULL, flipper, NULL) == 0) {
		/* The flipper runs before the first connect, and the connects go on past 400 until
		 * both addresses were seen (at most 4,000: the proxy's backlog is 4,096): on a
		 * loaded machine the flipper may get no turn during 400 connects. */
		while (atomic_load(&flips) < 2)
			sched_yield();
		for (int i = 0; i < 4000 && (i < 400 || !r.race_ok || !r.race_refused); i++) {
			r.race_n++;
			int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
			int c = connect(fd, (struct sockaddr *)&shared, sizeof(shared));
			if (c == 0)
				r.race_ok++;
			else if (errno == EACCES)
				r.race_refused++;
			else
				r.race_other++;
			close(fd);
			sched_yield(); /* the flipper gets its turns on a loaded machine too */
		}
		atomic_store(&racing, 0);
		pthread_join(f, NULL);
	}
	ssize_t k = write(out_w, &r, sizeof(r));
	char go;
	if (read(go_r, &go, 1) != 1)
		_exit(4);
	r.after_free = try_connect(AF_INET, "127.0.0.1", proxy_port);
	k = write(out_w, &r.after_free, sizeof(r.after_free));
	_exit(k == sizeof(r.after_free) ? 0 : 5);
}

static bool read_full(int fd, void *buf, size_t n)
{
	char *p = buf;
	while (n) {
		ssize_t k = read(fd, p, n);
		if (k <= 0)
			return false;
		p += k;
		n -= (size_t)k;
	}
	return true;
}

static void guard(int lp, int lsame, int lother)
{
	int loaded = load_program();
	TAP_OK(loaded == 0, "the CF_SOCKETS_PROXY program (%u instructions)", prog.len);
	int hs[2], go[2], out[2];
	if (loaded < 0 || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, hs) < 0 ||
	    pipe(go) < 0 || pipe(out) < 0)
		return;
	/* The child first, the guard's thread after: a fork while another thread runs can leave
	 * the child with a lock that thread held (a sanitizer's allocator does).  The listener
	 * waits in the socket until the guard takes it; the child's connects wait for it. */
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		close(go[1]);
		close(out[0]);
		close(hs[0]);
		child(hs[1], go[0], out[1]);
	}
	close(hs[1]);
	struct cf_connguard *g = NULL;
	struct confine_error err = {0};
	int r = cf_connguard_start(hs[0], (unsigned)proxy_port, NULL, &g, &err);
	TAP_INTEQ(r, 0, "the guard starts (%s)", err.reason);
	if (r < 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return;
	}
	close(go[0]);
	close(out[1]);
	struct child_results cr;
	bool got = read_full(out[0], &cr, sizeof(cr));
	TAP_OK(got, "the filtered child reported");
	if (!got) {
		cf_connguard_free(g);
		waitpid(pid, NULL, 0);
		return;
	}
	int at_proxy = drain(lp), at_same = drain(lsame), at_other = drain(lother);
	TAP_INTEQ(cr.proxy, 0, "guard: connect to 127.0.0.1 on the proxy's port: made");
	TAP_INTEQ(cr.mapped, 0, "guard: its IPv4-mapped form on an AF_INET6 socket: made");
	TAP_INTEQ(cr.nonblock, 0, "guard: a non-blocking connect completes (EINPROGRESS, then 0)");
	TAP_INTEQ(cr.thread, 0, "guard: a connect from another thread of the command: made");
	TAP_INTEQ(cr.same_port_other_addr, EACCES,
		  "guard: another address on the proxy's port: EACCES");
	TAP_INTEQ(cr.other_port, EACCES, "guard: 127.0.0.1 on another port: EACCES");
	TAP_INTEQ(cr.v6_loopback, EACCES, "guard: ::1 on the proxy's port: EACCES");
	TAP_INTEQ(cr.bad_fd, EBADF, "guard: a descriptor that is not open: EBADF");
	TAP_INTEQ(cr.not_socket, ENOTSOCK, "guard: a pipe: ENOTSOCK");
	TAP_INTEQ(cr.socketpair_end, EACCES, "guard: a unix socketpair end: EACCES");
	TAP_OK(cr.race_other == 0 && cr.race_ok + cr.race_refused == cr.race_n && cr.race_n >= 400,
	       "the race: every connect made or EACCES (%d made, %d refused, %d other)", cr.race_ok,
	       cr.race_refused, cr.race_other);
	TAP_OK(cr.race_ok > 0 && cr.race_refused > 0, "the race: both addresses were seen");
	TAP_INTEQ(at_same, 0, "the server on the other address never got a connection");
	TAP_INTEQ(at_other, 0, "nor did the one on the other port");
	TAP_INTEQ(at_proxy, 4 + cr.race_ok, "the proxy's listener got every connect made (%d)",
		  at_proxy);
	unsigned long made = 0, refused = 0;
	cf_connguard_counts(g, &made, &refused);
	TAP_OK(made == (unsigned long)(4 + cr.race_ok), "the guard counts %lu connects made", made);
	cf_connguard_free(g);
	ssize_t k = write(go[1], "x", 1);
	int after = -1;
	got = k == 1 && read_full(out[0], &after, sizeof(after));
	TAP_OK(got && after == ENOSYS, "after the guard: connect(2) is ENOSYS (%d)", after);
	close(go[1]);
	close(out[0]);
	int st = 0;
	waitpid(pid, &st, 0);
	TAP_OK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the child exited cleanly");
	free(prog.filter);
}

int main(void)
{
	if (cf_landlock_abi() < 4) {
		TAP_SKIP("the kernel's Landlock ABI %d has no TCP rules", cf_landlock_abi());
		return tap_done();
	}
	int lp = listen_on("127.0.0.1", 0);
	proxy_port = port_of(lp);
	int lsame = listen_on("127.0.0.2", proxy_port);
	int lother = listen_on("127.0.0.1", 0);
	other_port = port_of(lother);
	TAP_OK(lp >= 0 && lsame >= 0 && lother >= 0,
	       "listeners on 127.0.0.1:%d, 127.0.0.2:%d, 127.0.0.1:%d", proxy_port, proxy_port,
	       other_port);
	if (lp < 0 || lsame < 0 || lother < 0)
		return tap_done();
	landlock_alone(lp, lsame, lother);
	guard(lp, lsame, lother);
	return tap_done();
}

/* SPDX-License-Identifier: MIT */
/*
 * The sandbox's network setup (see netns.h).  The child that joins the namespaces runs only
 * system calls and the netlink builders (netns_nl.c) on its own stack: confine has threads
 * (the proxy, its resolver), so nothing after fork may take a lock.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <linux/nsfs.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "exec/linux/netns.h"
#include "exec/linux/netns_nl.h"
#include "net/netconst.h"
#include "net/netrun.h"
#include "net/proxy.h"
#include "exec/linux/launch.h"
#include "util/procfs.h"
#include "util/util.h"

enum { F_UDP4, F_UDP6, F_TCP4, F_TCP6, F_T4, F_T6, N_FDS };

/* The child's answer: the step that failed (NULL-free index into steps[]) and its errno, or
 * err 0 and which descriptors come with it. */
struct answer {
	int32_t err;
	int32_t step;
	uint8_t have[N_FDS];
};

static const char *const steps[] = {
    "setns(CLONE_NEWUSER)",
    "setns(CLONE_NEWNET)",
    "the resolver's sockets",
    "the transparent listeners",
    "nftables",
    "the default route",
};
enum { ST_USERNS, ST_NETNS, ST_DNS, ST_LISTEN, ST_NFT, ST_ROUTE };

void cf_netns_fds_init(struct cf_netns_fds *f)
{
	f->dns_udp4 = f->dns_udp6 = f->dns_tcp4 = f->dns_tcp6 = f->tcp4 = f->tcp6 = -1;
}

static int *slot(struct cf_netns_fds *f, int i)
{
	int *v[N_FDS] = {&f->dns_udp4, &f->dns_udp6, &f->dns_tcp4,
			 &f->dns_tcp6, &f->tcp4,     &f->tcp6};
	return v[i];
}

void cf_netns_fds_close(struct cf_netns_fds *f)
{
	for (int i = 0; i < N_FDS; i++) {
		int *p = slot(f, i);
		if (*p >= 0)
			close(*p);
		*p = -1;
	}
}

/* A socket of the namespace: family, type, bound to any or loopback address at port, listening
 * for a stream.  -1 with errno. */
static int make(int family, int type, bool any, uint16_t port)
{
	int fd = socket(family, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	int one = 1;
	struct sockaddr_storage ss;
	memset(&ss, 0, sizeof(ss));
	socklen_t len;
	if (family == AF_INET6) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
		a->sin6_family = AF_INET6;
		a->sin6_port = htons(port);
		if (!any)
			a->sin6_addr = in6addr_loopback;
		len = sizeof(*a);
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
		if (type == SOCK_DGRAM)
			setsockopt(fd, IPPROTO_IPV6, IPV6_RECVPKTINFO, &one, sizeof(one));
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)&ss;
		a->sin_family = AF_INET;
		a->sin_port = htons(port);
		a->sin_addr.s_addr = htonl(any ? INADDR_ANY : INADDR_LOOPBACK);
		len = sizeof(*a);
		if (type == SOCK_DGRAM)
			setsockopt(fd, IPPROTO_IP, IP_PKTINFO, &one, sizeof(one));
	}
	if (type == SOCK_STREAM)
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, len) < 0 ||
	    (type == SOCK_STREAM && listen(fd, 4096) < 0)) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

static _Noreturn void child_fail(int sock, int step, int e)
{
	struct answer a = {.err = e ? e : EIO, .step = step};
	ssize_t k = send(sock, &a, sizeof(a), MSG_NOSIGNAL);
	(void)k;
	_exit(1);
}

/* Sends the answer with the descriptors made. */
static void child_send(int sock, const int fds[N_FDS])
{
	struct answer a = {0};
	int list[N_FDS], n = 0;
	for (int i = 0; i < N_FDS; i++)
		if ((a.have[i] = fds[i] >= 0))
			list[n++] = fds[i];
	union {
		char buf[CMSG_SPACE(sizeof(list))];
		struct cmsghdr align;
	} u;
	memset(&u, 0, sizeof(u));
	struct iovec iov = {.iov_base = &a, .iov_len = sizeof(a)};
	struct msghdr m = {.msg_iov = &iov,
			   .msg_iovlen = 1,
			   .msg_control = u.buf,
			   .msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)n)};
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)n);
	memcpy(CMSG_DATA(c), list, sizeof(int) * (size_t)n);
	ssize_t k = sendmsg(sock, &m, MSG_NOSIGNAL);
	_exit(k == (ssize_t)sizeof(a) ? 0 : 1);
}

/* Runs one netlink conversation on a fresh socket of `proto`: 0 or minus an errno. */
static int talk(int proto, const struct cf_nlb *b)
{
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, proto);
	if (fd < 0)
		return -errno;
	int r = cf_nl_talk(fd, b);
	close(fd);
	return r;
}

static _Noreturn void child(int sock, int userns, int netns)
{
	int fds[N_FDS];
	for (int i = 0; i < N_FDS; i++)
		fds[i] = -1;
	/* EINVAL: already in that user namespace (never with bwrap's --unshare-user). */
	if (setns(userns, CLONE_NEWUSER) < 0 && errno != EINVAL)
		child_fail(sock, ST_USERNS, errno);
	if (setns(netns, CLONE_NEWNET) < 0)
		child_fail(sock, ST_NETNS, errno);
	/* The sockets first, the redirect next, the route last: a failure leaves no route, and a
	 * connect outside loopback fails at once as it did before. */
	if ((fds[F_UDP4] = make(AF_INET, SOCK_DGRAM, true, 53)) < 0 ||
	    (fds[F_TCP4] = make(AF_INET, SOCK_STREAM, true, 53)) < 0)
		child_fail(sock, ST_DNS, errno);
	if ((fds[F_T4] = make(AF_INET, SOCK_STREAM, false, CF_NET_TRANSPARENT_PORT)) < 0)
		child_fail(sock, ST_LISTEN, errno);
	/* IPv6 where the namespace has it (a host may disable it): all three or none. */
	fds[F_UDP6] = make(AF_INET6, SOCK_DGRAM, true, 53);
	fds[F_TCP6] = fds[F_UDP6] >= 0 ? make(AF_INET6, SOCK_STREAM, true, 53) : -1;
	fds[F_T6] =
	    fds[F_TCP6] >= 0 ? make(AF_INET6, SOCK_STREAM, false, CF_NET_TRANSPARENT_PORT) : -1;
	bool v6 = fds[F_T6] >= 0;
	if (!v6) {
		for (int i = F_UDP6; i <= F_T6; i += 2)
			if (fds[i] >= 0)
				close(fds[i]);
		fds[F_UDP6] = fds[F_TCP6] = fds[F_T6] = -1;
	}
	uint8_t buf[8192] __attribute__((aligned(4)));
	struct cf_nlb b = {.buf = buf, .cap = sizeof(buf)};
	cf_nl_nft_batch(&b, CF_NET_TRANSPARENT_PORT, v6);
	int r = talk(NETLINK_NETFILTER, &b);
	if (r < 0)
		child_fail(sock, ST_NFT, -r);
	b = (struct cf_nlb){.buf = buf, .cap = sizeof(buf)};
	cf_nl_default_route(&b, 4);
	cf_nl_routing_rules(&b, 4);
	if ((r = talk(NETLINK_ROUTE, &b)) < 0)
		child_fail(sock, ST_ROUTE, -r);
	if (v6) {
		/* Without them IPv6 connects fail at once (ENETUNREACH): what they did before. */
		b = (struct cf_nlb){.buf = buf, .cap = sizeof(buf)};
		cf_nl_default_route(&b, 6);
		cf_nl_routing_rules(&b, 6);
		(void)talk(NETLINK_ROUTE, &b);
	}
	child_send(sock, fds);
	_exit(1);
}

/* The child's answer, within five seconds: 0 with the descriptors, or a negative. */
static int receive(int sock, struct answer *a, struct cf_netns_fds *out)
{
	struct pollfd p = {.fd = sock, .events = POLLIN};
	int n;
	do
		n = poll(&p, 1, 5000);
	while (n < 0 && errno == EINTR);
	if (n <= 0)
		return -ETIMEDOUT;
	union {
		char buf[CMSG_SPACE(sizeof(int) * N_FDS)];
		struct cmsghdr align;
	} u;
	struct iovec iov = {.iov_base = a, .iov_len = sizeof(*a)};
	struct msghdr m = {
	    .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof(u)};
	ssize_t k = recvmsg(sock, &m, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
	if (k != (ssize_t)sizeof(*a))
		return -EPIPE;
	int got[N_FDS], ng = 0;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		size_t cnt = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < cnt && ng < N_FDS; i++)
			memcpy(&got[ng++], CMSG_DATA(c) + i * sizeof(int), sizeof(int));
	}
	if (a->err)
		return 0;
	for (int i = 0, j = 0; i < N_FDS; i++)
		*slot(out, i) = a->have[i] && j < ng ? got[j++] : -1;
	if (out->dns_udp4 < 0 || out->dns_tcp4 < 0 || out->tcp4 < 0) {
		cf_netns_fds_close(out);
		return -EPIPE;
	}
	return 0;
}

/* The namespaces of pid, opened while pidfd shows it is still the process meant. */
static int open_ns(pid_t pid, int pidfd, int *netns, int *userns)
{
	*netns = cf_proc_open(AT_FDCWD, pid, "ns/net", O_RDONLY);
	if (*netns < 0)
		return -errno;
	if (pidfd >= 0 && syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0) < 0) {
		close(*netns);
		*netns = -1;
		return -ESRCH;
	}
	/* The user namespace that owns the network namespace: bwrap's, which confine's user
	 * created (in helper mode pid 1 itself is in a namespace nested inside it). */
	*userns = ioctl(*netns, NS_GET_USERNS);
	if (*userns < 0) {
		int e = errno;
		close(*netns);
		*netns = -1;
		return -e;
	}
	return 0;
}

int cf_netns_setup(pid_t pid, int pidfd, struct cf_netns_fds *out, struct confine_error *err)
{
	cf_netns_fds_init(out);
	int netns = -1, userns = -1, sv[2] = {-1, -1}, r;
	struct answer a = {0};
	const char *call = "open", *what = "the sandbox's network namespace";
	if ((r = open_ns(pid, pidfd, &netns, &userns)) < 0)
		goto fail;
	call = "socketpair";
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
		r = -errno;
		goto fail;
	}
	call = "fork";
	pid_t c = fork();
	if (c < 0) {
		r = -errno;
		goto fail;
	}
	if (c == 0) {
		close(sv[0]);
		child(sv[1], userns, netns);
	}
	close(sv[1]);
	sv[1] = -1;
	r = receive(sv[0], &a, out);
	if (r < 0)
		kill(c, SIGKILL);
	while (waitpid(c, NULL, 0) < 0 && errno == EINTR)
		;
	call = "recvmsg";
	if (r == 0 && a.err) {
		r = -a.err;
		call = a.step >= 0 && a.step < (int)(sizeof(steps) / sizeof(steps[0]))
			   ? steps[a.step]
			   : "?";
		what = "the network namespace of the sandbox";
	}
fail:
	if (netns >= 0)
		close(netns);
	if (userns >= 0)
		close(userns);
	for (int i = 0; i < 2; i++)
		if (sv[i] >= 0)
			close(sv[i]);
	if (r == 0)
		return 0;
	cf_netns_fds_close(out);
	cf_err_os(err, CONFINE_E_OS, "cannot set up the resolver inside the sandbox", what, call,
		  -r);
	return CONFINE_E_OS;
}

void cf_netns_attach(const struct cf_launch *lc)
{
	if (!lc->netrun || lc->backend == CONFINE_BACKEND_LANDLOCK ||
	    (pid_t)lc->facts.target_pid <= 0 || (pid_t)lc->facts.target_pid == lc->facts.pid)
		return;
	struct cf_netns_fds f;
	struct confine_error e = {0};
	if (cf_netns_setup((pid_t)lc->facts.target_pid, lc->facts.target_pidfd, &f, &e) < 0) {
		/* Fail closed: nothing was added to the namespace, the sandbox is as it was
		 * before the resolver existed; the run's decisions say why. */
		cf_netrun_inside_failed(lc->netrun, &e);
		return;
	}
	struct cf_inside_fds in = {f.dns_udp4, f.dns_udp6, f.dns_tcp4, f.dns_tcp6, f.tcp4, f.tcp6};
	if (cf_netrun_inside(lc->netrun, &in, &e) < 0)
		cf_netrun_inside_failed(lc->netrun, &e);
}

/* SPDX-License-Identifier: MIT */
/*
 * The keeper (keeper.h).  Why a process: when confine is killed, nothing of it runs any more,
 * and what the kernel does by itself is not enough.  bwrap's --die-with-parent is set by bwrap
 * only after it has cloned the sandbox's first process, which then waits on an eventfd for
 * bwrap to map its ids: killed in between, bwrap leaves that process waiting forever, holding
 * the caller's stdout and stderr.  The landlock command's parent-death signal ends the command
 * but not what it started.  So the keeper, forked before anything else of the run, waits on a
 * socket whose other end only confine holds; end of file without a "done" means confine is
 * gone, and the keeper then kills:
 *  - its own process group, which bwrap joins before exec: bwrap, and the sandbox's first
 *    process until bwrap's setsid (the group's number is the keeper's own pid, so it cannot
 *    name anyone else while the keeper lives);
 *  - pid 1 of each bwrap sandbox, by pidfd, handed over before confine lets the command start
 *    (the go pipe): before that, confine-init ends by itself at the end of file of its go pipe;
 *  - the landlock command's process group (the command hands its pidfd over itself, before
 *    exec, so no moment is missed); its cgroup when there is one (every process, setsid or
 *    not).
 * Everything in the keeper after the fork is a system call on its own stack: the caller may be
 * a threaded host.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "exec/linux/child.h"
#include "exec/linux/keeper.h"
#include "util/util.h"

#define KEEPER_DONE 'D'
#define KEEPER_SLOTS 32

struct keeper_msg {
	char what;
	char pad[3];
	int32_t number;
};

struct slot {
	char what; /* 0: free */
	int fd;
	int number;
};

int cf_keeper_send(int sock, char what, int fd, int number)
{
	struct keeper_msg m = {.what = what, .number = number};
	struct iovec iov = {.iov_base = &m, .iov_len = sizeof(m)};
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} c;
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
	if (fd >= 0) {
		memset(&c, 0, sizeof(c));
		mh.msg_control = c.buf;
		mh.msg_controllen = sizeof(c.buf);
		struct cmsghdr *h = CMSG_FIRSTHDR(&mh);
		h->cmsg_level = SOL_SOCKET;
		h->cmsg_type = SCM_RIGHTS;
		h->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(h), &fd, sizeof(int));
	}
	ssize_t k;
	do
		k = sendmsg(sock, &mh, MSG_NOSIGNAL);
	while (k < 0 && errno == EINTR);
	return k == (ssize_t)sizeof(m) ? 0 : -1;
}

int cf_keeper_send_self_group(int sock)
{
	pid_t self = getpid();
	int pfd = (int)syscall(SYS_pidfd_open, self, 0);
	/* Before Linux 5.3: the group by its number alone (the leader is ended by its
	 * parent-death signal). */
	if (pfd < 0 && errno != ENOSYS)
		return -1;
	if (pfd < 0)
		return cf_keeper_send(sock, CF_KEEP_GROUP, -1, (int)self);
	int r = cf_keeper_send(sock, CF_KEEP_GROUP, pfd, (int)self);
	int e = errno;
	close(pfd);
	errno = e;
	return r;
}

static bool exited(int pidfd)
{
	if (pidfd < 0)
		return false;
	struct pollfd p = {.fd = pidfd, .events = POLLIN};
	return poll(&p, 1, 0) == 1;
}

/* Every pid listed in the cgroup's cgroup.procs, killed; how many there were. */
static int kill_listed(int dfd)
{
	int fd = openat(dfd, "cgroup.procs", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	char buf[4096];
	long cur = -1;
	int found = 0;
	pid_t self = getpid();
	ssize_t n;
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		for (ssize_t i = 0; i <= n; i++) {
			if (i < n && buf[i] >= '0' && buf[i] <= '9') {
				cur = (cur < 0 ? 0 : cur) * 10 + (buf[i] - '0');
				continue;
			}
			if (i == n)
				break; /* a number may go on in the next read */
			if (cur > 1 && cur != self) {
				kill((pid_t)cur, SIGKILL);
				found++;
			}
			cur = -1;
		}
	}
	if (cur > 1 && cur != self) {
		kill((pid_t)cur, SIGKILL);
		found++;
	}
	close(fd);
	return found;
}

static void kill_cgroup(int dfd)
{
	/* cgroup.kill (v2, Linux 5.14): all of it at once, forks included.  Elsewhere the list,
	 * again until it is empty (a fork between the read and the kill adds a round). */
	int k = openat(dfd, "cgroup.kill", O_WRONLY | O_CLOEXEC);
	if (k >= 0) {
		ssize_t w = write(k, "1", 1);
		close(k);
		if (w == 1)
			return;
	}
	struct timespec ms = {0, 1000000};
	for (int round = 0; round < 200 && kill_listed(dfd) > 0; round++)
		nanosleep(&ms, NULL);
}

static _Noreturn void kill_all(const struct slot *s)
{
	/* The landlock command's group first: its leader died with confine (its parent-death
	 * signal), so the group's number is held by the processes still in it. */
	for (int i = 0; i < KEEPER_SLOTS; i++)
		if (s[i].what == CF_KEEP_GROUP && s[i].number > 1)
			kill(-(pid_t)s[i].number, SIGKILL);
	for (int i = 0; i < KEEPER_SLOTS; i++)
		if ((s[i].what == CF_KEEP_PROCESS || s[i].what == CF_KEEP_GROUP) && s[i].fd >= 0)
			syscall(SYS_pidfd_send_signal, s[i].fd, SIGKILL, NULL, 0);
	for (int i = 0; i < KEEPER_SLOTS; i++)
		if (s[i].what == CF_KEEP_CGROUP)
			kill_cgroup(s[i].fd);
	/* Last, the keeper's own group: bwrap, its first child before setsid, and the keeper. */
	kill(0, SIGKILL);
	_exit(0);
}

static void keep(struct slot *s, char what, int fd, int number)
{
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < KEEPER_SLOTS; i++) {
			/* Second pass: the place of a process that has ended. */
			bool free = !s[i].what ||
				    (pass == 1 && s[i].what != CF_KEEP_CGROUP && exited(s[i].fd));
			if (!free)
				continue;
			if (s[i].what && s[i].fd >= 0)
				close(s[i].fd);
			s[i] = (struct slot){.what = what, .fd = fd, .number = number};
			return;
		}
	if (fd >= 0)
		close(fd); /* never: a run hands over a handful */
}

/* Only `sock` stays open, at some number from 3 on: nothing of the caller's (its stdout and
 * stderr above all) is held by the keeper. */
static int only(int sock)
{
	int s = fcntl(sock, F_DUPFD_CLOEXEC, 3);
	if (s < 0)
		_exit(1);
	if (syscall(SYS_close_range, 0U, (unsigned)s - 1, 0U) < 0 ||
	    syscall(SYS_close_range, (unsigned)s + 1, ~0U, 0U) < 0) {
		struct rlimit rl;
		int max = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < (1U << 20)
			      ? (int)rl.rlim_cur
			      : 1 << 20;
		for (int fd = 0; fd < max; fd++)
			if (fd != s)
				close(fd);
	}
	return s;
}

static _Noreturn void keeper_main(int sock)
{
	/* Every signal the terminal or a caller's group kill can send is ignored (Ctrl-C is for
	 * the command, through confine); faults keep their default. */
	struct sigaction ign = {.sa_handler = SIG_IGN};
	sigemptyset(&ign.sa_mask);
	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP && sig != SIGSEGV && sig != SIGBUS &&
		    sig != SIGILL && sig != SIGFPE && sig != SIGABRT && sig != SIGSYS)
			sigaction(sig, &ign, NULL);
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	setpgid(0, 0);
	prctl(PR_SET_NAME, "confine-keeper", 0, 0, 0);
	/* Same user as the command on the landlock backend: no ptrace of it, no /proc/PID/fd. */
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	if (chdir("/") < 0)
		_exit(1);
	sock = only(sock);
	struct slot s[KEEPER_SLOTS];
	memset(s, 0, sizeof(s));
	for (;;) {
		struct keeper_msg m = {0};
		struct iovec iov = {.iov_base = &m, .iov_len = sizeof(m)};
		union {
			char buf[CMSG_SPACE(sizeof(int))];
			struct cmsghdr align;
		} c;
		struct msghdr mh = {.msg_iov = &iov,
				    .msg_iovlen = 1,
				    .msg_control = c.buf,
				    .msg_controllen = sizeof(c.buf)};
		ssize_t n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			kill_all(s); /* end of file: confine is gone and said nothing */
		int fd = -1;
		struct cmsghdr *h = CMSG_FIRSTHDR(&mh);
		if (h && h->cmsg_level == SOL_SOCKET && h->cmsg_type == SCM_RIGHTS &&
		    h->cmsg_len == CMSG_LEN(sizeof(int)))
			memcpy(&fd, CMSG_DATA(h), sizeof(int));
		if (m.what == KEEPER_DONE)
			_exit(0);
		if ((fd >= 0 && (m.what == CF_KEEP_PROCESS || m.what == CF_KEEP_CGROUP)) ||
		    (m.what == CF_KEEP_GROUP && m.number > 1))
			keep(s, m.what, fd, m.number);
		else if (fd >= 0)
			close(fd);
	}
}

int cf_keeper_start(struct cf_keeper *k, struct confine_error *err)
{
	int sv[2];
	*k = (struct cf_keeper)CF_KEEPER_INIT;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return cf_err_os(err, CONFINE_E_OS, "cannot start the sandbox", "confine-keeper",
				 "socketpair", errno);
	/* No handler of the caller's may run in the child before it has ignored them all. */
	sigset_t old;
	cf_child_block_all(&old);
	pid_t pid = _Fork();
	if (pid == 0) {
		close(sv[0]);
		keeper_main(sv[1]);
	}
	cf_child_unblock(&old);
	int e = errno;
	close(sv[1]);
	if (pid < 0) {
		close(sv[0]);
		return cf_err_os(err, CONFINE_E_OS, "cannot start the sandbox", "confine-keeper",
				 "fork", e);
	}
	/* Both sides set the group, so that it exists before bwrap is told to join it. */
	setpgid(pid, pid);
	k->pid = pid;
	k->fd = sv[0];
	return 0;
}

static void reap(struct cf_keeper *k)
{
	if (k->fd >= 0)
		close(k->fd);
	while (k->pid > 0 && waitpid(k->pid, NULL, 0) < 0 && errno == EINTR)
		;
	*k = (struct cf_keeper)CF_KEEPER_INIT;
}

void cf_keeper_done(struct cf_keeper *k)
{
	if (k->fd >= 0)
		(void)cf_keeper_send(k->fd, KEEPER_DONE, -1, 0);
	reap(k);
}

void cf_keeper_end(struct cf_keeper *k)
{
	reap(k);
}

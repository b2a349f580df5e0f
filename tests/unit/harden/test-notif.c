/* SPDX-License-Identifier: MIT */
/*
 * exec/linux/notif.c, the seccomp user notification's receive and answer every guard uses, on
 * a real listener: a forked child under a filter that hands getppid(2) and dup(2) to this
 * process.  An answer's errno and a descriptor answer reach the child as they were sent; a
 * notification answered, or whose thread was killed, is no longer pending and answering it
 * again is refused (ENOENT) without blocking; a descriptor the command has no room for is
 * answered with EMFILE; the wait stops on its wake descriptor, even
 * with a notification ready, and drops a descriptor that hung up; the listener's handoff
 * gives -1 for a byte without a descriptor and for an end.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "exec/linux/notif.h"
#include "util/fdpass.h"
#include "tap.h"

/* getppid and dup go to the listener; everything else is allowed. */
static int load_filter(void)
{
	struct sock_filter f[] = {
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_getppid, 2, 0),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_dup, 1, 0),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
	};
	struct sock_fprog prog = {.len = sizeof(f) / sizeof(f[0]), .filter = f};
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -1;
	return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER,
			    &prog);
}

/* The child: sends its listener, then reports each call's result as two ints on `sock`. */
static void child(int sock)
{
	int l = load_filter();
	if (l < 0 || cf_notif_send_listener(sock, l) < 0)
		_exit(2);
	close(l);
	int rep[2];
	errno = 0;
	rep[0] = (int)syscall(__NR_getppid);
	rep[1] = errno;
	if (write(sock, rep, sizeof(rep)) != sizeof(rep))
		_exit(3);
	errno = 0;
	int fd = (int)syscall(__NR_dup, 12345);
	struct stat st;
	rep[0] = fd >= 0 && fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode) &&
		 (fcntl(fd, F_GETFD) & FD_CLOEXEC) && write(fd, "x", 1) == 1;
	rep[1] = errno;
	if (write(sock, rep, sizeof(rep)) != sizeof(rep))
		_exit(3);
	/* No descriptor may be added: fd 0 taken, a limit of one. */
	if (fcntl(0, F_GETFD) < 0 && open("/dev/null", O_RDONLY) != 0)
		_exit(3);
	if (setrlimit(RLIMIT_NOFILE, &(struct rlimit){1, 1}) < 0)
		_exit(3);
	errno = 0;
	rep[0] = (int)syscall(__NR_dup, 12345);
	rep[1] = errno;
	if (write(sock, rep, sizeof(rep)) != sizeof(rep))
		_exit(3);
	syscall(__NR_getppid); /* killed while it waits */
	_exit(4);
}

/* The child's report of one call; -1 when none came within a minute (an answer never sent:
 * the child still waits), so that the test fails instead of hanging. */
static int read_report(int sock, int rep[2])
{
	struct pollfd p = {.fd = sock, .events = POLLIN};
	rep[0] = rep[1] = 0;
	if (poll(&p, 1, 60000) != 1)
		return -1;
	return read(sock, rep, 2 * sizeof(int)) == (ssize_t)(2 * sizeof(int)) ? 0 : -1;
}

struct waker {
	pid_t tid;
	int wake;
};

/* Writes `wake` once the main thread is blocked in poll (its /proc syscall file says so). */
static void *wake_when_blocked(void *arg)
{
	struct waker *w = arg;
	char path[64], buf[64];
	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", (int)w->tid);
	for (int i = 0; i < 20000; i++) {
		FILE *f = fopen(path, "re");
		long nr = -1;
		if (f && fgets(buf, sizeof(buf), f))
			nr = strtol(buf, NULL, 10);
		if (f)
			fclose(f);
#ifdef __NR_poll
		if (nr == __NR_poll)
			break;
#endif
		if (nr == __NR_ppoll)
			break;
		nanosleep(&(struct timespec){.tv_nsec = 1000 * 1000}, NULL);
	}
	uint64_t one = 1;
	if (write(w->wake, &one, sizeof(one)) != sizeof(one))
		abort();
	return NULL;
}

static void wait_cases(void)
{
	int wake = eventfd(0, EFD_CLOEXEC), ev = eventfd(0, EFD_CLOEXEC), fd = ev;
	uint64_t one = 1;
	TAP_OK(wake >= 0 && ev >= 0, "eventfds");
	TAP_OK(write(ev, &one, sizeof(one)) == sizeof(one) && cf_notif_wait(wake, &fd) && fd == ev,
	       "wait: true when the descriptor is readable, the descriptor kept");
	TAP_OK(write(wake, &one, sizeof(one)) == sizeof(one) && !cf_notif_wait(wake, &fd) &&
		   fd == ev,
	       "wait: false when the wake is readable, though the descriptor is too");
	close(ev);
	close(wake);

	/* A pipe whose writer is gone: POLLHUP without POLLIN. */
	int p[2];
	wake = eventfd(0, EFD_CLOEXEC);
	TAP_OK(pipe2(p, O_CLOEXEC) == 0 && wake >= 0, "pipe");
	close(p[1]);
	fd = p[0];
	struct waker w = {(pid_t)syscall(SYS_gettid), wake};
	pthread_t t;
	TAP_OK(pthread_create(&t, NULL, wake_when_blocked, &w) == 0, "waker thread");
	TAP_OK(!cf_notif_wait(wake, &fd), "wait: a hang-up does not end the wait, the wake does");
	TAP_INTEQ(fd, -1, "wait: the descriptor that hung up is dropped");
	pthread_join(t, NULL);
	close(p[0]);
	close(wake);

	/* The listener's handoff. */
	int sv[2];
	TAP_OK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0, "socketpair");
	TAP_OK(write(sv[1], "L", 1) == 1, "a byte without a descriptor");
	TAP_INTEQ(cf_notif_recv_listener(sv[0]), -1, "handoff: a byte without a descriptor: -1");
	close(sv[1]);
	TAP_INTEQ(cf_notif_recv_listener(sv[0]), -1, "handoff: the end: -1");
	TAP_OK(cf_notif_send_listener(sv[0], 0) == -1 && errno == EPIPE,
	       "handoff: sent to nobody: -1 with EPIPE, no SIGPIPE");
	close(sv[0]);
}

/* Takes the next notification of `l` (waiting on it), or fails. */
static bool next(int l, struct seccomp_notif *req, size_t rq)
{
	int wake = eventfd(0, EFD_CLOEXEC), fd = l;
	bool ok = cf_notif_wait(wake, &fd) && cf_notif_recv(l, req, rq);
	close(wake);
	return ok;
}

static void listener_cases(void)
{
	size_t rq, rs;
	cf_notif_sizes(&rq, &rs);
	struct seccomp_notif_sizes k = {0};
	bool known = syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &k) == 0;
	TAP_OK(rq >= sizeof(struct seccomp_notif) && rs >= sizeof(struct seccomp_notif_resp) &&
		   (!known || (rq >= k.seccomp_notif && rs >= k.seccomp_notif_resp)),
	       "sizes: at least ours and the kernel's (%zu, %zu)", rq, rs);

	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		abort();
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		close(sv[0]);
		child(sv[1]);
	}
	close(sv[1]);
	int l = cf_notif_recv_listener(sv[0]);
	if (l < 0) {
		TAP_SKIP("no seccomp listener here (Linux 5.0 and no_new_privs)");
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return;
	}
	TAP_OK(l >= 0 && (fcntl(l, F_GETFD) & FD_CLOEXEC), "handoff: the listener, close-on-exec");
	struct seccomp_notif *req = calloc(1, rq);
	int rep[2] = {0, 0};

	/* An errno answer. */
	TAP_OK(next(l, req, rq) && req->data.nr == __NR_getppid && req->pid == (uint32_t)pid,
	       "recv: the child's getppid");
	uint64_t id = req->id;
	TAP_OK(cf_notif_pending(l, id), "pending while the child waits");
	cf_notif_send_error(l, id, -EXDEV);
	int got = read_report(sv[0], rep);
	TAP_OK(got == 0 && rep[0] == -1 && rep[1] == EXDEV,
	       "send_error: the child's getppid is -1 with EXDEV (%d, %d)", rep[0], rep[1]);
	TAP_OK(!cf_notif_pending(l, id), "answered: no longer pending");
	cf_notif_send_error(l, id, -EPERM); /* returns: ENOENT is not waited on */
	TAP_INTEQ(cf_notif_addfd(l, id, 0, 0), -ENOENT, "addfd on an answered id: -ENOENT");

	/* A descriptor answer. */
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0)
		abort();
	TAP_OK(got == 0 && next(l, req, rq) && req->data.nr == __NR_dup, "recv: the child's dup");
	cf_notif_send_fd(l, req->id, p[1], true);
	char c = 0;
	got = got < 0 ? got : read_report(sv[0], rep);
	TAP_OK(got == 0 && rep[0] == 1,
	       "send_fd: the child's dup is our pipe, close-on-exec, and writes to it");
	TAP_OK(read(p[0], &c, 1) == 1 && c == 'x', "the child's byte came through our pipe");
	TAP_OK(fcntl(p[1], F_GETFD) < 0 && errno == EBADF, "send_fd closed our descriptor");

	/* A descriptor the child has no room for: its limit's errno. */
	TAP_OK(got == 0 && next(l, req, rq) && req->data.nr == __NR_dup,
	       "recv: the child's dup at its limit");
	id = req->id;
	int extra = dup(p[0]);
	cf_notif_send_fd(l, id, extra, false);
	got = got < 0 ? got : read_report(sv[0], rep);
	TAP_OK(got == 0 && rep[0] == -1 && rep[1] == EMFILE,
	       "send_fd at the child's limit: its dup is -1 with EMFILE (%d, %d)", rep[0], rep[1]);
	TAP_OK(fcntl(extra, F_GETFD) < 0 && errno == EBADF, "send_fd closed our descriptor");
	TAP_INTEQ(cf_notif_addfd(l, id, p[0], 0), -ENOENT, "answered: addfd is -ENOENT");

	/* A thread killed while it waits (an answer missing above: the child waits for it). */
	TAP_OK(got == 0 && next(l, req, rq) && req->data.nr == __NR_getppid,
	       "recv: the last getppid");
	id = req->id;
	int st = 0;
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	TAP_OK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "the child was killed while it waited");
	TAP_OK(!cf_notif_pending(l, id), "killed: no longer pending");
	TAP_INTEQ(cf_notif_addfd(l, id, p[0], 0), -ENOENT, "addfd for a killed thread: -ENOENT");
	int dupd = dup(p[0]);
	cf_notif_send_fd(l, id, dupd, false);
	TAP_OK(fcntl(dupd, F_GETFD) < 0 && errno == EBADF,
	       "send_fd for a killed thread: returns, our descriptor closed");
	cf_notif_send_error(l, id, -EPERM);
	struct pollfd pf = {.fd = l, .events = POLLIN};
	TAP_OK(poll(&pf, 1, 10000) == 1 && (pf.revents & POLLHUP),
	       "the listener hangs up: nothing is left under the filter");
	TAP_OK(!cf_notif_recv(l, req, rq), "recv with nothing left under the filter: fails");
	free(req);
	close(p[0]);
	close(l);
	close(sv[0]);
}

int main(void)
{
	wait_cases();
	listener_cases();
	return tap_done();
}

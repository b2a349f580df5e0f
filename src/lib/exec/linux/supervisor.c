/* SPDX-License-Identifier: MIT */
/*
 * The landlock backend's supervisor (see supervisor.h).  One thread, blocking calls, every
 * signal blocked, no capability.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "exec/linux/connguard.h"
#include "exec/linux/metaguard.h"
#include "exec/linux/pathguard.h"
#include "exec/linux/ptyguard.h"
#include "exec/linux/supervisor.h"
#include "exec/linux/sv_common.h"
#include "util/fdpass.h"
#include "util/util.h"

#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, uint64_t)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (1UL << 0)
#endif

struct cf_supervisor {
	int handoff_fd, listener, wake_fd;
	const struct cf_ll_plan *plan;
	struct cf_sv_policy pol; /* the plan and its protected inodes */
	struct cf_connguard *guard;
	pthread_t thread;
	bool started;
	pthread_mutex_t lock;
	unsigned long made, refused;
};

/* The thread's own capabilities go (capset(2) changes the calling thread only): a root
 * caller's supervisor makes changes with the command's rights, uid 0 without capabilities,
 * never with CAP_FOWNER or CAP_CHOWN.  Failing that, it answers nothing but EACCES. */
static bool drop_thread_caps(void)
{
	struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
	struct __user_cap_data_struct none[2];
	memset(none, 0, sizeof(none));
	return syscall(SYS_capset, &hdr, none) == 0;
}

static int receive_listener(int fd)
{
	char byte;
	int lfd;
	ssize_t k;
	do
		k = cf_fd_recv(fd, &byte, &lfd, 0);
	while (k < 0 && errno == EINTR);
	return k > 0 ? lfd : -1;
}

static void count(struct cf_supervisor *s, bool made)
{
	pthread_mutex_lock(&s->lock);
	if (made)
		s->made++;
	else
		s->refused++;
	pthread_mutex_unlock(&s->lock);
}

static void answer(struct cf_supervisor *s, bool capless, struct seccomp_notif *req,
		   struct seccomp_notif_resp *resp, size_t resp_size)
{
	memset(resp, 0, resp_size);
	resp->id = req->id;
	bool made = false, counted = true;
	long r;
	if (cf_path_handles(req)) {
		enum cf_path_outcome o = capless
					     ? cf_path_answer(&s->pol, s->listener, req, &r, &made)
					     : CF_PATH_CONTINUE;
		if (o == CF_PATH_SENT) {
			count(s, true);
			return;
		}
		if (o == CF_PATH_CONTINUE) {
			/* The kernel decides under the command's own rules (pathguard.c). */
			resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
			r = 0;
			counted = false;
		} else
			counted = made;
	} else if (cf_pty_handles(req)) {
		int e = -EACCES;
		if (capless && cf_pty_answer(s->listener, req, &e))
			return; /* answered with the descriptor */
		r = e;
		counted = false;
	} else if (cf_meta_handles(req))
		r = capless ? cf_meta_answer(&s->pol, s->listener, req, &made) : -EACCES;
	else if (s->guard) {
		r = cf_connguard_answer(s->guard, s->listener, req);
		counted = false;
	} else
		r = -ENOSYS;
	if (r < 0)
		resp->error = (int)r;
	else
		resp->val = r;
	if (counted)
		count(s, made);
	/* ENOENT: the thread was killed meanwhile; nothing to answer. */
	while (ioctl(s->listener, SECCOMP_IOCTL_NOTIF_SEND, resp) < 0 && errno == EINTR)
		;
}

static void *loop(void *arg)
{
	struct cf_supervisor *s = arg;
	/* Its own working directory and umask (pathguard.c), then no capability; the protected
	 * inodes are recorded while the child starts (no answer is made before). */
	bool capless = cf_path_thread_init() == 0 && drop_thread_caps() &&
		       cf_sv_policy_init(&s->pol, s->plan) == 0;
	struct seccomp_notif_sizes sizes = {0};
	if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes) < 0)
		sizes = (struct seccomp_notif_sizes){sizeof(struct seccomp_notif),
						     sizeof(struct seccomp_notif_resp),
						     sizeof(struct seccomp_data)};
	size_t rq = sizes.seccomp_notif > sizeof(struct seccomp_notif)
			? sizes.seccomp_notif
			: sizeof(struct seccomp_notif);
	size_t rs = sizes.seccomp_notif_resp > sizeof(struct seccomp_notif_resp)
			? sizes.seccomp_notif_resp
			: sizeof(struct seccomp_notif_resp);
	struct seccomp_notif *req = calloc(1, rq);
	struct seccomp_notif_resp *resp = calloc(1, rs);
	struct pollfd p[2] = {{.fd = s->wake_fd, .events = POLLIN},
			      {.fd = s->handoff_fd, .events = POLLIN}};
	for (;;) {
		int n = poll(p, 2, -1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || (p[0].revents & POLLIN))
			break;
		if (p[1].fd == s->handoff_fd && p[1].revents) {
			int l = receive_listener(s->handoff_fd);
			close(s->handoff_fd);
			pthread_mutex_lock(&s->lock);
			s->handoff_fd = -1;
			s->listener = l;
			pthread_mutex_unlock(&s->lock);
			/* The waking thread runs on this CPU (Linux 6.6): a notification costs a
			 * switch, not a wake-up on another core.  Older kernels refuse it. */
			if (l >= 0)
				(void)ioctl(l, SECCOMP_IOCTL_NOTIF_SET_FLAGS,
					    SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP, 0);
			p[1].fd = l;
			continue;
		}
		if (p[1].revents & POLLIN) {
			if (!req || !resp) {
				/* Out of memory: no answer can be made; the listener goes, and the
				 * kernel answers every supervised call with ENOSYS (fail closed).
				 */
				pthread_mutex_lock(&s->lock);
				close(s->listener);
				s->listener = p[1].fd = -1;
				pthread_mutex_unlock(&s->lock);
				continue;
			}
			memset(req, 0, rq);
			if (ioctl(s->listener, SECCOMP_IOCTL_NOTIF_RECV, req) == 0)
				answer(s, capless, req, resp, rs);
			continue;
		}
		if (p[1].revents & (POLLHUP | POLLERR | POLLNVAL))
			p[1].fd = -1; /* every process under the filter is gone */
	}
	free(req);
	free(resp);
	return NULL;
}

int cf_supervisor_start(int handoff_fd, const struct cf_ll_plan *plan, struct cf_connguard *guard,
			struct cf_supervisor **out, struct confine_error *err)
{
	*out = NULL;
	struct cf_supervisor *s = calloc(1, sizeof(*s));
	if (!s) {
		close(handoff_fd);
		return cf_nomem(err);
	}
	s->handoff_fd = handoff_fd;
	s->listener = -1;
	s->plan = plan;
	s->guard = guard;
	pthread_mutex_init(&s->lock, NULL);
	s->wake_fd = eventfd(0, EFD_CLOEXEC);
	if (s->wake_fd < 0) {
		int e = errno;
		cf_supervisor_free(s);
		return cf_err_os(err, CONFINE_E_OS, "cannot start the supervisor", "eventfd",
				 "eventfd", e);
	}
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int e = pthread_create(&s->thread, NULL, loop, s);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (e) {
		cf_supervisor_free(s);
		return cf_err_os(err, CONFINE_E_OS, "cannot start the supervisor", "thread",
				 "pthread_create", e);
	}
	s->started = true;
	*out = s;
	return 0;
}

void cf_supervisor_counts(struct cf_supervisor *s, unsigned long *made, unsigned long *refused)
{
	pthread_mutex_lock(&s->lock);
	*made = s->made;
	*refused = s->refused;
	pthread_mutex_unlock(&s->lock);
}

void cf_supervisor_free(struct cf_supervisor *s)
{
	if (!s)
		return;
	if (s->started) {
		uint64_t one = 1;
		ssize_t k = write(s->wake_fd, &one, sizeof(one));
		(void)k;
		pthread_join(s->thread, NULL);
	}
	if (s->handoff_fd >= 0)
		close(s->handoff_fd);
	if (s->listener >= 0)
		close(s->listener);
	if (s->wake_fd >= 0)
		close(s->wake_fd);
	cf_sv_policy_release(&s->pol);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

bool cf_supervisor_can_broker(void)
{
	char v[16] = {0};
	int fd = open("/proc/sys/kernel/yama/ptrace_scope", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return true; /* no Yama */
	ssize_t n = read(fd, v, sizeof(v) - 1);
	close(fd);
	return n > 0 && v[0] < '2';
}

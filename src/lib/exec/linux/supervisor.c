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
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "exec/linux/landlock/connguard.h"
#include "exec/linux/metaguard.h"
#include "exec/linux/notif.h"
#include "exec/linux/opener.h"
#include "exec/linux/pathguard.h"
#include "exec/linux/ptyguard.h"
#include "exec/linux/supervisor.h"
#include "exec/linux/sv_common.h"
#include "util/util.h"
#include "util/thread.h"

#include "util/linux_abi.h"

struct cf_supervisor {
	int handoff_fd, listener, wake_fd;
	const struct cf_ll_plan *plan;
	struct cf_sv_policy pol; /* the plan and its protected inodes */
	struct cf_connguard *guard;
	pthread_t thread;
	bool started;
	pthread_mutex_t lock;
	pthread_cond_t cond; /* ready, spawned */
	size_t rq, rs;	     /* the kernel's sizes of struct seccomp_notif and its answer */
	struct seccomp_notif *req, *oreq; /* the supervisor's and the opener's */
	struct seccomp_notif_resp *resp;
	bool ready, stopping;
	/* R36 (plan->opener): the opener's thread holds the listener and hands the supervisor
	 * what it does not answer itself through `feed` (struct fed records). */
	struct cf_opener *opener;
	pthread_t othread;
	bool ostarted;
	int feed[2];
	/* The spawn on the opener's thread (cf_supervisor_spawn). */
	int ruleset;
	pid_t (*spawn)(void *);
	void *spawn_arg;
	pid_t pid;
	int spawn_errno;
	const char *spawn_what;
	bool spawned;
};

/* One notification the opener hands over: `fallback`, the errno to answer where the supervisor
 * does not act itself (0: answer it as usual), then the kernel's struct seccomp_notif. */
struct fed {
	int fallback;
	int pad;
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

static void answer(struct cf_supervisor *s, bool capless, struct seccomp_notif *req,
		   struct seccomp_notif_resp *resp, size_t resp_size, int fallback)
{
	memset(resp, 0, resp_size);
	resp->id = req->id;
	bool made = false; /* whether a change was made: the answers say, nobody counts it */
	long r;
	/* R36: an open that could read a FIFO is never continued to the kernel, which would
	 * resolve its path again: the opener answered it, or handed it over with its errno. */
	if (s->plan->opener && !fallback && cf_opener_handles(req))
		fallback = EACCES;
	if (cf_path_handles(req)) {
		enum cf_path_outcome o = capless
					     ? cf_path_answer(&s->pol, s->listener, req, &r, &made)
					     : CF_PATH_CONTINUE;
		if (o == CF_PATH_SENT)
			return;
		if (o == CF_PATH_CONTINUE && fallback) {
			r = -fallback;
		} else if (o == CF_PATH_CONTINUE) {
			/* The kernel decides under the command's own rules (pathguard.c). */
			resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
			r = 0;
		}
	} else if (cf_pty_handles(req)) {
		int e = -EACCES;
		if (capless && cf_pty_answer(s->listener, req, &e))
			return; /* answered with the descriptor */
		r = e;
	} else if (cf_meta_handles(req))
		r = capless ? cf_meta_answer(&s->pol, s->listener, req, &made) : -EACCES;
	else if (s->guard)
		r = cf_connguard_answer(s->guard, s->listener, req);
	else
		r = -ENOSYS;
	if (r < 0)
		resp->error = (int)r;
	else
		resp->val = r;
	cf_notif_send(s->listener, resp);
}

/* One notification the opener handed over (s->feed); false at its end. */
static bool fed(struct cf_supervisor *s, struct seccomp_notif *req, int *fallback)
{
	struct fed f;
	struct iovec v[2] = {{.iov_base = &f, .iov_len = sizeof(f)},
			     {.iov_base = req, .iov_len = s->rq}};
	ssize_t k;
	memset(req, 0, s->rq);
	do
		k = readv(s->feed[0], v, 2);
	while (k < 0 && errno == EINTR);
	if (k != (ssize_t)(sizeof(f) + s->rq))
		return false; /* the end (a pipe gives whole records below PIPE_BUF) */
	*fallback = f.fallback;
	return true;
}

static void *loop(void *arg)
{
	struct cf_supervisor *s = arg;
	/* Its own working directory and umask (pathguard.c), then no capability; the protected
	 * inodes are recorded while the child starts (no answer is made before). */
	bool capless = cf_path_thread_init() == 0 && drop_thread_caps() &&
		       cf_sv_policy_init(&s->pol, s->plan) == 0;
	pthread_mutex_lock(&s->lock);
	s->ready = true;
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->lock);
	struct seccomp_notif *req = s->req;
	struct seccomp_notif_resp *resp = s->resp;
	/* With the opener, what it hands over; else the listener, once the child sent it. */
	bool feed = s->plan->opener;
	int fd = feed ? s->feed[0] : s->handoff_fd;
	while (cf_notif_wait(s->wake_fd, &fd)) {
		if (!feed && s->handoff_fd >= 0) {
			int l = cf_notif_recv_listener(s->handoff_fd);
			close(s->handoff_fd);
			pthread_mutex_lock(&s->lock);
			s->handoff_fd = -1;
			s->listener = l;
			pthread_mutex_unlock(&s->lock);
			cf_notif_sync_wake(l);
			fd = l;
			continue;
		}
		int fallback = 0;
		if (feed ? fed(s, req, &fallback) : cf_notif_recv(s->listener, req, s->rq))
			answer(s, capless, req, resp, s->rs, fallback);
	}
	return NULL;
}

/* ---- The opener's thread (R36, opener.h) ---------------------------------------------- */

/* Hands a notification the opener does not answer to the supervisor's thread.  The write
 * never blocks the opener past the end of the run. */
static void forward(struct cf_supervisor *s, const struct seccomp_notif *req, int fallback)
{
	struct fed f = {.fallback = fallback};
	struct iovec v[2] = {{.iov_base = &f, .iov_len = sizeof(f)},
			     {.iov_base = (void *)req, .iov_len = s->rq}};
	for (;;) {
		ssize_t k = writev(s->feed[1], v, 2);
		if (k == (ssize_t)(sizeof(f) + s->rq))
			return;
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 && errno == EAGAIN) {
			struct pollfd p[2] = {{.fd = s->feed[1], .events = POLLOUT},
					      {.fd = s->wake_fd, .events = POLLIN}};
			if (poll(p, 2, -1) >= 0 && !(p[1].revents & POLLIN))
				continue;
		}
		/* The run ends: the call is answered ENOSYS when the listener goes. */
		return;
	}
}

/* Restricted, then the command forked from it (landlock/spawn.c's spawn), then every
 * notification of the command: the opens that could read a FIFO answered here, the rest handed
 * to the supervisor's thread.  The command's parent-death signal is tied to this thread: it
 * lives until cf_supervisor_free. */
static void *oloop(void *arg)
{
	struct cf_supervisor *s = arg;
	const char *what = NULL;
	pid_t pid = -1;
	int e = 0;
	if (cf_opener_enter(s->ruleset, &what) < 0)
		e = errno;
	else if ((pid = s->spawn(s->spawn_arg)) < 0) {
		e = errno;
		what = "vfork";
	}
	pthread_mutex_lock(&s->lock);
	s->pid = pid;
	s->spawn_errno = e;
	s->spawn_what = what;
	s->spawned = true;
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->lock);
	if (pid < 0)
		return NULL;
	/* The listener the child sends right after it loads the filter; none when the child
	 * failed before (its end of the socket closes) or the run ends first. */
	int hf = s->handoff_fd;
	int l = cf_notif_wait(s->wake_fd, &hf) && hf >= 0 ? cf_notif_recv_listener(hf) : -1;
	if (l < 0)
		return NULL; /* the child failed before its exec: its record says why */
	cf_notif_sync_wake(l);
	pthread_mutex_lock(&s->lock);
	s->listener = l;
	pthread_mutex_unlock(&s->lock);
	/* Not ready (no capability could be dropped, out of descriptors): every open it would
	 * make is refused (cf_opener_answer). */
	(void)cf_opener_ready(s->opener, l);
	pthread_mutex_lock(&s->lock);
	while (!s->ready && !s->stopping)
		pthread_cond_wait(&s->cond, &s->lock);
	bool stop = s->stopping;
	pthread_mutex_unlock(&s->lock);
	int fd = l;
	while (!stop && cf_notif_wait(s->wake_fd, &fd)) {
		int fallback;
		if (cf_notif_recv(l, s->oreq, s->rq) &&
		    !cf_opener_answer(s->opener, s->oreq, &fallback))
			forward(s, s->oreq, fallback);
	}
	return NULL;
}

int cf_supervisor_spawn(struct cf_supervisor *s, int ruleset, struct cf_guard_ident *allow,
			size_t n_allow, pid_t (*spawn)(void *), void *arg, pid_t *pid,
			struct confine_error *err)
{
	*pid = -1;
	if (!(s->opener = cf_opener_new(s->plan, &s->pol, allow, n_allow)))
		return cf_nomem(err);
	s->ruleset = ruleset;
	s->spawn = spawn;
	s->spawn_arg = arg;
	int e = cf_thread_start(&s->othread, 0, false, oloop, s);
	if (e)
		return cf_err_os(err, CONFINE_E_OS, "cannot start the sandbox", "confine's opener",
				 "pthread_create", e);
	s->ostarted = true;
	pthread_mutex_lock(&s->lock);
	while (!s->spawned)
		pthread_cond_wait(&s->cond, &s->lock);
	pthread_mutex_unlock(&s->lock);
	*pid = s->pid;
	if (s->pid < 0 && !strcmp(s->spawn_what, "vfork"))
		return cf_err_os(err, CONFINE_E_OS, "cannot start the sandbox", "landlock", "vfork",
				 s->spawn_errno);
	if (s->pid < 0)
		return cf_err_os(err, CONFINE_E_SPAWN, "cannot start confine's opener",
				 "the command's FIFO guard", s->spawn_what, s->spawn_errno);
	return 0;
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
	s->listener = s->wake_fd = -1;
	s->plan = plan;
	s->guard = guard;
	s->feed[0] = s->feed[1] = -1;
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->cond, NULL);
	cf_notif_sizes(&s->rq, &s->rs);
	s->req = calloc(1, s->rq);
	s->oreq = calloc(1, s->rq);
	s->resp = calloc(1, s->rs);
	if (!s->req || !s->oreq || !s->resp) {
		cf_supervisor_free(s);
		return cf_nomem(err);
	}
	s->wake_fd = eventfd(0, EFD_CLOEXEC);
	/* What the opener hands over (one record per write, below PIPE_BUF: whole records). */
	if (s->wake_fd < 0 || (plan->opener && pipe2(s->feed, O_CLOEXEC) < 0) ||
	    (plan->opener && fcntl(s->feed[1], F_SETFL, O_NONBLOCK) < 0)) {
		int e = errno;
		cf_supervisor_free(s);
		return cf_err_os(err, CONFINE_E_OS, "cannot start the supervisor", "eventfd",
				 "eventfd, pipe2", e);
	}
	int e = cf_thread_start(&s->thread, 0, false, loop, s);
	if (e) {
		cf_supervisor_free(s);
		return cf_err_os(err, CONFINE_E_OS, "cannot start the supervisor", "thread",
				 "pthread_create", e);
	}
	s->started = true;
	*out = s;
	return 0;
}

void cf_supervisor_free(struct cf_supervisor *s)
{
	if (!s)
		return;
	pthread_mutex_lock(&s->lock);
	s->stopping = true;
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->lock);
	if (s->wake_fd >= 0) {
		uint64_t one = 1;
		ssize_t k = write(s->wake_fd, &one, sizeof(one));
		(void)k;
	}
	/* The opener first: the command's parent-death signal goes with its thread. */
	if (s->ostarted)
		pthread_join(s->othread, NULL);
	cf_opener_free(s->opener);
	if (s->started)
		pthread_join(s->thread, NULL);
	int fds[] = {s->handoff_fd, s->listener, s->wake_fd, s->feed[0], s->feed[1]};
	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
		if (fds[i] >= 0)
			close(fds[i]);
	cf_sv_policy_release(&s->pol);
	free(s->req);
	free(s->oreq);
	free(s->resp);
	pthread_cond_destroy(&s->cond);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

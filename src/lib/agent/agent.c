/* SPDX-License-Identifier: MIT */
/*
 * The filtering agent's sockets and threads (see agent.h).  One thread accepts; each client
 * connection gets a thread of its own running a small message loop: read one framed message
 * (its length checked before anything is read), look its type up in the protocol's table,
 * answer or refuse it, and for what is allowed ask the caller's agent over a connection of its
 * own.  Blocking calls, every one also woken by the stop descriptor.  Every signal is blocked
 * in these threads.
 *
 * Who can reach the socket: its directory is 0700 (util/owntmp.c) and the socket 0600 under the
 * host's /tmp,
 * which a bwrap sandbox sees only as its own private tmpfs; inside that sandbox the directory
 * is bound read-only at /dev/.confine-agent.  On the landlock backend the command reaches it
 * only through the connect guard, which connects it itself.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "agent/agent.h"
#include "agent/agent_policy.h"
#include "util/owntmp.h"
#include "util/thread.h"

struct cf_agent {
	char *dir, *path, *upstream;
	int dir_fd, listen_fd, stop_fd, lock_fd;
	struct cf_strv fingerprints;
	struct cf_agent_rules rules;
	pthread_t accept_thread;
	bool started, stopped;
	pthread_mutex_t lock;
	pthread_cond_t idle;
	unsigned clients; /* client threads running */
	struct confine_agent_event *events;
	size_t n_events, dropped;
};

struct client {
	struct cf_agent *a;
	int fd, up; /* the command's connection; the caller's agent, -1 until needed */
	struct cf_agent_session session;
	uint8_t *msg; /* the message being read or answered */
};

static int64_t wall_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void record(struct cf_agent *a, struct confine_agent_event *ev)
{
	ev->size = sizeof(*ev);
	ev->time_ms = wall_ms();
	pthread_mutex_lock(&a->lock);
	if (a->n_events < CF_AGENT_MAX_EVENTS)
		a->events[a->n_events++] = *ev;
	else
		a->dropped++;
	pthread_mutex_unlock(&a->lock);
}

/* Waits until fd is ready for `events`; false when the agent stops or the peer is gone. */
static bool wait_fd(struct cf_agent *a, int fd, short events)
{
	for (;;) {
		struct pollfd p[2] = {{.fd = fd, .events = events},
				      {.fd = a->stop_fd, .events = POLLIN}};
		int n = poll(p, 2, -1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || p[1].revents)
			return false;
		if (p[0].revents & events)
			return true;
		if (p[0].revents & (POLLHUP | POLLERR | POLLNVAL))
			return false;
	}
}

static bool read_full(struct cf_agent *a, int fd, uint8_t *buf, size_t n)
{
	size_t got = 0;
	while (got < n) {
		if (!wait_fd(a, fd, POLLIN))
			return false;
		ssize_t k = recv(fd, buf + got, n - got, MSG_DONTWAIT);
		if (k < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK))
			continue;
		if (k <= 0)
			return false;
		got += (size_t)k;
	}
	return true;
}

static bool write_full(struct cf_agent *a, int fd, const void *buf, size_t n)
{
	size_t put = 0;
	while (put < n) {
		if (!wait_fd(a, fd, POLLOUT))
			return false;
		ssize_t k = send(fd, (const char *)buf + put, n - put, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (k < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK))
			continue;
		if (k <= 0)
			return false;
		put += (size_t)k;
	}
	return true;
}

/* Reads one framed message into a fresh buffer: *msg (4-byte length included), *len.  false
 * at the end of the connection, on a length of 0 or over CF_AGENT_MAX_MSG, on a stop. */
static bool read_msg(struct cf_agent *a, int fd, uint8_t **msg, size_t *len)
{
	uint8_t head[4];
	if (!read_full(a, fd, head, 4) || cf_agent_frame(head, 4) < 0)
		return false;
	uint32_t body =
	    (uint32_t)head[0] << 24 | (uint32_t)head[1] << 16 | (uint32_t)head[2] << 8 | head[3];
	if (body == 0 || body > CF_AGENT_MAX_MSG)
		return false;
	uint8_t *m = malloc(4 + (size_t)body);
	if (!m)
		return false;
	memcpy(m, head, 4);
	if (!read_full(a, fd, m + 4, body)) {
		free(m);
		return false;
	}
	*msg = m;
	*len = 4 + (size_t)body;
	return true;
}

static bool reply_byte(struct client *c, uint8_t type)
{
	struct cf_buf b;
	cf_buf_init(&b);
	cf_agent_build_byte(type, &b);
	bool ok = !b.oom && write_full(c->a, c->fd, b.s, b.len);
	cf_buf_release(&b);
	return ok;
}

static int connect_upstream(const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	size_t n = strlen(path);
	if (n >= sizeof(sa.sun_path))
		return -1;
	memcpy(sa.sun_path, path, n + 1);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* Sends a message to the caller's agent and reads its answer (*ans, malloc'd). */
static bool ask_upstream(struct client *c, const uint8_t *msg, size_t len, uint8_t **ans,
			 size_t *alen)
{
	if (c->up < 0 && (c->up = connect_upstream(c->a->upstream)) < 0)
		return false;
	if (write_full(c->a, c->up, msg, len) && read_msg(c->a, c->up, ans, alen))
		return true;
	close(c->up);
	c->up = -1;
	return false;
}

static bool do_list(struct client *c, struct confine_agent_event *ev)
{
	static const uint8_t req[5] = {0, 0, 0, 1, CF_SSH_AGENTC_REQUEST_IDENTITIES};
	uint8_t *ans = NULL;
	size_t alen = 0, n = 0;
	struct cf_agent_ident *v = malloc(1024 * sizeof(*v));
	bool *keep = malloc(1024 * sizeof(*keep));
	bool ok = false;
	if (!v || !keep || !ask_upstream(c, req, sizeof(req), &ans, &alen) ||
	    !cf_agent_parse_identities(ans + 4, alen - 4, v, 1024, &n)) {
		cf_agent_event_set(ev, "list", "failed",
				   ans ? "the caller's agent sent a malformed answer"
				       : "the caller's agent cannot be reached");
		ok = reply_byte(c, CF_SSH_AGENT_FAILURE);
		goto out;
	}
	size_t kept = 0;
	for (size_t i = 0; i < n; i++)
		kept += keep[i] = cf_agent_key_named(&c->a->rules, v[i].blob.p, v[i].blob.n);
	struct cf_buf b;
	cf_buf_init(&b);
	cf_agent_build_identities(v, keep, n, &b);
	ok = !b.oom && write_full(c->a, c->fd, b.s, b.len);
	cf_buf_release(&b);
	char detail[96];
	snprintf(detail, sizeof(detail), "%zu of the %zu keys of the caller's agent listed", kept,
		 n);
	cf_agent_event_set(ev, "list", "allowed", detail);
out:
	free(ans);
	free(v);
	free(keep);
	return ok;
}

/* Passes an allowed request on as it came and its answer back. */
static bool pass_on(struct client *c, const uint8_t *msg, size_t len,
		    struct confine_agent_event *ev)
{
	uint8_t *ans = NULL;
	size_t alen = 0;
	if (!ask_upstream(c, msg, len, &ans, &alen)) {
		cf_agent_event_set(ev, ev->request, "failed",
				   "the caller's agent cannot be reached");
		return reply_byte(c, CF_SSH_AGENT_FAILURE);
	}
	if (alen == 5 && ans[4] == CF_SSH_AGENT_FAILURE)
		cf_agent_event_set(ev, ev->request, "failed", "the caller's agent refused it");
	bool ok = write_full(c->a, c->fd, ans, alen);
	free(ans);
	return ok;
}

/* One request; false ends the connection. */
static bool handle(struct client *c, const uint8_t *msg, size_t len)
{
	struct cf_agent_msg m;
	struct confine_agent_event ev;
	bool ok;
	memset(&ev, 0, sizeof(ev));
	cf_agent_parse(msg + 4, len - 4, &m);
	switch (m.kind) {
	case CF_AGENT_LIST:
		ok = do_list(c, &ev);
		break;
	case CF_AGENT_SIGN:
		ok = cf_agent_sign(&c->session, &m, &c->a->rules, &ev)
			 ? pass_on(c, msg, len, &ev)
			 : reply_byte(c, CF_SSH_AGENT_FAILURE);
		break;
	case CF_AGENT_BIND:
		if (!cf_agent_bind(&c->session, &m, &c->a->rules, &ev)) {
			ok = reply_byte(c, CF_SSH_AGENT_FAILURE);
			break;
		}
		/* The caller's agent learns the binding too, so that keys it holds with
		 * destination constraints (ssh-add -h) keep theirs; its answer does not
		 * matter. */
		uint8_t *ans = NULL;
		size_t alen;
		if (ask_upstream(c, msg, len, &ans, &alen))
			free(ans);
		ok = reply_byte(c, CF_SSH_AGENT_SUCCESS);
		break;
	case CF_AGENT_MALFORMED:
		cf_agent_event_set(&ev, "malformed", "refused", m.why);
		ok = reply_byte(c, CF_SSH_AGENT_FAILURE);
		break;
	default: {
		char detail[160], name[48];
		size_t k = m.ext.n < sizeof(name) - 1 ? m.ext.n : sizeof(name) - 1;
		memcpy(name, m.ext.p ? (const char *)m.ext.p : "", k);
		name[k] = '\0';
		if (m.kind == CF_AGENT_EXTENSION || m.kind == CF_AGENT_QUERY)
			snprintf(detail, sizeof(detail),
				 "extension '%s': confine's agent only lists and signs", name);
		else if (m.kind == CF_AGENT_UNKNOWN)
			snprintf(detail, sizeof(detail),
				 "message type %u%s: not a request confine knows", m.type,
				 m.type == 1 || m.type == 3 || m.type == 7 || m.type == 8 ||
					 m.type == 9 || m.type == 24
				     ? " (SSH protocol 1)"
				     : "");
		else
			snprintf(detail, sizeof(detail), "%s",
				 "confine's agent only lists and signs");
		cf_agent_event_set(&ev, cf_agent_kind_name(m.kind), "refused", detail);
		ok = reply_byte(c, CF_SSH_AGENT_FAILURE);
	}
	}
	record(c->a, &ev);
	return ok;
}

static void *client_loop(void *arg)
{
	struct client *c = arg;
	uint8_t *msg;
	size_t len;
	while (read_msg(c->a, c->fd, &msg, &len)) {
		bool ok = handle(c, msg, len);
		explicit_bzero(msg, len);
		free(msg);
		if (!ok)
			break;
	}
	close(c->fd);
	if (c->up >= 0)
		close(c->up);
	cf_agent_session_release(&c->session);
	struct cf_agent *a = c->a;
	free(c);
	pthread_mutex_lock(&a->lock);
	if (--a->clients == 0)
		pthread_cond_broadcast(&a->idle);
	pthread_mutex_unlock(&a->lock);
	return NULL;
}

static void start_client(struct cf_agent *a, int fd)
{
	struct client *c = calloc(1, sizeof(*c));
	pthread_mutex_lock(&a->lock);
	bool room = a->clients < CF_AGENT_MAX_CLIENTS;
	if (room && c)
		a->clients++;
	pthread_mutex_unlock(&a->lock);
	if (!room || !c) {
		free(c);
		close(fd);
		return;
	}
	c->a = a;
	c->fd = fd;
	c->up = -1;
	if (cf_thread_start(NULL, 256 * 1024, true, client_loop, c) != 0) {
		close(fd);
		free(c);
		pthread_mutex_lock(&a->lock);
		if (--a->clients == 0)
			pthread_cond_broadcast(&a->idle);
		pthread_mutex_unlock(&a->lock);
	}
}

static void *accept_loop(void *arg)
{
	struct cf_agent *a = arg;
	for (;;) {
		struct pollfd p[2] = {{.fd = a->listen_fd, .events = POLLIN},
				      {.fd = a->stop_fd, .events = POLLIN}};
		int n = poll(p, 2, -1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || p[1].revents)
			break;
		int fd = accept4(a->listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (fd >= 0)
			start_client(a, fd);
		else if (errno == EMFILE || errno == ENFILE)
			poll(NULL, 0, 50); /* out of descriptors: wait for a client to end */
	}
	return NULL;
}

static int listen_at(struct cf_agent *a, struct confine_error *err)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	size_t n = strlen(a->path);
	if (n >= sizeof(sa.sun_path))
		return cf_err_os(err, CONFINE_E_OS, "cannot start the ssh-agent filter", a->path,
				 "bind", ENAMETOOLONG);
	memcpy(sa.sun_path, a->path, n + 1);
	a->listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	/* The directory is 0700 already; the socket's own mode is tightened right after bind,
	 * without touching the process's umask (a library must not). */
	if (a->listen_fd < 0 || bind(a->listen_fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    chmod(a->path, 0600) < 0 || listen(a->listen_fd, 128) < 0)
		return cf_err_os(err, CONFINE_E_OS, "cannot start the ssh-agent filter", a->path,
				 a->listen_fd < 0 ? "socket" : "bind", errno);
	return 0;
}

int cf_agent_start(const struct cf_agent_config *cfg, struct cf_agent **out,
		   struct confine_error *err)
{
	int r;
	struct cf_agent *a = calloc(1, sizeof(*a));
	*out = NULL;
	if (!a)
		return cf_nomem(err);
	a->dir_fd = a->listen_fd = a->stop_fd = a->lock_fd = -1;
	pthread_mutex_init(&a->lock, NULL);
	pthread_cond_init(&a->idle, NULL);
	for (size_t i = 0; i < cfg->fingerprints->n; i++)
		if (cf_strv_add(&a->fingerprints, cfg->fingerprints->v[i]) < 0)
			goto oom;
	a->rules = (struct cf_agent_rules){&a->fingerprints, cfg->kh, cfg->net, cfg->mode};
	a->events = malloc(CF_AGENT_MAX_EVENTS * sizeof(*a->events));
	if (!a->events || !(a->upstream = cf_strdup(cfg->upstream)))
		goto oom;
	/* /tmp/confine-agent.*, locked while this run lives; what a killed run left is swept by
	 * the next confine (util/owntmp.c). */
	if ((r = cf_owntmp_make(CF_OWNTMP_AGENT, &a->dir, &a->lock_fd, err)) < 0)
		goto out;
	if (!(a->path = cf_path_join(a->dir, CF_AGENT_SOCK)))
		goto oom;
	a->dir_fd = open(a->dir, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	a->stop_fd = eventfd(0, EFD_CLOEXEC);
	if (a->dir_fd < 0 || a->stop_fd < 0) {
		r = cf_err_os(err, CONFINE_E_OS, "cannot start the ssh-agent filter", a->dir,
			      a->dir_fd < 0 ? "open" : "eventfd", errno);
		goto out;
	}
	if ((r = listen_at(a, err)) < 0)
		goto out;
	int e = cf_thread_start(&a->accept_thread, 0, false, accept_loop, a);
	if (e) {
		r = cf_err_os(err, CONFINE_E_OS, "cannot start the ssh-agent filter", "thread",
			      "pthread_create", e);
		goto out;
	}
	a->started = true;
	*out = a;
	a = NULL;
	r = 0;
	goto out;
oom:
	r = cf_nomem(err);
out:
	cf_agent_free(a);
	return r;
}

const char *cf_agent_sock_path(const struct cf_agent *a)
{
	return a->path;
}

int cf_agent_dir_fd(const struct cf_agent *a)
{
	return a->dir_fd;
}

void cf_agent_stop(struct cf_agent *a)
{
	if (!a || !a->started || a->stopped)
		return;
	uint64_t one = 1;
	ssize_t k = write(a->stop_fd, &one, sizeof(one));
	(void)k;
	pthread_join(a->accept_thread, NULL);
	/* The client threads see the stop descriptor in every wait. */
	pthread_mutex_lock(&a->lock);
	while (a->clients)
		pthread_cond_wait(&a->idle, &a->lock);
	pthread_mutex_unlock(&a->lock);
	a->stopped = true;
}

const struct confine_agent_event *cf_agent_events(const struct cf_agent *a, size_t *n,
						  size_t *dropped)
{
	*n = a->n_events;
	if (dropped)
		*dropped = a->dropped;
	return a->events;
}

void cf_agent_free(struct cf_agent *a)
{
	if (!a)
		return;
	cf_agent_stop(a);
	if (a->listen_fd >= 0)
		close(a->listen_fd);
	if (a->dir)
		cf_owntmp_remove(a->dir, a->lock_fd);
	if (a->dir_fd >= 0)
		close(a->dir_fd);
	if (a->stop_fd >= 0)
		close(a->stop_fd);
	free(a->path);
	free(a->dir);
	free(a->upstream);
	free(a->events);
	cf_strv_release(&a->fingerprints);
	pthread_cond_destroy(&a->idle);
	pthread_mutex_destroy(&a->lock);
	free(a);
}

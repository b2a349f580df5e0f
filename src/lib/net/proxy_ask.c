/* SPDX-License-Identifier: MIT */
/*
 * Live asks (R43): a request for a host no rule names (ASK) waits while the host's asker
 * (confine_request_set_net_ask) decides, at most CONFINE_NET_ASK_TIMEOUT_MS.  The asker runs on
 * a thread of its own, started with the first question, one question at a time; the proxy's
 * loop never waits for it: it learns of each answer through an eventfd.  Requests for the same
 * host and port that wait together share one question.  An answer of RUN is remembered for the
 * rest of the run (later requests are "earlier"), ONCE lets the waiting requests go, DENY and
 * no answer in time refuse them.  Every answer is recorded with the request's decision.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "net/proxy_int.h"
#include "util/thread.h"

struct question {
	uint64_t id;
	struct confine_net_ask q;
	enum confine_net_answer answer;
	struct question *next;
};

struct cf_ask_state {
	confine_net_ask_fn fn;
	void *user;
	int efd;
	struct ref ref;
	pthread_t thread;
	bool started;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool stop;
	struct question *queue, *queue_tail; /* to ask (the thread's) */
	struct question *done;		     /* answered (the loop's) */
	/* the loop's own */
	struct question *pending; /* asked or queued, not yet answered */
	uint64_t next_id;
	struct confine_net_ask *run_allows; /* answered RUN */
	size_t n_allows, cap_allows;
};

static void *asker(void *arg)
{
	struct cf_ask_state *a = arg;
	pthread_mutex_lock(&a->lock);
	for (;;) {
		while (!a->queue && !a->stop)
			pthread_cond_wait(&a->cond, &a->lock);
		if (a->stop)
			break;
		struct question *q = a->queue;
		a->queue = q->next;
		if (!a->queue)
			a->queue_tail = NULL;
		pthread_mutex_unlock(&a->lock);
		enum confine_net_answer ans = a->fn(&q->q, a->user);
		q->answer = ans == CONFINE_NET_ANSWER_ONCE || ans == CONFINE_NET_ANSWER_RUN
				? ans
				: CONFINE_NET_ANSWER_DENY;
		pthread_mutex_lock(&a->lock);
		q->next = a->done;
		a->done = q;
		uint64_t one = 1;
		ssize_t k = write(a->efd, &one, sizeof(one));
		(void)k;
	}
	pthread_mutex_unlock(&a->lock);
	return NULL;
}

int cf_ask_init(struct cf_proxy *p)
{
	if (!p->cfg.ask)
		return 0;
	struct cf_ask_state *a = calloc(1, sizeof(*a));
	if (!a)
		return -1;
	a->fn = p->cfg.ask;
	a->user = p->cfg.ask_user;
	a->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	a->ref = (struct ref){W_ASK, NULL, NULL, NULL};
	struct epoll_event ev = {.events = EPOLLIN, .data.ptr = &a->ref};
	if (a->efd < 0 || epoll_ctl(p->ep, EPOLL_CTL_ADD, a->efd, &ev) < 0) {
		if (a->efd >= 0)
			close(a->efd);
		free(a);
		return -1;
	}
	pthread_mutex_init(&a->lock, NULL);
	pthread_cond_init(&a->cond, NULL);
	p->ask = a;
	return 0;
}

static bool allowed_for_run(const struct cf_ask_state *a, const char *host, uint16_t port)
{
	for (size_t i = 0; i < a->n_allows; i++)
		if (a->run_allows[i].port == port && !strcmp(a->run_allows[i].host, host))
			return true;
	return false;
}

/* A new question, queued for the thread (started now if it is not yet). */
static struct question *ask(struct cf_ask_state *a, const struct conn *c)
{
	struct question *q = calloc(1, sizeof(*q));
	if (!q)
		return NULL;
	q->id = ++a->next_id;
	q->q.size = sizeof(q->q);
	snprintf(q->q.host, sizeof(q->q.host), "%s", c->host);
	q->q.port = c->port;
	snprintf(q->q.protocol, sizeof(q->q.protocol), "%s", c->proto);
	pthread_mutex_lock(&a->lock);
	if (!a->started) {
		a->started = cf_thread_start(&a->thread, 0, false, asker, a) == 0;
	}
	if (!a->started) {
		pthread_mutex_unlock(&a->lock);
		free(q);
		return NULL;
	}
	if (a->queue_tail)
		a->queue_tail->next = q;
	else
		a->queue = q;
	a->queue_tail = q;
	pthread_cond_signal(&a->cond);
	pthread_mutex_unlock(&a->lock);
	return q;
}

bool cf_ask_begin(struct conn *c)
{
	struct cf_ask_state *a = c->p->ask;
	if (!a)
		return false;
	if (allowed_for_run(a, c->host, c->port)) {
		snprintf(c->answer, sizeof(c->answer), "earlier");
		cf_conn_allowed(c);
		return true;
	}
	/* The same host and port already waiting: the same question. */
	uint64_t id = 0;
	for (const struct question *q = a->pending; q && !id; q = q->next)
		if (q->q.port == c->port && !strcmp(q->q.host, c->host) &&
		    !strcmp(q->q.protocol, c->proto))
			id = q->id;
	if (!id) {
		struct question *q = ask(a, c);
		if (!q)
			return false; /* no thread, no memory: denied, as without an asker */
		/* The loop's own copy of what is pending: the thread owns q until it answers. */
		struct question *mine = malloc(sizeof(*mine));
		if (mine) {
			*mine = *q;
			mine->next = a->pending;
			a->pending = mine;
		}
		id = q->id;
	}
	c->ask_id = id;
	c->st = S_ASK;
	c->deadline = cf_proxy_now() + c->p->cfg.ask_timeout_ms;
	cf_proxy_update(c);
	return true;
}

static void remember(struct cf_ask_state *a, const struct confine_net_ask *q)
{
	if (allowed_for_run(a, q->host, q->port))
		return;
	if (a->n_allows == a->cap_allows) {
		size_t cap = a->cap_allows ? a->cap_allows * 2 : 8;
		struct confine_net_ask *v = realloc(a->run_allows, cap * sizeof(*v));
		if (!v)
			return; /* asked again next time */
		a->run_allows = v;
		a->cap_allows = cap;
	}
	a->run_allows[a->n_allows++] = *q;
}

/* The requests waiting for question `id` get its answer. */
static void apply(struct cf_proxy *p, uint64_t id, enum confine_net_answer ans)
{
	const char *word = ans == CONFINE_NET_ANSWER_RUN    ? "run"
			   : ans == CONFINE_NET_ANSWER_ONCE ? "once"
							    : "deny";
	/* From the end: a refusal or a failure may close connections (the array shrinks). */
	for (size_t i = p->n_conns; i-- > 0;) {
		if (i >= p->n_conns)
			continue;
		struct conn *c = p->conns[i];
		if (c->closed || c->st != S_ASK || c->ask_id != id)
			continue;
		snprintf(c->answer, sizeof(c->answer), "%s", word);
		if (ans == CONFINE_NET_ANSWER_DENY)
			cf_conn_deny(c);
		else
			cf_conn_allowed(c);
	}
}

void cf_ask_answered(struct cf_proxy *p)
{
	struct cf_ask_state *a = p->ask;
	uint64_t v;
	ssize_t k = read(a->efd, &v, sizeof(v));
	(void)k;
	pthread_mutex_lock(&a->lock);
	struct question *done = a->done;
	a->done = NULL;
	pthread_mutex_unlock(&a->lock);
	while (done) {
		struct question *q = done;
		done = q->next;
		for (struct question **x = &a->pending; *x; x = &(*x)->next) {
			if ((*x)->id == q->id) {
				struct question *gone = *x;
				*x = gone->next;
				free(gone);
				break;
			}
		}
		if (q->answer == CONFINE_NET_ANSWER_RUN)
			remember(a, &q->q);
		apply(p, q->id, q->answer);
		free(q);
	}
}

void cf_ask_timeout(struct conn *c)
{
	snprintf(c->answer, sizeof(c->answer), "timeout");
	cf_conn_deny(c);
}

static void free_list(struct question *q)
{
	while (q) {
		struct question *next = q->next;
		free(q);
		q = next;
	}
}

void cf_ask_release(struct cf_proxy *p)
{
	struct cf_ask_state *a = p->ask;
	if (!a)
		return;
	pthread_mutex_lock(&a->lock);
	a->stop = true;
	pthread_cond_broadcast(&a->cond);
	bool started = a->started;
	pthread_mutex_unlock(&a->lock);
	/* A question in progress is waited for (the asker must return; the CLI's bounds its
	 * wait); the questions not asked yet are dropped. */
	if (started)
		pthread_join(a->thread, NULL);
	free_list(a->queue);
	free_list(a->done);
	free_list(a->pending);
	free(a->run_allows);
	close(a->efd);
	pthread_cond_destroy(&a->cond);
	pthread_mutex_destroy(&a->lock);
	free(a);
	p->ask = NULL;
}

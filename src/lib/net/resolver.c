/* SPDX-License-Identifier: MIT */
/* The proxy's resolver threads (see resolver.h). */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "net/resolver.h"
#include "util/thread.h"

struct cf_resolver {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct cf_resolve_job *queue, *queue_tail; /* waiting */
	struct cf_resolve_job *done, *done_tail;   /* finished, for the owner */
	unsigned threads, max_threads, idle;
	unsigned refs; /* the owner's and one per worker */
	bool released;
	unsigned long lookups;
	int efd;
};

static void free_list(struct cf_resolve_job *j)
{
	while (j) {
		struct cf_resolve_job *next = j->next;
		free(j);
		j = next;
	}
}

static void destroy(struct cf_resolver *r)
{
	free_list(r->queue);
	free_list(r->done);
	close(r->efd);
	pthread_cond_destroy(&r->cond);
	pthread_mutex_destroy(&r->lock);
	free(r);
}

/* Drops one reference, under the lock; frees the resolver with the last one. */
static void unref_locked(struct cf_resolver *r)
{
	bool last = --r->refs == 0;
	pthread_mutex_unlock(&r->lock);
	if (last)
		destroy(r);
}

static void *worker(void *arg)
{
	struct cf_resolver *r = arg;
	pthread_mutex_lock(&r->lock);
	for (;;) {
		while (!r->queue && !r->released) {
			r->idle++;
			pthread_cond_wait(&r->cond, &r->lock);
			r->idle--;
		}
		if (r->released)
			break;
		struct cf_resolve_job *j = r->queue;
		r->queue = j->next;
		if (!r->queue)
			r->queue_tail = NULL;
		r->lookups++;
		pthread_mutex_unlock(&r->lock);

		int n = cf_net_lookup(j->name, j->addrs, CF_RESOLVE_MAX_ADDRS, j->reason,
				      sizeof(j->reason));
		j->error = n < 0 ? n : 0;
		j->n = n > 0 ? (size_t)n : 0;

		pthread_mutex_lock(&r->lock);
		j->next = NULL;
		if (r->done_tail)
			r->done_tail->next = j;
		else
			r->done = j;
		r->done_tail = j;
		uint64_t one = 1;
		ssize_t k = write(r->efd, &one, sizeof(one));
		(void)k; /* a counter at its maximum is still readable */
	}
	r->threads--;
	unref_locked(r);
	return NULL;
}

int cf_resolver_new(unsigned threads, struct cf_resolver **out, int *notify_fd)
{
	struct cf_resolver *r = calloc(1, sizeof(*r));
	if (!r)
		return -1;
	r->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (r->efd < 0) {
		free(r);
		return -1;
	}
	pthread_mutex_init(&r->lock, NULL);
	pthread_cond_init(&r->cond, NULL);
	r->max_threads = threads ? threads : 1;
	r->refs = 1;
	*out = r;
	*notify_fd = r->efd;
	return 0;
}

/* A worker of its own for the job when none is idle, up to the maximum; detached, with every
 * signal blocked (signals are the caller's main thread's business). */
static void maybe_spawn(struct cf_resolver *r)
{
	if (r->idle || r->threads >= r->max_threads)
		return;
	/* getaddrinfo needs little stack; 256 KiB leaves room for NSS modules. */
	if (cf_thread_start(NULL, 256 * 1024, true, worker, r) == 0) {
		r->threads++;
		r->refs++;
	}
}

int cf_resolver_submit(struct cf_resolver *r, struct cf_resolve_job *job)
{
	pthread_mutex_lock(&r->lock);
	maybe_spawn(r);
	if (!r->threads) {
		pthread_mutex_unlock(&r->lock);
		errno = EAGAIN;
		return -1;
	}
	job->next = NULL;
	if (r->queue_tail)
		r->queue_tail->next = job;
	else
		r->queue = job;
	r->queue_tail = job;
	pthread_cond_signal(&r->cond);
	pthread_mutex_unlock(&r->lock);
	return 0;
}

struct cf_resolve_job *cf_resolver_done(struct cf_resolver *r)
{
	uint64_t v;
	ssize_t k = read(r->efd, &v, sizeof(v));
	(void)k;
	pthread_mutex_lock(&r->lock);
	struct cf_resolve_job *j = r->done;
	if (j) {
		r->done = j->next;
		if (!r->done)
			r->done_tail = NULL;
		j->next = NULL;
		if (r->done) {
			/* More are waiting: stay readable for them. */
			uint64_t one = 1;
			k = write(r->efd, &one, sizeof(one));
		}
	}
	pthread_mutex_unlock(&r->lock);
	return j;
}

unsigned long cf_resolver_lookups(struct cf_resolver *r)
{
	pthread_mutex_lock(&r->lock);
	unsigned long n = r->lookups;
	pthread_mutex_unlock(&r->lock);
	return n;
}

void cf_resolver_release(struct cf_resolver *r)
{
	if (!r)
		return;
	pthread_mutex_lock(&r->lock);
	r->released = true;
	free_list(r->queue);
	r->queue = r->queue_tail = NULL;
	pthread_cond_broadcast(&r->cond);
	unref_locked(r);
}

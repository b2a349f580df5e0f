/* SPDX-License-Identifier: MIT */
/* Starting a thread with every signal blocked (thread.h). */
#include <signal.h>

#include "util/thread.h"

int cf_thread_start(pthread_t *thread, size_t stack, bool detached, void *(*fn)(void *), void *arg)
{
	pthread_attr_t attr;
	pthread_t own;
	int e = pthread_attr_init(&attr);
	if (e)
		return e;
	if (detached)
		e = pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	if (!e && stack)
		e = pthread_attr_setstacksize(&attr, stack);
	if (!e) {
		/* The new thread inherits the mask it is created under. */
		sigset_t all, old;
		sigfillset(&all);
		pthread_sigmask(SIG_SETMASK, &all, &old);
		e = pthread_create(thread ? thread : &own, &attr, fn, arg);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	pthread_attr_destroy(&attr);
	return e;
}

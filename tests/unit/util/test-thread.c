/* SPDX-License-Identifier: MIT */
/*
 * util/thread.c, the one thread start: the new thread blocks every signal, so that a signal
 * sent to the process is taken by the thread that was there (here the main thread), never by
 * the new one; the caller's mask is as it was.  A thread made by pthread_create alone is the
 * control: it does not block them, so the check can fail.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util/thread.h"
#include "../tap.h"

static int ready[2], go[2]; /* the thread has looked at its mask; the test is done with it */
static volatile sig_atomic_t taken_by;
static sigset_t seen;

static void on_usr1(int sig)
{
	(void)sig;
	taken_by = (sig_atomic_t)syscall(SYS_gettid);
}

static void *body(void *arg)
{
	(void)arg;
	sigemptyset(&seen);
	pthread_sigmask(SIG_BLOCK, NULL, &seen);
	char c = 1;
	if (write(ready[1], &c, 1) != 1)
		return NULL;
	/* Here it waits, in a call a signal would interrupt, while the process is signalled. */
	while (read(go[0], &c, 1) < 0 && errno == EINTR)
		;
	return (void *)1;
}

/* Whether every signal a thread can block is in `s`: all but SIGKILL and SIGSTOP, and 32 and 33,
 * which glibc keeps for itself (cancellation, set*id). */
static bool full(const sigset_t *s)
{
	for (int sig = 1; sig < 32; sig++)
		if (sig != SIGKILL && sig != SIGSTOP && !sigismember(s, sig))
			return false;
	for (int sig = SIGRTMIN; sig <= SIGRTMAX; sig++)
		if (!sigismember(s, sig))
			return false;
	return true;
}

/* Whether a and b hold the same signals (glibc's sigset_t is larger than the kernel's, and
 * neither sigemptyset nor pthread_sigmask write all of it: compare members, not bytes). */
static bool same(const sigset_t *a, const sigset_t *b)
{
	for (int sig = 1; sig <= SIGRTMAX; sig++)
		if (sigismember(a, sig) != sigismember(b, sig))
			return false;
	return true;
}

/* A thread made by cf_thread_start (or by pthread_create, the control): its mask, and whether a
 * SIGUSR1 sent to the process while it waits is taken by the main thread. */
static void one(bool ours, const char *what)
{
	if (pipe(ready) < 0 || pipe(go) < 0) {
		TAP_OK(0, "pipe: %s", strerror(errno));
		return;
	}
	sigset_t before, after;
	pthread_sigmask(SIG_BLOCK, NULL, &before);
	pthread_t t;
	int e =
	    ours ? cf_thread_start(&t, 0, false, body, NULL) : pthread_create(&t, NULL, body, NULL);
	pthread_sigmask(SIG_BLOCK, NULL, &after);
	TAP_INTEQ(e, 0, "%s: started", what);
	char c;
	TAP_OK(read(ready[0], &c, 1) == 1, "%s: it runs", what);
	if (ours) {
		TAP_OK(full(&seen), "%s: the new thread blocks every signal", what);
		TAP_OK(same(&before, &after) && !sigismember(&after, SIGUSR1),
		       "%s: the caller's mask is as it was (SIGUSR1 not blocked)", what);
	} else {
		TAP_OK(!sigismember(&seen, SIGUSR1),
		       "%s (control): the new thread takes SIGUSR1 like the main thread", what);
	}
	/* The main thread blocks SIGUSR1 and the process is signalled; then the new thread is
	 * let go and joined.  A thread that does not block SIGUSR1 takes a signal pending for the
	 * process at the latest when it returns to user space (from its read): so after the join
	 * the signal is either taken by it or still pending, and nothing else could take it. */
	sigset_t usr1, old, pending;
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	taken_by = 0;
	pthread_sigmask(SIG_BLOCK, &usr1, &old);
	kill(getpid(), SIGUSR1);
	if (write(go[1], &c, 1) != 1)
		TAP_OK(0, "write: %s", strerror(errno));
	void *rv = NULL;
	pthread_join(t, &rv);
	TAP_OK(rv == (void *)1, "%s: joined, its result back", what);
	sigemptyset(&pending);
	sigpending(&pending);
	if (ours)
		TAP_OK(!taken_by && sigismember(&pending, SIGUSR1),
		       "%s: a signal sent to the process is not taken by the new thread (still "
		       "pending after it ended)",
		       what);
	else
		TAP_OK(taken_by != 0 && taken_by != getpid() && !sigismember(&pending, SIGUSR1),
		       "%s (control): the new thread took it (tid %d)", what, (int)taken_by);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ours)
		TAP_INTEQ(taken_by, getpid(), "%s: the main thread takes it once it unblocks it",
			  what);
	for (int i = 0; i < 2; i++) {
		close(ready[i]);
		close(go[i]);
	}
}

static void *detached_body(void *arg)
{
	char c = 1;
	if (write(*(int *)arg, &c, 1) != 1)
		return NULL;
	return NULL;
}

int main(void)
{
	struct sigaction sa = {.sa_handler = on_usr1};
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	one(true, "cf_thread_start");
	one(false, "pthread_create");
	/* Detached, with a stack size, no id wanted. */
	int p[2];
	char c;
	if (pipe(p) < 0)
		return 1;
	TAP_INTEQ(cf_thread_start(NULL, 256 * 1024, true, detached_body, &p[1]), 0,
		  "a detached thread with a 256 KiB stack starts");
	TAP_OK(read(p[0], &c, 1) == 1, "and runs");
	TAP_INTEQ(cf_thread_start(NULL, 1, true, detached_body, &p[1]), EINVAL,
		  "a stack below PTHREAD_STACK_MIN: EINVAL, no thread");
	return tap_done();
}

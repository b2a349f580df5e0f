/* SPDX-License-Identifier: MIT */
/* The signals of the executors' children (child.h). */
#include <errno.h>
#include <pthread.h>
#include <stddef.h>

#include "exec/linux/child.h"

static const int reset_signals[] = {SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD};

void cf_child_block_all(sigset_t *old)
{
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, old);
}

void cf_child_unblock(const sigset_t *old)
{
	int e = errno;
	pthread_sigmask(SIG_SETMASK, old, NULL);
	errno = e;
}

void cf_child_signals_default(void)
{
	sigset_t none;
	for (size_t i = 0; i < sizeof(reset_signals) / sizeof(reset_signals[0]); i++)
		signal(reset_signals[i], SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

/* SPDX-License-Identifier: MIT */
/*
 * The keeper (R4 at any moment): a small process of confine's own, started before the sandbox,
 * that ends whatever the run started when confine itself dies before it could (kill -9, the
 * OOM killer).  confine tells it what to end as each part comes to exist; when its socket to
 * confine reaches end of file without a "done", it kills all of it and exits.  Touches the OS.
 */
#ifndef CONFINE_KEEPER_H
#define CONFINE_KEEPER_H

#include <sys/types.h>

#include "confine.h"

struct cf_keeper {
	pid_t pid; /* 0: none; also the process group that bwrap joins */
	int fd;	   /* confine's end of the socket (close-on-exec), -1: none */
};

#define CF_KEEPER_INIT                                                                             \
	{                                                                                          \
		0, -1                                                                              \
	}

/* What a message hands over (with one descriptor). */
enum {
	CF_KEEP_PROCESS = 'P', /* a pidfd: SIGKILL to it (pid 1 of a bwrap sandbox) */
	CF_KEEP_GROUP = 'G',   /* a pidfd of a process group leader (the landlock command):
				* SIGKILL to its group, then to it */
	CF_KEEP_CGROUP = 'C',  /* a cgroup directory: every process in it */
};

/* Starts the keeper in a process group of its own (bwrap joins it, so that bwrap and every
 * process it forks before its own setsid die with it).  0, or CONFINE_E_OS. */
int cf_keeper_start(struct cf_keeper *k, struct confine_error *err);

/* Hands the keeper `what` (a CF_KEEP_*) with descriptor fd (borrowed) and a number (the
 * group's pid for CF_KEEP_GROUP).  Once this returns the keeper holds it, even if confine dies
 * before the keeper reads it.  Async-signal-safe (a child of vfork); 0 or -1 with errno. */
int cf_keeper_send(int sock, char what, int fd, int number);

/* From a child of vfork, before exec: a pidfd of the calling process, handed over as the
 * leader of its process group.  Async-signal-safe; 0 or -1 with errno. */
int cf_keeper_send_self_group(int sock);

/* The run ended by confine's own hand: the keeper exits without killing anything and is
 * reaped.  Accepts a keeper that was never started. */
void cf_keeper_done(struct cf_keeper *k);

/* The run is abandoned while something of it may still run (confine_run_free without a wait):
 * the keeper kills all it holds, as if confine had died, and is reaped. */
void cf_keeper_end(struct cf_keeper *k);

#endif

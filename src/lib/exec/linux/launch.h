/* SPDX-License-Identifier: MIT */
/*
 * What a Linux executor (exec/linux/bwrap/, exec/linux/landlock/, the command alone under
 * --policy off) is given and what it returns (issue 21).  The run owns one (run->exec), fills
 * what it is given before each launch (run_launch.c) and reads the facts after; an executor
 * sees only this, never the run: it includes neither request.h nor a run_*.h (scripts/deps).
 * The run's own steps it must take at a given moment come as hooks with an opaque context.
 */
#ifndef CONFINE_EXEC_LAUNCH_H
#define CONFINE_EXEC_LAUNCH_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "confine.h"
#include "exec/linux/helper_proto.h"

struct cf_plan;
struct cf_ll_plan;
struct cf_idents;
struct cf_pty;
struct cf_cgroup;
struct cf_netrun;
struct cf_connguard;
struct cf_supervisor;
struct cf_tee;
struct cf_denials;

/* A step of the run's, taken by the executor at its moment: 0, or a negative code that fails
 * the launch.  ctx is the run's (cf_launch_hooks). */
typedef int (*cf_launch_hook)(void *ctx, struct confine_error *err);

struct cf_launch_hooks {
	void *ctx;
	/* Just before each bwrap launch (the first and every one after a new plan); NULL:
	 * none.  R39: the overlays' upper layers and this run's work directories. */
	cf_launch_hook before;
	/* For one bwrap launch: data[i] (per plan mount) a fresh descriptor of each injected
	 * file's sealed content, -1 elsewhere (inject/run_inject.h). */
	int (*inject_fds)(void *ctx, int *data, struct confine_error *err);
};

/* The stderr tee's state, which the run keeps with its records (record/record.h). */
struct cf_launch_tee {
	bool wanted;		 /* a report, an audit log or the caller asks for denials */
	struct cf_denials *scan; /* the denial scanner the lines go through */
	struct cf_tee **tee;	 /* made at the first launch that tees */
	int *fd, *out;		 /* its read end and the caller's stderr, -1: none */
};

/* What a launch returns: written by the executor, read by the run (the pids also by the run's
 * signal forwarding). */
struct cf_launch_facts {
	pid_t pid;			    /* bwrap, or the command (landlock, policy off) */
	volatile sig_atomic_t target_pid;   /* where forwarded signals go */
	volatile sig_atomic_t target_pidfd; /* a pidfd of target_pid, -1 when none: a signal
					     * can never reach a recycled pid */
	bool started;
	bool from_command; /* the status is the command's own */
	bool timed_out;
	bool killed_after_grace;
	time_t launch_time;	   /* when bwrap was last started (residue, R34) */
	char *unsettled;	   /* R34: the path that changed during the setup, or NULL */
	bool *skip;		   /* per plan mount: left out of this launch (a vanished endpoint);
				    * the run drops it with the plan */
	bool helper_mode_off;	   /* bwrap makes every mount (helper mode failed once) */
	char *helper_failed;	   /* the target helper mode last failed on */
	bool cache_overlay_failed; /* R39: an overlay could not be made: plan again */
	/* landlock: made by the executor, freed by the run after the command */
	struct cf_connguard *connguard;	  /* the connect(2) guard (connguard.c) */
	struct cf_supervisor *supervisor; /* the supervised calls (supervisor.c) */
};

struct cf_launch {
	/* Given: filled by the run, only read by the executor. */
	const struct cf_plan *plan;
	const struct cf_ll_plan *ll;	/* the Landlock plan (backend LANDLOCK) */
	const struct cf_idents *idents; /* what the setup is checked against (R34) */
	enum confine_policy policy;
	enum confine_backend backend;
	const char *bwrap;   /* pinned canonical path; NULL under policy off */
	const char *helper;  /* confine-init chosen by the caller, or NULL */
	const char *program; /* an approved escalation's file (SPEC 7.1), or NULL */
	uint64_t limit_mem, timeout_ms, kill_grace_ms;
	bool cache_overlay_off;	    /* R39: an overlay failed before: the plan has redirects */
	bool helper_mode;	    /* helper mode can be used (asked once, when the run planned) */
	struct timespec start_time; /* the run's start (CLOCK_MONOTONIC): the timeout's origin */
	/* the descriptors and objects confine opened for the command */
	int stdio[3];		  /* the command's 0, 1, 2 (runstdio.h), -1 when closed */
	struct cf_pty *pty;	  /* R41: its relay, or NULL */
	struct cf_cgroup *cgroup; /* the limits' cgroup (n 0: none) */
	int keeper_fd;		  /* the keeper's socket (keeper.h), -1: none */
	pid_t keeper_pgid;	  /* its process group, which bwrap joins; 0: none */
	struct cf_netrun *netrun; /* SPEC 12: the proxy, or NULL */
	unsigned proxy_port;	  /* landlock: the proxy's port on the host's loopback; 0: none */
	const char *agent_sock;	  /* R44: the ssh-agent filter's socket, or NULL */
	int agent_dir_fd;	  /* and its directory (O_PATH), -1: none */
	struct cf_launch_tee tee;
	struct cf_launch_hooks hooks;

	/* The executor's own, between its calls. */
	int status_fd;			     /* read end of the helper's status pipe */
	int err_fd;			     /* read end of bwrap's stderr */
	int info_fd;			     /* read end of bwrap's --info-fd */
	int go_w;			     /* write end of the helper's go pipe, -1 when none */
	int mounts_r;			     /* helper mode's list, made at READY, read back */
	bool *by_helper;		     /* per plan mount: made by exec/linux/bwrap/masks.c */
	int wake_r, wake_w;		     /* wakes the wait loop for a pending signal */
	volatile sig_atomic_t ready;	     /* the helper reported READY */
	volatile sig_atomic_t pending_sig;   /* a signal noted before READY */
	volatile sig_atomic_t end_requested; /* a signal asked the sandbox to end */
	volatile sig_atomic_t sigints;	     /* SIGINTs forwarded so far */
	bool reaped;			     /* the wait loop reaped pid already (no pidfd) */
	int reaped_status;
	int early_sig;			/* the sandbox was ended by it before the command */
	int attempts;			/* launches tried again because an endpoint vanished */
	bool helper_mode_used;		/* this launch: confine-init makes the masks */
	struct confine_error pty_err;	/* the sandbox's pty did not come (never started) */
	struct cf_helper_record rec[4]; /* the helper's records, as they arrive */
	size_t n_rec;

	struct cf_launch_facts facts;
};

/* Every descriptor -1, nothing held. */
void cf_launch_init(struct cf_launch *l);
/* Closes and frees what the executor holds (its descriptors, the facts' strings and
 * tables); the given objects stay the run's.  Idempotent. */
void cf_launch_release(struct cf_launch *l);
/* At the start of a run: the timeout's origin and the wait loop's wake pipe. */
int cf_launch_begin(struct cf_launch *l, struct confine_error *err);

/* The executors (each 0 or a negative CONFINE_E_* code; touch the OS). */
/* --policy off: the command alone (bwrap/spawn.c). */
int cf_launch_direct(struct cf_launch *l, struct confine_error *err);
/* Launches bwrap for l->plan (again, after cf_launch_reset; bwrap/spawn.c). */
int cf_launch_bwrap(struct cf_launch *l, struct confine_error *err);
/* Starts l->plan's command under l->ll (landlock/spawn.c). */
int cf_ll_spawn(struct cf_launch *l, struct confine_error *err);
/* Waits for the launch to end (bwrap/wait.c).  *again: the sandbox could not be set up as
 * planned and the command has not started; launch again, after planning anew when
 * facts.unsettled is set (R34: the workspace changed under bwrap). */
int cf_launch_wait(struct cf_launch *l, int *status, bool *again, struct confine_error *err);
/* Closes what one launch used, before the next. */
void cf_launch_reset(struct cf_launch *l);
/* confine_run_forward_signal's work (bwrap/wait.c).  Async-signal-safe. */
void cf_launch_forward_signal(struct cf_launch *l, int sig);
/* Whether a bwrap launch can have confine make the masks (helper mode; bwrap/spawn.c). */
bool cf_bwrap_helper_mode(const char *bwrap, bool off);

#endif

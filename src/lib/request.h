/* SPDX-License-Identifier: MIT */
/* Internal layout of confine_request and confine_run. */
#ifndef CONFINE_REQUEST_H
#define CONFINE_REQUEST_H

#include "policy/policy.h"
#include "rules/netrules.h"

#ifndef _WIN32
#include <signal.h>
#include <time.h>
#include <sys/types.h>

#include "plan/plan.h"
#include "net/decide.h"
#include "exec/linux/cgroup.h"
#include "exec/linux/helper_proto.h"
#endif

struct confine_request {
	struct cf_strv argv;
	char *workspace;
	struct cf_ruleset session; /* unresolved session rules, in order */
	struct cf_strv session_files;
	bool network;
	enum confine_policy policy;
	uint64_t tmp_size;
	uint64_t limit_pids, limit_mem, timeout_ms, kill_grace_ms;
	char *helper;
	struct cf_strv env_base;
	bool env_base_set;
	struct cf_env_opts env;
	struct cf_net_rules net_session; /* --net-allow/--net-deny, in order (SPEC 12) */
};

/* The Windows executor has its own struct confine_run (exec/windows/run.c). */
#ifndef _WIN32
struct confine_run {
	enum confine_policy policy;
	struct cf_host host;
	char *home, *workspace, *tmpdir, *runtime_dir, *ssh_dir, *user_rules;
	char *pw_home, *pw_name, *pw_user_rules; /* the password database's, when not $HOME */
	struct cf_policy policy_rules;
	struct cf_plan plan;
	struct confine_probe_result probe;
	uint64_t limit_pids, limit_mem, timeout_ms, kill_grace_ms;
	struct cf_cgroup cgroup;
	bool timed_out;
	bool killed_after_grace;
	struct timespec start_time;
	char *bwrap;  /* pinned canonical path; NULL under policy off */
	char *helper; /* confine-init chosen by the caller, or NULL */

	/* while running */
	pid_t pid;			     /* bwrap, or the command under policy off */
	volatile sig_atomic_t target_pid;    /* where forwarded signals go */
	volatile sig_atomic_t target_pidfd;  /* a pidfd of target_pid, -1 when none: a signal
					      * can never reach a recycled pid */
	volatile sig_atomic_t end_requested; /* a signal asked the sandbox to end */
	volatile sig_atomic_t sigints;	     /* SIGINTs forwarded so far */
	bool reaped;			     /* the wait loop reaped pid already (no pidfd) */
	bool *skip;   /* per plan mount: left out of this launch (a vanished host endpoint) */
	int attempts; /* launches tried again because an endpoint vanished */
	int reaped_status;
	int status_fd; /* read end of the helper's status pipe */
	int err_fd;    /* read end of bwrap's stderr */
	int info_fd;   /* read end of bwrap's --info-fd */
	bool started;
	bool from_command;
	volatile sig_atomic_t ready;	   /* the helper reported READY */
	volatile sig_atomic_t pending_sig; /* a signal noted before READY */
	int early_sig;			   /* the sandbox was ended by it before the command */
	int wake_r, wake_w;		   /* wakes the wait loop for a pending signal */
	struct cf_helper_record rec[4];	   /* the helper's records, as they arrive */
	size_t n_rec;

	/* post-run detection (R23) */
	struct cf_ruleset globs;   /* every glob rule, as scanned at launch */
	struct cf_matches launch;  /* what the launch scan found */
	struct cf_strv ipc_launch; /* the host's IPC endpoints at launch, sorted (R29) */
	struct confine_event *events;
	size_t n_events;

	/* network by domain (SPEC 12) */
	struct cf_net_policy net;	      /* network rules of every layer */
	enum confine_net_mode net_mode;	      /* what the run gets */
	struct cf_netrun *netrun;	      /* the proxy while the command runs (net/netrun.c) */
	struct confine_net_event *net_events; /* the proxy's decisions, after the run */
	size_t n_net_events, net_dropped;
};

/* Post-run detection: fills run->events (events.c).  Touches the OS. */
int cf_run_detect(confine_run *run);
#endif

#endif

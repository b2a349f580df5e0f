/* SPDX-License-Identifier: MIT */
/* Internal layout of confine_request and confine_run. */
#ifndef CONFINE_REQUEST_H
#define CONFINE_REQUEST_H

#include "policy/inject.h"
#include "policy/policy.h"
#include "rules/netrules.h"
#include "record/record.h"
#include "abi.h"
#include "request_secrets.h"

/* The Linux executor's run record; Windows (exec/windows) and macOS (exec/macos) keep their
 * own. */
#if !defined(_WIN32) && !defined(__APPLE__)
#include <signal.h>
#include <time.h>
#include <sys/types.h>

#include "plan/bwrap/plan.h"
#include "net/decide.h"
#include "plan/landlock/ll_plan.h"
#include "exec/linux/cgroup.h"
#include "exec/linux/pty.h"
#include "exec/linux/helper_proto.h"
#include "exec/linux/keeper.h"
#include "exec/linux/launch.h"
#include "exec/linux/bwrap/settle.h"
#include "host/kind_memo.h"
#include "host/scan.h"
#include "agent/agent_run.h"
#include "net/secrets_run.h"
#include "host/git.h"
#include "host/toolcache.h"
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
	enum confine_tty tty; /* R41 */
	int stdio[3];	      /* the command's 0, 1, 2 (numbers, the caller's); -1: ours */
	char *helper;
	struct cf_strv env_base;
	bool env_base_set;
	struct cf_env_opts env;
	struct cf_net_rules net_session; /* --net-allow/--net-deny, in order (SPEC 12) */
	confine_net_ask_fn net_ask;	 /* R43: live asks (confine_request_set_net_ask) */
	void *net_ask_user;
	enum confine_backend backend;	 /* SPEC 3.3: auto, bwrap or landlock */
	struct cf_request_record record; /* approvals, audit log, report (record/) */
	struct cf_injects injects;	 /* SPEC 6, validated when added */
	struct cf_secret_req secrets;	 /* R44, R45: request_secrets.c */
	bool dry_run;			 /* the plan is only printed: nothing is created */
	uint64_t cache_bound;		 /* tool caches (R39): all stores together; 0: none */
};

/* The Windows executor has its own struct confine_run (exec/windows/run.c), and so has the
 * macOS one (exec/macos/run.c). */
#if !defined(_WIN32) && !defined(__APPLE__)
struct confine_run {
	enum confine_policy policy;
	struct cf_host host;
	char *home, *workspace, *tmpdir, *runtime_dir, *ssh_dir, *user_rules;
	char *pw_home, *pw_name, *pw_user_rules;      /* the password database's, when not $HOME */
	char *config_dir, *pw_config_dir, *cache_dir; /* confine's own state (R30) */
	char *state_dir;			      /* ... and its tool-cache stores (R39) */
	struct cf_strv git_guards;		      /* host/git.h */
	struct cf_git_launch git_launch;	      /* host/git.h: worktrees/ left writable */
	struct cf_policy policy_rules;
	struct cf_plan plan;
	bool plan_network; /* what the plan is made with (cf_run_plan) */
	uint64_t plan_tmp_size;
	char *plan_cwd;		   /* canonical cwd inside the workspace, or NULL */
	struct cf_strv unreadable; /* directories the scan could not read, hidden (R14) */
	struct cf_idents idents;   /* what the setup is checked against (R34) */
	struct cf_idents linked;   /* symlinks to defused protections, as at launch (R30) */
	int replans;		   /* plans made again because the sandbox did not settle */
	bool globs_collected;	   /* run->globs holds every glob rule */
	struct confine_probe_result probe;
	uint64_t limit_pids, limit_mem, timeout_ms, kill_grace_ms;
	enum confine_tty tty; /* R41: whether the command gets a pty (exec/linux/pty.h) */
	int stdio_req[3];     /* the request's stdio numbers (-1: this process's 0, 1, 2) */
	struct cf_cgroup cgroup;
	struct cf_cgroup_counts limit_counts; /* read as the cgroup goes (post-run events) */
	struct cf_keeper keeper;	      /* ends the run if confine dies (keeper.c) */
	char *bwrap;			      /* pinned canonical path; NULL under policy off */
	char *helper;			      /* confine-init chosen by the caller, or NULL */

	/* The Linux executor's launches: what they are given (the command's descriptors, its pty)
	 * and the facts they return (exec/linux/launch.h; filled by run_launch.c). */
	struct cf_launch exec;

	/* post-run detection (R23) */
	struct cf_ruleset globs;  /* every glob rule, as scanned at launch */
	struct cf_matches launch; /* what the launch scan found */
	size_t git_rule;	  /* index in globs of the rule that finds nested .git entries */
	struct cf_matches git_nested; /* the `.git` entries in the workspace at launch */
	struct cf_strv ipc_launch;    /* the host's IPC endpoints at launch, sorted (R29) */
	struct cf_strv ipc_groups; /* directories of nothing but endpoints (cf_host_ipc_groups) */
	struct cf_scan_state scan; /* the scan cache of this run's scans (R32) */
	struct cf_scan_state ipc_scan; /* and of its sweeps of /run (R29, R32) */
	struct cf_kind_memo kind_memo; /* host.kind's answers for one planning (kind_memo.h) */
	struct confine_event *events;
	size_t n_events;
	struct confine_event *notices; /* said before the run (notices.c) */
	size_t n_notices;

	/* network by domain (SPEC 12) */
	struct cf_net_policy net;	 /* network rules of every layer */
	enum confine_net_mode net_mode;	 /* what the run gets */
	struct cf_netrun *netrun;	 /* the proxy while the command runs (net/netrun.c) */
	struct cf_net_event *net_events; /* the proxy's decisions, after the run */
	size_t n_net_events, net_dropped;
	confine_net_ask_fn net_ask; /* R43: the request's asker (NULL: none) */
	void *net_ask_user;
	struct cf_upstream *upstream; /* R43: the caller's upstream proxy (run_net.c), or NULL */
	struct confine_net_event *net_pub; /* the same as confine_run_net_event hands them out */
	/* the landlock backend (SPEC 3.3) */
	enum confine_backend backend; /* what runs: BWRAP or LANDLOCK (AUTO resolved) */
	struct cf_ll_plan ll;	      /* the Landlock plan when backend is LANDLOCK */
	char *run_tmp;		      /* its per-run TMPDIR, removed by confine_run_free */
	bool run_tmp_made;	      /* run_tmp exists (made by mkdtemp) and is ours to remove */
	int run_tmp_lock;	      /* its lock (util/owntmp.h), -1: none */
	char *fallback_note;	      /* auto fell back to landlock: the one line to say */
	char *ll_note;		      /* landlock: split directories that take no new entry */
	struct confine_probe_result ll_probe;
	struct cf_run_record record; /* approvals, audit log, report (record/) */
	/* read-only file injection (SPEC 6; inject/run_inject.c) */
	struct cf_plan_inject_in *inject_in; /* what the plan needs (cf_run_inject_inputs) */
	char (*inject_hash)[65];
	char **inject_where;
	size_t n_inject_in;
	int *inject_fds;		       /* per plan injection: its sealed memfd */
	size_t n_inject_fds;		       /* how many of them are open */
	struct confine_injection *inject_info; /* what confine_run_injection returns */
	struct cf_injects inject_extra;	       /* the run's own, after the request's (R45) */
	/* secrets the command can use but never read (R44, R45) */
	struct cf_run_agent agent;     /* the ssh-agent filter (agent/agent_run.c) */
	struct cf_run_secrets secrets; /* credential placeholders (net/secrets_run.c) */
	/* write allows of missing paths (run_mkallow.h): created before the plan, or, in a dry
	 * run, to be created */
	struct cf_strv made_allows;
	bool made_allows_dry;
	/* tool caches (R39; plan/caches.h, host/toolcache.h) */
	struct cf_cache_facts cache_facts;
	bool cache_facts_made;		/* gathered (a run under the sandbox with a bound) */
	char cache_work[64];		/* the overlay work directories of this run's slot */
	uint64_t cache_bound;		/* all stores together */
	int cache_lock;			/* the flock of this run's overlay slot, -1: none */
	int cache_store_lock;		/* the store's lock, shared while the run uses it */
	bool cache_overlay_off;		/* an overlay failed: redirects from now on */
	bool helper_mode;		/* bwrap's helper mode can be used: asked at each plan */
	bool cache_started;		/* the upper and work directories are made */
	struct cf_strv cache_env_saved; /* what the redirects replaced: NAME=VALUE, or NAME */
	struct cf_strv cache_env_keep;	/* names the caller set with --env: left alone */
	bool env_built;			/* plan.env holds the command's environment */
	char *cache_trimmed;		/* the stores a finish removed, for the event */
};

/* A run with only the request's settings copied (run.c); NULL on out-of-memory. */
confine_run *cf_run_new(const confine_request *req);
/* Workspace, host facts and every rule layer: what explain needs and a run starts from
 * (run.c).  Touches the OS. */
int cf_run_load_policy(confine_run *run, const confine_request *req, const struct cf_strv *env,
		       struct confine_error *err);
/* run_backend.c, SPEC 3.3: the backend chosen and probed (before the plan), and the Landlock
 * plan made once the scan and the bwrap-style plan exist.  Touch the OS. */
int cf_run_choose_backend(confine_run *run, const confine_request *req, struct confine_error *err);
int cf_run_plan_backend(confine_run *run, const confine_request *req, struct confine_error *err);
/* A plan note when the kernel has no openat2 (before 5.6): paths are opened one component at
 * a time (run.c). */
int cf_run_note_openat2(struct cf_strv *notes, struct confine_error *err);
/* The scan, the plan and the identities of a run (run.c).  Touches the OS. */
int cf_run_plan(confine_run *run, struct confine_error *err);
/* Where a run of the request finds its files: the workspace (canonical, a directory: R1 is
 * the run's to apply), the home (canonical; NULL when there is none) and the user rule file
 * (NULL without a home), from the request's environment as a run reads it (run.c).  Touches
 * the OS. */
struct cf_locations {
	char *workspace, *home, *user_rules;
};
int cf_request_locations(const confine_request *req, struct cf_locations *out,
			 struct confine_error *err);
void cf_locations_release(struct cf_locations *l);
/* run->net_pub from run->net_events, once they are final (the wait).  Pure. */
int cf_run_net_publish(confine_run *run, struct confine_error *err);
/* R37 (run_alias.c): every name inside the writable areas that is a hard link of a protected
 * file gets a guard like that file, before the plan is made.  Touches the OS. */
int cf_run_protect_aliases(confine_run *run, const struct cf_matches *globs,
			   struct confine_error *err);
/* For explain: when `path` (canonical) is a hard link of a protected file that its own rules do
 * not protect as much, the decision it gets at launch; returns 1 and fills *out (the pattern
 * names the other file), 0 when not, or a negative code.  Touches the OS. */
/* run_git.c: the guards of the repositories nested in the workspace, from the launch scan's
 * `.git` matches (taken out of `globs`), added to the policy; and explain's view of them for
 * one path (*guard: the guard that covers it, or NULL). */
int cf_run_nested_repos(confine_run *run, struct cf_matches *globs, struct confine_error *err);
/* What of a git directory the policy guards, for host/git.c's search. */
void cf_run_git_entries(struct cf_git_entries *out);
int cf_run_explain_git(const confine_run *run, const char *path, char **guard,
		       struct confine_error *err);
int cf_run_explain_alias(const confine_run *run, const char *path, enum confine_access access,
			 struct confine_decision *out, struct confine_error *err);
/* Removes the landlock backend's per-run TMPDIR and everything in it, without following a
 * symlink (run_backend.c).  Touches the OS. */
void cf_ll_remove_run_tmp(confine_run *run);

/* Before the run: the allows a guard or an override outranks, into run->notices
 * (notices.c); 0 or CONFINE_E_NOMEM.  Pure. */
int cf_run_notices(confine_run *run);

/* Spends the receipt of an approved, not reusable escalation or grant before its run starts
 * (approve/receipts.c): CONFINE_E_APPROVAL when it was spent before, or when confine cannot
 * keep the record of spent receipts.  Touches the OS. */
int cf_record_spend(confine_run *run, struct confine_error *err);
/* At prepare: makes sure the record of spent receipts can be kept (the cache directory exists,
 * is the caller's alone); CONFINE_E_APPROVAL otherwise.  Touches the OS. */
int cf_record_spend_ready(confine_run *run, struct confine_error *err);

/* Tool caches (R39, run.c): the work directories of the plan's overlays made before a
 * launch; after the run, removed and the stores kept within their bound (an event when one was
 * trimmed).  Touch the OS. */
int cf_run_caches_start(confine_run *run, struct confine_error *err);
/* Where the tools keep their caches and the workspace's store (made now, except in a dry run),
 * with the slot of this run; only for a run under the sandbox with a bound.  0 or an error. */
int cf_run_cache_facts(confine_run *run, const confine_request *req, const struct cf_strv *env,
		       struct confine_error *err);
/* The redirects of the plan's tool caches in plan.env, over the caller's variables (not over
 * --env), what an earlier plan's redirects replaced put back first.  0 or CONFINE_E_NOMEM. */
int cf_run_cache_env(confine_run *run, struct confine_error *err);
/* R40 (run_content.c): struct cf_host.content for explain (the file read now) and for a run
 * (the public matches of its scan, a struct cf_matches). */
enum cf_content cf_run_content_of_file(void *ctx, const char *path);
enum cf_content cf_run_content_of_scan(void *ctx, const char *path);
void cf_run_caches_finish(confine_run *run);
/* A run freed without its wait: the stores' locks are let go, nothing is trimmed. */
void cf_run_caches_release(confine_run *run);
/* Whether bwrap's launch will run in helper mode (run_launch.c), so that the plan may hold
 * tool cache overlays.  Touches the OS (once). */
bool cf_run_helper_mode(const confine_run *run);

/* Post-run detection: fills run->events (events.c).  Touches the OS. */
int cf_run_detect(confine_run *run);

/* Approvals, report and audit log (record/).  Touches the OS. */
/* Copies what a record needs from the request into a new run; 0 or CONFINE_E_NOMEM. */
int cf_run_record_init(confine_run *run, const confine_request *req);
void cf_run_record_release(confine_run *run);
/* After the policy is loaded: validates the write grants (SPEC 7.2) and puts them first in the
 * session layer, and hides the audit log and the report file (overrides). */
int cf_record_policy(confine_run *run, const confine_request *req, struct confine_error *err);
/* After the environment is built: builds the card of an escalation or grant, checks the
 * receipt, and turns an approved escalation into a direct run. */
int cf_record_approve(confine_run *run, const confine_request *req, struct confine_error *err);
/* Writes the audit line of this attempt (once; later calls do nothing; run_record.c).  `run`
 * may be a run that failed to prepare.  0, or CONFINE_E_RECORD when the line could not be written
 * (the request's audit state holds the error: confine_request_audit_error). */
int cf_audit_attempt(confine_run *run, int status, const struct confine_error *why);
struct cf_card_input;
/* The card input of a run (its argv, cwd, workspace, --env assignments and grants). */
int cf_record_card_input(const confine_run *run, bool escalate, const char *program,
			 struct cf_card_input *in);
/* run_record.c: the facts of a run that its records carry, as plain values pointing into the
 * run (valid while it lives and is not changed). */
struct cf_run_facts;
void cf_run_facts_of(const confine_run *run, struct cf_run_facts *f);
/* A run with only its record filled from the request, for the records of an attempt that
 * never got a prepared run; NULL on out-of-memory.  Free it with cf_run_temp_free. */
confine_run *cf_run_temp(const confine_request *req);
void cf_run_temp_free(confine_run *run);
#endif

#endif

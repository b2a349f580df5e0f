/* SPDX-License-Identifier: MIT */
/*
 * The plan: the rule set compiled for one target, as plain data (SPEC 3).  For Linux, an
 * ordered list of mounts, parent before child, plus the process flags; the bwrap argument
 * vector is generated from it (bwrap_args.c).  Pure.
 */
#ifndef CONFINE_PLAN_H
#define CONFINE_PLAN_H

#include <stdint.h>

#include "policy/policy.h"

enum cf_mount_op {
	CF_MNT_RO_ROOT,	   /* --ro-bind / / */
	CF_MNT_DEV,	   /* --dev /dev */
	CF_MNT_PROC,	   /* --proc /proc */
	CF_MNT_TMPFS,	   /* --size N --tmpfs P: private writable temp root */
	CF_MNT_HIDE_DIR,   /* --perms 0000 --tmpfs P, remounted read-only after its children */
	CF_MNT_HIDE_FILE,  /* --perms 0000 --ro-bind-data EMPTY P: reads fail with EACCES */
	CF_MNT_RO_BIND,	   /* --ro-bind-fd SRC P: read allowed, write denied */
	CF_MNT_RW_BIND,	   /* --bind-fd SRC P: read and write allowed */
	CF_MNT_REMOUNT_RO, /* --remount-ro P */
	CF_MNT_RO_KERNEL,  /* --ro-bind P P: a kernel interface (/proc/sys...) made read-only */
};

struct cf_mount {
	enum cf_mount_op op;
	char *path;
	enum cf_kind kind; /* what the host has at path (binds and hides) */
	uint64_t size;	   /* tmpfs size cap */
	bool traverse;	   /* HIDE_DIR with mounts beneath: mode 0111 so they stay reachable */
	bool transient;	   /* a host IPC endpoint: the executor skips it if it is gone by then
			    * (bwrap would have to create it on the host's read-only root) */
	char *why;	   /* "read: deny (guard ~/.ssh); write: deny (guard ~/.ssh)" */
	bool net_dir;	   /* RO_BIND of confine's proxy sockets (SPEC 12): the source is the
			    * executor's private directory, not path */
};

struct cf_plan {
	enum confine_target target;
	struct cf_mount *mounts;
	size_t n_mounts, cap_mounts;
	bool network;
	uint64_t tmp_size;
	char *workspace;
	char *cwd;
	int landlock_abi; /* what the plan relies on; 0: scoping not available (recorded) */
	bool seccomp;
	struct cf_strv argv;
	struct cf_strv env;		/* the command's final environment */
	struct cf_strv env_removed;	/* names removed by the scrub (never values) */
	struct cf_strv missing;		/* protected paths absent at launch: not mounted */
	struct cf_strv notes;		/* downgrades and rules that could not be applied */
	enum confine_net_mode net_mode; /* SPEC 12; DOMAINS also has network false */
	size_t net_allowed, net_rules;	/* allow rules, all network rules */
};

struct cf_plan_opts {
	enum confine_target target;
	bool network; /* the host's network (net_mode ON) */
	uint64_t tmp_size;
	const char *cwd;
	/* Network by domain (SPEC 12), for every target's planner: the mode, the number of allow
	 * rules and of all network rules. */
	enum confine_net_mode net_mode;
	size_t net_allowed, net_rules;
};

void cf_plan_release(struct cf_plan *plan);

/*
 * Compiles the policy for the host into a plan.  `globs` holds the glob expansions of the
 * policy's glob rules (the scan ran before).  An allow that would reopen write beneath a
 * read-deny is CONFINE_E_PLAN naming both rules.  Pure apart from host->kind.
 */
int cf_plan_compile(const struct cf_policy *p, const struct cf_matches *globs,
		    const struct cf_plan_opts *o, struct cf_plan *out, struct confine_error *err);

/* Network by domain: appends the proxy variables to plan->env, replacing any of the same name
 * (HTTP_PROXY, HTTPS_PROXY, ALL_PROXY in both cases, NO_PROXY=localhost,127.0.0.1).  Pure. */
int cf_plan_net_env(struct cf_plan *plan, struct confine_error *err);

/* Stable text (or JSON) of the plan. Returns a malloc'd string or NULL on oom. */
char *cf_plan_text(const struct cf_plan *plan);
char *cf_plan_json(const struct cf_plan *plan);

/* Descriptors the executor opened for the plan, in the order bwrap will read them. */
struct cf_bwrap_fds {
	int args;	   /* --args FD is not part of the vector itself */
	const int *source; /* per mount index: O_PATH source for RO/RW binds, -1 otherwise */
	const int *empty;  /* per mount index: an empty readable fd for HIDE_FILE, -1 otherwise */
	int seccomp;	   /* -1: none */
	int info;	   /* --info-fd, -1: none */
	int helper;	   /* the helper binary, executed as /proc/self/fd/N */
	int status;	   /* the helper's status pipe */
	int stderr_fd;	   /* the real stderr, restored by the helper */
	const bool *skip;  /* per mount index: leave this mount out (a transient path that is
			    * gone); NULL: none */
};

/* The namespace, capability and process flags of every run (R12), NULL-terminated; the probe
 * runs its test sandbox with exactly these. */
extern const char *const cf_bwrap_process_flags[];

/* Marks the end of the options in the vector from cf_bwrap_argv: what precedes goes into the
 * --args descriptor, what follows ("--", helper, command) onto bwrap's argv. */
#define CF_BWRAP_ARGS_END                                                                          \
	"\x01"                                                                                     \
	"end-of-options"

/* Appends the bwrap options for the plan (everything after "bwrap", up to and including the
 * helper and the command).  Pure. */
int cf_bwrap_argv(const struct cf_plan *plan, const struct cf_bwrap_fds *fds, struct cf_strv *out,
		  struct confine_error *err);

#endif

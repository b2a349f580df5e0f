/* SPDX-License-Identifier: MIT */
/*
 * The plan: the rule set compiled for one target, as plain data (SPEC 3).  For Linux, an
 * ordered list of mounts, parent before child, plus the process flags; the bwrap argument
 * vector is generated from it (plan/bwrap/args.c).  Pure.
 */
#ifndef CONFINE_PLAN_H
#define CONFINE_PLAN_H

#include <stdint.h>

#include "plan/caches.h"
#include "policy/policy.h"

enum cf_mount_op {
	CF_MNT_RO_ROOT,	      /* --ro-bind / / */
	CF_MNT_DEV,	      /* --dev /dev */
	CF_MNT_PROC,	      /* --proc /proc */
	CF_MNT_TMPFS,	      /* --size N --tmpfs P: private writable temp root */
	CF_MNT_HIDE_DIR,      /* --perms 0000 --tmpfs P, remounted read-only after its children */
	CF_MNT_HIDE_FILE,     /* --perms 0000 --ro-bind-data EMPTY P: reads fail with EACCES */
	CF_MNT_RO_BIND,	      /* --ro-bind-fd SRC P: read allowed, write denied */
	CF_MNT_RW_BIND,	      /* --bind-fd SRC P: read and write allowed */
	CF_MNT_REMOUNT_RO,    /* --remount-ro P */
	CF_MNT_RO_KERNEL,     /* --ro-bind P P: a kernel interface (/proc/sys...) made read-only */
	CF_MNT_INJECT,	      /* --perms 0444 --ro-bind-data FD P: an injection's sealed content,
			       * a read-only mount of its own (over a host file, or in /tmp) */
	CF_MNT_INJECT_DIR,    /* --size N --tmpfs P: a directory made for injections in a private
			       * place, its own mount (it cannot be renamed), read-only at the end */
	CF_MNT_INJECT_FILE,   /* --perms 0444 --file FD P: an injection's sealed content copied into
			       * an INJECT_DIR (read-only once its files are in) */
	CF_MNT_CACHE_STORE,   /* --bind-fd SRC CF_CACHE_MNT: the overlay data of this workspace's
			       * tool-cache store, for the mask maker, which detaches it (R39) */
	CF_MNT_CACHE_OVERLAY, /* an overlay at P made by the mask maker: the host's P below, the
			       * store's upper layer above (R39); helper mode only */
};

struct cf_mount {
	enum cf_mount_op op;
	char *path;
	enum cf_kind kind;    /* what the host has at path (binds and hides; INJECT: FILE when it
			       * is mounted over a file of the host, MISSING in a private place) */
	uint64_t size;	      /* tmpfs size cap */
	bool traverse;	      /* HIDE_DIR with mounts beneath: mode 0111 so they stay reachable */
	bool transient;	      /* a host IPC endpoint: the executor skips it if it is gone by then
			       * (bwrap would have to create it on the host's read-only root) */
	bool pin;	      /* RW_BIND of a directory onto itself (R33): an ancestor of a
			       * protection inside a writable area, so that it cannot be renamed */
	bool guarded;	      /* a protection inside a writable area: its identity and that of its
			       * ancestors are checked again before the command starts (R34) */
	char *why;	      /* "read: deny (guard ~/.ssh); write: deny (guard ~/.ssh)" */
	bool net_dir;	      /* RO_BIND of confine's proxy sockets (SPEC 12): the source is the
			       * executor's private directory, not path */
	bool agent_dir;	      /* RO_BIND of the ssh-agent filter's socket (R44): the same way */
	size_t inject;	      /* CF_MNT_INJECT, _FILE: index in plan->injects */
	const char *net_file; /* R43: RO_BIND of a file of the resolver inside: the source is
			       * this name in the executor's proxy directory (static text) */
	size_t cache;	      /* CF_MNT_CACHE_OVERLAY: index in plan->caches */
};

/* One injection (SPEC 6) as the plan shows it; its content stays with the executor. */
struct cf_plan_inject {
	enum confine_inject_placement placement;
	char *where;  /* NAME, or TARGET */
	char *path;   /* where the command finds it */
	char *record; /* "env:NAME=HASH" / "path:TARGET=HASH" */
	char hash[65];
	uint64_t size;
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
	/* R36: FIFOs and pathname sockets outside the writable areas refused by mechanism
	 * (src/helper/guard.c): false on a kernel without what it needs (a note says so). */
	bool ipc_guard;
	/* R36: the paths of the session and user allows: a FIFO or a socket that is one of them,
	 * or lies directly in one that is a directory, is reachable (as R29 gives back the swept
	 * endpoints); sorted, unique. */
	struct cf_strv ipc_allow;
	struct cf_strv argv;
	struct cf_strv env;		/* the command's final environment */
	struct cf_strv env_removed;	/* names removed by the scrub (never values) */
	struct cf_strv missing;		/* protected paths absent at launch: not mounted */
	struct cf_strv notes;		/* downgrades and rules that could not be applied */
	struct cf_strv run_notes;	/* what the run does on the host for the plan (a missing
					 * allowed path created...), for every backend's text */
	struct cf_strv public_files;	/* matches of guards decided by content that hold
					 * certificates only (R40): not protected */
	enum confine_net_mode net_mode; /* SPEC 12; DOMAINS also has network false */
	size_t net_allowed, net_rules;	/* allow rules, all network rules */
	bool ssh_agent;			/* R44: see cf_plan_opts */
	struct cf_plan_inject *injects; /* SPEC 6, in the order of the request */
	size_t n_injects;
	/* Tool caches (R39, plan/caches.h): every tool's, in path order */
	struct cf_plan_cache *caches;
	size_t n_caches;
	struct cf_strv cache_env; /* redirects: NAME=VALUE, or NAME+=VALUE to append */
	char *cache_store;	  /* this workspace's store; NULL: none */
	bool cache_overlay;	  /* some cache is an overlay (the store's "o" bound privately) */
	bool cache_redirect;	  /* some cache is redirected (the store's "r" made writable) */
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
	bool ssh_agent; /* R44: the agent filter's socket directory at CF_AGENT_DIR */
	/* Tool caches (R39): the host facts, and the name of the run's overlay work directories;
	 * NULL: none */
	const struct cf_cache_facts *caches;
	const char *cache_work;
};

void cf_plan_release(struct cf_plan *plan);

/* Decides, for each tool cache of f, an overlay, a redirect or nothing (plan/caches.h), into
 * plan->caches, cache_env and cache_store; `work` names the overlay work directories.  Called
 * by cf_plan_compile; pure. */
int cf_plan_caches_decide(const struct cf_policy *p, const struct cf_cache_facts *f,
			  const char *work, struct cf_plan *plan, struct confine_error *err);
void cf_plan_caches_release(struct cf_plan *plan);
/* The caches of a plan as text (a "tool caches" section) and as a JSON member
 * (,"tool_caches":{...}); nothing when the plan has none.  Pure. */
void cf_plan_caches_text(struct cf_buf *b, const struct cf_plan *plan);
void cf_plan_caches_json(struct cf_buf *b, const struct cf_plan *plan);

/*
 * Compiles the policy for the host into a plan.  `globs` holds the glob expansions of the
 * policy's glob rules (the scan ran before).  An allow that would reopen write beneath a
 * read-deny is CONFINE_E_PLAN naming both rules.  Pure apart from host->kind.
 */
int cf_plan_compile(const struct cf_policy *p, const struct cf_matches *globs,
		    const struct cf_plan_opts *o, struct cf_plan *out, struct confine_error *err);

/* Network by domain: appends the proxy variables to plan->env, replacing any of the same name
 * (HTTP_PROXY, HTTPS_PROXY, ALL_PROXY in both cases), and sets NO_PROXY and no_proxy to
 * `no_proxy`, or removes them when it is NULL (cf_net_no_proxy says which).  Pure. */
int cf_plan_net_env(struct cf_plan *plan, const char *no_proxy, struct confine_error *err);
/* The proxy variables again with the proxy at 127.0.0.1:PORT for HTTP and SOCKS5 alike and
 * `userinfo` ("confine:SECRET") in both URLs: the landlock backend's proxy, known once it
 * listens.  NO_PROXY stays as cf_plan_net_env left it.  Pure. */
int cf_plan_net_env_at(struct cf_plan *plan, unsigned port, const char *userinfo,
		       struct confine_error *err);
/* One injection to place: what cf_plan_add_injections needs of it. */
struct cf_plan_inject_in {
	enum confine_inject_placement placement;
	const char *where; /* NAME, or TARGET normalised (policy/inject.c validated it) */
	const char *hash;  /* 64 hex digits */
	uint64_t size;
};

/*
 * Places the injections in a compiled Linux plan (plan/bwrap/inject.c): each file is mounted after
 * every other mount, so nothing shadows it; env-pointer files go under CF_INJECT_ENV_DIR, a
 * read-only tmpfs of its own.  A fixed-path target must be an existing regular file of the
 * host (mounted over, never changed) or lie in a private tmpfs, where missing parents become
 * tmpfs mounts of their own; its ancestors in a writable bind are bound onto themselves so
 * that none can be renamed.  Anything else (a parent missing on the host, a symlink on the way,
 * a hidden path, /proc or /dev) is CONFINE_E_PLAN naming the path.  Nothing is added when n is
 * 0.  Pure apart from host->kind.
 */
int cf_plan_add_injections(struct cf_plan *plan, const struct cf_host *host,
			   const struct cf_plan_inject_in *in, size_t n, struct confine_error *err);
void cf_plan_injects_release(struct cf_plan *plan);

/* Stable text (or JSON) of the plan. Returns a malloc'd string or NULL on oom. */
char *cf_plan_text(const struct cf_plan *plan);
char *cf_plan_json(const struct cf_plan *plan);

/* Descriptors the executor opened for the plan, in the order bwrap will read them. */
struct cf_bwrap_fds {
	int args;	   /* --args FD is not part of the vector itself */
	const int *source; /* per mount index: O_PATH source for RO/RW binds, -1 otherwise */
	const int *empty;  /* per mount index: an empty readable fd for HIDE_FILE, -1 otherwise */
	const int *data;   /* per mount index: the sealed content of an INJECT mount; NULL when
			    * the plan has none */
	int seccomp;	   /* -1: none */
	int info;	   /* --info-fd, -1: none */
	int helper;	   /* the helper binary, executed as /proc/self/fd/N */
	int status;	   /* the helper's status pipe */
	int stderr_fd;	   /* the real stderr, restored by the helper */
	int go;		   /* the helper waits for one byte on it before the command (R34);
			    * -1: it does not wait */
	unsigned pty_mask; /* R41: the command's descriptors 0-2 (bits) that get a pty of the
			    * sandbox's own, whose master the helper sends on `pty`; 0: none */
	int pty;
	const bool *skip; /* per mount index: leave this mount out (a transient path that is
			   * gone); NULL: none */
	/* Helper mode (cf_plan_helper_split): per mount index, made by confine once bwrap is done
	 * (exec/linux/bwrap/masks.c) instead of by bwrap; NULL: bwrap makes every mount. */
	const bool *by_helper;
	/* R35: the command's environment (a sealed memfd of NAME=VALUE\0 ...), applied by the
	 * helper at the command's execve alone; bwrap and the helper run with confine's fixed
	 * one.  -1: none (the helper then gives the command an empty environment). */
	int env;
	/* R36, when plan->ipc_guard: the list of writable areas and allows (helper_proto.h) and
	 * the guard's seccomp program, which the helper loads in the command's process. */
	int ipc, ipc_filter;
};

/*
 * Helper mode.  bwrap reads its whole mount table again after every mount it makes, so each
 * of the 20 to 50 masks of a plan costs it about a quarter of a millisecond, and more with
 * every pin and glob match; confine makes the same mounts with the mount API (open_tree,
 * move_mount, fsmount) in a few microseconds each, from the sandbox's first user namespace
 * once bwrap is done (exec/linux/bwrap/masks.c).  Marks
 * in by_helper[] (n_mounts entries) the mounts it can make without changing what the sandbox
 * looks like: a kernel interface made read-only, a hidden file, a hidden directory (and its
 * read-only remount), a pin (R33), when every later mount at, above or below the path is the
 * helper's too (it makes its mounts in plan order after all of bwrap's), and the path is not
 * inside an earlier tmpfs (where the mount point would not exist).  A transient endpoint (R29)
 * that is gone when the helper comes to it is left out, and the helper says so in its list
 * (cf_plan_helper_list).  Binds with a source of the host's stay with bwrap, which mounts the
 * object confine opened (R15).  Pure.
 */
void cf_plan_helper_split(const struct cf_plan *plan, const bool *skip, bool *by_helper);

/* The helper's list: one record per marked mount but the remounts, "<op><path>\0" with op 'k'
 * (RO_KERNEL of a directory), 'r' (RO_KERNEL of a file: /proc/sysrq-trigger), 'p' (a pin),
 * 'f' (HIDE_FILE), 'd' (HIDE_DIR, mode 0000), 't' (HIDE_DIR, mode 0111), in upper case for a
 * transient endpoint; every hidden directory read-only.  The helper overwrites the op of a
 * transient endpoint it found gone with CF_HELPER_LEFT_OUT.  Pure. */
#define CF_HELPER_LEFT_OUT '-'
/* R39, tool caches: before everything, 'c' clones the mount bwrap made at the path (with what
 * is below it); for an overlay, 'o' its path, 'U' its upper layer and 'W' its work directory
 * (both relative to CF_CACHE_MNT); 'a' attaches the next clone at its path, on top of the
 * overlay; last, 'u' detaches the store mounted at CF_CACHE_MNT.  A mount the helper makes below
 * an overlay whose path the overlay does not show (the store replaced it in an earlier run) is
 * left out: the host's object is not reachable there. */
#define CF_HELPER_CAPTURE 'c'
#define CF_HELPER_OVERLAY 'o'
#define CF_HELPER_UPPER 'U'
#define CF_HELPER_WORK 'W'
#define CF_HELPER_ATTACH 'a'
#define CF_HELPER_DETACH 'u'
void cf_plan_helper_list(const struct cf_plan *plan, const bool *by_helper, struct cf_buf *out);

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

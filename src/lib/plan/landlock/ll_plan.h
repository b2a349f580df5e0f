/* SPDX-License-Identifier: MIT */
/*
 * The Landlock plan (SPEC 3.3, R28): the rule set compiled into Landlock path rules for a
 * backend with no namespaces.  Pure: the kernel ABI, the kinds of paths and the listings of the
 * directories that must be split are host facts gathered before planning.
 *
 * Landlock only allows.  "Everything readable except the hidden paths" becomes allow rules by
 * splitting at every ancestor of a path that must get less than its parent: each entry of the
 * split directory (as listed at launch) gets the full right, the directory itself only what
 * cannot leak into the protected entry, the protected entry is left out.  An entry created in a
 * split directory after launch is covered by no rule: no access (fail closed).
 */
#ifndef CONFINE_LL_PLAN_H
#define CONFINE_LL_PLAN_H

#include <stdint.h>

#include "host/facts.h"
#include "plan/bwrap/plan.h"
#include "policy/policy.h"

/* The access rights of the Landlock UAPI (include/uapi/linux/landlock.h).  Defined here: the
 * plan layer includes no OS header, and Debian 12's headers stop at ABI 2. */
#define CF_LL_FS_EXECUTE (1ULL << 0)
#define CF_LL_FS_WRITE_FILE (1ULL << 1)
#define CF_LL_FS_READ_FILE (1ULL << 2)
#define CF_LL_FS_READ_DIR (1ULL << 3)
#define CF_LL_FS_REMOVE_DIR (1ULL << 4)
#define CF_LL_FS_REMOVE_FILE (1ULL << 5)
#define CF_LL_FS_MAKE_CHAR (1ULL << 6)
#define CF_LL_FS_MAKE_DIR (1ULL << 7)
#define CF_LL_FS_MAKE_REG (1ULL << 8)
#define CF_LL_FS_MAKE_SOCK (1ULL << 9)
#define CF_LL_FS_MAKE_FIFO (1ULL << 10)
#define CF_LL_FS_MAKE_BLOCK (1ULL << 11)
#define CF_LL_FS_MAKE_SYM (1ULL << 12)
#define CF_LL_FS_REFER (1ULL << 13)	      /* ABI 2 */
#define CF_LL_FS_TRUNCATE (1ULL << 14)	      /* ABI 3 */
#define CF_LL_FS_IOCTL_DEV (1ULL << 15)	      /* ABI 5 */
#define CF_LL_FS_RESOLVE_UNIX (1ULL << 16)    /* ABI 9 */
#define CF_LL_NET_BIND_TCP (1ULL << 0)	      /* ABI 4 */
#define CF_LL_NET_CONNECT_TCP (1ULL << 1)     /* ABI 4 */
#define CF_LL_SCOPE_ABSTRACT_UNIX (1ULL << 0) /* ABI 6 */
#define CF_LL_SCOPE_SIGNAL (1ULL << 1)	      /* ABI 6 */

/* The newest ABI this build knows; a newer kernel is used at this level (the kernel accepts an
 * older caller's ruleset). */
#define CF_LL_ABI_KNOWN 9
/* The oldest ABI the backend accepts under policy required is CONFINE_LANDLOCK_MIN_ABI
 * (confine.h); cf_ll_abi_table says what each older one lacks. */

/* What one ABI version adds and what its absence costs: the explicit downgrade table. */
struct cf_ll_abi_entry {
	int abi;
	const char *adds;    /* "fs: refer" */
	const char *missing; /* what happens on a kernel without it */
	bool required;	     /* policy required refuses a kernel without it */
	const char *name;    /* the right or scope named in a refusal */
};
const struct cf_ll_abi_entry *cf_ll_abi_table(size_t *n);

/* Every file system right ABI `abi` has; 0 for abi < 1. */
uint64_t cf_ll_fs_rights(int abi);

/* A directory listing gathered by host/ code before planning. */
struct cf_ll_dirent {
	char *name;
	enum cf_kind kind;
};
struct cf_ll_listing {
	char *dir;
	struct cf_ll_dirent *v;
	size_t n, cap;
	int error; /* errno of a listing that failed (its entries get no access), 0 otherwise */
};
struct cf_ll_listings {
	struct cf_ll_listing *v;
	size_t n, cap;
};
void cf_ll_listings_release(struct cf_ll_listings *l);
/* Appends an empty listing for dir and returns it (NULL on oom). */
struct cf_ll_listing *cf_ll_listings_add(struct cf_ll_listings *l, const char *dir);
int cf_ll_listing_add(struct cf_ll_listing *l, const char *name, enum cf_kind kind);
/* Sorts every listing by name (stable plan text) and the listings by directory. */
void cf_ll_listings_sort(struct cf_ll_listings *l);

struct cf_ll_rule {
	char *path;
	enum cf_kind kind;
	uint64_t access; /* allowed rights (LANDLOCK_RULE_PATH_BENEATH) */
	char *why;
};

struct cf_ll_plan {
	int abi;	      /* the ABI the plan is written for (min(kernel, known)) */
	int kernel_abi;	      /* what the kernel offers; 0: no Landlock */
	uint64_t handled_fs;  /* every fs right of abi: nothing is implicitly allowed */
	uint64_t handled_net; /* TCP bind and connect when the network is off (ABI >= 4) */
	uint64_t scoped;      /* abstract unix sockets and signals (ABI >= 6) */
	bool network;
	/* Network by domain (SPEC 12): TCP connects only to the proxy's port (one
	 * LANDLOCK_RULE_NET_PORT rule, the port chosen when the run starts), every bind refused,
	 * the socket filter's CF_SOCKETS_PROXY and confine's check of every connect(2). */
	bool net_proxy;
	bool unix_sockets; /* socket(AF_UNIX) allowed (ABI >= 9: RESOLVE_UNIX) */
	struct cf_ll_rule *rules;
	size_t n_rules, cap_rules;
	/* Every existing protected path with the rights it must not get (access: the rights its
	 * parent's side has and it lacks).  The executor checks that no rule reaches one of them
	 * through another path to the same directory (a bind mount): Landlock rules follow
	 * inodes, not names. */
	struct cf_ll_rule *guards;
	size_t n_guards, cap_guards;
	/* R42: every path the plan decided (its candidates), sorted by strcmp, `access` nonzero
	 * where the command may change a file's mode, owner, timestamps and extended
	 * attributes (the rules allow writing there, or it is the run's temp directory): the
	 * supervisor decides on the nearest of them at or above a target (metaguard.c). */
	struct cf_ll_rule *meta;
	size_t n_meta, cap_meta;
	struct cf_strv split; /* split directories: entries created later get nothing */
	/* The split directories that lie in a writable area (a repository root holding .env and
	 * .git): with `broker`, the supervisor makes and opens their new entries (pathguard.c),
	 * else they take none, and the run says so. */
	struct cf_strv split_writable;
	bool broker;
	/* R36: confine's opener (exec/linux/opener.c), a thread in a Landlock domain above the
	 * command's, makes every open that could read a FIFO: one outside the writable areas and
	 * the allows is EACCES.  false: not here (not_provided says why). */
	bool opener;
	struct cf_strv not_listable; /* directories that get no READ_DIR (a hidden dir below) */
	struct cf_strv not_provided; /* what this backend cannot give, said plainly */
	struct cf_strv notes;	     /* downgrades, unlistable directories, dropped rules */
	char *refusal;		     /* set: policy required must refuse (the missing right) */
	char *run_tmp;		     /* the per-run temp directory (TMPDIR) */
};

struct cf_ll_opts {
	bool network;
	bool net_proxy;	       /* network by domain: the proxy on the host's loopback (SPEC 12) */
	const char *run_tmp;   /* the per-run directory under /tmp, made by the executor */
	const char *cache_dir; /* the tool caches' redirect targets of this workspace's store
				* (R39), read and written; NULL: none */
	bool cgroup;	       /* a cgroup will hold the command (limits, reaping) */
	/* The executor brokers new entries of split directories in writable areas (a supervisor
	 * that answers seccomp notifications: pathguard.c). */
	bool broker;
	/* NULL when confine's opener can act for the command here (R36), else what it lacks
	 * ("seccomp filters", Yama's ptrace_scope, ...): FIFO reads are then not guarded. */
	const char *opener_missing;
	/* Directory listings (cf_ll_plan_dirs says which); NULL: compile without them, every
	 * split directory's entries then get nothing. */
	const struct cf_ll_listings *listings;
};

void cf_ll_plan_release(struct cf_ll_plan *plan);

/* The directories the plan splits: the host lists them (host/ll_listing.c) before
 * cf_ll_plan_compile.  Pure apart from host->kind. */
int cf_ll_plan_dirs(const struct cf_policy *p, const struct cf_matches *globs,
		    const struct cf_ll_opts *o, struct cf_strv *out, struct confine_error *err);

/* Compiles the policy for the Landlock backend.  The same contradictions as the bwrap plan
 * are errors (a write allow under a read deny, hiding '/').  A kernel ABI too old for the rule
 * set is not an error here: plan->refusal names the missing right, and a run under policy
 * required refuses with it.  Pure apart from host->kind. */
int cf_ll_plan_compile(const struct cf_policy *p, const struct cf_matches *globs,
		       const struct cf_ll_opts *o, struct cf_ll_plan *out,
		       struct confine_error *err);

/* Names of the rights in `access` ("read_file,read_dir"); a static buffer is not used: the
 * result is appended to b. */
void cf_ll_access_names(struct cf_buf *b, uint64_t access);

/* Stable text and JSON of the Landlock part of a plan. */
void cf_ll_plan_text(struct cf_buf *b, const struct cf_ll_plan *plan);
void cf_ll_plan_json(struct cf_buf *b, const struct cf_ll_plan *plan);

/* The whole plan of a landlock run: the common part (workspace, environment, missing paths,
 * command) of the bwrap plan and the Landlock part.  malloc'd, NULL on oom. */
char *cf_ll_full_text(const struct cf_plan *plan, const struct cf_ll_plan *ll);
char *cf_ll_full_json(const struct cf_plan *plan, const struct cf_ll_plan *ll);

#endif

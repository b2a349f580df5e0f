/* SPDX-License-Identifier: MIT */
/*
 * Host facts: everything the policy and the plan compiler need to know about the machine,
 * gathered before planning and passed in.  The planner never probes the system itself; file
 * system questions go through the callbacks so that golden tests can answer them from a table.
 */
#ifndef CONFINE_HOST_H
#define CONFINE_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "confine.h"
#include "rules/rules.h"
#include "util/util.h"

enum cf_kind {
	CF_KIND_MISSING = 0,
	CF_KIND_DIR,
	CF_KIND_FILE, /* a regular file */
	CF_KIND_SYMLINK,
	CF_KIND_OTHER, /* socket, fifo, device */
};

/* One path found by the glob scan. */
struct cf_match {
	char *path; /* absolute */
	enum cf_kind kind;
	size_t rule;	   /* index of the matching rule in the ruleset given to the scan */
	uint64_t dev, ino; /* its identity when the scan met it; 0: unknown */
};

struct cf_matches {
	struct cf_match *v;
	size_t n, cap;
	/* Directories the scan could not read (EACCES): skipped, never a reason to refuse every
	 * later run (R14).  The plan hides them, so the sandbox cannot read them either, even
	 * where it could chmod them back. */
	struct cf_strv skipped;
};
void cf_matches_release(struct cf_matches *m);
int cf_matches_add(struct cf_matches *m, const char *path, enum cf_kind kind, size_t rule);

struct cf_host {
	const char *home;		/* canonical home directory ($HOME) */
	const char *pw_home;		/* canonical home of the caller in the password database
					 * when it differs from home; else NULL */
	const char *pw_name;		/* the caller's user name there (for "~name/.ssh") */
	const char *workspace;		/* canonical workspace root */
	const char *tmpdir;		/* canonical $TMPDIR when set, exists and differs from /tmp;
					 * else NULL */
	const char *runtime_dir;	/* $XDG_RUNTIME_DIR or /run/user/UID (may be missing) */
	const char *ssh_auth_sock_dir;	/* directory of $SSH_AUTH_SOCK, NULL when unset */
	const char *user_rules_file;	/* path of the user rule file */
	const char *pw_user_rules_file; /* the one under pw_home (another run with the real HOME
					 * reads it); NULL when pw_home is */
	const char *config_dir;		/* confine's own configuration directory
					 * ($XDG_CONFIG_HOME/confine), holding the user rule file */
	const char *pw_config_dir;	/* the one under pw_home; NULL when pw_home is */
	const char *cache_dir;		/* confine's cache directory ($XDG_CACHE_HOME/confine) */
	const struct cf_strv *git_guards; /* what the host's git reads or runs (host/git.h) */
	unsigned uid;
	int landlock_abi; /* 0: none */
	bool seccomp;	  /* the kernel accepts seccomp filters */
	/* R36: NULL when the IPC guard works here (exec/linux/ipcguard.c), else what it lacks
	 * ("Landlock ABI 2 (Linux 5.19)", "openat2 (refused by a seccomp filter around
	 * confine)", ...). */
	const char *ipc_guard_missing;

	/* What is at `path` (not following a final symlink). */
	enum cf_kind (*kind)(void *ctx, const char *path);
	/* See struct cf_resolve_ctx. */
	int (*canonicalize)(void *ctx, const char *path, char **out, struct confine_error *err);
	/* Glob expansions are not asked for here: the scan (host/scan.c) runs before planning
	 * and its matches are handed to cf_plan_compile. */
	void *ctx;
};

#endif

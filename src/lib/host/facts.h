/* SPDX-License-Identifier: MIT */
/*
 * Host facts: everything the policy and the plan compiler need to know about the machine,
 * gathered before planning and passed in.  The planner never probes the system itself; file
 * system questions go through the callbacks so that golden tests can answer them from a table.
 */
#ifndef CONFINE_HOST_FACTS_H
#define CONFINE_HOST_FACTS_H

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

/* What a file holds, for the guards decided by content (R40, host/certclass.h). */
enum cf_content {
	CF_CONTENT_NONE = 0, /* not classified (no rule asks) */
	CF_CONTENT_CERTS,    /* certificates (and revocation lists) only: public */
	CF_CONTENT_KEY,	     /* a private key or a key store */
	CF_CONTENT_UNKNOWN,  /* not classified within the bounds: treated as a secret */
};

/* One path found by the glob scan. */
struct cf_match {
	char *path; /* absolute */
	enum cf_kind kind;
	size_t rule;		 /* index of the matching rule in the ruleset given to the scan */
	uint64_t dev, ino;	 /* its identity when the scan met it; 0: unknown */
	enum cf_content content; /* a match of a rule decided by content (R40): what it holds */
};

/* A match of a rule decided by content that holds certificates only (R40): public, so not a
 * match the plan protects; kept with the identity and timestamps it was classified on, which
 * are checked again before the command starts. */
struct cf_public_match {
	char *path;
	size_t rule;
	uint64_t dev, ino, size;
	int64_t mtime, ctime;
};

struct cf_matches {
	struct cf_match *v;
	size_t n, cap;
	/* Directories the scan could not read (EACCES): skipped, never a reason to refuse every
	 * later run (R14).  The plan hides them, so the sandbox cannot read them either, even
	 * where it could chmod them back. */
	struct cf_strv skipped;
	/* Matches found public by content (R40), sorted by path. */
	struct cf_public_match *pub;
	size_t n_pub, cap_pub;
};

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
	const char *state_dir;		/* confine's state directory, the tool caches' stores
					 * ($XDG_STATE_HOME/confine, R39); NULL: none */
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
	/* What the file at `path` holds, for a rule decided by content (R40): a run answers from
	 * its scan, explain reads the file.  NULL: nothing is public by content. */
	enum cf_content (*content)(void *content_ctx, const char *path);
	void *content_ctx;
	/* Glob expansions are not asked for here: the scan (host/scan.c) runs before planning
	 * and its matches are handed to cf_plan_compile. */
	void *ctx;
};

#endif

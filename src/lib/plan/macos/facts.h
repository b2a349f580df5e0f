/* SPDX-License-Identifier: MIT */
/*
 * Host facts of a Mac, for the Seatbelt compiler.  On a Mac the executor gathers them from the
 * system (exec/macos); anywhere else they come from a small text description
 * (`confine plan --target macos --host-facts FILE`, the golden tests) or from plausible
 * defaults, so that a profile can be computed and reviewed on Linux.  Pure.
 *
 * The text form, one fact per line ('#' starts a comment line):
 *     home /Users/ana                    the home directory
 *     workspace /Users/ana/proj          the workspace root
 *     cwd /Users/ana/proj/src            the current directory (default: the workspace)
 *     temp /var/folders/x1/abc/T         a temp root besides /private/tmp ($TMPDIR); repeatable
 *     cache /var/folders/x1/abc/C        a per-user cache directory: readable (dyld keeps
 *                                        closures there), not writable; repeatable
 *     user-rules PATH                    the user rule file (default:
 *                                        HOME/.config/confine/rules.json)
 *     ssh-auth-sock PATH                 $SSH_AUTH_SOCK: its directory is guarded
 *     link FROM TO                       FROM is a symbolic link (or firmlink) to TO; /var,
 *                                        /tmp and /etc into /private are always known
 *     unlisted missing|exists            what a path not listed below is (default: missing)
 *     dir PATH | file PATH | other PATH  what the host has; parents of listed paths are
 *                                        directories
 * Every path is canonicalised through the links.  Paths may contain spaces: a fact is its
 * keyword, one space and the rest of the line (for `link`, FROM ends at the first " /").
 */
#ifndef CONFINE_MAC_FACTS_H
#define CONFINE_MAC_FACTS_H

#include <stdbool.h>

#include "host/facts.h"
#include "plan/facts_text.h"
#include "plan/macos/mpath.h"

/* What the compiler asks a Mac.  Every path is canonical. */
struct cf_mac_host {
	const char *home, *workspace, *cwd, *user_rules;
	const struct cf_strv *temp;    /* temp roots: /private/tmp first, then $TMPDIR */
	const struct cf_strv *cache;   /* readable per-user caches */
	const char *ssh_auth_sock_dir; /* NULL: none */
	bool assumed;		       /* kinds were assumed, not looked at (see `unlisted`) */
	const struct cf_mac_links
	    *links; /* for the record in the plan; canonicalize applies them */
	/* What is at `path` (not following a final symlink). */
	enum cf_kind (*kind)(void *ctx, const char *path);
	/* See struct cf_resolve_ctx: on a Mac realpath(3) of the longest existing prefix, in a
	 * table the links. */
	int (*canonicalize)(void *ctx, const char *path, char **out, struct confine_error *err);
	void *ctx;
};

/* A table of facts, behind the callbacks of struct cf_mac_host. */
struct cf_mac_facts {
	char *home, *workspace, *cwd, *user_rules, *ssh_auth_sock_dir;
	struct cf_strv temp, cache;
	bool home_assumed, workspace_assumed; /* defaults were used: the plan says so */
	struct cf_mac_links links;
	struct cf_fact_table table; /* dir, file, other; unlisted */
};

void cf_mac_facts_release(struct cf_mac_facts *f);

/* Parses the text form (after cf_mac_facts_init); errors name the line in err->line. */
int cf_mac_facts_init(struct cf_mac_facts *f, struct confine_error *err);
int cf_mac_facts_parse(struct cf_mac_facts *f, const char *text, struct confine_error *err);

/*
 * Defaults for what was not given and canonicalisation of everything: `home` and `workspace`
 * (when not NULL) override the facts'; home defaults to `default_home` (NULL: /Users/user),
 * the workspace to HOME/project, cwd to the workspace, the user rules to
 * HOME/.config/confine/rules.json; /private/tmp is always the first temp root.  The home, the
 * workspace, the temp and cache roots are recorded as existing directories.
 */
int cf_mac_facts_finish(struct cf_mac_facts *f, const char *home, const char *workspace,
			const char *default_home, struct confine_error *err);

/* The host view of a table (its callbacks read `f`, which must outlive the result). */
struct cf_mac_host cf_mac_facts_host(const struct cf_mac_facts *f);

#endif

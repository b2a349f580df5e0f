/* SPDX-License-Identifier: MIT */
/*
 * The macOS plan (SPEC 9, R25, R26): the rule set compiled into one Seatbelt profile (SBPL
 * text) for `/usr/bin/sandbox-exec -p PROFILE -- COMMAND...`.  Pure: built and tested on any
 * OS; the executor (exec/macos) only runs it.
 *
 * Shape of the profile, in the order it is written (Seatbelt applies the LAST rule that
 * matches an operation, the policy the FIRST, so the lowest priority comes first and every
 * layer is written in reverse):
 *   1. (version 1) (deny default), then process, signal, sysctl, Mach, POSIX IPC, pseudo-tty
 *      and device allows, the system read roots and (literal "/");
 *   2. the fallback: the workspace and the temp roots readable and writable, the caches and
 *      the paths of write allows and grants readable; nothing else of the home is readable;
 *   3. the rules, layer by layer from the user file up to the overrides, each layer in
 *      reverse (approved write targets between the guards and the overrides); ask and deny
 *      both deny; a wildcard-free path is a `subpath` (a deny also gets a case-insensitive
 *      regex, for another spelling of the same name on a case-insensitive volume); a glob is
 *      a `regex` with case-insensitive letter classes and every metacharacter escaped.  A
 *      rule on a strict ancestor of the workspace does not reach into it (R13's punch-through,
 *      expressed with require-not);
 *   4. the network: everything when on, only the proxy's port when by proxy, nothing when
 *      off; unix sockets only in the workspace and the temp roots, never a guarded one;
 *   5. injections: a literal read allow of each scratch file and a literal write deny after
 *      every write allow;
 *   6. metadata (stat, not listing) of each ancestor of a readable root, after every deny, so
 *      that paths into the workspace resolve though its ancestors are hidden;
 *   7. unlink/rename denies on every directory between a writable root and a protected path
 *      inside it, so that no protection can be moved away (the macOS side of R33).
 */
#ifndef CONFINE_SBPL_H
#define CONFINE_SBPL_H

#include <stdbool.h>

#include "plan/macos/facts.h"
#include "policy/grants.h"
#include "policy/policy.h"
#include "rules/rules.h"

enum cf_mac_net {
	CF_MAC_NET_ON = 0,
	CF_MAC_NET_OFF,
	CF_MAC_NET_PROXY, /* only localhost:proxy_port (SPEC 12) */
};

/* One read-only file injection (SPEC 6): the env-pointer NAME and the scratch file the
 * snapshot module wrote; a fixed-path TARGET is refused on macOS. */
struct cf_mac_injection {
	const char *name;    /* env-pointer variable; NULL for a fixed-path injection */
	const char *target;  /* fixed-path TARGET; NULL for an env-pointer one */
	const char *scratch; /* canonical path of the scratch file */
};

/* The largest profile compiled: sandbox-exec gets it as one argument, and the arguments and
 * environment of an exec share ARG_MAX (1 MiB on macOS). */
#define CF_MAC_PROFILE_MAX (512u * 1024u)

struct cf_mac_input {
	const struct cf_mac_host *host;
	/* Rules as written (patterns unresolved).  NULL: none. */
	const struct cf_ruleset *session, *workspace_rules, *user_rules;
	const struct cf_grants *grants; /* approved write targets (SPEC 7.2); NULL: none */
	enum cf_mac_net network;
	unsigned proxy_port; /* CF_MAC_NET_PROXY: 1..65535 */
	const struct cf_mac_injection *injections;
	size_t n_injections;
	const struct cf_strv *argv; /* the command */
	const struct cf_strv *env;  /* the command's environment, already scrubbed (R20) */
	const struct cf_strv *env_removed;
};

struct cf_mac_plan {
	char *profile; /* the SBPL text */
	char *home, *workspace, *cwd;
	enum cf_mac_net network;
	unsigned proxy_port;
	bool assumed;		    /* kinds were assumed (see the facts) */
	struct cf_strv argv;	    /* the command */
	struct cf_strv env;	    /* the command's environment, injection pointers last */
	struct cf_strv env_removed; /* names removed by the scrub (never values) */
	struct cf_strv injections;  /* "env:NAME" per injection, in order */
	struct cf_strv notes;	    /* what the caller adds: rule files not read, ... */
	struct cf_strv strings;	    /* every string literal of the profile, in order, each
				     * checked (R26) */
	struct cf_strv regexes;	    /* every regex literal of the profile, in order */
};

void cf_mac_plan_release(struct cf_mac_plan *plan);

/*
 * The policy the profile is compiled from: the built-in layers with the Mac's temp roots and
 * guards, the rules of `in` resolved through the host's canonicalisation, globs
 * case-insensitive (SPEC 2.2).  Explain and the tests decide paths with it.  `ph` is storage
 * for the policy's host view and must outlive `p`.  Pure apart from the host callbacks.
 */
int cf_mac_policy(const struct cf_mac_input *in, struct cf_host *ph, struct cf_policy *p,
		  struct confine_error *err);

/*
 * Compiles the profile.  Errors: CONFINE_E_INVALID for a path or string the profile cannot
 * take (R26) or a fixed-path injection, CONFINE_E_RULES for a rule, CONFINE_E_WORKSPACE (R1),
 * CONFINE_E_PLAN for rules that contradict each other (a write allow beneath a read deny, as
 * on Linux) or a profile over CF_MAC_PROFILE_MAX.  Pure apart from the host callbacks.
 */
int cf_mac_plan_compile(const struct cf_mac_input *in, struct cf_mac_plan *out,
			struct confine_error *err);

/* The fixed part of every profile (deny default, the process, IPC and device allows, the
 * system read roots) plus a write allow of /dev/null: what the probe runs /usr/bin/true under
 * to learn that this macOS accepts the profile's operations.  Pure. */
int cf_mac_base_profile(char **out, struct confine_error *err);

/* Whether the fallback lets the profile read `path` (the Mac's read posture of SPEC 9: the
 * system roots, the workspace, the temp roots, the caches, write allows and grants); for
 * explain, where the policy's fallback alone would say "allow".  Pure. */
bool cf_mac_fallback_readable(const struct cf_mac_input *in, const struct cf_policy *p,
			      const char *path);

/* The approved targets of a request on a Mac (canonical paths; case folded when comparing). */
int cf_mac_grants(const struct cf_mac_host *h, const char *const *args, size_t n,
		  const char *reason, struct cf_grants *out, struct confine_error *err);

/* The argument vector of a run: /usr/bin/sandbox-exec -p PROFILE -- COMMAND...  Pure. */
#define CF_MAC_SANDBOX_EXEC "/usr/bin/sandbox-exec"
int cf_mac_exec_argv(const struct cf_mac_plan *plan, struct cf_strv *out,
		     struct confine_error *err);

/* Stable text (or JSON) of the plan; malloc'd, NULL on oom. */
char *cf_mac_plan_text(const struct cf_mac_plan *plan);
char *cf_mac_plan_json(const struct cf_mac_plan *plan);

/* What the macOS backend enforces and what it does not, as stated by plan and probe. */
extern const char *const cf_mac_not_enforced[];
extern const size_t cf_mac_n_not_enforced;
extern const char cf_mac_tested[];

/* Glob and path regexes of the profile (sbpl_regex.c), for the compiler and the tests. */
/* "^...(/|$)": the glob covers a path (the path or an ancestor of it matches).  Letters match
 * in both cases; '?' is one byte for an allow and one to four bytes (one UTF-8 character at
 * most) for a deny, so that neither ever opens more than the rule says. */
char *cf_mac_glob_regex(const char *glob, bool deny);
/* The same glob restricted to matches at or below `ws` (a strict descendant of the glob's
 * literal prefix): "^WS(...)(/|$)", "" when the glob matches nothing there, NULL on oom. */
char *cf_mac_glob_regex_within(const char *glob, const char *ws, bool deny);
/* "^PATH(/|$)" with case-insensitive letters ("^/" for the root). */
char *cf_mac_path_regex_ci(const char *path);
/* "^PREFIX$" for a prefix of a glob (no cover of what is below). */
char *cf_mac_glob_regex_exact(const char *glob, size_t len, bool deny);

#endif

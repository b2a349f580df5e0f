/* SPDX-License-Identifier: MIT */
/*
 * Policy: the six layers of SPEC 2.3 and the decision for one path and one access.  Pure: file
 * system facts come from struct cf_host.
 */
#ifndef CONFINE_POLICY_H
#define CONFINE_POLICY_H

#include "host/facts.h"
#include "rules/rules.h"
#include "util/util.h"

struct cf_decision {
	enum cf_action action;
	enum cf_layer layer;
	const struct cf_rule *rule; /* NULL when the fallback decided */
	/* R10b: the workspace file's allow that the user file's deny or ask outranked (the
	 * stricter decision wins where both files match); NULL otherwise. */
	const struct cf_rule *outranked;
};

struct cf_policy {
	const struct cf_host *host;
	struct cf_ruleset layers[CF_LAYER_FALLBACK]; /* resolved rules, written order per layer */
	struct cf_strv temp_roots;		     /* "/tmp" and $TMPDIR: fallback write roots */
	struct cf_strv
	    linked;		     /* defused protections reached through a symlink: the lexical
				      * paths, whose link the host follows later (checked after the run) */
	struct cf_strv linked_rules; /* the pattern of each one's rule */
	struct cf_ruleset endpoints; /* guards: the host's IPC endpoints (R29), sorted by path */
};

/* Builds the override and guard layers from the host facts.  The host must outlive p. */
int cf_policy_init(struct cf_policy *p, const struct cf_host *host, struct confine_error *err);
void cf_policy_release(struct cf_policy *p);

/*
 * Resolves each rule of rs (cf_rule_resolve) and appends it to `layer`.  For the workspace
 * layer, an allow outside the workspace is refused (R10).  Rules keep their source, index, line
 * and column for explain.
 */
int cf_policy_add_rules(struct cf_policy *p, enum cf_layer layer, const struct cf_ruleset *rs,
			struct confine_error *err);

/*
 * The decision for `path` (absolute, normalised) and one access (CF_ACC_READ or CF_ACC_WRITE):
 * the first rule that covers it in layer order, else the fallback.  Inside the workspace, a
 * rule that covers the path only through an ancestor above the workspace root does not apply,
 * so that a workspace inside a hidden directory punches through (R13).
 */
void cf_policy_decide(const struct cf_policy *p, const char *path, enum cf_access access,
		      struct cf_decision *out);

/* Read and write for one path, as the sandbox enforces them together: where reading is
 * denied, a write allowed only by the fallback is denied too (by the read decision). */
void cf_policy_decide_both(const struct cf_policy *p, const char *path, struct cf_decision *rd,
			   struct cf_decision *wr);

/* Adds the host's IPC endpoints (sorted, unique, canonical: cf_host_ipc_endpoints) to the guard
 * layer: hidden for read and write unless a session or user allow names the endpoint or a
 * directory at or below the endpoint's own directory (R29).  A directory of `groups`
 * (cf_host_ipc_groups: it holds nothing but endpoints) is hidden as one in place of its
 * endpoints, unless an allow names something inside it; an allow of the directory itself gives
 * it back.  Call it once the session and user layers are loaded. */
int cf_policy_add_endpoints(struct cf_policy *p, const struct cf_strv *paths,
			    const struct cf_strv *groups, struct confine_error *err);

/* What git reads as configuration or runs inside one git directory, relative to it (SPEC 2.3):
 * the common part (hooks, config, worktrees, modules, remotes, branches), then, when `worktree`,
 * the entries of a worktree's own directory (commondir, config.worktree, and the state of an
 * interrupted rebase, cherry-pick or am: rebase-merge, rebase-apply, sequencer).  Static.
 * Pure. */
const char *const *cf_git_dir_entries(bool worktree, size_t *n);

/* The git write guards of a plain repository whose .git is a directory of the workspace, for
 * the planners whose host facts do not come from host/git.c (golden tests, a Windows plan
 * made on another OS).  Appends to out.  Pure. */
int cf_git_plain_guards(const char *workspace, struct cf_strv *out, struct confine_error *err);

/* Adds the directories the glob scan could not read (struct cf_matches.skipped) to the guard
 * layer, hidden for read and write: the scan could not look for secrets in them, and a caller
 * who owns one could chmod it back from inside (R14). */
/* Adds out->v[from..] (cf_host_git_guards of a repository nested in the workspace) to the guard
 * layer as git's other guards: write, ask, renamed aside after the run when made by it. */
int cf_policy_add_git_guards(struct cf_policy *p, const struct cf_strv *guards, size_t from,
			     struct confine_error *err);

int cf_policy_add_unreadable(struct cf_policy *p, const struct cf_strv *dirs,
			     struct confine_error *err);

/* Other names of protected files (R37, policy/aliases.c; host/alias.h finds them). */
/* Whether a rule protects `path`: reading it is not allowed, or writing it is not allowed by a
 * rule (not by the fallback). */
bool cf_policy_protects(const struct cf_policy *p, const char *path);
/* Whether `alias` is protected at least as `original` is (each access `original` may not have,
 * `alias` may not have either). */
bool cf_policy_alias_covered(const struct cf_policy *p, const char *alias, const char *original);
/* The trees where the search looks: `prot` the wildcard-free rule paths and glob matches a rule
 * protects, `writ` the workspace and the rule paths and matches that are writable host content
 * (not a temp root: the sandbox's /tmp is its own). */
int cf_policy_alias_roots(const struct cf_policy *p, const struct cf_matches *globs,
			  struct cf_strv *prot, struct cf_strv *writ, struct confine_error *err);
/* Adds a guard for `alias`, a hard link of the protected `original`: hidden when reading
 * `original` is not allowed, else write-protected, with its action; explain names it
 * "(a hard link of ORIGINAL)".  Once per alias and rule. */
int cf_policy_add_alias(struct cf_policy *p, const char *alias, const char *original,
			struct confine_error *err);

/* The guarded credential paths under the home directory, relative to it. */
const char *const *cf_home_guards(size_t *n);

/* The decision as explain shows it (R11): what the sandbox does.  A guard is `ask` in the
 * policy (only an escalation, SPEC 7.1, steps past it, and the report's asks offer that card),
 * but no rule lifts it and nothing asks at run time: it is shown as deny. */
enum cf_action cf_explain_action(const struct cf_decision *d);

/* Short names for text output. */
const char *cf_action_name(enum cf_action a);
const char *cf_layer_name(enum cf_layer l);
const char *cf_access_name(unsigned access);

/* Environment (SPEC 5, R20). */
struct cf_env_opts {
	bool clear;	      /* --clearenv */
	struct cf_strv pass;  /* --pass-env patterns */
	struct cf_strv unset; /* --unset-env patterns */
	struct cf_strv set;   /* --env NAME=VALUE, in order */
};
void cf_env_opts_release(struct cf_env_opts *o);
/* Validates one --env NAME=VALUE (name syntax, value size). */
int cf_env_check_assignment(const char *assignment, struct confine_error *err);
/* Builds the command's environment from `base` (NAME=VALUE strings); the names removed by the
 * scrub go to `removed` (values never).  Pure. */
int cf_env_build(const char *const *base, size_t n_base, const struct cf_env_opts *o,
		 struct cf_strv *out, struct cf_strv *removed, struct confine_error *err);
/* True when NAME looks like a secret or an agent connection (R20). */
bool cf_env_name_is_secret(const char *name);
/* True when a VALUE carries a credential whatever its name (R20): a URL with a password, a
 * well-known token prefix, a JWT. */
bool cf_env_value_is_secret(const char *value);

#endif

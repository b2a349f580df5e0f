/* SPDX-License-Identifier: MIT */
/*
 * The Windows plan (SPEC 10, R27): the rule set compiled into what a user without
 * administrator rights can have enforced on Windows, as plain data:
 *   - a token recipe: CreateRestrictedToken(WRITE_RESTRICTED | LUA_TOKEN |
 *     DISABLE_MAX_PRIVILEGE) whose restricting SIDs are a capability SID made for the run, the
 *     logon SID and Everyone, never the user's SID.  Writes then need an ACE for one of those
 *     three on top of the user's own rights;
 *   - ACL edits: write ACEs for the capability SID on the workspace, the temp roots, write
 *     allows and approved targets; deny ACEs where a write-denied path lies inside those;
 *   - the rules it cannot enforce, each with its reason and its effect.
 * The executor (exec/windows) applies the edits with a record for rollback, starts the
 * command suspended in a job object and resumes it.  Pure: built and tested on any OS.
 */
#ifndef CONFINE_PLAN_WIN_H
#define CONFINE_PLAN_WIN_H

#include <stdbool.h>

#include "host/facts.h"
#include "plan/windows/facts.h"
#include "policy/grants.h"
#include "rules/rules.h"

/* Access rights of NTFS files and directories (winnt.h), for the pure planner. */
#define CF_WIN_FILE_WRITE_DATA 0x0002u	/* directories: FILE_ADD_FILE */
#define CF_WIN_FILE_APPEND_DATA 0x0004u /* directories: FILE_ADD_SUBDIRECTORY */
#define CF_WIN_FILE_WRITE_EA 0x0010u
#define CF_WIN_FILE_DELETE_CHILD 0x0040u
#define CF_WIN_FILE_WRITE_ATTRIBUTES 0x0100u
#define CF_WIN_DELETE 0x00010000u
#define CF_WIN_READ_CONTROL 0x00020000u
#define CF_WIN_WRITE_DAC 0x00040000u
#define CF_WIN_WRITE_OWNER 0x00080000u
#define CF_WIN_SYNCHRONIZE 0x00100000u
#define CF_WIN_FILE_GENERIC_WRITE                                                                  \
	(CF_WIN_READ_CONTROL | CF_WIN_FILE_WRITE_DATA | CF_WIN_FILE_WRITE_ATTRIBUTES |             \
	 CF_WIN_FILE_WRITE_EA | CF_WIN_FILE_APPEND_DATA | CF_WIN_SYNCHRONIZE)

/* Granted to the capability SID: write and delete, but not "delete subfolders and files" of a
 * directory, which would let the command remove a protected child whatever the child's own
 * ACL says, and not WRITE_DAC or WRITE_OWNER. */
#define CF_WIN_MASK_ALLOW (CF_WIN_FILE_GENERIC_WRITE | CF_WIN_DELETE)
/* Denied to the capability SID on a write-denied path: every way to change it or its entries,
 * its ACL or its owner; not READ_CONTROL or SYNCHRONIZE, which reading needs. */
#define CF_WIN_MASK_DENY                                                                           \
	(CF_WIN_FILE_WRITE_DATA | CF_WIN_FILE_APPEND_DATA | CF_WIN_FILE_WRITE_EA |                 \
	 CF_WIN_FILE_WRITE_ATTRIBUTES | CF_WIN_FILE_DELETE_CHILD | CF_WIN_DELETE |                 \
	 CF_WIN_WRITE_DAC | CF_WIN_WRITE_OWNER)
/* Denied (not inherited) on each directory between a writable root and a protected path, so
 * that no ancestor of a protection can be renamed away (the Windows side of R33). */
#define CF_WIN_MASK_NO_RENAME CF_WIN_DELETE

/* CreateRestrictedToken flags (winnt.h). */
#define CF_WIN_DISABLE_MAX_PRIVILEGE 0x1u
#define CF_WIN_LUA_TOKEN 0x4u
#define CF_WIN_WRITE_RESTRICTED 0x8u
#define CF_WIN_TOKEN_FLAGS                                                                         \
	(CF_WIN_DISABLE_MAX_PRIVILEGE | CF_WIN_LUA_TOKEN | CF_WIN_WRITE_RESTRICTED)

enum cf_win_ace {
	CF_WIN_ACE_ALLOW,     /* allow CF_WIN_MASK_ALLOW */
	CF_WIN_ACE_DENY,      /* deny CF_WIN_MASK_DENY */
	CF_WIN_ACE_NO_RENAME, /* deny CF_WIN_MASK_NO_RENAME, this directory only */
};

/* One ACE for the capability SID, added for the run and removed after it. */
struct cf_win_edit {
	char *path; /* internal form */
	enum cf_kind kind;
	enum cf_win_ace ace;
	unsigned mask;
	bool inherit; /* container and object inherit (directories, except NO_RENAME) */
	char *why;
};

/* A rule, or part of one, that the plan cannot enforce. */
struct cf_win_gap {
	char *what;   /* "read", "write", "network" */
	char *rule;   /* "guard ~/.ssh", "session C:\data (deny write)", "--no-network" */
	char *path;   /* shown form; "" when none */
	char *effect; /* "not enforced: reads are allowed", "not granted: writes are refused" */
	char *reason;
};

struct cf_win_plan {
	char *capability; /* the capability SID's text */
	char *workspace;  /* shown form */
	char *cwd;	  /* shown form */
	bool network;	  /* as requested; never enforced */
	bool assumed;	  /* kinds were assumed (see the facts) */
	struct cf_win_edit *edits;
	size_t n_edits, cap_edits;
	struct cf_win_gap *gaps;
	size_t n_gaps, cap_gaps;
	struct cf_strv argv;
	char *cmdline; /* what CreateProcessAsUserW gets */
	struct cf_strv env, env_removed;
	struct cf_strv notes;	   /* what the caller adds: rule files not read, ... */
	struct cf_win_names names; /* spellings for showing paths: the host's and the rules' */
};

void cf_win_plan_release(struct cf_win_plan *plan);

/* What the planner compiles. */
struct cf_win_input {
	const struct cf_win_host *host;
	/* Rules as a Windows user writes them (patterns unresolved).  NULL: none. */
	const struct cf_ruleset *session, *workspace_rules, *user_rules;
	/* Approved write targets (SPEC 7.2), validated, internal paths.  NULL: none. */
	const struct cf_grants *grants;
	bool network;
	size_t net_allows; /* --net-allow patterns given (SPEC 12): none can be enforced here */
	const struct cf_strv *argv; /* the command */
	const struct cf_strv *env;  /* the command's environment, already scrubbed (R20) */
	const struct cf_strv *env_removed;
};

/*
 * Compiles the plan.  Errors (CONFINE_E_RULES for a rule, CONFINE_E_PLAN for what cannot be
 * planned, such as a write root behind a reparse point) name the path and the reason.  Pure
 * apart from the host callbacks.
 */
int cf_win_plan_compile(const struct cf_win_input *in, struct cf_win_plan *out,
			struct confine_error *err);

/* The validated approved targets of a request on a Windows host (internal paths). */
int cf_win_grants(const struct cf_win_host *h, const char *const *args, size_t n,
		  const char *reason, struct cf_grants *out, struct confine_error *err);

/* Stable text (or JSON) of the plan; malloc'd, NULL on oom. */
char *cf_win_plan_text(const struct cf_win_plan *plan);
char *cf_win_plan_json(const struct cf_win_plan *plan);

/* The edit's ACE as words: "allow write", "deny write", "deny rename". */
const char *cf_win_ace_name(enum cf_win_ace a);

#endif

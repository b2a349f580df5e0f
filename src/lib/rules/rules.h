/* SPDX-License-Identifier: MIT */
/*
 * Rules: the platform-neutral rule model (SPEC 2).  Parsing a rule file, resolving patterns to
 * absolute form, and matching paths against patterns.  Pure: no OS headers; anything that
 * needs the file system (canonicalising a prefix) goes through struct cf_resolve_ctx.
 */
#ifndef CONFINE_RULES_H
#define CONFINE_RULES_H

#include <stdbool.h>
#include <stddef.h>

#include "confine.h"

enum cf_access {
	CF_ACC_READ = 1,
	CF_ACC_WRITE = 2,
	CF_ACC_BOTH = 3,
};

enum cf_action {
	CF_ALLOW = 0,
	CF_ASK = 1,
	CF_DENY = 2,
};

/* Evaluation order of SPEC 2.3: lower value, higher priority. */
enum cf_layer {
	CF_LAYER_OVERRIDE = 0,
	CF_LAYER_GUARD,
	CF_LAYER_SESSION,
	CF_LAYER_WORKSPACE,
	CF_LAYER_USER,
	CF_LAYER_FALLBACK,
	CF_LAYER_COUNT,
};

#define CF_RULES_MAX_FILE_BYTES (1024 * 1024)
#define CF_RULES_MAX_RULES 4096
#define CF_RULES_MAX_PATTERN 4096

struct cf_rule {
	char *pattern;	 /* as written (or the builtin text, e.g. "~/.ssh") */
	char *path;	 /* resolved absolute pattern: ~ expanded, relative joined to the
			  * workspace, wildcard-free prefix canonicalised; NULL until resolved */
	unsigned access; /* CF_ACC_* */
	enum cf_action action;
	enum cf_layer layer;
	char *source;	   /* rule file path, "builtin" or "session" */
	int index;	   /* position in its file's "rules" array, or in the session list */
	int line, column;  /* position of the rule object in its file; 0 for builtin/session */
	bool glob;	   /* path contains '*' or '?' */
	size_t prefix_len; /* length of path's leading wildcard-free directory part ("/a/b" of
			    * "/a/b/ *.c"); equals strlen(path) when !glob */
	bool liftable;	   /* a host-socket guard: an allow of a path strictly below it (session
			    * or user layer) gives that one path back */
	bool fold_case;	   /* the wildcard part matches case-insensitively (built-in credential
			    * globs: server.PEM is a key too) */
	bool endpoint;	   /* a host IPC endpoint found at launch (with liftable): an allow of
			    * the endpoint or of a directory at or below its parent gives it back */
	bool group;	   /* with endpoint: a directory holding nothing but host endpoints,
			    * hidden as one (only an allow of the directory itself lifts it) */
	bool defuse;	   /* a write protection of something the host acts on later (git's
			    * configuration, confine's own rule files): missing at launch and
			    * created by the command, it is renamed aside after the run (R30) */
	bool content;	   /* decided by what the file holds (R40): a regular file holding
			    * certificates only is not covered (built-in *.pem, *.crt, *.cer) */
};

struct cf_ruleset {
	struct cf_rule *v;
	size_t n, cap;
};

void cf_ruleset_release(struct cf_ruleset *rs);
void cf_rule_release(struct cf_rule *r);
/* Appends a copy of the strings of r (pattern, path, source); 0 or CONFINE_E_NOMEM. */
int cf_ruleset_add(struct cf_ruleset *rs, const struct cf_rule *r, struct confine_error *err);

/* One problem found in a rule file. */
struct cf_diag {
	char *file;
	int line, column;
	char *pointer; /* JSON pointer, e.g. "/rules/3/action"; "" for the whole document */
	char *message;
};

struct cf_diags {
	struct cf_diag *v;
	size_t n, cap;
};
void cf_diags_release(struct cf_diags *d);

/*
 * Parses the text of a rule file (SPEC 2.1).  Every rule that is well formed is appended to
 * `out` with pattern, access, action, index, line, column, source = file and layer; path stays
 * NULL (see cf_rule_resolve).  Every problem is appended to `diags` (all of them, not only the
 * first).  Returns 0 when diags gained no entry, CONFINE_E_RULES when it did (err describes the
 * first), CONFINE_E_NOMEM on allocation failure.  The "network" section (SPEC 12) is checked
 * but its rules are not kept: cf_rules_parse_net (rules/netrules.h) keeps them.  Pure.
 */
int cf_rules_parse(const char *text, size_t len, const char *file, enum cf_layer layer,
		   struct cf_ruleset *out, struct cf_diags *diags, struct confine_error *err);

/* Parses "PATH[:read|write|both]" of --allow/--ask/--deny into pattern and access. Pure. */
int cf_rule_parse_cli(const char *arg, char **pattern, unsigned *access, struct confine_error *err);

/* What resolving a pattern needs from the host. */
struct cf_resolve_ctx {
	const char *home;      /* canonical home directory */
	const char *workspace; /* canonical workspace root */
	/* Canonicalises an absolute path whose every component may or may not exist: the longest
	 * existing leading part has its symlinks resolved, the rest is appended lexically.
	 * Returns 0 and a malloc'd *out, or a negative CONFINE_E_* code. */
	int (*canonicalize)(void *ctx, const char *path, char **out, struct confine_error *err);
	void *ctx;
};

/*
 * Resolves r->pattern into r->path (SPEC 2.2): validates the pattern (length, reserved
 * characters `[]{}`, empty, NUL), expands "~" and "~/", joins a relative pattern to the
 * workspace (an error in the user layer), normalises "." and "..", canonicalises the longest
 * wildcard-free prefix through ctx, sets glob and prefix_len.  Errors name the rule's source,
 * line and column.  Pure apart from ctx->canonicalize.
 */
int cf_rule_resolve(struct cf_rule *r, const struct cf_resolve_ctx *ctx, struct confine_error *err);

/*
 * True when the resolved pattern `pat` covers `path` (both absolute and normalised).
 * Wildcard-free: path equals pat or lies below it on a component boundary.  With wildcards:
 * `*` matches within one component, `**` any number of whole components (so "a/ **" + "/b"
 * also matches "a/b"), `?` one character other than '/'; a path below a match is covered too.
 * Case-sensitive unless `fold_case`.  Pure.
 */
bool cf_pattern_covers(const char *pat, const char *path, bool fold_case);

/* True when `pat` matches `path` exactly (no subtree rule).  Pure. */
bool cf_pattern_match(const char *pat, const char *path, bool fold_case);

#endif

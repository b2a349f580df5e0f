/* SPDX-License-Identifier: MIT */
/*
 * Validation of write-capability requests (SPEC 7.2).  The card that asks for approval lists
 * every target, so the limits are about what a person can read and judge: at most eight
 * concrete targets, each an existing file or directory, none of them the whole home or a whole
 * volume, and a short reason in plain text.
 */
#include <stdlib.h>
#include <string.h>

#include "policy/grants.h"
#include "util/utf8.h"
#include "util/util.h"

void cf_grants_release(struct cf_grants *g)
{
	if (!g)
		return;
	for (size_t i = 0; i < g->n; i++)
		free(g->v[i].path);
	free(g->reason);
	memset(g, 0, sizeof(*g));
}

const char *cf_grant_scope_name(enum cf_grant_scope s)
{
	return s == CF_GRANT_FILE ? "file" : s == CF_GRANT_SUBTREE ? "subtree" : "?";
}

int cf_grant_parse(const char *arg, char **path, enum cf_grant_scope *scope,
		   struct confine_error *err)
{
	*path = NULL;
	const char *colon = strrchr(arg, ':');
	if (!colon) {
		cf_err(err, CONFINE_E_INVALID, "invalid write target", arg,
		       "expected PATH:file or PATH:subtree");
		return CONFINE_E_INVALID;
	}
	if (!strcmp(colon + 1, "file")) {
		*scope = CF_GRANT_FILE;
	} else if (!strcmp(colon + 1, "subtree")) {
		*scope = CF_GRANT_SUBTREE;
	} else {
		cf_err(err, CONFINE_E_INVALID, "invalid write target", arg,
		       "'%s' is not a scope: expected PATH:file or PATH:subtree", colon + 1);
		return CONFINE_E_INVALID;
	}
	if (colon == arg)
		return cf_err(err, CONFINE_E_INVALID, "invalid write target", arg,
			      "the path is empty");
	*path = cf_strndup(arg, (size_t)(colon - arg));
	return *path ? 0 : cf_nomem(err);
}

static unsigned char fold(unsigned char c, bool on)
{
	return on && c >= 'A' && c <= 'Z' ? (unsigned char)(c - 'A' + 'a') : c;
}

static bool path_eq(const char *a, const char *b, bool f)
{
	for (; *a && *b; a++, b++)
		if (fold((unsigned char)*a, f) != fold((unsigned char)*b, f))
			return false;
	return *a == *b;
}

/* path equals dir or lies below it, on component boundaries ('/' or '\'). */
static bool path_within(const char *path, const char *dir, bool f)
{
	size_t n = strlen(dir);
	while (n > 1 && (dir[n - 1] == '/' || dir[n - 1] == '\\'))
		n--;
	for (size_t i = 0; i < n; i++)
		if (fold((unsigned char)path[i], f) != fold((unsigned char)dir[i], f) || !path[i])
			return false;
	if (n == 1 && (dir[0] == '/' || dir[0] == '\\'))
		return true;
	return path[n] == '\0' || path[n] == '/' || path[n] == '\\';
}

/* Characters that could make the card say something it does not: control characters (a line
 * break starts a fake line, an escape sequence repaints the terminal) and the bidirectional
 * overrides that reorder what follows them. */
static bool spoofing(unsigned cp)
{
	return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || (cp >= 0x202A && cp <= 0x202E) ||
	       (cp >= 0x2066 && cp <= 0x2069) || cp == 0x2028 || cp == 0x2029;
}

static int check_reason(const char *reason, struct confine_error *err)
{
	const char *what = "invalid reason for the write targets";
	if (!reason)
		reason = "";
	size_t chars = 0;
	bool blank = true;
	const unsigned char *end = (const unsigned char *)reason + strlen(reason);
	for (const unsigned char *s = (const unsigned char *)reason; *s;) {
		unsigned cp;
		size_t k = cf_utf8_next(s, (size_t)(end - s), &cp);
		if (!k)
			return cf_err(err, CONFINE_E_INVALID, what, reason,
				      "the reason is not valid UTF-8");
		if (spoofing(cp)) {
			cf_err(err, CONFINE_E_INVALID, what, reason,
			       "the reason contains a control or text-direction character "
			       "(U+%04X); it is shown on the approval card as plain text",
			       cp);
			cf_err_hint(err, "write the reason on one line of plain text");
			return CONFINE_E_INVALID;
		}
		if (cp != ' ')
			blank = false;
		chars++;
		s += k;
	}
	if (blank) {
		cf_err(err, CONFINE_E_INVALID, what, reason, "the reason is empty");
		cf_err_hint(err, "say with --reason why the command needs to write there");
		return CONFINE_E_INVALID;
	}
	if (chars > CF_GRANT_REASON_MAX)
		return cf_err(err, CONFINE_E_INVALID, what, "",
			      "the reason has %zu characters; at most %d are allowed", chars,
			      CF_GRANT_REASON_MAX);
	return 0;
}

static bool is_volume_root(const struct cf_grant_host *h, const char *path)
{
	if (h->is_volume_root)
		return h->is_volume_root(h->ctx, path);
	return !strcmp(path, "/");
}

/* One target: canonical, present as the scope says, not a volume root or the home. */
static int check_target(const struct cf_grant_host *h, const char *given, enum cf_grant_scope scope,
			char **canon, struct confine_error *err)
{
	const char *what = "write target refused";
	int r = h->canonicalize(h->ctx, given, canon, err);
	if (r < 0)
		return r;
	const char *c = *canon;
	if (is_volume_root(h, c)) {
		cf_err(err, CONFINE_E_INVALID, what, given,
		       "'%s' is the root of a volume: a grant names files or directories, not "
		       "whole drives",
		       c);
		cf_err_hint(err, "name the directory the command needs to write, with :subtree");
		return CONFINE_E_INVALID;
	}
	if (h->home && path_eq(c, h->home, h->fold_case)) {
		cf_err(err, CONFINE_E_INVALID, what, given,
		       "'%s' is the home directory: a grant names files or directories, not the "
		       "whole home",
		       c);
		cf_err_hint(err, "name the directory below the home that the command needs");
		return CONFINE_E_INVALID;
	}
	if (h->home && scope == CF_GRANT_SUBTREE && path_within(h->home, c, h->fold_case)) {
		cf_err(err, CONFINE_E_INVALID, what, given,
		       "the subtree '%s' contains the home directory '%s'", c, h->home);
		cf_err_hint(err, "name the directory below the home that the command needs");
		return CONFINE_E_INVALID;
	}
	enum cf_kind k = h->kind(h->ctx, c);
	if (k == CF_KIND_MISSING) {
		cf_err(err, CONFINE_E_INVALID, what, given, "'%s' does not exist", c);
		cf_err_hint(err, "a write target must exist before it is approved; for a new file, "
				 "grant the directory it goes into with :subtree");
		return CONFINE_E_INVALID;
	}
	if (scope == CF_GRANT_FILE && k != CF_KIND_FILE) {
		cf_err(err, CONFINE_E_INVALID, what, given, "'%s' is %s, not a regular file", c,
		       k == CF_KIND_DIR ? "a directory" : "a special file");
		if (k == CF_KIND_DIR)
			cf_err_hint(err, "grant a directory with PATH:subtree");
		return CONFINE_E_INVALID;
	}
	if (scope == CF_GRANT_SUBTREE && k != CF_KIND_DIR) {
		cf_err(err, CONFINE_E_INVALID, what, given, "'%s' is %s, not a directory", c,
		       k == CF_KIND_FILE ? "a regular file" : "a special file");
		if (k == CF_KIND_FILE)
			cf_err_hint(err, "grant a single file with PATH:file");
		return CONFINE_E_INVALID;
	}
	return 0;
}

/* Parses args[0..n) into paths[] and scopes[] (*kept of them), dropping exact duplicates before
 * anything is counted: "a:file" twice is one target. */
static int parse_unique(const char *const *args, size_t n, char **paths,
			enum cf_grant_scope *scopes, size_t *kept, struct confine_error *err)
{
	for (size_t i = 0; i < n; i++) {
		char *p;
		enum cf_grant_scope s;
		int r = cf_grant_parse(args[i], &p, &s, err);
		if (r < 0)
			return r;
		bool dup = false;
		for (size_t j = 0; j < *kept && !dup; j++)
			dup = scopes[j] == s && !strcmp(paths[j], p);
		if (dup) {
			free(p);
			continue;
		}
		paths[*kept] = p;
		scopes[(*kept)++] = s;
	}
	return 0;
}

/* At most CF_GRANTS_MAX targets (last_arg names the request in the message), and no path asked
 * both as a file and as a subtree. */
static int check_count_and_kinds(char *const *paths, const enum cf_grant_scope *scopes, size_t kept,
				 const char *last_arg, bool fold_case, struct confine_error *err)
{
	if (kept > CF_GRANTS_MAX) {
		int r = cf_err(err, CONFINE_E_LIMIT, "too many write targets", last_arg,
			       "a request may name at most %d targets and this one names %zu; "
			       "each is listed on the approval card",
			       CF_GRANTS_MAX, kept);
		cf_err_hint(err, "grant a common parent directory with PATH:subtree, or ask in "
				 "two requests");
		return r;
	}
	for (size_t i = 0; i < kept; i++)
		for (size_t j = i + 1; j < kept; j++)
			if (scopes[i] != scopes[j] && path_eq(paths[i], paths[j], fold_case)) {
				int r =
				    cf_err(err, CONFINE_E_INVALID, "conflicting write targets",
					   paths[i], "requested both as a file and as a subtree");
				cf_err_hint(err, "keep one of the two requests");
				return r;
			}
	return 0;
}

/* One target checked (check_target) and added to `out` by its canonical path, once. */
static int add_checked(const struct cf_grant_host *h, const char *path, enum cf_grant_scope scope,
		       struct cf_grants *out, struct confine_error *err)
{
	char *canon = NULL;
	int r = check_target(h, path, scope, &canon, err);
	if (r < 0) {
		free(canon);
		return r;
	}
	bool dup = false;
	for (size_t j = 0; j < out->n; j++) {
		if (!path_eq(out->v[j].path, canon, h->fold_case))
			continue;
		if (out->v[j].scope != scope) {
			/* Unreachable today (one path has one kind), kept so that the rule holds
			 * whatever the kinds say. */
			r = cf_err(err, CONFINE_E_INVALID, "conflicting write targets", canon,
				   "requested both as a file and as a subtree");
			free(canon);
			return r;
		}
		dup = true;
	}
	if (dup) {
		free(canon);
		return 0;
	}
	out->v[out->n].path = canon;
	out->v[out->n++].scope = scope;
	return 0;
}

int cf_grants_validate(const char *const *args, size_t n, const char *reason,
		       const struct cf_grant_host *h, struct cf_grants *out,
		       struct confine_error *err)
{
	char **paths = NULL;
	enum cf_grant_scope *scopes = NULL;
	size_t kept = 0;
	int r;

	memset(out, 0, sizeof(*out));
	if ((r = check_reason(reason, err)) < 0)
		return r;
	if (n == 0)
		return cf_err(err, CONFINE_E_INVALID, "no write target", "",
			      "a write request names at least one PATH:file or PATH:subtree");
	paths = calloc(n, sizeof(*paths));
	scopes = calloc(n, sizeof(*scopes));
	if (!paths || !scopes) {
		r = cf_nomem(err);
		goto out;
	}
	if ((r = parse_unique(args, n, paths, scopes, &kept, err)) < 0 ||
	    (r = check_count_and_kinds(paths, scopes, kept, args[n - 1], h->fold_case, err)) < 0)
		goto out;
	for (size_t i = 0; i < kept; i++)
		if ((r = add_checked(h, paths[i], scopes[i], out, err)) < 0)
			goto out;
	if (!(out->reason = cf_strdup(reason))) {
		r = cf_nomem(err);
		goto out;
	}
	r = 0;
out:
	for (size_t i = 0; paths && i < kept; i++)
		free(paths[i]);
	free(paths);
	free(scopes);
	if (r < 0)
		cf_grants_release(out);
	return r;
}

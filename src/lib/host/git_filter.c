/* SPDX-License-Identifier: MIT */
/*
 * The configuration of a repository the command created (R30 refined): only keys on an
 * allow-list of what `git init`, `git clone`, `git worktree add` and `git submodule` write stay,
 * and only with values that name no program and send git nowhere else.  Everything else
 * (core.fsmonitor, core.hooksPath, core.sshCommand, core.editor, include.*, includeIf.*,
 * alias.*, filter.*, diff.*, credential.*, url.*.insteadOf, remote.*.uploadpack, and every key
 * git adds next year) is taken out.  The kept keys are written anew in one canonical syntax
 * from what was parsed, so what git reads afterwards is what this file decided on, whatever
 * the original text's quoting was.  Pure.
 */
#include <stdlib.h>
#include <string.h>

#include "host/git.h"

enum check {
	V_WORD,	    /* letters, digits, '-', '_', '.': booleans, numbers, "always", "sha256" */
	V_TEXT,	    /* any printable text: a name, a ref, a refspec */
	V_URL,	    /* a remote's address: no command transport, no option */
	V_WORKTREE, /* a submodule's work tree: only inside the workspace (the caller decides) */
};

struct allowed {
	const char *section;
	bool sub; /* the key lives in a subsection ([remote "origin"]) */
	const char *key;
	enum check check;
};

/* Section and key names lower-case, as the parser hands them over. */
static const struct allowed allowed[] = {
    {"core", false, "repositoryformatversion", V_WORD},
    {"core", false, "filemode", V_WORD},
    {"core", false, "bare", V_WORD},
    {"core", false, "logallrefupdates", V_WORD},
    {"core", false, "symlinks", V_WORD},
    {"core", false, "ignorecase", V_WORD},
    {"core", false, "precomposeunicode", V_WORD},
    {"core", false, "sparsecheckout", V_WORD},
    {"core", false, "sparsecheckoutcone", V_WORD},
    {"core", false, "worktree", V_WORKTREE},
    {"extensions", false, "objectformat", V_WORD},
    {"extensions", false, "refstorage", V_WORD},
    {"extensions", false, "worktreeconfig", V_WORD},
    {"extensions", false, "partialclone", V_TEXT},
    {"lfs", false, "repositoryformatversion", V_WORD},
    {"user", false, "name", V_TEXT},
    {"user", false, "email", V_TEXT},
    {"remote", true, "url", V_URL},
    {"remote", true, "pushurl", V_URL},
    {"remote", true, "fetch", V_TEXT},
    {"remote", true, "push", V_TEXT},
    {"remote", true, "tagopt", V_TEXT},
    {"remote", true, "mirror", V_WORD},
    {"remote", true, "promisor", V_WORD},
    {"remote", true, "partialclonefilter", V_TEXT},
    {"branch", true, "remote", V_TEXT},
    {"branch", true, "pushremote", V_TEXT},
    {"branch", true, "merge", V_TEXT},
    {"branch", true, "rebase", V_WORD},
    {"submodule", true, "url", V_URL},
    {"submodule", true, "active", V_WORD},
};

static bool printable(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return false;
	return true;
}

static bool is_word(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '-' || *s == '_' || *s == '.'))
			return false;
	return true;
}

/* "ext::" runs the rest of the address as a command and "fd::" talks to a descriptor; both are
 * off in git's defaults, but a user's protocol.allow may turn them on.  A leading '-' would be
 * read as an option by ssh or a helper. */
static bool url_ok(const char *v)
{
	if (!*v || *v == '-' || !printable(v))
		return false;
	const char *colons = strstr(v, "::");
	if (colons) {
		size_t n = (size_t)(colons - v);
		if ((n == 3 && !strncasecmp(v, "ext", 3)) || (n == 2 && !strncasecmp(v, "fd", 2)))
			return false;
	}
	return true;
}

struct filter {
	const struct cf_gitconfig_policy *policy;
	struct cf_buf *out;
	struct cf_strv *removed;
	char *cur_section, *cur_sub; /* the last header written */
	bool have_header, cur_has_sub;
	int error;
};

static const struct allowed *find(const char *section, const char *sub, const char *key)
{
	for (size_t i = 0; i < sizeof(allowed) / sizeof(allowed[0]); i++)
		if (!strcmp(allowed[i].section, section) && allowed[i].sub == (sub != NULL) &&
		    !strcmp(allowed[i].key, key))
			return &allowed[i];
	return NULL;
}

static bool value_ok(const struct filter *f, const struct allowed *a, const char *value)
{
	if (!value) /* "key" alone: true */
		return a->check == V_WORD;
	switch (a->check) {
	case V_WORD:
		return is_word(value);
	case V_TEXT:
		return printable(value);
	case V_URL:
		return url_ok(value);
	case V_WORKTREE:
		return printable(value) && *value && f->policy->worktree_inside &&
		       f->policy->worktree_inside(f->policy->ctx, value);
	}
	return false;
}

static void note_removed(struct filter *f, const char *section, const char *sub, const char *key)
{
	if (f->removed->n > CF_GITCONFIG_REMOVED_MAX)
		return;
	char *name = f->removed->n == CF_GITCONFIG_REMOVED_MAX ? cf_strdup("...")
		     : sub ? cf_asprintf("%s.%s.%s", section, sub, key)
			   : cf_asprintf("%s.%s", section, key);
	if (!name) {
		f->error = CONFINE_E_NOMEM;
		return;
	}
	if (cf_strv_contains(f->removed, name)) {
		free(name);
		return;
	}
	if (cf_strv_take(f->removed, name) < 0)
		f->error = CONFINE_E_NOMEM;
}

/* A quoted string with git's two escapes; the text holds no control character. */
static void add_quoted(struct cf_buf *b, const char *s)
{
	cf_buf_addc(b, '"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			cf_buf_addc(b, '\\');
		cf_buf_addc(b, *s);
	}
	cf_buf_addc(b, '"');
}

static int on_key(void *ctx, const char *section, const char *sub, const char *key,
		  const char *value)
{
	struct filter *f = ctx;
	const struct allowed *a = find(section, sub, key);
	if (!a || (sub && (!*sub || !printable(sub))) || !value_ok(f, a, value)) {
		note_removed(f, section, sub, key);
		return f->error != 0;
	}
	bool same = f->have_header && !strcmp(f->cur_section, section) &&
		    f->cur_has_sub == (sub != NULL) && (!sub || !strcmp(f->cur_sub, sub));
	if (!same) {
		free(f->cur_section);
		free(f->cur_sub);
		f->cur_section = cf_strdup(section);
		f->cur_sub = sub ? cf_strdup(sub) : NULL;
		f->cur_has_sub = sub != NULL;
		f->have_header = true;
		if (!f->cur_section || (sub && !f->cur_sub)) {
			f->error = CONFINE_E_NOMEM;
			return 1;
		}
		cf_buf_addf(f->out, "[%s", section);
		if (sub) {
			cf_buf_addc(f->out, ' ');
			add_quoted(f->out, sub);
		}
		cf_buf_add(f->out, "]\n");
	}
	cf_buf_addf(f->out, "\t%s", key);
	if (value && a->check == V_WORD) {
		cf_buf_addf(f->out, " = %s", value); /* [A-Za-z0-9._-] only: nothing to quote */
	} else if (value) {
		cf_buf_add(f->out, " = ");
		add_quoted(f->out, value);
	}
	cf_buf_addc(f->out, '\n');
	return 0;
}

int cf_gitconfig_filter(const char *text, size_t len, const struct cf_gitconfig_policy *policy,
			struct cf_buf *out, struct cf_strv *removed)
{
	struct filter f = {.policy = policy, .out = out, .removed = removed};
	/* git and this parser could read a NUL byte differently: such a file is not taken
	 * apart, it is moved aside whole. */
	if (memchr(text, '\0', len))
		return CONFINE_E_INVALID;
	int r = cf_gitconfig_parse(text, len, on_key, &f);
	free(f.cur_section);
	free(f.cur_sub);
	if (f.error)
		return f.error;
	if (r < 0)
		return r;
	return out->oom ? CONFINE_E_NOMEM : 0;
}

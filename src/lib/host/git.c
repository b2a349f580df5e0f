/* SPDX-License-Identifier: MIT */
/*
 * The host's git, seen from the workspace: which files it will read as configuration or run
 * the next time the user types `git status` (SPEC 2.3).  A command that can write any of them
 * runs code on the host later: core.fsmonitor in a config, a hook, a commondir that points at
 * another config, an include, a core.hooksPath directory inside the workspace (husky).  All of
 * it is found here the way git finds it, without running git, and becomes write guards.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host/git.h"

/* ---- the configuration syntax (pure) ---- */

struct lexer {
	const char *s, *end;
	struct cf_buf section, sub, key, value;
	bool has_sub;
};

static bool at_end(const struct lexer *x)
{
	return x->s >= x->end;
}

static int peek(const struct lexer *x)
{
	return at_end(x) ? -1 : (unsigned char)*x->s;
}

static bool is_space(int c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

static bool is_alpha(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool is_alnum(int c)
{
	return is_alpha(c) || (c >= '0' && c <= '9');
}

static int lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

static void skip_line(struct lexer *x)
{
	while (!at_end(x) && *x->s != '\n')
		x->s++;
	if (!at_end(x))
		x->s++;
}

static void reset(struct cf_buf *b)
{
	b->len = 0;
	if (b->s)
		b->s[0] = '\0';
}

/* "[section]", "[section \"sub\"]" or "[section.sub]"; false on a malformed header. */
static bool parse_header(struct lexer *x)
{
	reset(&x->section);
	reset(&x->sub);
	x->has_sub = false;
	x->s++; /* '[' */
	for (;;) {
		int c = peek(x);
		if (c < 0)
			return false;
		if (c == ']') {
			x->s++;
			return x->section.len > 0;
		}
		if (is_space(c)) {
			while (is_space(peek(x)))
				x->s++;
			if (peek(x) != '"')
				return false;
			x->s++;
			x->has_sub = true;
			for (;;) {
				c = peek(x);
				if (c < 0 || c == '\n')
					return false;
				x->s++;
				if (c == '"')
					break;
				if (c == '\\') {
					c = peek(x);
					if (c < 0 || c == '\n')
						return false;
					x->s++;
				}
				cf_buf_addc(&x->sub, (char)c);
			}
			if (peek(x) != ']')
				return false;
			x->s++;
			return x->section.len > 0;
		}
		if (c == '.' && x->section.len && !x->has_sub) {
			/* The deprecated [section.sub] form: the subsection is lower-cased. */
			x->s++;
			x->has_sub = true;
			while (!at_end(x) &&
			       (is_alnum(peek(x)) || peek(x) == '-' || peek(x) == '.'))
				cf_buf_addc(&x->sub, (char)lower(*x->s++));
			if (peek(x) != ']')
				return false;
			x->s++;
			return true;
		}
		if (!is_alnum(c) && c != '-' && c != '.')
			return false;
		cf_buf_addc(&x->section, (char)lower(c));
		x->s++;
	}
}

/* The value after '=': quotes, escapes and continuations undone, comments dropped, whitespace
 * outside quotes trimmed at both ends.  False where git reports a bad config line. */
static bool parse_value(struct lexer *x)
{
	bool quoted = false;
	size_t pending_space = 0;
	reset(&x->value);
	while (is_space(peek(x)))
		x->s++;
	for (;;) {
		int c = peek(x);
		if (c < 0 || (c == '\n' && !quoted)) {
			if (c == '\n')
				x->s++;
			return !quoted;
		}
		if (c == '\n')
			return false; /* a newline inside quotes */
		x->s++;
		if (!quoted && (c == '#' || c == ';')) {
			skip_line(x);
			return true;
		}
		if (!quoted && is_space(c)) {
			if (x->value.len)
				pending_space++;
			continue;
		}
		for (; pending_space; pending_space--)
			cf_buf_addc(&x->value, ' ');
		if (c == '"') {
			quoted = !quoted;
			continue;
		}
		if (c == '\\') {
			c = peek(x);
			if (c < 0)
				return false;
			x->s++;
			switch (c) {
			case '\n':
				continue; /* continuation */
			case 'n':
				c = '\n';
				break;
			case 't':
				c = '\t';
				break;
			case 'b':
				c = '\b';
				break;
			case '\\':
			case '"':
				break;
			default:
				return false;
			}
		}
		cf_buf_addc(&x->value, (char)c);
	}
}

int cf_gitconfig_parse(const char *text, size_t len, cf_gitconfig_fn fn, void *ctx)
{
	struct lexer x = {.s = text, .end = text + len};
	int r = 0;
	bool bad = false;
	cf_buf_init(&x.section);
	cf_buf_init(&x.sub);
	cf_buf_init(&x.key);
	cf_buf_init(&x.value);
	/* A UTF-8 byte order mark is skipped, as git does. */
	if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3))
		x.s += 3;
	while (!at_end(&x) && r == 0) {
		int c = peek(&x);
		if (is_space(c) || c == '\n') {
			x.s++;
			continue;
		}
		if (c == '#' || c == ';') {
			skip_line(&x);
			continue;
		}
		if (c == '[') {
			if (!(bad = !parse_header(&x)))
				continue;
			break;
		}
		if ((bad = !is_alpha(c) || !x.section.len))
			break;
		reset(&x.key);
		while (!at_end(&x) && (is_alnum(peek(&x)) || peek(&x) == '-'))
			cf_buf_addc(&x.key, (char)lower(*x.s++));
		while (is_space(peek(&x)))
			x.s++;
		const char *value = NULL;
		c = peek(&x);
		if (c == '=') {
			x.s++;
			if ((bad = !parse_value(&x)))
				break;
			value = x.value.s ? x.value.s : "";
		} else if (c < 0 || c == '\n' || c == '#' || c == ';') {
			skip_line(&x);
		} else {
			bad = true;
			break;
		}
		if (x.section.oom || x.sub.oom || x.key.oom || x.value.oom) {
			r = CONFINE_E_NOMEM;
			break;
		}
		r = fn(ctx, x.section.s, x.has_sub ? (x.sub.s ? x.sub.s : "") : NULL, x.key.s,
		       value)
			? 1
			: 0;
	}
	if (x.section.oom || x.sub.oom || x.key.oom || x.value.oom)
		r = CONFINE_E_NOMEM;
	cf_buf_release(&x.section);
	cf_buf_release(&x.sub);
	cf_buf_release(&x.key);
	cf_buf_release(&x.value);
	if (r < 0)
		return r;
	return bad ? CONFINE_E_INVALID : 0;
}

/* ---- the repository (touches the OS) ---- */

/* git's own limit of nested includes. */
#define MAX_INCLUDE_DEPTH 10
#define MAX_CONFIG_FILES 64
#define MAX_CONFIG_BYTES (1024 * 1024)

struct gather {
	const char *ws, *home;
	struct cf_strv *out;
	struct cf_git_launch *launch;
	const struct cf_git_entries *names;
	struct cf_strv read; /* configuration files already read */
	const char *file;    /* the file being parsed */
	int depth;
	int error;
};

/* A small regular file's text (symlinks followed, as git does), or NULL: missing, not a
 * regular file (a FIFO must not hang the run), too large or unreadable. */
static char *read_small(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	struct stat st;
	char *buf = NULL;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > MAX_CONFIG_BYTES)
		goto out;
	buf = malloc((size_t)st.st_size + 1);
	if (!buf)
		goto out;
	size_t n = 0;
	while (n < (size_t)st.st_size) {
		ssize_t k = read(fd, buf + n, (size_t)st.st_size - n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		n += (size_t)k;
	}
	buf[n] = '\0';
	*len = n;
out:
	close(fd);
	return buf;
}

static void add(struct gather *g, const char *path)
{
	if (!path) {
		g->error = CONFINE_E_NOMEM;
		return;
	}
	if (!cf_strv_contains(g->out, path) && cf_strv_add(g->out, path) < 0)
		g->error = CONFINE_E_NOMEM;
}

static void add_take(struct gather *g, char *path)
{
	add(g, path);
	free(path);
}

/* "~/x" under the home, an absolute path as is, a relative one below `base`. */
static char *expand(const struct gather *g, const char *value, const char *base)
{
	if (!value[0])
		return NULL;
	if (value[0] == '~' && (value[1] == '/' || value[1] == '\0'))
		return g->home ? cf_path_join(g->home, value[1] ? value + 2 : ".") : NULL;
	if (value[0] == '/')
		return cf_path_normalize(value);
	return base ? cf_path_join(base, value) : NULL;
}

static void read_config(struct gather *g, const char *path);

static int on_key(void *ctx, const char *section, const char *sub, const char *key,
		  const char *value)
{
	struct gather *g = ctx;
	if (!value || g->error)
		return g->error != 0;
	if (!strcmp(section, "core") && !sub && !strcmp(key, "hookspath")) {
		/* git runs hooks in the top of the work tree, so a relative hooks path is
		 * relative to the workspace. */
		char *p = expand(g, value, g->ws);
		if (!p)
			return 0;
		add(g, p);
		/* husky 9 puts core.hooksPath at .husky/_, whose scripts run ../<hook>: the
		 * parent holds the code that git runs too. */
		const char *base = strrchr(p, '/');
		if (base && !strcmp(base, "/_"))
			add_take(g, cf_path_dirname(p));
		free(p);
		return g->error != 0;
	}
	bool include = (!strcmp(section, "include") && !sub) || !strcmp(section, "includeif");
	if (include && !strcmp(key, "path")) {
		/* Every includeIf is taken as true: its condition (gitdir, onbranch,
		 * hasconfig) could hold in the user's next git command. */
		char *dir = cf_path_dirname(g->file);
		char *p = dir ? expand(g, value, dir) : NULL;
		free(dir);
		if (!p)
			return 0;
		add(g, p);
		const char *saved = g->file;
		g->depth++;
		read_config(g, p);
		g->depth--;
		g->file = saved;
		free(p);
	}
	return g->error != 0;
}

static void read_config(struct gather *g, const char *path)
{
	if (g->depth > MAX_INCLUDE_DEPTH || g->read.n >= MAX_CONFIG_FILES ||
	    cf_strv_contains(&g->read, path))
		return;
	if (cf_strv_add(&g->read, path) < 0) {
		g->error = CONFINE_E_NOMEM;
		return;
	}
	size_t len = 0;
	char *text = read_small(path, &len);
	if (!text)
		return;
	/* The name of the file as the list of read files keeps it (path may be freed by the
	 * caller while includes below still refer to it). */
	g->file = g->read.v[g->read.n - 1];
	/* A line git rejects ends the parse: what came before is taken (more protection). */
	if (cf_gitconfig_parse(text, len, on_key, g) == CONFINE_E_NOMEM)
		g->error = CONFINE_E_NOMEM;
	free(text);
}

/* The first line of a small file ("gitdir: X", or commondir's "X"), or NULL. */
static char *first_line(const char *path, const char *prefix)
{
	size_t len = 0;
	char *text = read_small(path, &len);
	if (!text)
		return NULL;
	text[strcspn(text, "\r\n")] = '\0';
	char *v = NULL;
	size_t pl = prefix ? strlen(prefix) : 0;
	if (!prefix || !strncmp(text, prefix, pl)) {
		const char *s = text + pl;
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s)
			v = cf_strdup(s);
	}
	free(text);
	return v;
}

/* An existing worktrees/ holds this many worktrees at most to be opened up; more: it stays
 * read-only as a whole (fail closed, every entry would be a mount of its own). */
#define MAX_OPEN_WORKTREES 64

/*
 * An existing `worktrees/` directory: its entries at launch are the user's worktrees, so what
 * git reads in each (commondir, gitdir, config.worktree, an interrupted rebase) is guarded one
 * by one, and the directory itself stays writable so that `git worktree add` can make a new
 * entry; the new entries are looked through after the run (cf_git_defuse).  False when it
 * cannot be read, or holds too many: the caller guards it whole.
 */
static bool open_worktrees(struct gather *g, const char *path)
{
	struct stat st;
	if (g->launch && cf_strv_contains(&g->launch->dirs, path))
		return true; /* looked at already (a plan made again): its guards are in g->out */
	if (!g->launch || lstat(path, &st) < 0 || !S_ISDIR(st.st_mode))
		return false;
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	struct cf_strv names = {0};
	struct dirent *e;
	bool ok = true;
	errno = 0;
	while (ok && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		ok = names.n < MAX_OPEN_WORKTREES && cf_strv_add(&names, e->d_name) == 0;
	}
	ok = ok && !errno;
	closedir(d);
	size_t n = g->names->n, common = g->names->n_common;
	const char *const *ent = g->names->v;
	for (size_t i = 0; ok && i < names.n && !g->error; i++) {
		char *w = cf_path_join(path, names.v[i]);
		struct cf_git_launch *l = g->launch;
		if (w && l->entries.n == l->ids_cap) {
			size_t cap;
			struct cf_git_ident *v =
			    cf_grow_array(l->ids, l->ids_cap, 8, sizeof(*v), &cap);
			if (v) {
				l->ids = v;
				l->ids_cap = cap;
			}
		}
		if (!w || l->entries.n == l->ids_cap || cf_strv_add(&l->entries, w) < 0) {
			free(w);
			g->error = CONFINE_E_NOMEM;
			break;
		}
		/* Its identity: an entry replaced during the run is looked through as new. */
		bool there = lstat(w, &st) == 0;
		l->ids[l->entries.n - 1] = (struct cf_git_ident){
		    there ? (uint64_t)st.st_dev : 0, there ? (uint64_t)st.st_ino : 0,
		    there ? (unsigned)(st.st_mode & S_IFMT) : 0};
		if (!there || !S_ISDIR(st.st_mode)) {
			add_take(g, w); /* not a worktree's directory: as it is */
			continue;
		}
		/* A worktree's own entries (after the common part), and its gitdir: `git
		 * worktree remove` deletes the directory that it names. */
		for (size_t k = common; k < n; k++)
			add_take(g, cf_path_join(w, ent[k]));
		add_take(g, cf_path_join(w, "gitdir"));
		free(w);
	}
	cf_strv_release(&names);
	if (ok && !g->error && cf_strv_add(&g->launch->dirs, path) < 0)
		g->error = CONFINE_E_NOMEM;
	return ok;
}

/* What git reads in one git directory: config and hooks, and where it may be told to look. */
static void add_gitdir(struct gather *g, const char *dir, bool worktree_parts)
{
	size_t n = worktree_parts ? g->names->n : g->names->n_common;
	const char *const *e = g->names->v;
	for (size_t i = 0; i < n && !g->error; i++) {
		char *p = cf_path_join(dir, e[i]);
		if (p && !strcmp(e[i], "worktrees") && open_worktrees(g, p)) {
			free(p);
			continue;
		}
		add_take(g, p);
	}
}

void cf_git_launch_release(struct cf_git_launch *l)
{
	cf_strv_release(&l->dirs);
	cf_strv_release(&l->entries);
	free(l->ids);
	l->ids = NULL;
	l->ids_cap = 0;
}

int cf_host_git_guards(const char *workspace, const char *home, const char *xdg_config_home,
		       const struct cf_git_entries *names, struct cf_strv *out,
		       struct cf_git_launch *launch, struct confine_error *err)
{
	struct gather g = {
	    .ws = workspace, .home = home, .out = out, .launch = launch, .names = names};
	char *dotgit = cf_path_join(workspace, ".git"), *gitdir = NULL, *common = NULL;
	char *xdg = NULL;
	struct stat st;
	if (!dotgit)
		return cf_nomem(err);

	if (lstat(dotgit, &st) < 0 || !S_ISDIR(st.st_mode))
		add(&g, dotgit); /* missing, a file or a symlink: the entry itself */
	if (lstat(dotgit, &st) == 0) {
		if (S_ISDIR(st.st_mode)) {
			gitdir = cf_strdup(dotgit);
		} else if (S_ISREG(st.st_mode)) {
			/* A worktree or a submodule: "gitdir: PATH", relative to the workspace. */
			char *v = first_line(dotgit, "gitdir:");
			gitdir = v ? cf_path_join(workspace, v) : NULL;
			free(v);
		} else if (S_ISLNK(st.st_mode)) {
			gitdir = realpath(dotgit, NULL);
		}
	}
	if (gitdir) {
		add_gitdir(&g, gitdir, true);
		char *cpath = cf_path_join(gitdir, "commondir");
		char *v = cpath ? first_line(cpath, NULL) : NULL;
		free(cpath);
		common = v ? cf_path_join(gitdir, v) : cf_strdup(gitdir);
		free(v);
		if (common && strcmp(common, gitdir))
			add_gitdir(&g, common, false);
	}

	/* The configuration git reads, in its order, for core.hooksPath and includes. */
	if (xdg_config_home && xdg_config_home[0] == '/')
		xdg = cf_path_join(xdg_config_home, "git/config");
	else if (home)
		xdg = cf_path_join(home, ".config/git/config");
	char *files[5] = {cf_strdup("/etc/gitconfig"), xdg,
			  home ? cf_path_join(home, ".gitconfig") : NULL,
			  common ? cf_path_join(common, "config") : NULL,
			  gitdir ? cf_path_join(gitdir, "config.worktree") : NULL};
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]) && !g.error; i++) {
		if (!files[i])
			continue;
		g.depth = 0;
		read_config(&g, files[i]);
	}
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		free(files[i]);
	cf_strv_release(&g.read);
	free(dotgit);
	free(gitdir);
	free(common);
	return g.error ? cf_nomem(err) : 0;
}

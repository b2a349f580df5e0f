/* SPDX-License-Identifier: MIT */
/*
 * A repository the command made (R30 refined; host/git_defuse.h).  Renaming a new `.git` aside
 * as a whole kept the host safe and left the user without the repository they asked for.  Here
 * the repository stays and only what git would run or follow is moved: the tree of a git
 * directory is judged against allow-lists of what git itself makes (an entry git does not
 * make is moved, whatever its name), hooks against `*.sample`, configuration keys against
 * cf_gitconfig_filter, pointers against the workspace.  The walk opens every directory
 * relative to its parent's descriptor with O_NOFOLLOW, so a symlink the command planted is
 * moved, never entered.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "host/git.h"
#include "host/git_defuse.h"
#include "util/nofollow.h"
#include "util/util.h"

#define SUFFIX ".confine-disabled"
#define MAX_ENTRIES 4096 /* entries looked at in one directory; more: moved whole */
#define MAX_DEPTH 8	 /* submodules within submodules */
#define MAX_FILE (1024 * 1024)

enum what {
	W_FILE,	     /* a regular file, kept as it is */
	W_DIR,	     /* a directory, kept as it is */
	W_EMPTY_DIR, /* a directory that must be empty (branches/: legacy remote addresses) */
	W_CONFIG,    /* a configuration: filtered */
	W_HOOKS,     /* hooks: only *.sample stay */
	W_WORKTREES, /* worktrees/ID: each a worktree's own directory */
	W_MODULES,   /* modules/NAME: each a submodule's git directory */
	W_COMMONDIR, /* a worktree's pointer to its common directory */
	W_GITDIR,    /* a worktree's pointer to its `.git` file */
};

struct entry {
	const char *name;
	enum what what;
};

/* In every git directory: the state files of git's own commands that hold data only.
 * rebase-merge, rebase-apply and sequencer are not among them: their todo lists hold `exec`
 * lines that the next `git rebase --continue` runs. */
static const struct entry state_entries[] = {
    {"HEAD", W_FILE},	     {"ORIG_HEAD", W_FILE},
    {"FETCH_HEAD", W_FILE},  {"MERGE_HEAD", W_FILE},
    {"MERGE_MSG", W_FILE},   {"MERGE_MODE", W_FILE},
    {"AUTO_MERGE", W_FILE},  {"CHERRY_PICK_HEAD", W_FILE},
    {"REVERT_HEAD", W_FILE}, {"COMMIT_EDITMSG", W_FILE},
    {"index", W_FILE},	     {"logs", W_DIR},
    {"refs", W_DIR},	     {"config.worktree", W_CONFIG},
};

/* A repository's git directory: what git init and git clone make (gitrepository-layout(5)). */
static const struct entry repo_entries[] = {
    {"description", W_FILE}, {"packed-refs", W_FILE}, {"shallow", W_FILE},
    {"MERGE_RR", W_FILE},    {"objects", W_DIR},      {"info", W_DIR},
    {"lfs", W_DIR},	     {"rr-cache", W_DIR},     {"branches", W_EMPTY_DIR},
    {"config", W_CONFIG},    {"hooks", W_HOOKS},      {"worktrees", W_WORKTREES},
    {"modules", W_MODULES},
};

/* A worktree's own directory (worktrees/ID): git reads hooks and config from the common
 * directory, so neither belongs here. */
static const struct entry admin_entries[] = {
    {"locked", W_FILE},
    {"commondir", W_COMMONDIR},
    {"gitdir", W_GITDIR},
};

enum gkind { G_REPO, G_MODULE, G_ADMIN };

struct walk {
	const char *ws;
	struct cf_git_changes *out;
	bool nomem;
};

struct gitdir {
	int fd;
	const char *path;
	enum gkind kind;
	const char *common; /* G_ADMIN: the directory its commondir must name */
	int depth;
};

void cf_git_changes_release(struct cf_git_changes *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->v[i].path);
		free(c->v[i].to);
		free(c->v[i].keys);
	}
	free(c->v);
	memset(c, 0, sizeof(*c));
}

static void record(struct walk *w, const char *path, const char *to, const char *keys, int err)
{
	struct cf_git_changes *c = w->out;
	if (c->n >= CF_GIT_CHANGES_MAX) {
		c->more++;
		return;
	}
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 8;
		struct cf_git_change *v = realloc(c->v, cap * sizeof(*v));
		if (!v) {
			w->nomem = true;
			return;
		}
		c->v = v;
		c->cap = cap;
	}
	struct cf_git_change *e = &c->v[c->n];
	*e = (struct cf_git_change){.path = cf_strdup(path),
				    .to = to ? cf_strdup(to) : NULL,
				    .keys = keys ? cf_strdup(keys) : NULL,
				    .err = err};
	if (!e->path || (to && !e->to) || (keys && !e->keys)) {
		free(e->path);
		free(e->to);
		free(e->keys);
		w->nomem = true;
		return;
	}
	c->n++;
}

/* NAME -> NAME.confine-disabled (or -2, -3, ...) in the directory open at dfd, never replacing
 * anything.  Returns the new name or NULL with errno. */
static char *rename_aside(int dfd, const char *name)
{
	int e = EEXIST;
	for (int i = 1; i <= 100; i++) {
		char *to = i == 1 ? cf_asprintf("%s" SUFFIX, name)
				  : cf_asprintf("%s" SUFFIX "-%d", name, i);
		if (!to)
			return NULL;
		if (syscall(SYS_renameat2, dfd, name, dfd, to, RENAME_NOREPLACE) == 0)
			return to;
		e = errno;
		free(to);
		if (e != EEXIST)
			break;
	}
	errno = e;
	return NULL;
}

static void move_aside(struct walk *w, int dfd, const char *dir, const char *name)
{
	char *path = cf_path_join(dir, name);
	char *to = rename_aside(dfd, name);
	int e = errno;
	char *to_path = to ? cf_path_join(dir, to) : NULL;
	if (!path || (to && !to_path))
		w->nomem = true;
	else
		record(w, path, to_path, NULL, to ? 0 : e);
	free(path);
	free(to);
	free(to_path);
}

static int open_dir(int dfd, const char *name)
{
	return openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

/* The names in the directory open at fd.  -1: it cannot be read, or holds more than
 * MAX_ENTRIES (then it is not looked through but moved whole). */
static int list(struct walk *w, int fd, struct cf_strv *names)
{
	int d = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dir = d >= 0 ? fdopendir(d) : NULL;
	if (!dir) {
		if (d >= 0)
			close(d);
		return -1;
	}
	struct dirent *e;
	int r = 0;
	errno = 0;
	while ((e = readdir(dir))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (names->n >= MAX_ENTRIES) {
			r = -1;
			break;
		}
		if (cf_strv_add(names, e->d_name) < 0) {
			w->nomem = true;
			r = -1;
			break;
		}
	}
	if (!e && errno)
		r = -1;
	closedir(dir);
	return r;
}

/* A small regular file in the directory open at dfd, NUL-terminated; NULL when it is not one. */
static char *read_at(int dfd, const char *name, size_t max, size_t *len, struct stat *st)
{
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	char *buf = NULL;
	if (fstat(fd, st) < 0 || !S_ISREG(st->st_mode) || st->st_size > (off_t)max ||
	    !(buf = malloc((size_t)st->st_size + 1)))
		goto out;
	size_t n = 0;
	while (n < (size_t)st->st_size) {
		ssize_t k = read(fd, buf + n, (size_t)st->st_size - n);
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

/* The path a pointer file names (its first line, after `prefix`), absolute: a relative one is
 * relative to `base`.  NULL when the file holds none. */
static char *pointer_at(int dfd, const char *name, const char *prefix, const char *base)
{
	size_t len;
	struct stat st;
	char *text = read_at(dfd, name, 4096, &len, &st);
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
			v = s[0] == '/' ? cf_path_normalize(s) : cf_path_join(base, s);
	}
	free(text);
	return v;
}

/* Inside the workspace as written and, where it exists, as the host's git would resolve it. */
static bool inside(const char *ws, const char *path)
{
	if (!path || !cf_path_within(path, ws))
		return false;
	char *real = realpath(path, NULL);
	bool ok = !real || cf_path_within(real, ws);
	free(real);
	return ok;
}

struct worktree_ctx {
	const char *ws, *gitdir;
};

static bool worktree_inside(void *ctx, const char *value)
{
	const struct worktree_ctx *c = ctx;
	char *p = value[0] == '/' ? cf_path_normalize(value) : cf_path_join(c->gitdir, value);
	bool ok = inside(c->ws, p);
	free(p);
	return ok;
}

static char *join_keys(const struct cf_strv *keys)
{
	struct cf_buf b;
	cf_buf_init(&b);
	for (size_t i = 0; i < keys->n; i++) {
		if (i)
			cf_buf_add(&b, ", ");
		cf_buf_add(&b, keys->v[i]);
	}
	return cf_buf_take(&b);
}

/* The filtered configuration beside the original, then the original aside and the new one in
 * its place.  Returns the original's new name or NULL with errno. */
static char *replace_config(int dfd, const char *name, const struct cf_buf *text,
			    const struct stat *st)
{
	char tmp[NAME_MAX + 1];
	int fd = -1, e = EEXIST;
	for (int i = 1; i <= 100 && fd < 0 && e == EEXIST; i++) {
		snprintf(tmp, sizeof(tmp), i == 1 ? "%s.confine-new" : "%s.confine-new-%d", name,
			 i);
		fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    st->st_mode & 0644);
		e = errno;
	}
	if (fd < 0) {
		errno = e;
		return NULL;
	}
	size_t n = 0;
	while (n < text->len) {
		ssize_t k = write(fd, text->s + n, text->len - n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		n += (size_t)k;
	}
	e = errno;
	/* A root caller writes the user's file: it stays the user's (best effort, as the write
	 * of the rest; its result checked for _FORTIFY_SOURCE's warn_unused_result). */
	if (geteuid() == 0 && fchown(fd, st->st_uid, st->st_gid) < 0)
		errno = e;
	close(fd);
	char *to = n == text->len ? rename_aside(dfd, name) : NULL;
	if (n != text->len)
		errno = e ? e : EIO;
	e = errno;
	/* The original is aside: the new one takes its place, unless something took it
	 * meanwhile (then git reads no configuration here, which is safe). */
	if (!to || syscall(SYS_renameat2, dfd, tmp, dfd, name, RENAME_NOREPLACE) < 0)
		unlinkat(dfd, tmp, 0);
	errno = e;
	return to;
}

static void config(struct walk *w, const struct gitdir *g, const char *name)
{
	size_t len = 0;
	struct stat st;
	struct cf_buf out;
	struct cf_strv removed = {0};
	cf_buf_init(&out);
	char *text = read_at(g->fd, name, MAX_FILE, &len, &st);
	struct worktree_ctx wc = {.ws = w->ws, .gitdir = g->path};
	struct cf_gitconfig_policy pol = {
	    .worktree_inside = g->kind == G_MODULE ? worktree_inside : NULL, .ctx = &wc};
	int r = text ? cf_gitconfig_filter(text, len, &pol, &out, &removed) : CONFINE_E_INVALID;
	if (r == CONFINE_E_NOMEM) {
		w->nomem = true;
	} else if (r < 0) {
		/* Unreadable, too large, or not parsed for sure: all of it goes. */
		move_aside(w, g->fd, g->path, name);
	} else if (removed.n) {
		char *path = cf_path_join(g->path, name), *keys = join_keys(&removed);
		char *to = path && keys ? replace_config(g->fd, name, &out, &st) : NULL;
		int e = errno;
		char *to_path = to ? cf_path_join(g->path, to) : NULL;
		if (!path || !keys || (to && !to_path))
			w->nomem = true;
		else
			record(w, path, to_path, keys, to ? 0 : e);
		free(path);
		free(keys);
		free(to);
		free(to_path);
	}
	free(text);
	cf_buf_release(&out);
	cf_strv_release(&removed);
}

static const struct entry *find_entry(const struct entry *t, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(t[i].name, name))
			return &t[i];
	return NULL;
}

#define FIND(table, name) find_entry(table, sizeof(table) / sizeof(table[0]), name)

static const struct entry *lookup(enum gkind kind, const char *name)
{
	const struct entry *e = FIND(state_entries, name);
	if (!e)
		e = kind == G_ADMIN ? FIND(admin_entries, name) : FIND(repo_entries, name);
	/* A split index's shared part (git update-index --split-index). */
	static const struct entry shared = {"sharedindex.", W_FILE};
	if (!e && kind != G_ADMIN && !strncmp(name, "sharedindex.", 12))
		e = &shared;
	return e;
}

static bool type_ok(enum what what, const struct stat *st)
{
	switch (what) {
	case W_FILE:
	case W_CONFIG:
	case W_COMMONDIR:
	case W_GITDIR:
		return S_ISREG(st->st_mode);
	default:
		return S_ISDIR(st->st_mode);
	}
}

static int do_gitdir(struct walk *w, const struct gitdir *g);

static int do_hooks(struct walk *w, int fd, const char *path)
{
	struct cf_strv names = {0};
	if (list(w, fd, &names) < 0) {
		cf_strv_release(&names);
		return -1;
	}
	for (size_t i = 0; i < names.n; i++) {
		const char *n = names.v[i];
		size_t l = strlen(n);
		struct stat st;
		if (fstatat(fd, n, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (!(S_ISREG(st.st_mode) && l > 7 && !strcmp(n + l - 7, ".sample")))
			move_aside(w, fd, path, n);
	}
	cf_strv_release(&names);
	return 0;
}

static int do_empty(struct walk *w, int fd)
{
	struct cf_strv names = {0};
	int r = list(w, fd, &names) < 0 || names.n ? -1 : 0;
	cf_strv_release(&names);
	return r;
}

/* worktrees/: every entry is a worktree's own directory, its common directory `common`. */
static int do_worktrees(struct walk *w, int fd, const char *path, const char *common)
{
	struct cf_strv names = {0};
	if (list(w, fd, &names) < 0) {
		cf_strv_release(&names);
		return -1;
	}
	for (size_t i = 0; i < names.n; i++) {
		int sub = open_dir(fd, names.v[i]);
		char *p = cf_path_join(path, names.v[i]);
		struct gitdir g = {.fd = sub, .path = p, .kind = G_ADMIN, .common = common};
		if (!p)
			w->nomem = true;
		else if (sub < 0 || do_gitdir(w, &g) < 0)
			move_aside(w, fd, path, names.v[i]);
		if (sub >= 0)
			close(sub);
		free(p);
	}
	cf_strv_release(&names);
	return 0;
}

/* modules/: submodule names may hold '/', so a directory without HEAD is looked into for more
 * git directories; anything else there is moved. */
static int do_modules(struct walk *w, int fd, const char *path, int depth)
{
	struct cf_strv names = {0};
	if (depth > MAX_DEPTH || list(w, fd, &names) < 0) {
		cf_strv_release(&names);
		return -1;
	}
	for (size_t i = 0; i < names.n; i++) {
		struct stat st;
		int sub = open_dir(fd, names.v[i]);
		char *p = cf_path_join(path, names.v[i]);
		int r = -1;
		if (!p) {
			w->nomem = true;
			r = 0;
		} else if (sub >= 0 && fstatat(sub, "HEAD", &st, AT_SYMLINK_NOFOLLOW) == 0) {
			struct gitdir g = {
			    .fd = sub, .path = p, .kind = G_MODULE, .depth = depth + 1};
			r = depth < MAX_DEPTH ? do_gitdir(w, &g) : -1;
		} else if (sub >= 0) {
			r = do_modules(w, sub, p, depth + 1);
		}
		if (r < 0)
			move_aside(w, fd, path, names.v[i]);
		if (sub >= 0)
			close(sub);
		free(p);
	}
	cf_strv_release(&names);
	return 0;
}

/* A directory entry of a git directory: walked with `fn`, moved whole when that fails. */
static void subdir(struct walk *w, const struct gitdir *g, const char *name, enum what what)
{
	int fd = open_dir(g->fd, name);
	char *p = cf_path_join(g->path, name);
	int r = -1;
	if (!p) {
		w->nomem = true;
		r = 0;
	} else if (fd >= 0) {
		switch (what) {
		case W_HOOKS:
			r = do_hooks(w, fd, p);
			break;
		case W_EMPTY_DIR:
			r = do_empty(w, fd);
			break;
		case W_WORKTREES:
			r = do_worktrees(w, fd, p, g->path);
			break;
		default:
			r = do_modules(w, fd, p, g->depth);
			break;
		}
	}
	if (fd >= 0)
		close(fd);
	if (r < 0)
		move_aside(w, g->fd, g->path, name);
	free(p);
}

/* A worktree's commondir names the directory that holds its worktrees/ (git writes "../.."). */
static bool commondir_ok(const struct gitdir *g, const char *name)
{
	char *p = pointer_at(g->fd, name, NULL, g->path);
	char *real = p ? realpath(p, NULL) : NULL, *creal = realpath(g->common, NULL);
	bool ok = p && (!strcmp(p, g->common) || (real && creal && !strcmp(real, creal)));
	free(p);
	free(real);
	free(creal);
	return ok;
}

/* A worktree's gitdir names its `.git` file, which must lie in the workspace (`git worktree
 * remove` deletes the directory around it). */
static bool gitdir_ok(const struct walk *w, const struct gitdir *g, const char *name)
{
	char *p = pointer_at(g->fd, name, NULL, g->path);
	bool ok = inside(w->ws, p);
	free(p);
	return ok;
}

/* Returns -1 when the directory cannot be looked through: the caller moves it whole. */
static int do_gitdir(struct walk *w, const struct gitdir *g)
{
	struct cf_strv names = {0};
	if (list(w, g->fd, &names) < 0) {
		cf_strv_release(&names);
		return -1;
	}
	for (size_t i = 0; i < names.n && !w->nomem; i++) {
		const char *n = names.v[i];
		const struct entry *e = lookup(g->kind, n);
		struct stat st;
		if (fstatat(g->fd, n, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (!e || !type_ok(e->what, &st)) {
			move_aside(w, g->fd, g->path, n);
			continue;
		}
		switch (e->what) {
		case W_FILE:
		case W_DIR:
			break;
		case W_CONFIG:
			config(w, g, n);
			break;
		case W_COMMONDIR:
			if (!commondir_ok(g, n))
				move_aside(w, g->fd, g->path, n);
			break;
		case W_GITDIR:
			if (!gitdir_ok(w, g, n))
				move_aside(w, g->fd, g->path, n);
			break;
		default:
			subdir(w, g, n, e->what);
			break;
		}
	}
	cf_strv_release(&names);
	return 0;
}

/* Opens a directory of the workspace (rel below the descriptor ws_fd) for reading, without
 * a symlink or a step out on the way. */
static int open_beneath(int ws_fd, const char *rel)
{
	return cf_open_nofollow(ws_fd, rel, O_RDONLY | O_DIRECTORY, CF_NOFOLLOW_BENEATH, NULL);
}

/*
 * A `.git` file ("gitdir: PATH"): a worktree's own directory, or a separate git directory.
 * Either must lie in the workspace, and so must a worktree's common directory; both are then
 * looked through.  Anything else: the file is moved.
 */
static void dotgit_file(struct walk *w, int ws_fd, const char *name)
{
	char *target = pointer_at(ws_fd, name, "gitdir:", w->ws);
	char *common = NULL;
	int tfd = -1, cfd = -1;
	bool ok = false;
	size_t wl = strlen(w->ws);
	if (!target || !cf_path_within(target, w->ws) || !strcmp(target, w->ws))
		goto out;
	if ((tfd = open_beneath(ws_fd, target + wl + 1)) < 0)
		goto out;
	struct stat st;
	if (fstatat(tfd, "commondir", &st, AT_SYMLINK_NOFOLLOW) == 0) {
		common = pointer_at(tfd, "commondir", NULL, target);
		if (!common || !cf_path_within(common, w->ws) || !strcmp(common, w->ws) ||
		    (cfd = open_beneath(ws_fd, common + wl + 1)) < 0)
			goto out;
		struct gitdir c = {.fd = cfd, .path = common, .kind = G_REPO};
		struct gitdir a = {.fd = tfd, .path = target, .kind = G_ADMIN, .common = common};
		ok = do_gitdir(w, &c) == 0 && do_gitdir(w, &a) == 0;
	} else {
		struct gitdir g = {.fd = tfd, .path = target, .kind = G_REPO};
		ok = do_gitdir(w, &g) == 0;
	}
out:
	if (!ok)
		move_aside(w, ws_fd, w->ws, name);
	if (tfd >= 0)
		close(tfd);
	if (cfd >= 0)
		close(cfd);
	free(target);
	free(common);
}

/* `target` is `g`, or lies below g/worktrees or g/modules. */
static bool in_gitdir(const char *target, const char *g)
{
	char *wt = cf_path_join(g, "worktrees"), *mod = cf_path_join(g, "modules");
	bool ok = !strcmp(target, g) || (wt && cf_path_within(target, wt) && strcmp(target, wt)) ||
		  (mod && cf_path_within(target, mod) && strcmp(target, mod));
	free(wt);
	free(mod);
	return ok;
}

int cf_git_defuse_gitfile(const char *workspace, const char *path, const struct cf_strv *gitdirs,
			  struct cf_git_changes *out)
{
	struct walk w = {.ws = workspace, .out = out};
	char *parent = cf_path_dirname(path), *target = NULL, *real = NULL;
	const char *name = strrchr(path, '/');
	if (!parent || !name || !name[1]) {
		free(parent);
		return parent ? 0 : CONFINE_E_NOMEM;
	}
	name++;
	int pfd = cf_open_nofollow(AT_FDCWD, parent, O_PATH | O_DIRECTORY, 0, NULL);
	struct stat st;
	if (pfd < 0 || fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
		goto out; /* gone, or no longer a file: the scan's next look decides */
	target = pointer_at(pfd, name, "gitdir:", parent);
	real = target ? realpath(target, NULL) : NULL;
	bool ok = false;
	for (size_t i = 0; target && i < gitdirs->n && !ok; i++)
		ok = in_gitdir(target, gitdirs->v[i]) && (!real || in_gitdir(real, gitdirs->v[i]));
	if (!ok)
		move_aside(&w, pfd, parent, name);
out:
	if (pfd >= 0)
		close(pfd);
	free(parent);
	free(target);
	free(real);
	return w.nomem ? CONFINE_E_NOMEM : 0;
}

int cf_git_defuse(const char *workspace, const char *path, enum cf_git_new kind,
		  struct cf_git_changes *out)
{
	struct walk w = {.ws = workspace, .out = out};
	char *parent = cf_path_dirname(path);
	const char *name = strrchr(path, '/');
	if (!parent || !name || !name[1]) {
		free(parent);
		return parent ? 0 : CONFINE_E_NOMEM;
	}
	name++;
	int pfd = cf_open_nofollow(AT_FDCWD, parent, O_PATH | O_DIRECTORY, 0, NULL);
	struct stat st;
	if (pfd < 0 || fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno != ENOENT)
			record(&w, path, NULL, NULL, errno);
		goto out;
	}
	if (kind == CF_GIT_NEW_REPO && S_ISREG(st.st_mode) && !strcmp(parent, workspace)) {
		dotgit_file(&w, pfd, name);
	} else if (!S_ISDIR(st.st_mode)) {
		move_aside(&w, pfd, parent, name);
	} else {
		int fd = open_dir(pfd, name);
		/* A new worktree's own directory: its commondir names the git directory that
		 * holds the worktrees/ it is in. */
		char *common = kind == CF_GIT_NEW_WORKTREE ? cf_path_dirname(parent) : NULL;
		struct gitdir g = {.fd = fd,
				   .path = path,
				   .kind = kind == CF_GIT_NEW_WORKTREE ? G_ADMIN : G_REPO,
				   .common = common};
		int r = -1;
		if (kind == CF_GIT_NEW_WORKTREE && !common) {
			w.nomem = true;
			r = 0;
		} else if (fd >= 0 && (kind == CF_GIT_NEW_REPO || kind == CF_GIT_NEW_WORKTREE)) {
			r = do_gitdir(&w, &g);
		} else if (fd >= 0 && kind == CF_GIT_NEW_WORKTREES) {
			r = do_worktrees(&w, fd, path, parent);
		} else if (fd >= 0) {
			r = do_modules(&w, fd, path, 0);
		}
		if (fd >= 0)
			close(fd);
		free(common);
		if (r < 0)
			move_aside(&w, pfd, parent, name);
	}
out:
	if (pfd >= 0)
		close(pfd);
	free(parent);
	return w.nomem ? CONFINE_E_NOMEM : 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * The landlock executor's ruleset (SPEC 3.3, R28): every rule path of the plan opened once
 * (O_PATH, no symlink followed) and added to a new Landlock ruleset, the check that no rule
 * reaches a protected path through another name (R34 for this backend), the command's
 * terminals, and the level of the supervised calls.  Linux only; touches the OS.
 *
 * Debian 12's headers (Linux 6.1) predate most of Landlock: every constant and structure used
 * here is defined here, in util/linux_abi.h or in plan/landlock/ll_plan.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "exec/linux/harden.h"
#include "exec/linux/landlock/ruleset.h"
#include "util/nofollow.h"
#include "util/util.h"
#include "util/linux_abi.h"
#define LL_RULE_PATH_BENEATH 1
#define LL_RULE_NET_PORT 2

/* struct landlock_ruleset_attr as of ABI 6 (the kernel accepts a larger struct whose unknown
 * fields are zero) and struct landlock_path_beneath_attr (packed in the UAPI). */
struct ll_ruleset_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net;
	uint64_t scoped;
};
struct ll_path_beneath {
	uint64_t allowed_access;
	int32_t parent_fd;
} __attribute__((packed));
/* struct landlock_net_port_attr (ABI 4; not packed in the UAPI). */
struct ll_net_port {
	uint64_t allowed_access;
	uint64_t port;
};

#define FILE_RIGHTS                                                                                \
	(CF_LL_FS_EXECUTE | CF_LL_FS_WRITE_FILE | CF_LL_FS_READ_FILE | CF_LL_FS_TRUNCATE |         \
	 CF_LL_FS_IOCTL_DEV | CF_LL_FS_RESOLVE_UNIX)

/* Out of descriptors or memory: a path that cannot be opened for that reason is not gone, and
 * a check that stops there has not been made. */
static bool no_room(int e)
{
	return e == EMFILE || e == ENFILE || e == ENOMEM;
}

static int no_room_error(const char *path, int e, struct confine_error *err)
{
	return cf_err_os(err, CONFINE_E_OS, "cannot open a path of the Landlock rules", path,
			 "openat2", e);
}

/* Opens a rule path without following a symlink anywhere on the way.  -1 with errno when it is
 * gone or became a symlink (ELOOP): no rule, so no access (fail closed). */
static int open_rule_path(const char *path, bool *is_dir)
{
	int fd = cf_open_nofollow(AT_FDCWD, path, O_PATH, 0, NULL);
	if (fd < 0)
		return -1;
	struct stat st;
	if (fstat(fd, &st) < 0 || S_ISLNK(st.st_mode)) {
		int e = S_ISLNK(st.st_mode) ? ELOOP : errno;
		close(fd);
		errno = e;
		return -1;
	}
	*is_dir = S_ISDIR(st.st_mode);
	return fd;
}

struct ident {
	dev_t dev;
	ino_t ino;
	size_t rule;
};

/*
 * Landlock rules follow inodes: a rule on a directory also covers whatever lies below that
 * directory when it is reached through another path.  That other path can be a bind mount of
 * it elsewhere, or a name it had while the rules were opened: another process (a second
 * sandbox with fewer protections in the same workspace) may rename directories between the
 * listing the plan was made from and the moment each rule path is opened, so that a rule meant
 * for a sibling lands on the directory that holds a protected path (R34 for this backend).
 *
 * So, once every rule is held by its descriptor: each protected path that existed when the
 * plan was made is opened again (no symlink followed) and its ancestors are walked up through
 * ".." from descriptors, which follows the directories themselves, not their names (and bind
 * mounts upwards).  An ancestor that is the directory of a rule made for another path, with a
 * right the protected path must not have, would reach it: the run is refused.  A protected
 * file or directory that can no longer be opened is refused too: where it went is not known.
 */
/*
 * A file has no "..": its directory is opened by name (path, cut to it) and must hold this very
 * file, by identity.  Closes fd; returns the directory's descriptor, or -1.
 */
static int parent_holding(int fd, char *path)
{
	struct stat f, e;
	char *slash = strrchr(path, '/');
	int pfd = -1;
	bool pdir = false;
	if (fstat(fd, &f) == 0 && slash && slash[1]) {
		char *base = slash + 1;
		char name[NAME_MAX + 1];
		snprintf(name, sizeof(name), "%s", base);
		if (slash == path)
			path[1] = '\0';
		else
			*slash = '\0';
		pfd = open_rule_path(path, &pdir);
		if (pfd >= 0 && (!pdir || fstatat(pfd, name, &e, AT_SYMLINK_NOFOLLOW) < 0 ||
				 e.st_dev != f.st_dev || e.st_ino != f.st_ino)) {
			close(pfd);
			pfd = -1;
			errno = ESTALE;
		}
	}
	int saved = errno;
	close(fd);
	errno = pfd < 0 ? saved : 0;
	return pfd;
}

static int check_aliases(const struct cf_ll_plan *pl, const struct ident *ids, size_t n,
			 struct confine_error *err)
{
	for (size_t g = 0; g < pl->n_guards; g++) {
		const struct cf_ll_rule *gu = &pl->guards[g];
		bool dir = false;
		int fd = open_rule_path(gu->path, &dir);
		if (fd < 0 && no_room(errno))
			return no_room_error(gu->path, errno, err);
		/* A socket or a FIFO that went away or was bound again (a short-lived service,
		 * R29) holds nothing a renamed directory could carry along: only files and
		 * directories count when they are gone. */
		if (fd < 0 && gu->kind != CF_KIND_DIR && gu->kind != CF_KIND_FILE)
			continue;
		if (fd < 0) {
			cf_err(
			    err, CONFINE_E_SPAWN, "the workspace kept changing", gu->path,
			    "this protected path existed when the Landlock rules were planned and "
			    "is gone or replaced now, so the rules could not be checked against "
			    "it");
			cf_err_hint(err,
				    "another process (a second sandbox?) is renaming directories "
				    "in the workspace; run the command again when it has finished; "
				    "nothing was run");
			return CONFINE_E_SPAWN;
		}
		char buf[PATH_MAX];
		snprintf(buf, sizeof(buf), "%s", gu->path);
		bool content = gu->kind == CF_KIND_DIR || gu->kind == CF_KIND_FILE;
		if (!dir && (fd = parent_holding(fd, buf)) < 0 && no_room(errno))
			return no_room_error(buf, errno, err);
		if (fd < 0 && !content)
			continue; /* a socket bound again meanwhile (R29): as above */
		if (fd < 0) {
			cf_err(err, CONFINE_E_SPAWN, "the workspace kept changing", gu->path,
			       "the directory of this protected file no longer holds it, so the "
			       "rules could not be checked against it");
			cf_err_hint(err,
				    "another process (a second sandbox?) is renaming directories "
				    "in the workspace; run the command again when it has finished; "
				    "nothing was run");
			return CONFINE_E_SPAWN;
		}
		bool prefix = true; /* buf still names the directory at this level */
		for (int depth = 0; depth < 4096; depth++) {
			struct stat st, up;
			if (fstat(fd, &st) < 0)
				break;
			for (size_t i = 0; S_ISDIR(st.st_mode) && i < n; i++) {
				const struct cf_ll_rule *r = &pl->rules[ids[i].rule];
				if (ids[i].dev != st.st_dev || ids[i].ino != st.st_ino ||
				    (prefix && !strcmp(r->path, buf)) || !(r->access & gu->access))
					continue;
				close(fd);
				cf_err(err, CONFINE_E_SPAWN,
				       "protected path reachable by another path", gu->path,
				       "'%s' is the same directory as '%s' (a bind mount, or a "
				       "directory renamed while the rules were made), and its rule "
				       "would give the protected path rights it must not have",
				       r->path, prefix ? buf : "an ancestor of it");
				cf_err_hint(
				    err,
				    "Landlock rules follow directories, not names: if '%s' is a "
				    "bind mount, add a deny rule for it too, or use the bwrap "
				    "backend; if another process is renaming directories, run "
				    "the command again when it has finished; nothing was run",
				    r->path);
				return CONFINE_E_SPAWN;
			}
			int parent = openat(fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
			if (parent < 0 && no_room(errno)) {
				int e = errno;
				close(fd);
				return no_room_error(buf, e, err);
			}
			if (parent < 0 || fstat(parent, &up) < 0 ||
			    (up.st_dev == st.st_dev && up.st_ino == st.st_ino)) {
				if (parent >= 0)
					close(parent);
				break; /* the root */
			}
			close(fd);
			fd = parent;
			char *slash = strrchr(buf, '/');
			if (slash && slash != buf)
				*slash = '\0';
			else if (slash)
				buf[1] = '\0';
			else
				prefix = false;
		}
		close(fd);
	}
	return 0;
}

/*
 * The terminals the command was given (R42): each of its standard descriptors that is a
 * terminal gets a rule of its own, on that device file, so that it can open it again by name
 * (/dev/pts/N, /proc/self/fd/0) as programs do; no other node of the host's devpts is
 * reachable.  So does a named FIFO among them (R36: what the caller handed over stays the
 * command's to open again, /dev/stdout, as on the bwrap backend; a pipe needs no rule).
 * `stdio` holds the descriptors the child will have as 0, 1 and 2 (-1: none of ours).
 */
static int grant_terminals(int rs, const struct cf_ll_plan *pl, const int stdio[3],
			   struct confine_error *err)
{
	uint64_t want =
	    (CF_LL_FS_READ_FILE | CF_LL_FS_WRITE_FILE | CF_LL_FS_TRUNCATE | CF_LL_FS_IOCTL_DEV) &
	    pl->handled_fs;
	for (int i = 0; stdio && i < 3; i++) {
		struct stat st;
		struct statfs sf;
		if (stdio[i] < 0 || fstat(stdio[i], &st) < 0)
			continue;
		bool tty = S_ISCHR(st.st_mode) && isatty(stdio[i]);
		bool fifo = S_ISFIFO(st.st_mode) && fstatfs(stdio[i], &sf) == 0 &&
			    sf.f_type != PIPEFS_MAGIC;
		if (!tty && !fifo)
			continue;
		struct ll_path_beneath pb = {
		    .allowed_access =
			tty ? want : want & (CF_LL_FS_READ_FILE | CF_LL_FS_WRITE_FILE),
		    .parent_fd = stdio[i]};
		if (syscall(__NR_landlock_add_rule, rs, LL_RULE_PATH_BENEATH, &pb, 0U) < 0)
			return cf_err_os(err, CONFINE_E_SPAWN, "cannot add a Landlock rule",
					 "the command's terminal", "landlock_add_rule", errno);
	}
	return 0;
}

int cf_ll_build_ruleset(const struct cf_ll_plan *pl, unsigned proxy_port, const int stdio[3],
			int *out, struct confine_error *err)
{
	struct ident *ids = calloc(pl->n_rules + 1, sizeof(*ids));
	size_t n_ids = 0;
	if (!ids)
		return cf_nomem(err);
	struct ll_ruleset_attr attr = {
	    .handled_access_fs = pl->handled_fs,
	    .handled_access_net = pl->handled_net,
	    .scoped = pl->scoped,
	};
	*out = -1;
	int rs = (int)syscall(__NR_landlock_create_ruleset, &attr, sizeof(attr), 0U);
	if (rs < 0) {
		free(ids);
		return cf_err_os(err, CONFINE_E_SPAWN, "cannot create the Landlock ruleset",
				 "landlock", "landlock_create_ruleset", errno);
	}
	fcntl(rs, F_SETFD, FD_CLOEXEC);
	for (size_t i = 0; i < pl->n_rules; i++) {
		const struct cf_ll_rule *r = &pl->rules[i];
		bool dir = false;
		int fd = open_rule_path(r->path, &dir);
		if (fd < 0 && no_room(errno)) {
			int e = errno;
			close(rs);
			free(ids);
			return no_room_error(r->path, e, err);
		}
		if (fd < 0)
			continue;
		/* A directory that became a file since the listing keeps only file rights (the
		 * kernel refuses directory rights on a file). */
		struct ll_path_beneath pb = {
		    .allowed_access = (dir ? r->access : r->access & FILE_RIGHTS) & pl->handled_fs,
		    .parent_fd = fd};
		long k = pb.allowed_access
			     ? syscall(__NR_landlock_add_rule, rs, LL_RULE_PATH_BENEATH, &pb, 0U)
			     : 0;
		int e = errno;
		struct stat st;
		if (dir && fstat(fd, &st) == 0)
			ids[n_ids++] = (struct ident){st.st_dev, st.st_ino, i};
		close(fd);
		if (k < 0) {
			close(rs);
			free(ids);
			return cf_err_os(err, CONFINE_E_SPAWN, "cannot add a Landlock rule",
					 r->path, "landlock_add_rule", e);
		}
	}
	/* Network by domain: the one port a TCP connect may go to; no bind at all. */
	if (pl->net_proxy && (pl->handled_net & CF_LL_NET_CONNECT_TCP)) {
		struct ll_net_port np = {.allowed_access = CF_LL_NET_CONNECT_TCP,
					 .port = proxy_port};
		if (!proxy_port ||
		    syscall(__NR_landlock_add_rule, rs, LL_RULE_NET_PORT, &np, 0U) < 0) {
			int e = proxy_port ? errno : EINVAL;
			close(rs);
			free(ids);
			return cf_err_os(err, CONFINE_E_SPAWN, "cannot add a Landlock rule",
					 "the proxy's port", "landlock_add_rule", e);
		}
	}
	int r = grant_terminals(rs, pl, stdio, err);
	if (r == 0)
		r = check_aliases(pl, ids, n_ids, err);
	free(ids);
	if (r < 0) {
		close(rs);
		return r;
	}
	*out = rs;
	return 0;
}

int cf_ll_supervise_level(const struct cf_ll_plan *pl)
{
	return pl->broker   ? CF_SUPERVISE_PATHS
	       : pl->opener ? CF_SUPERVISE_READS
			    : CF_SUPERVISE_META;
}

/* SPDX-License-Identifier: MIT */
/*
 * confine's own directories under /tmp (owntmp.h).  Whose a directory is, and whether its
 * confine is gone, is told by a lock, not by a name or an age: the confine that made it holds
 * an flock on it from before its final name exists (a staging name, then a rename that never
 * replaces) until it removes it, and the kernel drops the lock when that confine dies, kill -9
 * included.  A sweep that gets the lock knows the owner is gone and, holding the lock itself,
 * that no other sweep is at the same directory.
 *
 * The final names carry a 'L' before mkdtemp's six characters (PREFIX.LXXXXXX): a directory of
 * a confine from before the lock (PREFIX.XXXXXX, never locked) cannot be told from a live one
 * by its lock, so it goes only once it has not changed for an hour (the proxy's: a minute, and
 * no listener on its socket, as that confine itself swept them).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "util/owntmp.h"
#include "util/util.h"

#define BASE "/tmp"
#define STAGE "confine-new"
#define SUFFIX_LEN 6	/* mkdtemp's XXXXXX */
#define LOCKED_MARK 'L' /* PREFIX.LXXXXXX: made by a confine that locks it */

int cf_owntmp_make(const char *prefix, char **path, int *lock_fd, struct confine_error *err)
{
	*path = NULL;
	*lock_fd = -1;
	for (int tries = 0; tries < 16; tries++) {
		char stage[] = BASE "/" STAGE ".XXXXXX";
		if (!mkdtemp(stage)) {
			cf_err_os(err, CONFINE_E_OS, "cannot create a temporary directory",
				  BASE "/" STAGE ".XXXXXX", "mkdtemp", errno);
			cf_err_hint(err, "confine keeps a directory of its own under /tmp for the "
					 "run; make /tmp writable");
			return CONFINE_E_OS;
		}
		int fd = open(stage, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		const char *call = fd < 0 ? "open" : "flock";
		char *final = NULL;
		if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0) {
			call = "renameat2";
			final = cf_asprintf(BASE "/%s.%c%s", prefix, LOCKED_MARK,
					    stage + sizeof(BASE "/" STAGE));
			if (!final)
				errno = ENOMEM;
			else if (renameat2(AT_FDCWD, stage, AT_FDCWD, final, RENAME_NOREPLACE) ==
				 0) {
				*path = final;
				*lock_fd = fd;
				return 0;
			}
		}
		int e = errno;
		free(final);
		if (fd >= 0)
			close(fd);
		rmdir(stage);
		if (e == EEXIST)
			continue; /* that name is taken: another suffix */
		if (e == ENOMEM)
			return cf_nomem(err);
		return cf_err_os(err, CONFINE_E_OS, "cannot create a temporary directory", stage,
				 call, e);
	}
	return cf_err_os(err, CONFINE_E_OS, "cannot create a temporary directory", BASE,
			 "renameat2", EEXIST);
}

/* Deeper than 256 levels (a tree the command made to exhaust the stack) is left in place. */
static void empty_at(int dfd, int depth)
{
	DIR *d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return;
	}
	rewinddir(d); /* a duplicate shares the offset of the descriptor it came from */
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (unlinkat(dirfd(d), e->d_name, 0) == 0 || errno != EISDIR)
			continue;
		int sub =
		    openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub >= 0 && depth < 256) {
			/* A directory the command made unreadable or unwritable is its own. */
			fchmod(sub, 0700);
			empty_at(sub, depth + 1);
		} else if (sub >= 0) {
			close(sub);
		}
		unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR);
	}
	closedir(d);
}

void cf_owntmp_empty(int dfd)
{
	empty_at(dfd, 0);
}

/* Empties the directory held by fd and removes `name` (in the directory at base, or the path
 * when base is AT_FDCWD) if it is still that directory. */
static void remove_held(int base, const char *name, int fd)
{
	struct stat a, b;
	fchmod(fd, 0700);
	int d = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (d >= 0)
		cf_owntmp_empty(d);
	if (fstat(fd, &a) == 0 && fstatat(base, name, &b, AT_SYMLINK_NOFOLLOW) == 0 &&
	    a.st_dev == b.st_dev && a.st_ino == b.st_ino)
		unlinkat(base, name, AT_REMOVEDIR);
}

void cf_owntmp_remove(const char *path, int lock_fd)
{
	if (lock_fd < 0)
		return;
	if (path)
		remove_held(AT_FDCWD, path, lock_fd);
	close(lock_fd);
}

/* Whether a socket in the directory (top level) has a listener: a confine older than the lock
 * may still be using it. */
static bool has_listener(int dfd, const char *dir)
{
	int d = fcntl(dfd, F_DUPFD_CLOEXEC, 0);
	DIR *dd = d >= 0 ? fdopendir(d) : NULL;
	bool alive = false;
	if (!dd) {
		if (d >= 0)
			close(d);
		return true; /* cannot tell: keep it */
	}
	rewinddir(dd);
	struct dirent *e;
	while (!alive && (e = readdir(dd))) {
		struct stat st;
		struct sockaddr_un a = {.sun_family = AF_UNIX};
		if (fstatat(dirfd(dd), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISSOCK(st.st_mode))
			continue;
		int s = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (s < 0 || snprintf(a.sun_path, sizeof(a.sun_path), "%s/%s", dir, e->d_name) >=
				 (int)sizeof(a.sun_path)) {
			alive = true; /* cannot tell: keep it */
			if (s >= 0)
				close(s);
			break;
		}
		/* Refused: nothing is bound there any more.  A socket of another type answers
		 * EPROTOTYPE: someone is. */
		alive = connect(s, (struct sockaddr *)&a, sizeof(a)) == 0 ||
			(errno != ECONNREFUSED && errno != ENOENT);
		close(s);
	}
	closedir(dd);
	return alive;
}

/* Whether `name` is one of confine's own, and how long it must have been left alone before a
 * sweep may take it without its lock telling (0: the lock alone tells). */
static bool own_name(const char *name, time_t *idle)
{
	static const char *const prefixes[] = {CF_OWNTMP_RUN ".", CF_OWNTMP_NET ".",
					       CF_OWNTMP_AGENT ".", STAGE "."};
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		size_t n = strlen(prefixes[i]);
		if (strncmp(name, prefixes[i], n))
			continue;
		size_t len = strlen(name + n);
		if (i < 3 && len == SUFFIX_LEN + 1 && name[n] == LOCKED_MARK) {
			*idle = 0;
			return true;
		}
		if (len != SUFFIX_LEN)
			return false;
		/* Staging names are unlocked for an instant; older confines never locked. */
		*idle = i == 0 ? 3600 : 60;
		return true;
	}
	return false;
}

void cf_owntmp_sweep(void)
{
	int base = open(BASE, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int ld = base >= 0 ? fcntl(base, F_DUPFD_CLOEXEC, 0) : -1;
	DIR *d = ld >= 0 ? fdopendir(ld) : NULL;
	if (!d) {
		if (ld >= 0)
			close(ld);
		if (base >= 0)
			close(base);
		return;
	}
	time_t now = time(NULL);
	uid_t me = geteuid();
	struct dirent *e;
	while ((e = readdir(d))) {
		time_t idle = 0;
		struct stat st, st2;
		if (!own_name(e->d_name, &idle) ||
		    fstatat(base, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISDIR(st.st_mode) || st.st_uid != me)
			continue;
		if (idle && now - st.st_mtime < idle)
			continue;
		int fd = openat(base, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			continue;
		char dir[sizeof(BASE) + 256];
		snprintf(dir, sizeof(dir), BASE "/%s", e->d_name);
		if (fstat(fd, &st2) == 0 && st2.st_dev == st.st_dev && st2.st_ino == st.st_ino &&
		    flock(fd, LOCK_EX | LOCK_NB) == 0 && !has_listener(fd, dir))
			remove_held(base, e->d_name, fd);
		close(fd);
	}
	closedir(d);
	close(base);
}

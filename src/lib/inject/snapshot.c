/* SPDX-License-Identifier: MIT */
/* Snapshot files of injections (SPEC 6): see snapshot.h.  POSIX. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "inject/snapshot.h"
#include "util/util.h"

#ifndef O_DIRECTORY
#define O_DIRECTORY 0
#endif

/* How often creation is tried again when a sweep of another confine removed the new directory
 * in the moment between mkdtemp and the lock. */
#define CREATE_TRIES 8

static int open_base(const char *base, struct confine_error *err)
{
	int fd = open(base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		cf_err_os(err, CONFINE_E_OS, "cannot create snapshot directory", base, "open",
			  errno);
	return fd;
}

static void reset(struct cf_snapshot_dir *d)
{
	if (d->dirfd >= 0)
		close(d->dirfd);
	if (d->basefd >= 0)
		close(d->basefd);
	for (size_t i = 0; i < d->n_files; i++)
		free(d->files[i]);
	free(d->files);
	free(d->path);
	free(d->name);
	*d = (struct cf_snapshot_dir)CF_SNAPSHOT_DIR_INIT;
}

/* One attempt: 1 created and locked, 0 removed under us (try again), negative on error. */
static int create_once(struct cf_snapshot_dir *d, const char *base, struct confine_error *err)
{
	char *tmpl = cf_asprintf("%s/%sXXXXXX", base, CF_SNAPSHOT_PREFIX);
	if (!tmpl)
		return cf_nomem(err);
	if (!mkdtemp(tmpl)) {
		int e = errno;
		cf_err_os(err, CONFINE_E_OS, "cannot create snapshot directory", tmpl, "mkdtemp",
			  e);
		free(tmpl);
		return CONFINE_E_OS;
	}
	d->path = tmpl;
	d->name = cf_strdup(strrchr(tmpl, '/') + 1);
	if (!d->name)
		return cf_nomem(err);
	d->dirfd = openat(d->basefd, d->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (d->dirfd < 0)
		return cf_err_os(err, CONFINE_E_OS, "cannot open snapshot directory", d->path,
				 "openat", errno);
	/* The lock says "in use" to the sweep of every other confine; taken before anything is
	 * written, and the directory checked to still be there once it is held. */
	if (flock(d->dirfd, LOCK_EX) < 0)
		return cf_err_os(err, CONFINE_E_OS, "cannot lock snapshot directory", d->path,
				 "flock", errno);
	struct stat st;
	if (fstat(d->dirfd, &st) < 0)
		return cf_err_os(err, CONFINE_E_OS, "cannot check snapshot directory", d->path,
				 "fstat", errno);
	if (st.st_nlink == 0)
		return 0;
	/* mkdtemp made it 0700 less the umask: exactly 0700, whatever the umask. */
	if (st.st_uid != geteuid() || !S_ISDIR(st.st_mode) ||
	    ((st.st_mode & 07777) != 0700 && fchmod(d->dirfd, 0700) < 0))
		return cf_err(err, CONFINE_E_OS, "cannot create snapshot directory", d->path,
			      "it is not a private directory of this user");
	return 1;
}

int cf_snapshot_dir_create(const char *base, struct cf_snapshot_dir *d, struct confine_error *err)
{
	*d = (struct cf_snapshot_dir)CF_SNAPSHOT_DIR_INIT;
	for (int i = 0; i < CREATE_TRIES; i++) {
		if ((d->basefd = open_base(base, err)) < 0)
			return CONFINE_E_OS;
		int r = create_once(d, base, err);
		if (r > 0)
			return 0;
		/* Half made: nothing is in it yet.  (r == 0: a sweep removed it already.) */
		if (r < 0 && d->name)
			unlinkat(d->basefd, d->name, AT_REMOVEDIR);
		reset(d);
		if (r < 0)
			return r;
	}
	return cf_err(err, CONFINE_E_OS, "cannot create snapshot directory", base,
		      "another confine's sweep removed it %d times in a row", CREATE_TRIES);
}

static bool valid_name(const char *name)
{
	return name[0] && name[0] != '.' && !strchr(name, '/');
}

static int add_file(struct cf_snapshot_dir *d, const char *name)
{
	char **v = realloc(d->files, (d->n_files + 1) * sizeof(*v));
	if (!v)
		return -1;
	d->files = v;
	if (!(v[d->n_files] = cf_strdup(name)))
		return -1;
	d->n_files++;
	return 0;
}

int cf_snapshot_write(struct cf_snapshot_dir *d, const char *name, const void *data, size_t len,
		      char hash[CF_HASH_HEX], char **path_out, struct confine_error *err)
{
	char want[CF_HASH_HEX];
	int r;
	if (path_out)
		*path_out = NULL;
	if (d->dirfd < 0 || !valid_name(name))
		return cf_err(err, CONFINE_E_INVALID, "cannot write snapshot", name,
			      "the name must not be empty, start with '.' or contain '/'");
	char *path = cf_path_join(d->path, name);
	if (!path || add_file(d, name) < 0) {
		free(path);
		return cf_nomem(err);
	}
	/* O_EXCL: never an existing file, never through a symlink (O_CREAT|O_EXCL does not follow
	 * one, and O_NOFOLLOW says so twice). */
	int fd = openat(d->dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		r = cf_err_os(err, CONFINE_E_OS, "cannot write snapshot", path, "openat", errno);
		if (errno == EEXIST)
			cf_err_hint(err,
				    "something already exists at the snapshot's name in a "
				    "private directory: another process of this user put it there");
		/* Not ours: the removal must leave it alone. */
		free(d->files[--d->n_files]);
		goto out;
	}
	if (fchmod(fd, 0600) < 0) {
		r = cf_err_os(err, CONFINE_E_OS, "cannot write snapshot", path, "fchmod", errno);
		close(fd);
		goto out;
	}
	cf_blake3_hex(data, len, want);
	for (size_t done = 0; done < len;) {
		ssize_t k = write(fd, (const char *)data + done, len - done);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			r = cf_err_os(err, CONFINE_E_OS, "cannot write snapshot", path, "write",
				      k < 0 ? errno : EIO);
			close(fd);
			goto out;
		}
		done += (size_t)k;
	}
	if (close(fd) < 0) {
		r = cf_err_os(err, CONFINE_E_OS, "cannot write snapshot", path, "close", errno);
		goto out;
	}
	/* Re-read through a new descriptor and compared: what the command will open is what the
	 * host checked (the seed's copy-then-expose race). */
	if ((r = cf_snapshot_verify(d, name, want, err)) < 0)
		goto out;
	memcpy(hash, want, CF_HASH_HEX);
	if (path_out) {
		*path_out = path;
		path = NULL;
	}
	r = 0;
out:
	free(path);
	return r;
}

int cf_snapshot_verify(const struct cf_snapshot_dir *d, const char *name, const char *hash,
		       struct confine_error *err)
{
	char got[CF_HASH_HEX];
	size_t len = 0;
	int r;
	if (d->dirfd < 0 || !valid_name(name))
		return cf_err(err, CONFINE_E_INVALID, "cannot verify snapshot", name,
			      "no such snapshot");
	int fd = openat(d->dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return cf_err_os(err, CONFINE_E_SPAWN, "integrity check failed", name, "openat",
				 errno);
	struct stat st;
	if (fstat(fd, &st) < 0) {
		r = cf_err_os(err, CONFINE_E_SPAWN, "integrity check failed", name, "fstat", errno);
		goto out;
	}
	if (!S_ISREG(st.st_mode) || st.st_uid != geteuid() || st.st_nlink != 1 ||
	    (st.st_mode & 07777) != 0600) {
		r = cf_err(err, CONFINE_E_SPAWN, "integrity check failed", name,
			   "the snapshot is no longer a private regular file of this user (mode "
			   "%04o, %lu links)",
			   (unsigned)(st.st_mode & 07777), (unsigned long)st.st_nlink);
		goto out;
	}
	if ((r = cf_blake3_fd(fd, got, &len, err)) < 0)
		goto out;
	if (strcmp(got, hash)) {
		r = cf_err(err, CONFINE_E_SPAWN, "integrity check failed", name,
			   "the snapshot holds %zu bytes with BLAKE3 %s, not the content with "
			   "BLAKE3 %s",
			   len, got, hash);
		cf_err_hint(err, "something changed the file in confine's private directory; "
				 "nothing was run");
		goto out;
	}
	r = 0;
out:
	close(fd);
	return r;
}

/* Unlinks every entry of the directory at fd that is not a directory (a symlink goes, its target
 * stays), then the directory itself from basefd.  Returns 0 or the errno of the failure. */
static int empty_and_remove(int basefd, const char *name, int fd)
{
	int dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0); /* close-on-exec, as every descriptor */
	DIR *dir = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
	if (!dir) {
		int e = errno;
		if (dup_fd >= 0)
			close(dup_fd);
		return e;
	}
	struct dirent *e;
	while ((e = readdir(dir))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		struct stat st;
		if (fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISDIR(st.st_mode))
			unlinkat(fd, e->d_name, 0);
	}
	closedir(dir);
	return unlinkat(basefd, name, AT_REMOVEDIR) == 0 || errno == ENOENT ? 0 : errno;
}

int cf_snapshot_dir_remove(struct cf_snapshot_dir *d, struct confine_error *err)
{
	int r = 0;
	/* Everything in it goes, not only what was written: the directory is private, and
	 * anything else in it was put there by someone who should not have. */
	int e = d->dirfd >= 0 ? empty_and_remove(d->basefd, d->name, d->dirfd) : 0;
	if (e)
		r = cf_err_os(err, CONFINE_E_OS, "cannot remove snapshot directory", d->path,
			      "unlinkat", e);
	reset(d);
	return r;
}

int cf_snapshot_sweep(const char *base, size_t *removed, struct confine_error *err)
{
	size_t n = 0;
	if (removed)
		*removed = 0;
	int basefd = open(base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (basefd < 0) {
		if (errno == ENOENT)
			return 0;
		return cf_err_os(err, CONFINE_E_OS, "cannot sweep snapshot directories", base,
				 "open", errno);
	}
	int lfd = fcntl(basefd, F_DUPFD_CLOEXEC, 0);
	DIR *dir = lfd >= 0 ? fdopendir(lfd) : NULL;
	if (!dir) {
		int e = errno;
		if (lfd >= 0)
			close(lfd);
		close(basefd);
		return cf_err_os(err, CONFINE_E_OS, "cannot sweep snapshot directories", base,
				 "fdopendir", e);
	}
	struct dirent *e;
	while ((e = readdir(dir))) {
		if (strncmp(e->d_name, CF_SNAPSHOT_PREFIX, strlen(CF_SNAPSHOT_PREFIX)))
			continue;
		struct stat st, st2;
		if (fstatat(basefd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISDIR(st.st_mode) || st.st_uid != geteuid())
			continue;
		int fd = openat(basefd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			continue;
		/* The same directory as the one checked, and nobody's: its confine is gone
		 * (a lock dies with the process that held it, kill -9 included). */
		if (fstat(fd, &st2) == 0 && st2.st_dev == st.st_dev && st2.st_ino == st.st_ino &&
		    flock(fd, LOCK_EX | LOCK_NB) == 0 &&
		    empty_and_remove(basefd, e->d_name, fd) == 0)
			n++;
		close(fd);
	}
	closedir(dir);
	close(basefd);
	if (removed)
		*removed = n;
	return 0;
}

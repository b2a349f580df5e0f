/* SPDX-License-Identifier: MIT */
/*
 * Opening confine's own output files (the audit log, the report) before the command starts
 * (R30): the directory is canonicalised once (the caller's own symlinks are followed then, when
 * no command runs yet), opened again with no symlink allowed anywhere on the way, and the file
 * itself is opened relative to it without following a final symlink.  Only a regular file is
 * accepted: a FIFO could block, and the one-write-per-line promise of the audit log holds for
 * regular files.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util/nofollow.h"
#include "record/outfile.h"
#include "util/util.h"

static int open_dir(const char *dir)
{
	/* Without openat2 the fallback walks the components with O_NOFOLLOW too (it used to
	 * open the directory with a plain open(), following any symlink on the way). */
	return cf_open_nofollow(AT_FDCWD, dir, O_PATH | O_DIRECTORY, 0, NULL);
}

int cf_open_record_file(const char *what, const char *path, bool append, char **canon,
			struct confine_error *err)
{
	char *dir = NULL, *real = NULL;
	int dfd = -1, fd = -1;
	*canon = NULL;
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	if (!*base || !strcmp(base, ".") || !strcmp(base, "..")) {
		cf_err(err, CONFINE_E_INVALID, what, path, "the name of a file is needed");
		return -1;
	}
	dir = slash ? (slash == path ? cf_strdup("/") : cf_strndup(path, (size_t)(slash - path)))
		    : cf_strdup(".");
	if (!dir) {
		cf_nomem(err);
		return -1;
	}
	if (!(real = realpath(dir, NULL))) {
		cf_err_os(err, CONFINE_E_OS, what, path, "realpath", errno);
		goto out;
	}
	if ((dfd = open_dir(real)) < 0) {
		cf_err_os(err, CONFINE_E_OS, what, path, "openat2", errno);
		goto out;
	}
	/* O_NONBLOCK: opening a FIFO for writing would otherwise wait for a reader.  The audit
	 * log is opened for reading too, so that a torn last line can be found (audit.c); one
	 * the caller may only write is appended to unchecked. */
	int flags =
	    O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK | (append ? O_APPEND : 0);
	fd = openat(dfd, base, flags | (append ? O_RDWR : O_WRONLY), 0600);
	if (fd < 0 && append && errno == EACCES)
		fd = openat(dfd, base, flags | O_WRONLY, 0600);
	if (fd < 0) {
		cf_err_os(err, CONFINE_E_OS, what, path, "open", errno);
		if (errno == ELOOP)
			cf_err_hint(err, "the path is a symlink; name the file itself");
		goto out;
	}
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		cf_err(err, CONFINE_E_INVALID, what, path, "it is not a regular file");
		close(fd);
		fd = -1;
		goto out;
	}
	/* Truncated only now that it is known to be a regular file. */
	if ((!append && ftruncate(fd, 0) < 0) || fcntl(fd, F_SETFL, append ? O_APPEND : 0) < 0) {
		cf_err_os(err, CONFINE_E_OS, what, path, append ? "fcntl" : "ftruncate", errno);
		close(fd);
		fd = -1;
		goto out;
	}
	if (!(*canon = cf_path_join(real, base))) {
		cf_nomem(err);
		close(fd);
		fd = -1;
	}
out:
	if (dfd >= 0)
		close(dfd);
	free(dir);
	free(real);
	return fd;
}

int cf_record_file_canon(const char *what, const char *path, char **canon,
			 struct confine_error *err)
{
	*canon = NULL;
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	if (!*base || !strcmp(base, ".") || !strcmp(base, "..")) {
		cf_err(err, CONFINE_E_INVALID, what, path, "the name of a file is needed");
		return -1;
	}
	char *dir =
	    slash ? (slash == path ? cf_strdup("/") : cf_strndup(path, (size_t)(slash - path)))
		  : cf_strdup(".");
	char *real = dir ? realpath(dir, NULL) : NULL;
	int e = errno;
	free(dir);
	if (!real) {
		if (e == ENOMEM)
			cf_nomem(err);
		else
			cf_err_os(err, CONFINE_E_OS, what, path, "realpath", e);
		return -1;
	}
	*canon = cf_path_join(real, base);
	free(real);
	if (!*canon) {
		cf_nomem(err);
		return -1;
	}
	return 0;
}

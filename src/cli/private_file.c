/* SPDX-License-Identifier: MIT */
/*
 * Files confine writes after the command (the --report file): opened before the command
 * starts, through no symlink, and hidden from the sandbox, so that nothing the command does can
 * redirect or pre-empt the write (R30).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cli/cli.h"

int cli_open_private(confine_request *req, const char *option, const char *path, int *fd,
		     struct confine_error *err)
{
	char cwd[PATH_MAX];
	char *abs = NULL;
	int r = 0, dfd = -1;
	*fd = -1;
	if (path[0] == '/')
		abs = cf_path_normalize(path);
	else if (getcwd(cwd, sizeof(cwd)))
		abs = cf_path_join(cwd, path);
	else
		return cf_err_os(err, CONFINE_E_OS, "cannot open", option, "getcwd", errno);
	char *dir = abs ? cf_path_dirname(abs) : NULL;
	const char *base = abs ? strrchr(abs, '/') + 1 : NULL;
	if (!dir) {
		r = cf_nomem(err);
		goto out;
	}
	if (!base[0]) {
		r = cf_err(err, CONFINE_E_INVALID, "cannot open", path, "%s needs a file name",
			   option);
		goto out;
	}
	/* Every component as it is: a symlink anywhere on the way is refused, so that a
	 * directory swapped for a symlink (by an earlier command, if the path is in a
	 * workspace) cannot point the write elsewhere. */
	struct open_how how = {.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
			       .resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS};
	dfd = (int)syscall(SYS_openat2, AT_FDCWD, dir, &how, sizeof(how));
	if (dfd < 0 && errno == ENOSYS)
		dfd = open(dir, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd >= 0)
		*fd = openat(dfd, base, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC,
			     0600);
	struct stat st;
	if (dfd < 0 || *fd < 0) {
		int e = errno;
		r = cf_err_os(err, CONFINE_E_INVALID, "cannot open", path,
			      dfd < 0 ? "openat2" : "openat", e);
		if (e == ELOOP)
			cf_err_hint(err,
				    "%s is written through no symlink: name the file by its real "
				    "path (see realpath(1))",
				    option);
		goto out;
	}
	if (fstat(*fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		r = cf_err(err, CONFINE_E_INVALID, "cannot open", path, "not a regular file");
		goto out;
	}
	fcntl(*fd, F_SETFL, 0);
	r = confine_request_add_private_file(req, abs, err);
out:
	if (r < 0 && *fd >= 0) {
		close(*fd);
		*fd = -1;
	}
	if (dfd >= 0)
		close(dfd);
	free(dir);
	free(abs);
	return r;
}

int cli_write_private(int fd, const char *text, size_t len)
{
	if (ftruncate(fd, 0) < 0)
		return -1;
	size_t done = 0;
	while (done < len) {
		ssize_t k = pwrite(fd, text + done, len - done, (off_t)done);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		done += (size_t)k;
	}
	return 0;
}

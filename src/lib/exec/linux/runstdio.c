/* SPDX-License-Identifier: MIT */
/* The command's standard descriptors (runstdio.h). */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "exec/linux/pty.h"
#include "exec/linux/runstdio.h"
#include "util/util.h"

static const char *const names[3] = {"stdin", "stdout", "stderr"};

int cf_stdio_take(const int req[3], int stdio[3], struct confine_error *err)
{
	cf_stdio_release(stdio);
	/* Every given one is checked before anything is duplicated: a duplicate could take the
	 * number of one the caller closed too early, and be given in its place. */
	for (int i = 0; i < 3; i++)
		if (req[i] >= 0 && fcntl(req[i], F_GETFD) < 0) {
			cf_err(err, CONFINE_E_INVALID, "cannot start", names[i],
			       "descriptor %d given by confine_request_set_stdio is not open any "
			       "more",
			       req[i]);
			cf_err_hint(err,
				    "keep the descriptor open until confine_run_start returns");
			return CONFINE_E_INVALID;
		}
	for (int i = 0; i < 3; i++) {
		bool given = req[i] >= 0;
		int fd = fcntl(given ? req[i] : i, F_DUPFD_CLOEXEC, 3);
		if (fd >= 0) {
			stdio[i] = fd;
			continue;
		}
		int e = errno;
		if (!given && e == EBADF)
			continue; /* closed here: closed for the command too */
		cf_stdio_release(stdio);
		return cf_err_os(err, CONFINE_E_OS, "cannot start", names[i], "fcntl", e);
	}
	return 0;
}

void cf_stdio_release(int stdio[3])
{
	for (int i = 0; i < 3; i++) {
		if (stdio[i] >= 0)
			close(stdio[i]);
		stdio[i] = -1;
	}
}

int cf_stdio_install(const int stdio[3], unsigned skip)
{
	for (int fd = 0; fd < 3; fd++) {
		if (skip & CF_PTY_FD(fd))
			continue;
		if (stdio[fd] < 0)
			close(fd);
		else if (dup2(stdio[fd], fd) < 0)
			return -1;
	}
	return 0;
}

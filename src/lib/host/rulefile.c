/* SPDX-License-Identifier: MIT */
/* Reading a rule file: for `run` (R6) and `check` alike. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host/rulefile.h"
#include "rules/rules.h"
#include "util/util.h"

int cf_rulefile_read(const char *path, char **text, size_t *len, struct confine_error *err)
{
	int r = 0;
	char *buf = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		if (errno == ENOENT)
			return cf_err_os(err, CONFINE_E_NOTFOUND, "cannot read rule file", path,
					 "open", errno);
		return cf_err_os(err, CONFINE_E_RULES, "cannot read rule file", path, "open",
				 errno);
	}
	struct stat st;
	if (fstat(fd, &st) < 0) {
		r = cf_err_os(err, CONFINE_E_RULES, "cannot read rule file", path, "fstat", errno);
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		r = cf_err(err, CONFINE_E_RULES, "cannot read rule file", path,
			   "not a regular file");
		goto out;
	}
	if (!(buf = malloc(CF_RULES_MAX_FILE_BYTES + 1))) {
		r = cf_nomem(err);
		goto out;
	}
	size_t n = 0;
	for (;;) {
		ssize_t k = read(fd, buf + n, CF_RULES_MAX_FILE_BYTES + 1 - n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			r = cf_err_os(err, CONFINE_E_RULES, "cannot read rule file", path, "read",
				      errno);
			goto out;
		}
		if (k == 0 || (n += (size_t)k) > CF_RULES_MAX_FILE_BYTES)
			break;
	}
	*text = buf;
	*len = n;
	buf = NULL;
out:
	free(buf);
	close(fd);
	return r;
}

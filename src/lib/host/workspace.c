/* SPDX-License-Identifier: MIT */
/* A run's workspace resolved: see workspace.h.  Touches the OS. */
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "host/workspace.h"
#include "util/util.h"

int cf_workspace_resolve(const char *given, char **out, struct confine_error *err)
{
	if (!(*out = realpath(given, NULL))) {
		cf_err_os(err, CONFINE_E_WORKSPACE, "workspace refused", given, "realpath", errno);
		if (errno == ENOENT)
			cf_err_hint(err,
				    "create the directory first or pass an existing --workspace");
		return CONFINE_E_WORKSPACE;
	}
	struct stat st;
	if (stat(*out, &st) < 0 || !S_ISDIR(st.st_mode))
		return cf_err(err, CONFINE_E_WORKSPACE, "workspace refused", given,
			      "it is not a directory");
	return 0;
}

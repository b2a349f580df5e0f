/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "host/canon.h"
#include "util/util.h"

int cf_host_canonicalize(void *ctx, const char *path, char **out, struct confine_error *err)
{
	int rc;
	char *norm = NULL, *real = NULL;
	*out = NULL;
	if (!path || path[0] != '/') {
		rc = cf_err(err, CONFINE_E_INVALID, "cannot canonicalise path", path,
			    "the path is not absolute");
		goto out;
	}
	norm = cf_path_normalize(path);
	if (!norm)
		goto nomem;

	/* Walk back from the whole path to "/" until a prefix resolves; `cut` is where the
	 * unresolved rest starts (a '/' or the end). */
	size_t cut = strlen(norm);
	for (;;) {
		char saved = norm[cut];
		norm[cut] = '\0';
		real = realpath(cut ? norm : "/", NULL);
		int e = errno;
		norm[cut] = saved;
		if (real)
			break;
		if (e == ENOMEM)
			goto nomem;
		/* Missing, not a directory, a symlink loop, not searchable: the rest stays lexical.
		 * Anything else is unexpected and refused, since a wrong answer here would put a
		 * rule on the wrong directory. */
		if (e != ENOENT && e != ENOTDIR && e != ELOOP && e != EACCES) {
			rc = cf_err_os(err, CONFINE_E_OS, "cannot canonicalise path", path,
				       "realpath", e);
			goto out;
		}
		if (cut == 0) {
			rc = cf_err_os(err, CONFINE_E_OS, "cannot canonicalise path", path,
				       "realpath", e);
			goto out;
		}
		while (cut > 0 && norm[cut - 1] != '/')
			cut--;
		if (cut > 0)
			cut--; /* onto the '/' before the component */
	}
	if (!norm[cut]) {
		*out = real;
		real = NULL;
		rc = 0;
		goto out;
	}
	/* norm + cut starts with '/'; "/" + "/rest" must not become "//rest". */
	*out = cf_asprintf("%s%s", strcmp(real, "/") ? real : "", norm + cut);
	if (!*out)
		goto nomem;
	rc = 0;
	goto out;
nomem:
	rc = cf_nomem(err);
out:
	free(norm);
	free(real);
	return rc;
}

/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host/canon.h"
#include "host/kind_memo.h"
#include "util/util.h"

/*
 * With a memo (ctx, kind_memo.h): one lstat per component, shared by every path asked in the
 * same planning (the guards under /etc, /var, the homes share their prefixes), where realpath
 * reads every link of every prefix again.  A normalised path none of whose existing prefixes is
 * a symlink is its own canonical form up to its first missing component; a symlink on the way
 * sends the path to the full walk.  Returns 1 when it answered, 0 when the full walk must.
 */
static int walk_memo(void *ctx, char *norm, char **out)
{
	for (char *s = norm + 1;; s++) {
		if (*s != '/' && *s)
			continue;
		char saved = *s;
		*s = '\0';
		enum cf_kind k = cf_kind_memo_get(ctx, norm);
		*s = saved;
		if (k == CF_KIND_SYMLINK)
			return 0;
		/* Missing (or unreachable, or below a file): the rest is lexical. */
		if (k == CF_KIND_MISSING || !saved) {
			*out = norm;
			return 1;
		}
	}
}

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
	if (ctx && strcmp(norm, "/") && walk_memo(ctx, norm, out)) {
		norm = NULL; /* *out has it */
		rc = 0;
		goto out;
	}

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

int cf_host_canonicalize_arg(const char *path, char **out, struct confine_error *err)
{
	char *abs;
	*out = NULL;
	if (path[0] == '/') {
		abs = cf_strdup(path);
	} else {
		char cwd[PATH_MAX];
		if (!getcwd(cwd, sizeof(cwd)))
			return cf_err_os(err, CONFINE_E_OS, "cannot resolve path", path, "getcwd",
					 errno);
		abs = cf_path_join(cwd, path);
	}
	if (!abs)
		return cf_nomem(err);
	int r = cf_host_canonicalize(NULL, abs, out, err);
	free(abs);
	return r;
}

/* SPDX-License-Identifier: MIT */
/* The real host behind struct cf_host: file kinds and canonical paths. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "probe/hostfs.h"
#include "util/util.h"

enum cf_kind cf_hostfs_kind(void *ctx, const char *path)
{
	struct stat st;
	if (lstat(path, &st) < 0)
		return CF_KIND_MISSING;
	if (S_ISDIR(st.st_mode))
		return CF_KIND_DIR;
	if (S_ISREG(st.st_mode))
		return CF_KIND_FILE;
	if (S_ISLNK(st.st_mode))
		return CF_KIND_SYMLINK;
	return CF_KIND_OTHER;
}

int cf_hostfs_canonicalize(void *ctx, const char *path, char **out, struct confine_error *err)
{
	/* Resolve the longest existing leading part; append the rest lexically. */
	char *norm = cf_path_normalize(path);
	char *head = NULL;
	int r = 0;
	if (!norm)
		return cf_nomem(err);
	size_t len = strlen(norm);
	for (;;) {
		char saved = norm[len];
		norm[len] = '\0';
		char *real = realpath(len ? norm : "/", NULL);
		norm[len] = saved;
		if (real) {
			const char *rest = norm + len;
			if (*rest) {
				*out = cf_path_join(real, rest + 1);
				free(real);
			} else {
				*out = real;
			}
			if (!*out)
				r = cf_nomem(err);
			goto out;
		}
		if (errno == ENOMEM) {
			r = cf_nomem(err);
			goto out;
		}
		char *slash = memrchr(norm, '/', len);
		if (!slash || slash == norm) {
			*out = cf_strdup(norm);
			r = *out ? 0 : cf_nomem(err);
			goto out;
		}
		len = (size_t)(slash - norm);
	}
out:
	free(head);
	free(norm);
	return r;
}

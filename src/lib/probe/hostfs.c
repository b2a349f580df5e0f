/* SPDX-License-Identifier: MIT */
/* The real host behind struct cf_host: file kinds (canonical paths: probe/canon.c). */
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

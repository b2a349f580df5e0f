/* SPDX-License-Identifier: MIT */
/* The real host behind struct cf_host: file kinds (canonical paths: host/canon.c). */
#include <sys/stat.h>

#include "host/hostfs.h"
#include "util/util.h"

enum cf_kind cf_hostfs_kind(void *ctx, const char *path)
{
	struct stat st;
	return lstat(path, &st) < 0 ? CF_KIND_MISSING : cf_kind_of_mode(st.st_mode);
}

enum cf_kind cf_kind_of_mode(unsigned mode)
{
	if (S_ISDIR(mode))
		return CF_KIND_DIR;
	if (S_ISREG(mode))
		return CF_KIND_FILE;
	if (S_ISLNK(mode))
		return CF_KIND_SYMLINK;
	return CF_KIND_OTHER;
}

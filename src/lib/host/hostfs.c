/* SPDX-License-Identifier: MIT */
/* The real host behind struct cf_host: file kinds (canonical paths: host/canon.c). */
#include <dirent.h>
#include <fcntl.h>
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

enum cf_kind cf_kind_of_entry(int dirfd, const char *name, unsigned char d_type)
{
	switch (d_type) {
	case DT_DIR:
		return CF_KIND_DIR;
	case DT_REG:
		return CF_KIND_FILE;
	case DT_LNK:
		return CF_KIND_SYMLINK;
	case DT_UNKNOWN:
		break;
	default:
		return CF_KIND_OTHER;
	}
	/* Some file systems leave d_type empty. */
	struct stat st;
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return CF_KIND_MISSING;
	return cf_kind_of_mode(st.st_mode);
}

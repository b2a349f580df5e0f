/* SPDX-License-Identifier: MIT */
/* The symlink-safe open: see nofollow.h. */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util/nofollow.h"

#ifndef SYS_openat2
#define SYS_openat2 437
#endif

int cf_open_nofollow_walk(int dirfd, const char *path, int flags, unsigned how)
{
	const int dir_flags = O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
	const char *s = path;
	int fd;
	if (*s == '/') {
		if (how & CF_NOFOLLOW_BENEATH) {
			errno = EXDEV;
			return -1;
		}
		while (*s == '/')
			s++;
		fd = open("/", dir_flags);
	} else {
		fd = dirfd == AT_FDCWD ? open(".", dir_flags) : fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
	}
	if (fd < 0)
		return -1;
	if (!*s) {
		/* The start itself: reopened with the flags asked for. */
		int r = openat(fd, ".", flags | O_CLOEXEC);
		int e = errno;
		close(fd);
		errno = e;
		return r;
	}
	for (;;) {
		size_t n = strcspn(s, "/");
		const char *next = s + n;
		while (*next == '/')
			next++;
		char comp[256];
		if (n >= sizeof(comp)) {
			close(fd);
			errno = ENAMETOOLONG;
			return -1;
		}
		memcpy(comp, s, n);
		comp[n] = '\0';
		if ((how & CF_NOFOLLOW_BENEATH) && !strcmp(comp, "..")) {
			close(fd);
			errno = EXDEV;
			return -1;
		}
		bool last = !*next;
		int nfd = last ? openat(fd, comp, flags | O_NOFOLLOW | O_CLOEXEC)
			       : openat(fd, comp, dir_flags);
		int e = errno;
		/* A symlink on the way fails O_DIRECTORY|O_NOFOLLOW with ENOTDIR; openat2 says
		 * ELOOP, and so does this walk. */
		struct stat st;
		if (nfd < 0 && !last && e == ENOTDIR &&
		    fstatat(fd, comp, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
			e = ELOOP;
		close(fd);
		if (nfd < 0) {
			errno = e;
			return -1;
		}
		if (last)
			return nfd;
		fd = nfd;
		s = next;
	}
}

int cf_open_nofollow(int dirfd, const char *path, int flags, unsigned how, bool *downgraded)
{
	struct open_how oh = {
	    .flags = (uint64_t)(flags | O_NOFOLLOW | O_CLOEXEC),
	    .resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS |
		       ((how & CF_NOFOLLOW_BENEATH) ? RESOLVE_BENEATH : 0),
	};
	/* O_CREAT's mode is not used by the callers (they create with openat on a directory
	 * they opened here). */
	for (int i = 0; i < 4; i++) {
		int fd = (int)syscall(SYS_openat2, dirfd, path, &oh, sizeof(oh));
		if (fd >= 0)
			return fd;
		if (errno == EAGAIN)
			continue; /* a rename elsewhere raced the lookup: ask again */
		if (errno != ENOSYS)
			return -1;
		break;
	}
	if (downgraded)
		*downgraded = true;
	return cf_open_nofollow_walk(dirfd, path, flags, how);
}

/* SPDX-License-Identifier: MIT */
/*
 * marker: a shared library for tests/enforce/hostenv.t (R35).  The test builds it inside the
 * workspace with a sandboxed compiler (a library "an earlier run built"), then hands it to
 * later runs through LD_PRELOAD, LD_LIBRARY_PATH, LD_AUDIT and the like.  Whatever process it
 * is loaded into appends the name of its program (the target of /proc/self/exe) to
 * marker.log beside the library itself, so the test sees exactly which processes loaded it.
 *
 * Built with -DMARK_AS_AUDIT it is also an LD_AUDIT module (la_version); built with a soname
 * of a library bwrap needs (libcap.so.2) and linked to the real one, it stands in for that
 * library on an LD_LIBRARY_PATH.  Nothing here depends on the environment: a process that
 * loads it leaves its line whatever variables it was given.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void mark(void)
{
	Dl_info di;
	if (!dladdr((void *)mark, &di) || !di.dli_fname)
		return;
	char log[PATH_MAX];
	snprintf(log, sizeof(log), "%s", di.dli_fname);
	char *slash = strrchr(log, '/');
	if (!slash)
		return;
	snprintf(slash + 1, sizeof(log) - (size_t)(slash + 1 - log), "marker.log");
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		n = (ssize_t)snprintf(exe, sizeof(exe), "unknown");
	exe[n] = '\0';
	const char *base = strrchr(exe, '/');
	base = base ? base + 1 : exe;
	int fd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
	if (fd < 0)
		return;
	dprintf(fd, "%s\n", base);
	close(fd);
}

__attribute__((constructor)) static void on_load(void)
{
	mark();
}

#ifdef MARK_AS_AUDIT
unsigned int la_version(unsigned int version);
unsigned int la_version(unsigned int version)
{
	mark();
	return version;
}
#endif

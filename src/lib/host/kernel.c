/* SPDX-License-Identifier: MIT */
/*
 * What the kernel and the machine offer (kernel.h).  Only libc and the kernel's headers of
 * Debian 12 (Linux 6.1): confine-init links this file too, and every newer constant is defined
 * here.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "host/kernel.h"
#include "util/procfs.h"

/* The Landlock system calls have the same number on every architecture but alpha. */
#include "util/linux_abi.h"

int cf_landlock_abi(void)
{
	long abi = syscall(__NR_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
	/* ENOSYS: not built in; EOPNOTSUPP: built in but disabled at boot (lsm=). */
	return abi < 0 ? 0 : (int)abi;
}

bool cf_seccomp_available(void)
{
	/* With a NULL program the kernel copies the program header first and fails with EFAULT
	 * when filter mode exists; EINVAL means it does not.  Nothing is installed either way. */
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, NULL, 0, 0) == 0 || errno != EFAULT)
		return false;
	/* The filter kills foreign architectures with KILL_PROCESS (Linux 4.14). */
	uint32_t action = SECCOMP_RET_KILL_PROCESS;
	return syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action) == 0;
}

int cf_kernel_read(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, cap - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return (int)n;
}

bool cf_cgroup_v2(void)
{
	struct stat st;
	return stat("/sys/fs/cgroup/cgroup.controllers", &st) == 0;
}

char *cf_cgroup_own_path(const char *controller)
{
	char buf[4096];
	if (cf_proc_read(AT_FDCWD, CF_PROC_SELF, "cgroup", buf, sizeof(buf)) < 0)
		return NULL;
	/* Lines "ID:CONTROLLERS:PATH"; the unified hierarchy's is "0::PATH". */
	for (char *save = NULL, *line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *c1 = strchr(line, ':');
		char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (!c2)
			continue;
		*c2 = '\0';
		const char *ctrls = c1 + 1;
		if (!controller ? (*ctrls == '\0' && !strncmp(line, "0", 1))
				: (strstr(ctrls, controller) != NULL))
			return strdup(c2 + 1);
	}
	return NULL;
}

bool cf_cgroup_alone_in(const char *dir)
{
	char path[4200], buf[4096];
	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	int n = cf_kernel_read(path, buf, sizeof(buf));
	if (n < 0)
		return false;
	char self[32];
	snprintf(self, sizeof(self), "%d", (int)getpid());
	for (char *save = NULL, *line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		if (strcmp(line, self))
			return false;
	return true;
}

bool cf_cgroup_available(void)
{
	bool v2 = cf_cgroup_v2();
	char *own = cf_cgroup_own_path(v2 ? NULL : "pids");
	if (!own)
		return false;
	char base[4200];
	int len = snprintf(base, sizeof(base), "/sys/fs/cgroup%s%s", v2 ? "" : "/pids",
			   strcmp(own, "/") ? own : "");
	bool ok = len > 0 && (size_t)len < sizeof(base) && access(base, W_OK) == 0;
	if (ok && v2) {
		/* The controllers must reach confine's cgroup, and confine must be able to leave
		 * it for a leaf (cgroup.c's create_v2). */
		char path[4300], ctl[512];
		snprintf(path, sizeof(path), "%s/cgroup.controllers", base);
		ok = cf_kernel_read(path, ctl, sizeof(ctl)) >= 0 && strstr(ctl, "pids") &&
		     strstr(ctl, "memory") && (!strcmp(own, "/") || cf_cgroup_alone_in(base));
	}
	free(own);
	return ok;
}

/* A call refused by the kernel or by a seccomp filter around confine (a container's profile
 * answers EPERM or ENOSYS): the sandbox inherits that filter, so the guard could not use it. */
static bool refused(long rc)
{
	return rc < 0 && (errno == ENOSYS || errno == EPERM);
}

const char *cf_ipc_guard_missing(int landlock_abi, bool seccomp)
{
	if (!seccomp)
		return "seccomp filters";
	if (landlock_abi < 2)
		return "Landlock ABI 2 (Linux 5.19)";
	uint32_t action = SECCOMP_RET_USER_NOTIF;
	if (syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action) < 0)
		return "seccomp user notification (SECCOMP_RET_USER_NOTIF)";
	/* Each call with arguments that fail before anything is done, but for the last two,
	 * which read this process's own memory and descriptor. */
	struct open_how how = {.flags = O_PATH};
	if (refused(syscall(SYS_openat2, -1, ".", &how, sizeof(how))))
		return "openat2 (refused by a seccomp filter around confine)";
	int probe = 1, copy = 0;
	struct iovec l = {.iov_base = &copy, .iov_len = sizeof(copy)};
	struct iovec r = {.iov_base = &probe, .iov_len = sizeof(probe)};
	if (process_vm_readv(getpid(), &l, 1, &r, 1, 0) != sizeof(copy) || copy != probe)
		return "process_vm_readv (refused by a seccomp filter around confine)";
	int pfd = (int)syscall(__NR_pidfd_open, getpid(), 0);
	int fd = pfd < 0 ? -1 : (int)syscall(__NR_pidfd_getfd, pfd, pfd, 0U);
	if (fd >= 0)
		close(fd);
	if (pfd >= 0)
		close(pfd);
	if (fd < 0)
		return "pidfd_open and pidfd_getfd (Linux 5.6, refused by a seccomp filter around "
		       "confine?)";
	return NULL;
}

bool cf_yama_allows_ptrace(void)
{
	char v[16] = {0};
	int fd = open("/proc/sys/kernel/yama/ptrace_scope", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return true; /* no Yama */
	ssize_t n = read(fd, v, sizeof(v) - 1);
	close(fd);
	return n > 0 && v[0] < '2';
}

const char *cf_opener_missing(const char *ipc_guard_missing)
{
	if (ipc_guard_missing)
		return ipc_guard_missing;
	if (!cf_yama_allows_ptrace())
		return "ptrace access to the command's memory and descriptors, which Yama's "
		       "ptrace_scope 2 or 3 refuses";
	return NULL;
}

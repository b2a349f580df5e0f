/* SPDX-License-Identifier: MIT */
/*
 * The fixed environment of host-side processes and the sealed lists confine-init reads
 * (R35, R36; see hostside.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "exec/linux/hostside.h"

char *const cf_host_env[] = {"PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL=C", NULL};

int cf_sealed_memfd(const char *label, const void *data, size_t len, int *out,
		    struct confine_error *err)
{
	*out = -1;
	int fd = memfd_create(label, MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return cf_err_os(err, CONFINE_E_OS, "cannot start the sandbox", label,
				 "memfd_create", errno);
	const char *p = data;
	size_t left = len;
	while (left) {
		ssize_t k = write(fd, p, left);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			int e = k < 0 ? errno : EIO;
			close(fd);
			return cf_err_os(err, CONFINE_E_OS, "cannot start the sandbox", label,
					 "write", e);
		}
		p += k;
		left -= (size_t)k;
	}
	/* Sealed: nothing that holds a descriptor of it (a process that could read confine's
	 * /proc/PID/fd) can change what confine-init reads. */
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) < 0 ||
	    lseek(fd, 0, SEEK_SET) != 0) {
		int e = errno;
		close(fd);
		return cf_err_os(err, CONFINE_E_OS, "cannot start the sandbox", label, "fcntl", e);
	}
	*out = fd;
	return 0;
}

int cf_env_memfd(const struct cf_strv *env, int *out, struct confine_error *err)
{
	struct cf_buf b;
	cf_buf_init(&b);
	for (size_t i = 0; i < env->n; i++)
		cf_buf_addn(&b, env->v[i], strlen(env->v[i]) + 1);
	if (b.oom) {
		cf_buf_release(&b);
		*out = -1;
		return cf_nomem(err);
	}
	int r = cf_sealed_memfd("confine-env", b.s ? b.s : "", b.len, out, err);
	cf_buf_release(&b);
	return r;
}

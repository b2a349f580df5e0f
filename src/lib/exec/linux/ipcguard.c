/* SPDX-License-Identifier: MIT */
/* The host side of the IPC guard (R36): see ipcguard.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "exec/linux/harden.h"
#include "exec/linux/helper_proto.h"
#include "exec/linux/hostside.h"
#include "exec/linux/ipcguard.h"

#include "util/linux_abi.h"

static int fds_add(struct cf_ipc_fds *f, int fd)
{
	int *v = realloc(f->v, (f->n + 1) * sizeof(*v));
	if (!v)
		return -1;
	v[f->n++] = fd;
	f->v = v;
	return 0;
}

int cf_ipc_list_fd(const struct cf_plan *plan, const int *source, struct cf_ipc_fds *fds,
		   struct confine_error *err)
{
	struct cf_buf b;
	cf_buf_init(&b);
	*fds = (struct cf_ipc_fds){.list = -1};
	for (size_t i = 0; i < plan->n_mounts; i++) {
		const struct cf_mount *m = &plan->mounts[i];
		/* What the sandbox can write: its own tmpfs mounts, the read-write binds (the
		 * workspace, write allows, pins); /dev and /proc for their devices and files.  A
		 * bind by its source, the object bwrap mounts (a pin the helper makes has none:
		 * it lies in a writable area anyway). */
		if (m->op == CF_MNT_RW_BIND && m->pin)
			continue;
		if (m->op == CF_MNT_RW_BIND && source && source[i] >= 0) {
			int d = fcntl(source[i], F_DUPFD_CLOEXEC, 3);
			if (d < 0) {
				int e = errno;
				cf_buf_release(&b);
				return cf_err_os(err, CONFINE_E_OS, "cannot start the sandbox",
						 m->path, "fcntl", e);
			}
			if (fds_add(fds, d) < 0) {
				close(d);
				cf_buf_release(&b);
				return cf_nomem(err);
			}
			cf_buf_addf(&b, "%c%d", CF_IPC_WRITABLE_FD, d);
			cf_buf_addc(&b, '\0');
		} else if (m->op == CF_MNT_RW_BIND || m->op == CF_MNT_TMPFS ||
			   m->op == CF_MNT_DEV || m->op == CF_MNT_PROC ||
			   m->op == CF_MNT_CACHE_OVERLAY) {
			/* A tool cache's overlay (R39) too: what the command writes goes to the
			 * store; the host's FIFOs and sockets below it are other inodes there, with
			 * no pipe or listener of the host's behind them.  Its rule comes once it is
			 * mounted (CF_IPC_OVERLAY). */
			cf_buf_addc(&b, m->op == CF_MNT_CACHE_OVERLAY ? CF_IPC_OVERLAY
								      : CF_IPC_WRITABLE);
			cf_buf_addn(&b, m->path, strlen(m->path) + 1);
		}
	}
	for (size_t i = 0; i < plan->ipc_allow.n; i++) {
		cf_buf_addc(&b, CF_IPC_ALLOW);
		cf_buf_addn(&b, plan->ipc_allow.v[i], strlen(plan->ipc_allow.v[i]) + 1);
	}
	if (b.oom) {
		cf_buf_release(&b);
		return cf_nomem(err);
	}
	int r = cf_sealed_memfd("confine-ipc", b.s ? b.s : "", b.len, &fds->list, err);
	cf_buf_release(&b);
	if (r == 0 && fds_add(fds, fds->list) < 0) {
		close(fds->list);
		fds->list = -1;
		return cf_nomem(err);
	}
	return r;
}

int cf_helper_fds(const struct cf_plan *plan, const int *source, struct cf_bwrap_fds *fds,
		  struct cf_ipc_fds *made, struct confine_error *err)
{
	int r;
	fds->env = fds->ipc = fds->ipc_filter = -1;
	*made = (struct cf_ipc_fds){.list = -1};
	if (plan->ipc_guard && (r = cf_ipc_list_fd(plan, source, made, err)) < 0)
		return r;
	fds->ipc = made->list;
	int f = -1;
	if (plan->ipc_guard) {
		if ((r = cf_seccomp_guard_build_fd(&f, err)) < 0)
			return r;
		if (fds_add(made, f) < 0) {
			close(f);
			return cf_nomem(err);
		}
		fds->ipc_filter = f;
	}
	if ((r = cf_env_memfd(&plan->env, &f, err)) < 0)
		return r;
	if (fds_add(made, f) < 0) {
		close(f);
		return cf_nomem(err);
	}
	fds->env = f;
	return 0;
}

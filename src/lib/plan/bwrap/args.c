/* SPDX-License-Identifier: MIT */
/*
 * The bwrap argument vector for a Linux plan (SPEC 3, R12, R15).  Pure: descriptors are opened
 * by the executor and passed in by number, so golden tests can fix them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/bwrap/plan.h"
#include "util/util.h"

const char *const cf_bwrap_process_flags[] = {
    "--new-session",  "--die-with-parent",
    "--unshare-user", "--disable-userns",
    "--unshare-pid",  "--unshare-ipc",
    "--unshare-uts",  "--unshare-cgroup-try",
    "--cap-drop",     "ALL",
    "--as-pid-1",     NULL,
};

/* What helper mode can make (exec/linux/bwrap/masks.c): a kernel interface made read-only, a hidden
 * file or directory, and a pin (R33: a directory bound onto itself, which needs no source from the
 * host: the sandbox's own view of it is the same directory). */
static bool helper_op(const struct cf_mount *m)
{
	return m->op == CF_MNT_RO_KERNEL || m->op == CF_MNT_HIDE_FILE || m->op == CF_MNT_HIDE_DIR ||
	       (m->op == CF_MNT_RW_BIND && m->pin && m->kind == CF_KIND_DIR && !m->net_dir) ||
	       m->op == CF_MNT_CACHE_OVERLAY;
}

#define NO_OVERLAY ((size_t)-1)

/* R39: for each mount, the tool cache's overlay it lies strictly below (an earlier mount of the
 * plan), or NO_OVERLAY.  Caches never nest (plan/caches.c), and there are a dozen at most. */
static void overlay_of(const struct cf_plan *plan, size_t *ov)
{
	size_t overlays[32], n = 0;
	for (size_t i = 0; i < plan->n_mounts; i++) {
		const struct cf_mount *m = &plan->mounts[i];
		ov[i] = NO_OVERLAY;
		for (size_t k = 0; k < n; k++)
			if (cf_path_within(m->path, plan->mounts[overlays[k]].path) &&
			    strcmp(m->path, plan->mounts[overlays[k]].path))
				ov[i] = overlays[k];
		if (m->op == CF_MNT_CACHE_OVERLAY && n < sizeof(overlays) / sizeof(overlays[0]))
			overlays[n++] = i;
	}
}

/* A mount of bwrap's below an overlay: an overlay does not show the mounts of its lower layer,
 * so the mask maker (exec/linux/bwrap/masks.c) clones it before it mounts the overlay and attaches
 * the clone on top after (R39).  Only the topmost of such mounts: a clone takes what is mounted
 * below it. */
static bool captured(const struct cf_plan *plan, const bool *by_helper, const size_t *ov, size_t i)
{
	const struct cf_mount *m = &plan->mounts[i];
	if (by_helper[i] || ov[i] == NO_OVERLAY || m->op == CF_MNT_REMOUNT_RO)
		return false;
	for (size_t j = ov[i] + 1; j < i; j++)
		if (!by_helper[j] && plan->mounts[j].op != CF_MNT_REMOUNT_RO &&
		    cf_path_within(m->path, plan->mounts[j].path))
			return false;
	return true;
}

/* A tmpfs (bwrap's, or a hidden directory): a path inside one exists only if the one who made
 * the tmpfs made it. */
static bool tmpfs_op(enum cf_mount_op op)
{
	return op == CF_MNT_DEV || op == CF_MNT_TMPFS || op == CF_MNT_HIDE_DIR ||
	       op == CF_MNT_INJECT_DIR;
}

static bool related(const char *a, const char *b)
{
	return cf_path_within(a, b) || cf_path_within(b, a);
}

void cf_plan_helper_split(const struct cf_plan *plan, const bool *skip, bool *by_helper)
{
	size_t n = plan->n_mounts;
	for (size_t i = 0; i < n; i++)
		by_helper[i] = false;
	/* The mounts left to bwrap after the one at hand (kept; by_helper[] tells which of them
	 * moved since), and the tmpfs mounts: the two lists each mount is checked against, so
	 * that a plan of thousands of matches is not checked against every other mount.  Without
	 * memory for them bwrap makes every mount. */
	size_t *kept = malloc((n + 1) * sizeof(*kept)), *tmpfs = malloc((n + 1) * sizeof(*tmpfs));
	size_t *ov = malloc((n + 1) * sizeof(*ov));
	size_t n_kept = 0, n_tmpfs = 0;
	if (!kept || !tmpfs || !ov)
		goto out;
	overlay_of(plan, ov);
	for (size_t i = 0; i < n; i++)
		if (!(skip && skip[i]) && tmpfs_op(plan->mounts[i].op))
			tmpfs[n_tmpfs++] = i;
	/* From the last mount back, so that what comes after a mount is decided before it: the
	 * helper makes its mounts in plan order after all of bwrap's, so a mount may go to it
	 * only if every later mount at, above or below its path goes too. */
	for (size_t i = n; i-- > 0;) {
		const struct cf_mount *m = &plan->mounts[i];
		if (skip && skip[i])
			continue;
		bool ok = helper_op(m);
		/* A hidden directory goes only with its read-only remount: the first later
		 * REMOUNT_RO of its path, which is still bwrap's. */
		size_t remount = 0;
		for (size_t k = 0; ok && m->op == CF_MNT_HIDE_DIR && k < n_kept; k++)
			if (plan->mounts[kept[k]].op == CF_MNT_REMOUNT_RO &&
			    !strcmp(plan->mounts[kept[k]].path, m->path))
				remount = kept[k]; /* backwards: the last match is the first */
		ok = ok && (m->op != CF_MNT_HIDE_DIR || remount);
		/* Inside an earlier tmpfs: no mount point there for the helper. */
		for (size_t k = 0; ok && k < n_tmpfs && tmpfs[k] < i; k++)
			ok = !cf_path_within(m->path, plan->mounts[tmpfs[k]].path);
		/* A mount of bwrap's below an overlay is made again on top of it by the helper, in
		 * its place (captured): for the overlay and the helper's other mounts below it, as
		 * if it were the helper's. */
		for (size_t k = 0; ok && k < n_kept; k++)
			ok = kept[k] == remount || by_helper[kept[k]] ||
			     (ov[kept[k]] != NO_OVERLAY &&
			      (ov[kept[k]] == i || ov[kept[k]] == ov[i])) ||
			     !related(plan->mounts[kept[k]].path, m->path);
		/* The overlay is the helper's in any case: bwrap cannot make it, and its mount
		 * point is there (the host's directory, or bwrap's mount of it). */
		ok = ok || m->op == CF_MNT_CACHE_OVERLAY;
		if (!ok) {
			kept[n_kept++] = i;
			continue;
		}
		by_helper[i] = true;
		if (remount)
			by_helper[remount] = true;
	}
out:
	free(kept);
	free(tmpfs);
	free(ov);
}

static void record(struct cf_buf *out, char op, const char *s)
{
	cf_buf_addc(out, op);
	cf_buf_addn(out, s, strlen(s) + 1);
}

/* R39: the records of an overlay: its path, then its upper layer and work directory relative
 * to the store's mount point. */
static void overlay_records(const struct cf_plan *plan, const struct cf_mount *m,
			    struct cf_buf *out)
{
	const struct cf_plan_cache *c = &plan->caches[m->cache];
	const char *base = strrchr(c->where, '/');
	char *upper = cf_asprintf("%s/%s", c->tool, base ? base + 1 : "upper"),
	     *work = cf_asprintf("%s/%s", c->tool, c->work ? c->work : "");
	record(out, CF_HELPER_OVERLAY, m->path);
	if (!upper || !work)
		out->oom = true;
	else {
		record(out, CF_HELPER_UPPER, upper);
		record(out, CF_HELPER_WORK, work);
	}
	free(upper);
	free(work);
}

void cf_plan_helper_list(const struct cf_plan *plan, const bool *by_helper, struct cf_buf *out)
{
	size_t *ov = malloc((plan->n_mounts + 1) * sizeof(*ov));
	if (!ov) {
		out->oom = true;
		return;
	}
	overlay_of(plan, ov);
	/* First the clones of bwrap's mounts below the overlays, before any overlay hides them. */
	for (size_t i = 0; i < plan->n_mounts; i++)
		if (captured(plan, by_helper, ov, i))
			record(out, CF_HELPER_CAPTURE, plan->mounts[i].path);
	for (size_t i = 0; i < plan->n_mounts; i++) {
		const struct cf_mount *m = &plan->mounts[i];
		if (captured(plan, by_helper, ov, i)) {
			record(out, CF_HELPER_ATTACH, m->path);
			continue;
		}
		if (!by_helper[i] || !helper_op(m))
			continue;
		if (m->op == CF_MNT_CACHE_OVERLAY) {
			overlay_records(plan, m, out);
			continue;
		}
		char op = m->op == CF_MNT_RO_KERNEL   ? (m->kind == CF_KIND_DIR ? 'k' : 'r')
			  : m->op == CF_MNT_RW_BIND   ? 'p'
			  : m->op == CF_MNT_HIDE_FILE ? 'f'
			  : m->traverse		      ? 't'
						      : 'd';
		/* A host endpoint that may be gone by then: upper case, left out if so. */
		bool transient =
		    m->transient && (m->op == CF_MNT_HIDE_FILE || m->op == CF_MNT_HIDE_DIR);
		cf_buf_addc(out, transient ? (char)(op - 'a' + 'A') : op);
		cf_buf_addn(out, m->path, strlen(m->path) + 1);
	}
	/* Last, the store goes: only the overlays hold it from here on. */
	if (plan->cache_overlay)
		record(out, CF_HELPER_DETACH, CF_CACHE_MNT);
	free(ov);
}

/* Appends the NULL-terminated strings of v in their order: 0, or CONFINE_E_NOMEM.  One call
 * per group of options, because the operands of "add(a) | add(b)" may be evaluated in either
 * order and the vector's order is bwrap's syntax. */
static int add_all(struct cf_strv *out, const char *const *v)
{
	int bad = 0;
	for (; *v; v++)
		bad |= cf_strv_add(out, *v);
	return bad;
}

/* A descriptor number as text, in buf (16 bytes). */
static const char *fd_text(char *buf, int fd)
{
	snprintf(buf, 16, "%d", fd);
	return buf;
}

/* Each FD() has a buffer of its own (a compound literal, alive for the enclosing block). */
#define FD(fd) fd_text((char[16]){0}, (fd))
#define ARGS(...) add_all(out, (const char *const[]){__VA_ARGS__, NULL})

/* The bwrap options of the plan's mount i (none for a mount the helper makes). */
static int mount_args(const struct cf_plan *plan, const struct cf_bwrap_fds *fds, size_t i,
		      struct cf_strv *out)
{
	const struct cf_mount *m = &plan->mounts[i];
	char size[32];
	int bad = 0;
	switch (m->op) {
	case CF_MNT_RO_ROOT:
		bad |= ARGS("--ro-bind", "/", "/");
		break;
	case CF_MNT_DEV:
		bad |= ARGS("--dev", m->path);
		break;
	case CF_MNT_PROC:
		bad |= ARGS("--proc", m->path);
		break;
	case CF_MNT_TMPFS:
		snprintf(size, sizeof(size), "%llu", (unsigned long long)m->size);
		bad |= ARGS("--size", size, "--tmpfs", m->path);
		break;
	case CF_MNT_HIDE_DIR:
		bad |= ARGS("--perms", m->traverse ? "0111" : "0000", "--tmpfs", m->path);
		break;
	case CF_MNT_HIDE_FILE:
		bad |= ARGS("--perms", "0000", "--ro-bind-data", FD(fds->empty[i]), m->path);
		break;
	case CF_MNT_RO_BIND:
		bad |= ARGS("--ro-bind-fd", FD(fds->source[i]), m->path);
		break;
	case CF_MNT_RW_BIND:
		bad |= ARGS("--bind-fd", FD(fds->source[i]), m->path);
		break;
	case CF_MNT_REMOUNT_RO:
		bad |= ARGS("--remount-ro", m->path);
		break;
	case CF_MNT_RO_KERNEL:
		/* The source is the host's own view of the same kernel interface (bwrap
		 * resolves sources outside the new root); what a sysctl shows depends on
		 * the namespaces of the process that opens it, not on the mount. */
		bad |= ARGS("--ro-bind", m->path, m->path);
		break;
	case CF_MNT_INJECT:
		/* bwrap copies the sealed memfd into its own tmpfs and binds the copy
		 * read-only: no file of it on the host. */
		bad |= ARGS("--perms", "0444", "--ro-bind-data", FD(fds->data ? fds->data[i] : -1),
			    m->path);
		break;
	case CF_MNT_INJECT_FILE:
		bad |=
		    ARGS("--perms", "0444", "--file", FD(fds->data ? fds->data[i] : -1), m->path);
		break;
	case CF_MNT_CACHE_STORE:
		/* Only for confine-init, which detaches it: never without helper mode. */
		if (fds->by_helper)
			bad |= ARGS("--bind-fd", FD(fds->source[i]), m->path);
		break;
	case CF_MNT_CACHE_OVERLAY:
		/* the mask maker's (helper mode); a plan is made with overlays only when it
		 * runs in that mode. */
		break;
	case CF_MNT_INJECT_DIR:
		snprintf(size, sizeof(size), "%llu", (unsigned long long)m->size);
		bad |= ARGS("--perms", "0755", "--size", size, "--tmpfs", m->path);
		break;
	}
	return bad;
}

/* The options of confine-init (src/helper), after bwrap's "--": its descriptors and modes. */
static int helper_args(const struct cf_plan *plan, const struct cf_bwrap_fds *fds,
		       struct cf_strv *out)
{
	/* The helper runs as pid 1 from an inherited descriptor, so it needs no mount point and
	 * stays reachable even when its installation directory is hidden. */
	char helper[64];
	snprintf(helper, sizeof(helper), "/proc/self/fd/%d", fds->helper);
	int bad =
	    ARGS("--", helper, "--status-fd", FD(fds->status), "--stderr-fd", FD(fds->stderr_fd));
	if (fds->go >= 0)
		bad |= ARGS("--go-fd", FD(fds->go));
	if (fds->env >= 0)
		bad |= ARGS("--env-fd", FD(fds->env));
	if (plan->ipc_guard && fds->ipc >= 0 && fds->ipc_filter >= 0)
		bad |= ARGS("--ipc-fd", FD(fds->ipc), "--ipc-filter-fd", FD(fds->ipc_filter));
	if (fds->pty_mask) {
		char mask[16];
		snprintf(mask, sizeof(mask), "%u", fds->pty_mask);
		bad |= ARGS("--pty-fd", FD(fds->pty), "--pty-mask", mask);
	}
	if (plan->landlock_abi >= 6)
		bad |= ARGS("--landlock");
	/* SPEC 12: confine-init relays 127.0.0.1 of the sandbox to the proxy's sockets. */
	if (plan->net_mode == CONFINE_NET_DOMAINS)
		bad |= ARGS("--net-relay");
	return bad;
}

int cf_bwrap_argv(const struct cf_plan *plan, const struct cf_bwrap_fds *fds, struct cf_strv *out,
		  struct confine_error *err)
{
	int bad = 0;
	for (size_t i = 0; cf_bwrap_process_flags[i]; i++)
		bad |= ARGS(cf_bwrap_process_flags[i]);
	if (!plan->network)
		bad |= ARGS("--unshare-net");
	for (size_t i = 0; i < plan->n_mounts; i++)
		if (!(fds->skip && fds->skip[i]) && !(fds->by_helper && fds->by_helper[i]))
			bad |= mount_args(plan, fds, i, out);
	if (fds->seccomp >= 0)
		bad |= ARGS("--add-seccomp-fd", FD(fds->seccomp));
	if (fds->info >= 0)
		bad |= ARGS("--info-fd", FD(fds->info));
	bad |= ARGS("--chdir", plan->cwd);
	/* bwrap reads options only from --args; the command follows on its real argv. */
	bad |= ARGS(CF_BWRAP_ARGS_END);
	bad |= helper_args(plan, fds, out);
	bad |= ARGS("--");
	for (size_t i = 0; i < plan->argv.n; i++)
		bad |= ARGS(plan->argv.v[i]);
	return bad ? cf_nomem(err) : 0;
}

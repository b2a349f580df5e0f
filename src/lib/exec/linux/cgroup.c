/* SPDX-License-Identifier: MIT */
/*
 * cgroup limits.  A unified (v2) host gets one cgroup with pids.max and memory.max; a host with
 * the legacy (v1) hierarchies gets one cgroup in each of the pids and memory hierarchies.  The
 * new cgroup sits beside confine's own (v2: processes may live only in leaves, and confine's
 * own cgroup has confine in it) or below it (v1 has no such rule).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exec/linux/cgroup.h"
#include "util/util.h"

static int read_file(const char *path, char *buf, size_t cap)
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

static int write_file(const char *dir, const char *name, const char *value)
{
	char path[4200];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ssize_t n = write(fd, value, strlen(value));
	int e = errno;
	close(fd);
	return n < 0 ? -e : 0;
}

/* The caller's cgroup path in the hierarchy whose /proc/self/cgroup line ends in ":NAME:"
 * (v1 controller list containing name) or "0::" (v2, name NULL). */
static char *own_path(const char *controller)
{
	char buf[4096];
	if (read_file("/proc/self/cgroup", buf, sizeof(buf)) < 0)
		return NULL;
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
			return cf_strdup(c2 + 1);
	}
	return NULL;
}

static bool is_v2(void)
{
	struct stat st;
	return stat("/sys/fs/cgroup/cgroup.controllers", &st) == 0;
}

static int make_dir(struct cf_cgroup *cg, const char *base, struct confine_error *err)
{
	char *dir = cf_asprintf("%s/confine-%d", base, (int)getpid());
	if (!dir)
		return cf_nomem(err);
	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		int e = errno;
		cf_err_os(err, CONFINE_E_LIMIT, "cannot create a cgroup for --limit", dir, "mkdir",
			  e);
		cf_err_hint(err, "limits need root or a delegated cgroup subtree; run without "
				 "--limit, or as root");
		free(dir);
		return CONFINE_E_LIMIT;
	}
	cg->dir[cg->n] = dir;
	char procs[4200];
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", dir);
	cg->procs[cg->n] = open(procs, O_WRONLY | O_CLOEXEC);
	cg->n++;
	if (cg->procs[cg->n - 1] < 0)
		return cf_err_os(err, CONFINE_E_LIMIT, "cannot use the cgroup for --limit", procs,
				 "open", errno);
	return 0;
}

static int set_limit(const struct cf_cgroup *cg, int i, const char *file, uint64_t value,
		     struct confine_error *err)
{
	char v[32];
	snprintf(v, sizeof(v), "%llu", (unsigned long long)value);
	int r = write_file(cg->dir[i], file, v);
	if (r < 0)
		return cf_err_os(err, CONFINE_E_LIMIT, "cannot set the limit", file, "write", -r);
	return 0;
}

int cf_cgroup_create(uint64_t pids_max, uint64_t mem_max, struct cf_cgroup *cg,
		     struct confine_error *err)
{
	int r = 0;
	char *own = NULL, *base = NULL;
	*cg = (struct cf_cgroup)CF_CGROUP_INIT;

	if (is_v2()) {
		own = own_path(NULL);
		if (!own) {
			r = cf_err(err, CONFINE_E_LIMIT, "cannot enforce --limit",
				   "/proc/self/cgroup", "this process's cgroup is unknown");
			goto out;
		}
		/* Beside our own cgroup: v2 keeps processes in leaves only. */
		char *parent = cf_path_dirname(own);
		base = parent ? cf_asprintf("/sys/fs/cgroup%s", strcmp(parent, "/") ? parent : "")
			      : NULL;
		free(parent);
		if (!base)
			goto oom;
		char ctl[256];
		if (read_file(base[0] ? cf_asprintf("%s/cgroup.subtree_control", base) : NULL, ctl,
			      sizeof(ctl)) < 0)
			ctl[0] = '\0';
		if ((r = make_dir(cg, base, err)) < 0)
			goto out;
		if (pids_max && (r = set_limit(cg, 0, "pids.max", pids_max, err)) < 0)
			goto out;
		if (mem_max && (r = set_limit(cg, 0, "memory.max", mem_max, err)) < 0)
			goto out;
		if (mem_max)
			(void)set_limit(cg, 0, "memory.swap.max", 0, NULL);
		goto out;
	}

	/* v1: a cgroup in each hierarchy that carries a limit. */
	const char *ctrl[2] = {"pids", "memory"};
	uint64_t want[2] = {pids_max, mem_max};
	const char *file[2] = {"pids.max", "memory.limit_in_bytes"};
	for (int i = 0; i < 2; i++) {
		if (!want[i])
			continue;
		free(own);
		free(base);
		own = own_path(ctrl[i]);
		base =
		    own ? cf_asprintf("/sys/fs/cgroup/%s%s", ctrl[i], strcmp(own, "/") ? own : "")
			: NULL;
		if (!base) {
			r = cf_err(err, CONFINE_E_LIMIT, "cannot enforce --limit", ctrl[i],
				   "this host has no %s cgroup controller", ctrl[i]);
			goto out;
		}
		if ((r = make_dir(cg, base, err)) < 0)
			goto out;
		if ((r = set_limit(cg, cg->n - 1, file[i], want[i], err)) < 0)
			goto out;
	}
	goto out;
oom:
	r = cf_nomem(err);
out:
	free(own);
	free(base);
	if (r < 0)
		cf_cgroup_destroy(cg);
	return r;
}

int cf_cgroup_enter(const struct cf_cgroup *cg)
{
	for (int i = 0; i < cg->n; i++)
		if (write(cg->procs[i], "0", 1) != 1)
			return -1;
	return 0;
}

void cf_cgroup_destroy(struct cf_cgroup *cg)
{
	for (int i = 0; i < cg->n; i++) {
		if (cg->procs[i] >= 0)
			close(cg->procs[i]);
		/* Every process has left when the sandbox's pid 1 is gone; a straggler still
		 * being torn down keeps the directory busy for a moment. */
		for (int tries = 0; cg->dir[i] && tries < 50; tries++) {
			if (rmdir(cg->dir[i]) == 0 || errno != EBUSY)
				break;
			usleep(2000);
		}
		free(cg->dir[i]);
	}
	*cg = (struct cf_cgroup)CF_CGROUP_INIT;
}

bool cf_cgroup_available(void)
{
	char *own = own_path(is_v2() ? NULL : "pids");
	if (!own)
		return false;
	char *parent = is_v2() ? cf_path_dirname(own) : cf_strdup(own);
	char *base = parent ? cf_asprintf("/sys/fs/cgroup%s%s", is_v2() ? "" : "/pids",
					  strcmp(parent, "/") ? parent : "")
			    : NULL;
	bool ok = base && access(base, W_OK) == 0;
	free(own);
	free(parent);
	free(base);
	return ok;
}

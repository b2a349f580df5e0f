/* SPDX-License-Identifier: MIT */
/*
 * cgroup limits.  A unified (v2) host gets one cgroup with pids.max and memory.max; a host with
 * the legacy (v1) hierarchies gets one cgroup in each of the pids and memory hierarchies.  The
 * new cgroup always sits below confine's own, so that every limit the caller lives under
 * (a CI job's memory.max, a systemd slice) applies to the sandbox as well.  v2 lets only a
 * cgroup without processes of its own give its children controllers ("no internal
 * processes"): when confine is alone in its cgroup it moves into a leaf of it first (what any
 * delegated cgroup manager does) and moves back afterwards; when other processes share its
 * cgroup it refuses, with the remedy.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exec/linux/cgroup.h"
#include "host/kernel.h"
#include "util/util.h"

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

/* Cgroups left by a confine that was killed before it could remove them (SIGKILL): confine-PID-N
 * (and confine-PID.self) whose PID is gone and that hold no process.  Best effort. */
static void sweep_stale(const char *base)
{
	DIR *d = opendir(base);
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d))) {
		char *end;
		if (strncmp(de->d_name, "confine-", 8))
			continue;
		long pid = strtol(de->d_name + 8, &end, 10);
		if (pid <= 0 || (*end && *end != '-' && strcmp(end, ".self")) ||
		    pid == (long)getpid())
			continue;
		if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue; /* alive (or not ours to judge) */
		char path[4200];
		snprintf(path, sizeof(path), "%s/%s", base, de->d_name);
		rmdir(path); /* fails while it still holds a process: left for later */
	}
	closedir(d);
}

static int make_dir(struct cf_cgroup *cg, const char *base, struct confine_error *err)
{
	/* One per run, confine-PID-N: runs of one process at once (a host's threads) each have
	 * their own, which the end of another run neither kills nor removes. */
	static atomic_uint runs;
	sweep_stale(base);
	char *dir =
	    cf_asprintf("%s/confine-%d-%u", base, (int)getpid(), atomic_fetch_add(&runs, 1) + 1);
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

/* The controllers of `want` ("pids", "memory") missing from dir's subtree_control, enabled;
 * what was enabled goes to cg->enabled so that destroy can disable it again. */
static int enable_controllers(struct cf_cgroup *cg, const char *dir, const char *const *want,
			      size_t n, struct confine_error *err)
{
	char path[4200], have[512];
	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", dir);
	if (cf_kernel_read(path, have, sizeof(have)) < 0)
		have[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		char tok[40];
		snprintf(tok, sizeof(tok), " %s ", want[i]);
		char padded[520];
		snprintf(padded, sizeof(padded), " %s ", have);
		for (char *c = padded; *c; c++)
			if (*c == '\n')
				*c = ' ';
		if (strstr(padded, tok))
			continue;
		char v[40];
		snprintf(v, sizeof(v), "+%s", want[i]);
		int r = write_file(dir, "cgroup.subtree_control", v);
		if (r < 0)
			return cf_err_os(err, CONFINE_E_LIMIT, "cannot enforce --limit", path,
					 "write", -r);
		size_t used = strlen(cg->enabled);
		snprintf(cg->enabled + used, sizeof(cg->enabled) - used, "%s%s", used ? " " : "",
			 want[i]);
	}
	return 0;
}

static int create_v2(uint64_t pids_max, uint64_t mem_max, struct cf_cgroup *cg,
		     struct confine_error *err)
{
	int r = 0;
	char *own = cf_cgroup_own_path(NULL), *base = NULL;
	if (!own) {
		r = cf_err(err, CONFINE_E_LIMIT, "cannot enforce --limit", "/proc/self/cgroup",
			   "this process's cgroup is unknown");
		goto out;
	}
	base = cf_asprintf("/sys/fs/cgroup%s", strcmp(own, "/") ? own : "");
	if (!base)
		goto oom;
	const char *want[2];
	size_t nw = 0;
	if (pids_max)
		want[nw++] = "pids";
	if (mem_max)
		want[nw++] = "memory";
	char ctlpath[4200], ctl[512];
	snprintf(ctlpath, sizeof(ctlpath), "%s/cgroup.controllers", base);
	if (cf_kernel_read(ctlpath, ctl, sizeof(ctl)) < 0)
		ctl[0] = '\0';
	for (size_t i = 0; i < nw; i++) {
		if (strstr(ctl, want[i]))
			continue;
		ctl[strcspn(ctl, "\n")] = '\0'; /* not strtok: it keeps its place in the process */
		r = cf_err(err, CONFINE_E_LIMIT, "cannot enforce --limit", want[i],
			   "the cgroup v2 hierarchy offers no %s controller to confine's cgroup "
			   "'%s' (it offers: %s)",
			   want[i], own, ctl[0] ? ctl : "none");
		cf_err_hint(err, "the controller is bound to a legacy (v1) hierarchy or not "
				 "delegated to this cgroup; run without --limit, or delegate it");
		goto out;
	}
	/* The root cgroup may hold processes and children with controllers at once. */
	if (strcmp(own, "/")) {
		if (!cf_cgroup_alone_in(base)) {
			r = cf_err(
			    err, CONFINE_E_LIMIT, "cannot enforce --limit", base,
			    "other processes share confine's cgroup, and cgroup v2 gives "
			    "controllers only to the children of a cgroup without processes");
			cf_err_hint(err, "start confine in a cgroup of its own with a delegated "
					 "subtree, e.g. systemd-run --user --scope -p Delegate=yes "
					 "confine run --limit ...");
			goto out;
		}
		if (!(cg->self = cf_asprintf("%s/confine-%d.self", base, (int)getpid())))
			goto oom;
		if (mkdir(cg->self, 0755) < 0) {
			r = cf_err_os(err, CONFINE_E_LIMIT, "cannot create a cgroup for --limit",
				      cg->self, "mkdir", errno);
			cf_err_hint(err, "limits need root or a delegated cgroup subtree; run "
					 "without --limit, or as root");
			free(cg->self);
			cg->self = NULL;
			goto out;
		}
		int w = write_file(cg->self, "cgroup.procs", "0");
		if (w < 0) {
			r = cf_err_os(err, CONFINE_E_LIMIT, "cannot enforce --limit", cg->self,
				      "write cgroup.procs", -w);
			goto out;
		}
		cg->own = base;
		base = NULL;
	}
	if ((r = enable_controllers(cg, cg->own ? cg->own : base, want, nw, err)) < 0 ||
	    (r = make_dir(cg, cg->own ? cg->own : base, err)) < 0)
		goto out;
	if (pids_max && (r = set_limit(cg, 0, "pids.max", pids_max, err)) < 0)
		goto out;
	if (mem_max && (r = set_limit(cg, 0, "memory.max", mem_max, err)) < 0)
		goto out;
	if (mem_max)
		(void)set_limit(cg, 0, "memory.swap.max", 0, NULL);
	goto out;
oom:
	r = cf_nomem(err);
out:
	free(own);
	free(base);
	return r;
}

int cf_cgroup_create(uint64_t pids_max, uint64_t mem_max, struct cf_cgroup *cg,
		     struct confine_error *err)
{
	int r = 0;
	char *own = NULL, *base = NULL;
	*cg = (struct cf_cgroup)CF_CGROUP_INIT;

	if (cf_cgroup_v2()) {
		r = create_v2(pids_max, mem_max, cg, err);
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
		own = cf_cgroup_own_path(ctrl[i]);
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
		/* Every process has been killed when the sandbox's pid 1 is gone, but on a busy
		 * machine the last ones can take a while to be torn down; the directory stays
		 * busy until then.  Up to 10 s, then it is left for the next start's sweep. */
		for (int tries = 0; cg->dir[i] && tries < 1000; tries++) {
			if (rmdir(cg->dir[i]) == 0 || errno != EBUSY)
				break;
			usleep(tries < 50 ? 2000 : 10000);
		}
		free(cg->dir[i]);
	}
	/* v2: back to where confine came from, as it was. */
	if (cg->own) {
		if (cg->enabled[0]) {
			char v[48];
			for (char *save = NULL, *c = strtok_r(cg->enabled, " ", &save); c;
			     c = strtok_r(NULL, " ", &save)) {
				snprintf(v, sizeof(v), "-%s", c);
				(void)write_file(cg->own, "cgroup.subtree_control", v);
			}
		}
		(void)write_file(cg->own, "cgroup.procs", "0");
	}
	if (cg->self)
		rmdir(cg->self);
	free(cg->own);
	free(cg->self);
	*cg = (struct cf_cgroup)CF_CGROUP_INIT;
}

int cf_cgroup_create_tracking(struct cf_cgroup *cg, struct confine_error *err)
{
	*cg = (struct cf_cgroup)CF_CGROUP_INIT;
	if (cf_cgroup_v2())
		return create_v2(0, 0, cg, err);
	char *own = cf_cgroup_own_path("pids");
	char *base = own ? cf_asprintf("/sys/fs/cgroup/pids%s", strcmp(own, "/") ? own : "") : NULL;
	int r = base ? make_dir(cg, base, err)
		     : cf_err(err, CONFINE_E_LIMIT, "cannot create a cgroup", "pids",
			      "this host has no pids cgroup hierarchy");
	free(own);
	free(base);
	if (r < 0)
		cf_cgroup_destroy(cg);
	return r;
}

/* The pids listed in dir/cgroup.procs, killed; returns how many there were. */
static int kill_listed(const char *dir)
{
	char path[4200], buf[8192];
	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	int n = cf_kernel_read(path, buf, sizeof(buf));
	if (n <= 0)
		return 0;
	int found = 0;
	for (char *save = NULL, *line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		long pid = strtol(line, NULL, 10);
		if (pid > 1 && pid != (long)getpid()) {
			kill((pid_t)pid, SIGKILL);
			found++;
		}
	}
	return found;
}

void cf_cgroup_kill(const struct cf_cgroup *cg)
{
	for (int i = 0; i < cg->n; i++) {
		if (!cg->dir[i])
			continue;
		/* cgroup.kill (v2, Linux 5.14) kills the whole cgroup at once, new forks
		 * included; elsewhere every listed pid, again until none is left (a fork between
		 * the read and the kill adds one more round). */
		if (write_file(cg->dir[i], "cgroup.kill", "1") == 0)
			continue;
		for (int round = 0; round < 100 && kill_listed(cg->dir[i]) > 0; round++)
			usleep(1000);
	}
}

/* The number after "KEY " on a line of dir/name, added to *out. */
static void add_counter(const char *dir, const char *name, const char *key, uint64_t *out)
{
	char path[4200], buf[1024];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (cf_kernel_read(path, buf, sizeof(buf)) < 0)
		return;
	size_t kl = strlen(key);
	for (char *save = NULL, *line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, key, kl) || line[kl] != ' ')
			continue;
		*out += strtoull(line + kl + 1, NULL, 10);
		return;
	}
}

void cf_cgroup_counts(const struct cf_cgroup *cg, struct cf_cgroup_counts *out)
{
	*out = (struct cf_cgroup_counts){0};
	for (int i = 0; i < cg->n; i++) {
		if (!cg->dir[i])
			continue;
		/* v2 holds both in one cgroup; v1 one hierarchy each (the other file is absent). */
		add_counter(cg->dir[i], "memory.events", "oom_kill", &out->oom_kills);
		add_counter(cg->dir[i], "memory.events", "oom", &out->mem_limit);
		add_counter(cg->dir[i], "memory.oom_control", "oom_kill", &out->oom_kills);
		add_counter(cg->dir[i], "pids.events", "max", &out->pids_max);
		char path[4200], buf[32];
		snprintf(path, sizeof(path), "%s/memory.failcnt", cg->dir[i]);
		if (cf_kernel_read(path, buf, sizeof(buf)) > 0)
			out->mem_limit += strtoull(buf, NULL, 10);
	}
}

bool cf_cgroup_memory_hit(const struct cf_cgroup *cg)
{
	struct cf_cgroup_counts c;
	uint64_t max = 0;
	cf_cgroup_counts(cg, &c);
	/* v2's "max" too: a charge refused at the limit (a kernel allocation failing with ENOMEM
	 * in the sandbox's setup), with no OOM kill to count. */
	for (int i = 0; i < cg->n; i++)
		if (cg->dir[i])
			add_counter(cg->dir[i], "memory.events", "max", &max);
	return c.mem_limit > 0 || max > 0;
}

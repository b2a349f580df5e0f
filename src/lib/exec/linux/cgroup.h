/* SPDX-License-Identifier: MIT */
/*
 * Resource limits through a cgroup of confine's own (issue: pids.max and memory limits where the
 * host allows).  cgroup v2 (a writable subtree) or the v1 pids and memory hierarchies.  Touches
 * the OS.
 */
#ifndef CONFINE_CGROUP_H
#define CONFINE_CGROUP_H

#include <stdbool.h>
#include <stdint.h>

#include "confine.h"

struct cf_cgroup {
	char *dir[2]; /* one per hierarchy (v1 pids, v1 memory) or one (v2) */
	int procs[2]; /* O_WRONLY cgroup.procs of each, close-on-exec */
	int n;
	/* v2, when confine had to leave its own cgroup so that it could have children with
	 * controllers: the cgroup it came from, the leaf it moved into, and the controllers it
	 * enabled there (all undone by cf_cgroup_destroy). */
	char *own, *self;
	char enabled[32];
};

#define CF_CGROUP_INIT                                                                             \
	{                                                                                          \
		{NULL, NULL}, {-1, -1}, 0, NULL, NULL, ""                                          \
	}

/* Creates a cgroup limited to pids_max processes (0: no limit) and mem_max bytes (0: no
 * limit).  Fails with CONFINE_E_LIMIT and a hint when this host does not let confine create
 * one: a limit that cannot be enforced is refused, never pretended. */
int cf_cgroup_create(uint64_t pids_max, uint64_t mem_max, struct cf_cgroup *cg,
		     struct confine_error *err);

/* A cgroup without limits, only to find every process of the sandbox again at the end (the
 * landlock backend has no pid namespace that would end them).  CONFINE_E_LIMIT when the host
 * does not let confine create one. */
int cf_cgroup_create_tracking(struct cf_cgroup *cg, struct confine_error *err);

/* Kills every process in the cgroup (SIGKILL), new forks included.  Touches the OS. */
void cf_cgroup_kill(const struct cf_cgroup *cg);

/* In a child after fork: moves the calling process into the cgroup.  Async-signal-safe. */
int cf_cgroup_enter(const struct cf_cgroup *cg);

/* What the kernel counted against the cgroup's limits, read before it is removed. */
struct cf_cgroup_counts {
	uint64_t oom_kills; /* processes the OOM killer ended in it (memory.events oom_kill;
			     * v1: memory.oom_control oom_kill) */
	uint64_t mem_limit; /* times its own memory limit was reached (memory.events oom; v1:
			     * memory.failcnt): the OOM kills were the limit's, not a shortage
			     * of the whole machine */
	uint64_t pids_max;  /* forks refused at pids.max (pids.events max) */
};

/* Reads the counters of the cgroup's memory and pids files (0 where a file is missing).
 * Touches the OS. */
void cf_cgroup_counts(const struct cf_cgroup *cg, struct cf_cgroup_counts *out);

/* Removes the cgroup (after every process in it has exited) and closes its descriptors. */
void cf_cgroup_destroy(struct cf_cgroup *cg);

/* Whether the cgroup's memory limit was reached (an allocation refused or a process killed
 * for it) since it was made: memory.events on v2, memory.failcnt on v1. */
bool cf_cgroup_memory_hit(const struct cf_cgroup *cg);

#endif

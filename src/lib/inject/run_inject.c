/* SPDX-License-Identifier: MIT */
/*
 * Injections of a Linux run (SPEC 6, R21): hashed, placed in the plan, sealed in memfds, and
 * their pointer variables set last (SPEC 5).
 *
 * Order: the content's hashes first (pure), then the placement (pure, host facts only), so
 * that a target that cannot be placed is refused before any memfd exists; then each content
 * is sealed into a memfd and checked to hash the same from the memfd itself.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "inject/hash.h"
#include "inject/memfd.h"
#include "inject/run_inject.h"
#include "request.h"
#include "util/util.h"

void cf_run_inject_release(confine_run *run)
{
	for (size_t i = 0; i < run->n_inject_fds; i++)
		if (run->inject_fds[i] >= 0)
			close(run->inject_fds[i]);
	free(run->inject_fds);
	free(run->inject_info);
	run->inject_fds = NULL;
	run->inject_info = NULL;
	run->n_inject_fds = 0;
	for (size_t i = 0; run->inject_where && i < run->n_inject_in; i++)
		free(run->inject_where[i]);
	free(run->inject_where);
	free(run->inject_hash);
	free(run->inject_in);
	run->inject_where = NULL;
	run->inject_hash = NULL;
	run->inject_in = NULL;
	run->n_inject_in = 0;
	cf_injects_release(&run->inject_extra);
}

/* NAME=PATH, replacing every earlier NAME= of the environment: the pointer always wins. */
static int set_pointer(struct cf_strv *env, const char *name, const char *path)
{
	size_t nl = strlen(name), j = 0;
	for (size_t i = 0; i < env->n; i++) {
		if (!strncmp(env->v[i], name, nl) && env->v[i][nl] == '=')
			free(env->v[i]);
		else
			env->v[j++] = env->v[i];
	}
	env->n = j;
	char *kv = cf_asprintf("%s=%s", name, path);
	return kv ? cf_strv_take(env, kv) : -1;
}

/* The request's injections, then the run's own (R45: the trust bundle of TLS inspection). */
static size_t n_all(const confine_run *run, const confine_request *req)
{
	return req->injects.n + run->inject_extra.n;
}

static const struct cf_inject *nth(const confine_run *run, const confine_request *req, size_t i)
{
	return i < req->injects.n ? &req->injects.v[i] : &run->inject_extra.v[i - req->injects.n];
}

/* What the plan needs of each injection, kept by the run: the plan is made again when the
 * workspace changed under it (R34), after the request may be gone. */
int cf_run_inject_inputs(confine_run *run, const confine_request *req, struct confine_error *err)
{
	size_t n = n_all(run, req);
	if (n == 0)
		return 0; /* nothing at all: no memfd, no mount, no variable */
	run->inject_in = calloc(n, sizeof(*run->inject_in));
	run->inject_hash = calloc(n, sizeof(*run->inject_hash));
	run->inject_where = calloc(n, sizeof(*run->inject_where));
	if (!run->inject_in || !run->inject_hash || !run->inject_where)
		return cf_nomem(err);
	for (size_t i = 0; i < n; i++) {
		const struct cf_inject *v = nth(run, req, i);
		cf_blake3_hex(v->data, v->len, run->inject_hash[i]);
		if (!(run->inject_where[i] = cf_strdup(v->where)))
			return cf_nomem(err);
		run->inject_in[i] = (struct cf_plan_inject_in){.placement = v->placement,
							       .where = run->inject_where[i],
							       .hash = run->inject_hash[i],
							       .size = v->len};
	}
	run->n_inject_in = n;
	return 0;
}

/* The records confine_run_injection returns point into the plan's own list. */
static void describe(confine_run *run, const struct cf_plan *plan)
{
	for (size_t i = 0; run->inject_info && i < plan->n_injects; i++) {
		const struct cf_plan_inject *p = &plan->injects[i];
		run->inject_info[i] = (struct confine_injection){
		    .size = sizeof(struct confine_injection),
		    .placement = p->placement,
		    .where = p->where,
		    .path = p->path,
		    .blake3 = p->hash,
		    .record = p->record,
		    .bytes = p->size,
		};
	}
}

int cf_run_inject_place(confine_run *run, struct cf_plan *plan, struct confine_error *err)
{
	if (!run->n_inject_in)
		return 0;
	int r = cf_plan_add_injections(plan, &run->host, run->inject_in, run->n_inject_in, err);
	if (r == 0)
		describe(run, plan);
	return r;
}

int cf_run_inject_seal(confine_run *run, const confine_request *req, struct confine_error *err)
{
	size_t n = n_all(run, req);
	int r = 0;
	if (!run->n_inject_in)
		return 0;
	run->inject_fds = malloc(n * sizeof(int));
	run->inject_info = calloc(n, sizeof(*run->inject_info));
	if (!run->inject_fds || !run->inject_info)
		goto oom;
	for (size_t i = 0; i < n; i++) {
		const struct cf_plan_inject *p = &run->plan.injects[i];
		const struct cf_inject *v = nth(run, req, i);
		char got[CF_HASH_HEX];
		int fd = cf_inject_memfd(p->record, v->data, v->len, p->hash, got, err);
		if (fd < 0) {
			r = fd;
			goto out;
		}
		run->inject_fds[run->n_inject_fds++] = fd;
		if (strcmp(got, p->hash)) {
			/* cf_inject_memfd compared it with the content already; kept as the
			 * invariant the plan's records rely on. */
			r = cf_err(err, CONFINE_E_SPAWN, "integrity check failed", p->record,
				   "the sealed copy hashes to %s", got);
			goto out;
		}
		if (p->placement == CONFINE_INJECT_ENV &&
		    set_pointer(&run->plan.env, p->where, p->path) < 0)
			goto oom;
	}
	describe(run, &run->plan);
	r = 0;
	goto out;
oom:
	r = cf_nomem(err);
out:
	if (r < 0)
		cf_run_inject_release(run);
	return r;
}

const struct confine_injection *cf_run_injection_list(const confine_run *run, size_t *n)
{
	*n = run->inject_info ? run->plan.n_injects : 0;
	return *n ? run->inject_info : NULL;
}

int cf_run_inject_check_policy(const confine_run *run, struct confine_error *err)
{
	if (run->policy != CONFINE_POLICY_OFF || !run->plan.n_injects)
		return 0;
	cf_err(err, CONFINE_E_INVALID, "read-only file injection refused",
	       run->plan.injects[0].record,
	       "the sandbox policy is off, and without a sandbox nothing keeps the command (or "
	       "anyone else) from changing the file (SPEC 4)");
	cf_err_hint(err, "run with the sandbox (policy required), or without the injections");
	return CONFINE_E_INVALID;
}

int cf_run_inject_fds(const confine_run *run, int *data, struct confine_error *err)
{
	for (size_t i = 0; i < run->plan.n_mounts; i++)
		data[i] = -1;
	for (size_t i = 0; i < run->plan.n_mounts; i++) {
		const struct cf_mount *m = &run->plan.mounts[i];
		if (m->op != CF_MNT_INJECT && m->op != CF_MNT_INJECT_FILE)
			continue;
		const char *label = run->plan.injects[m->inject].record;
		if ((data[i] = cf_inject_memfd_reader(run->inject_fds[m->inject], label, err)) < 0)
			return CONFINE_E_OS;
	}
	return 0;
}

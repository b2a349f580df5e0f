/* SPDX-License-Identifier: MIT */
/*
 * The macOS executor's injections (SPEC 6, R21): each content becomes a scratch file of the
 * snapshot module (inject/snapshot.c: a private 0700 directory, O_CREAT|O_EXCL|O_NOFOLLOW 0600,
 * re-read and compared with its BLAKE3), which the profile allows to read by its literal path
 * and denies to write; the directory cannot be renamed or removed from inside either (the
 * compiler's chains).  POSIX only, so it is built and tested on Linux too (test-mac-inject).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/macos/inject.h"
#include "inject/snapshot.h"
#include "request.h"
#include "util/util.h"

struct state {
	struct cf_snapshot_dir dir;
	char **names;	/* variable names (copies) */
	char **targets; /* fixed-path targets (copies) */
	char **paths;	/* scratch paths */
	size_t n;
};

static void state_free(struct state *st)
{
	if (!st)
		return;
	cf_snapshot_dir_remove(&st->dir, NULL);
	for (size_t i = 0; i < st->n; i++) {
		free(st->names[i]);
		free(st->targets[i]);
		free(st->paths[i]);
	}
	free(st->names);
	free(st->targets);
	free(st->paths);
	free(st);
}

int cf_mac_snapshots_create(const confine_request *req, const char *tmpdir,
			    struct cf_mac_snapshots *out, struct confine_error *err)
{
	const struct cf_injects *l = &req->injects;
	struct state *st = NULL;
	int r = 0;
	memset(out, 0, sizeof(*out));
	if (l->n == 0)
		return 0; /* nothing at all: no directory */
	st = calloc(1, sizeof(*st));
	if (!st)
		return cf_nomem(err);
	st->dir = (struct cf_snapshot_dir)CF_SNAPSHOT_DIR_INIT;
	st->names = calloc(l->n, sizeof(char *));
	st->targets = calloc(l->n, sizeof(char *));
	st->paths = calloc(l->n, sizeof(char *));
	out->v = calloc(l->n, sizeof(*out->v));
	if (!st->names || !st->targets || !st->paths || !out->v)
		goto oom;
	st->n = l->n;
	if ((r = cf_snapshot_dir_create(tmpdir, &st->dir, err)) < 0)
		goto out;
	for (size_t i = 0; i < l->n; i++) {
		const struct cf_inject *in = &l->v[i];
		if (in->placement != CONFINE_INJECT_ENV) {
			/* Handed on with no scratch file: the compiler refuses it, saying why. */
			if (!(st->targets[i] = cf_strdup(in->where)))
				goto oom;
			out->v[i] = (struct cf_mac_injection){.target = st->targets[i]};
			continue;
		}
		char hash[CF_HASH_HEX];
		char file[32];
		snprintf(file, sizeof(file), "i%zu", i);
		if (!(st->names[i] = cf_strdup(in->where)))
			goto oom;
		if ((r = cf_snapshot_write(&st->dir, file, in->data, in->len, hash, &st->paths[i],
					   err)) < 0 ||
		    (r = cf_snapshot_verify(&st->dir, file, hash, err)) < 0)
			goto out;
		out->v[i] =
		    (struct cf_mac_injection){.name = st->names[i], .scratch = st->paths[i]};
	}
	out->n = l->n;
	out->module = st;
	st = NULL;
	goto out;
oom:
	r = cf_nomem(err);
out:
	if (r < 0) {
		free(out->v);
		memset(out, 0, sizeof(*out));
	}
	state_free(st);
	return r;
}

void cf_mac_snapshots_release(struct cf_mac_snapshots *s)
{
	if (!s)
		return;
	state_free(s->module);
	free(s->v);
	memset(s, 0, sizeof(*s));
}

void cf_mac_snapshots_sweep(const char *tmpdir)
{
	cf_snapshot_sweep(tmpdir, NULL, NULL);
}

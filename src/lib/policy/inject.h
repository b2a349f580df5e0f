/* SPDX-License-Identifier: MIT */
/*
 * Read-only file injection (SPEC 6, R21): the list a request carries and its validation.  Pure:
 * every limit, name and target is checked here, before anything touches a file system; where
 * an injection lands on a given system is the planner's (plan/bwrap/inject.c) and the bytes are
 * sealed and hashed by the executor.
 */
#ifndef CONFINE_POLICY_INJECT_H
#define CONFINE_POLICY_INJECT_H

#include <stddef.h>
#include <stdint.h>

#include "confine.h"

/* The directory of the env-pointer files inside the sandbox (a read-only tmpfs of its own in
 * the private /tmp); fixed-path targets may not lie in it. */
#define CF_INJECT_ENV_DIR "/tmp/.confine-inject"

struct cf_inject {
	enum confine_inject_placement placement;
	char *where; /* NAME, or TARGET normalised */
	unsigned char *data;
	size_t len;
};

struct cf_injects {
	struct cf_inject *v;
	size_t n, cap;
	uint64_t total; /* bytes of all contents */
};

void cf_injects_release(struct cf_injects *l);

/* Whether NAME is a variable a loader, an interpreter or a shell acts on (LD_*, PATH,
 * BASH_ENV, ...): a pointer to a file the host chose must never be one.  Case-insensitive. */
bool cf_inject_name_reserved(const char *name);

/*
 * Validates one injection against the list (syntax, reserved names, duplicates, limits) and
 * appends a copy of it.  `where` is `where_len` bytes (a NUL inside is an error).  On error
 * the list is unchanged and err names the offending value.
 */
int cf_injects_add(struct cf_injects *l, enum confine_inject_placement placement, const char *where,
		   size_t where_len, const void *data, size_t len, struct confine_error *err);

/* The path of an env-pointer file inside the sandbox: CF_INJECT_ENV_DIR "/" NAME (malloc'd). */
char *cf_inject_env_path(const char *name);

/* "env:NAME=HASH" or "path:TARGET=HASH" (malloc'd), what audit records and reports list. */
char *cf_inject_record(enum confine_inject_placement placement, const char *where,
		       const char *hash);

#endif

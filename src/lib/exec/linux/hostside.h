/* SPDX-License-Identifier: MIT */
/*
 * What confine hands to the processes it starts outside the final sandbox (R35) and the lists
 * it gives confine-init by descriptor.  Linux only; touches the OS.
 *
 * R35: bwrap and confine-init's first stages run on the host or with privileges in the
 * sandbox's namespaces, before any restriction applies to them.  Whatever their environment
 * says, the dynamic loader and libc act on it (LD_PRELOAD, LD_LIBRARY_PATH, LD_AUDIT,
 * GCONV_PATH, LOCPATH, NLSPATH, MALLOC_*, GLIBC_TUNABLES, TMPDIR, TZDIR, HOSTALIASES,
 * RES_OPTIONS, and whatever a later glibc adds).  So they get an environment built from
 * nothing, cf_host_env, and the command's own environment travels in a sealed memfd that
 * confine-init applies at the command's execve alone: no list of dangerous names to keep up.
 */
#ifndef CONFINE_HOSTSIDE_H
#define CONFINE_HOSTSIDE_H

#include <stddef.h>

#include "confine.h"
#include "util/util.h"

/* The whole environment of every process confine starts outside the final sandbox: a fixed
 * PATH and the C locale (bwrap's messages stay in English for the classifier).  NULL-ended.
 * bwrap adds PWD, the run's working directory (the caller's choice), for confine-init. */
extern char *const cf_host_env[];

/* A new memfd (close-on-exec) holding `len` bytes of `data`, sealed against any change and
 * positioned at offset 0.  0 or a negative code; *out is the descriptor. */
int cf_sealed_memfd(const char *label, const void *data, size_t len, int *out,
		    struct confine_error *err);

/* The command's environment for confine-init --env-fd: each NAME=VALUE followed by a NUL. */
int cf_env_memfd(const struct cf_strv *env, int *out, struct confine_error *err);

#endif

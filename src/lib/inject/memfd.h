/* SPDX-License-Identifier: MIT */
/*
 * Injection content in a sealed memfd (SPEC 6, Linux): no file of it exists anywhere, and once
 * sealed nobody -- confine included -- can write, grow or shrink it, nor remove the seals.
 */
#ifndef CONFINE_INJECT_MEMFD_H
#define CONFINE_INJECT_MEMFD_H

#include <stddef.h>

#include "confine.h"
#include "inject/hash.h"

/* The seals every injection memfd carries. */
#define CF_INJECT_SEALS (F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL)

/*
 * Copies `len` bytes into a new memfd (close-on-exec), seals it, and hashes it again from the
 * memfd itself: the hash in `hash` is what the sandbox will see.  A difference from the hash of
 * `data` (`expected` when the caller computed it already, else computed here) -- something
 * wrote to the memfd before it was sealed, through /proc/PID/fd -- is "integrity check failed"
 * (CONFINE_E_SPAWN).  `label` names the injection in messages.  Returns the descriptor or a
 * negative CONFINE_E_* code.  Touches the OS.
 */
int cf_inject_memfd(const char *label, const void *data, size_t len, const char *expected,
		    char hash[CF_HASH_HEX], struct confine_error *err);

/* A fresh read-only descriptor of the memfd for one launch (its own offset, at 0), or -1 with
 * err filled.  Touches the OS. */
int cf_inject_memfd_reader(int memfd, const char *label, struct confine_error *err);

#endif

/* SPDX-License-Identifier: MIT */
/* BLAKE3 (SPEC 6): the official C implementation behind two small calls. */
#ifndef CONFINE_INJECT_HASH_H
#define CONFINE_INJECT_HASH_H

#include <stddef.h>

#include "confine.h"

/* 64 lower-case hex digits and a NUL. */
#define CF_HASH_HEX 65

/* The BLAKE3 of `len` bytes at `data`.  Pure. */
void cf_blake3_hex(const void *data, size_t len, char out[CF_HASH_HEX]);

/* The BLAKE3 of what descriptor `fd` holds from offset 0, read with pread (the offset of the
 * descriptor is left alone), or through a read-only mapping when it is a memfd sealed against
 * shrinking; *len is the number of bytes hashed.  Touches the OS. */
int cf_blake3_fd(int fd, char out[CF_HASH_HEX], size_t *len, struct confine_error *err);

#endif

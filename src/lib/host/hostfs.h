/* SPDX-License-Identifier: MIT */
#ifndef CONFINE_HOSTFS_H
#define CONFINE_HOSTFS_H

#include "host/facts.h"

/* The struct cf_host kind callback backed by the real file system (the canonicalize callback
 * is cf_host_canonicalize of host/canon.h).  Touches the OS. */
enum cf_kind cf_hostfs_kind(void *ctx, const char *path);
/* The kind of a file from its st_mode.  Pure. */
enum cf_kind cf_kind_of_mode(unsigned mode);
/* The kind of the entry `name` of the directory open at dirfd from its d_type, asking the file
 * system (without following a symlink) only where the type is DT_UNKNOWN; CF_KIND_MISSING when
 * it is gone by then.  Touches the OS. */
enum cf_kind cf_kind_of_entry(int dirfd, const char *name, unsigned char d_type);

#endif

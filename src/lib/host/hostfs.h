/* SPDX-License-Identifier: MIT */
#ifndef CONFINE_HOSTFS_H
#define CONFINE_HOSTFS_H

#include "plan/host.h"

/* The struct cf_host kind callback backed by the real file system (the canonicalize callback
 * is cf_host_canonicalize of host/canon.h).  Touches the OS. */
enum cf_kind cf_hostfs_kind(void *ctx, const char *path);
/* The kind of a file from its st_mode.  Pure. */
enum cf_kind cf_kind_of_mode(unsigned mode);

#endif

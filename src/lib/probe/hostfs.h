/* SPDX-License-Identifier: MIT */
#ifndef CONFINE_HOSTFS_H
#define CONFINE_HOSTFS_H

#include "plan/host.h"

/* struct cf_host callbacks backed by the real file system.  Touch the OS. */
enum cf_kind cf_hostfs_kind(void *ctx, const char *path);
int cf_hostfs_canonicalize(void *ctx, const char *path, char **out, struct confine_error *err);

#endif

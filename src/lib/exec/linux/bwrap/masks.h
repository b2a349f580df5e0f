/* SPDX-License-Identifier: MIT */
/* Helper mode's masks, made by confine in the sandbox's namespaces (masks.c). */
#ifndef CONFINE_EXEC_LINUX_MASKS_H
#define CONFINE_EXEC_LINUX_MASKS_H

#include <sys/types.h>

#include "exec/linux/helper_proto.h"

/*
 * Makes the mounts of the list on list_fd (plan/bwrap/args.c, cf_plan_helper_list) in the
 * sandbox whose pid 1 is `pid1` (its number on the host), from a child of this process joined
 * to the sandbox's first user namespace and to its mount namespace.  A transient endpoint that
 * is gone is marked CF_HELPER_LEFT_OUT in the list.  0; or -1 with *rec filled as confine-init
 * used to report it: CF_HELPER_CHANGED (a target is not what the plan saw; the path) or
 * CF_HELPER_MODE_FAIL (a call failed; "CALL\tPATH") or CF_HELPER_CACHE_FAIL (a tool cache's
 * overlay could not be made, R39; "CALL\tPATH"), value the errno.  Touches the OS.
 */
int cf_masks_make(pid_t pid1, int list_fd, struct cf_helper_record *rec);

#endif

/* SPDX-License-Identifier: MIT */
/* The landlock backend's supervised system calls (supervise_rules.c says which and why). */
#ifndef CONFINE_SUPERVISE_RULES_H
#define CONFINE_SUPERVISE_RULES_H

#include <stdbool.h>
#include <stdint.h>

#include "confine.h"

/* Adds the rules of `level` (CF_SUPERVISE_*, harden.h) to a libseccomp filter context
 * (scmp_filter_ctx): CF_SUPERVISE_PATHS adds the calls that open or make a directory entry
 * (pathguard.c), CF_SUPERVISE_READS the opens that could read a FIFO (opener.c). */
int cf_supervise_add_rules(void *ctx, int level, struct confine_error *err);

/* open(2) and openat(2): the calls whose flags say what an open may do, and the argument that
 * holds them. */
struct cf_supervise_open {
	const char *name;
	unsigned flags_arg;
};
#define CF_SUPERVISE_N_OPENS 2
extern const struct cf_supervise_open cf_supervise_opens[CF_SUPERVISE_N_OPENS];

/* The two SCMP_ACT_NOTIFY rules for `nr`, one of cf_supervise_opens with its `flags_arg`, that
 * send every open that could read an existing FIFO: a read without O_CREAT, a read with
 * O_CREAT but not O_EXCL; never O_PATH, O_DIRECTORY or a write access.  Flags are an int:
 * compared on their low 32 bits.  The landlock backend's opener (CF_SUPERVISE_READS) and the
 * bwrap backend's IPC guard send the same opens.  libseccomp's result (0 or minus an errno). */
int cf_supervise_add_read_rule(void *ctx, int nr, unsigned flags_arg);

enum cf_ioctl_fate {
	CF_IOCTL_DENY, /* EPERM */
	CF_IOCTL_META, /* to the supervisor: metaguard.c */
	CF_IOCTL_PTY,  /* to the supervisor: ptyguard.c */
};
struct cf_supervise_ioctl {
	uint32_t request;
	enum cf_ioctl_fate fate;
	const char *name;
};
#define CF_SUPERVISE_N_IOCTLS 15
extern const struct cf_supervise_ioctl cf_supervise_ioctls[CF_SUPERVISE_N_IOCTLS];

/* One line per rule, for --print-plan of a landlock run; a static string. */
const char *cf_supervise_describe(void);
/* The same for the opens: the path calls (the plan's broker) and the read-opens confine's
 * opener makes (R36); "" for neither. */
const char *cf_supervise_describe_paths(void);
const char *cf_supervise_describe_reads(void);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * Denial paths (SPEC 7.3, R23): up to five unique absolute paths named on lines of the
 * command's stderr that say "Permission denied", "Operation not permitted" or "Read-only file
 * system".  The command writes those lines, so they are claims, shown for display only; what
 * confine decides for each path is computed by confine (record/report.c).  Pure: fed the bytes
 * the tee passes through.
 */
#ifndef CONFINE_RECORD_DENIALS_H
#define CONFINE_RECORD_DENIALS_H

#include <stdbool.h>
#include <stddef.h>

#define CF_DENIALS_MAX 5
/* Lines longer than this are passed through but not looked at (binary output has no lines). */
#define CF_DENIAL_LINE_MAX 8192

struct cf_denials {
	char *path[CF_DENIALS_MAX];
	const char *says[CF_DENIALS_MAX]; /* the phrase of the line, static text */
	size_t n;
	bool oom;
	/* the line being read */
	char line[CF_DENIAL_LINE_MAX];
	size_t len;
	bool overflow;
};

/* Feeds bytes of the stream, in order.  Pure. */
void cf_denials_feed(struct cf_denials *d, const char *buf, size_t n);
/* The stream ended: looks at a last line without a newline. */
void cf_denials_finish(struct cf_denials *d);
void cf_denials_release(struct cf_denials *d);

/* The paths one line names, for the tests: appends to d as cf_denials_feed would. */
void cf_denials_line(struct cf_denials *d, const char *line, size_t len);

#endif

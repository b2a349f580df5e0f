/* SPDX-License-Identifier: MIT */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"

/* The CLI is one thread: a ring of the last escaped strings, so that several can go into one
 * printf. */
static char *ring[8];
static unsigned ring_at;

const char *cli_esc(const char *s, unsigned flags)
{
	char *e = NULL;
	if (confine_display_escape(s, flags, &e, NULL) < 0)
		return "(out of memory)";
	confine_free(ring[ring_at]);
	ring[ring_at] = e;
	ring_at = (ring_at + 1) % (sizeof(ring) / sizeof(ring[0]));
	return e;
}

const char *cli_q(const char *s)
{
	return cli_esc(s, CONFINE_DISPLAY_QUOTES);
}

void cli_report(const struct confine_error *err)
{
	const char *what = err->what[0] ? err->what : confine_strerror(err->code);
	if (err->subject[0])
		fprintf(stderr, "confine: %s: '%s'", cli_esc(what, 0), cli_q(err->subject));
	else
		fprintf(stderr, "confine: %s", cli_esc(what, 0));
	if (err->line > 0 && err->column > 0)
		fprintf(stderr, " (line %d, column %d)", err->line, err->column);
	else if (err->line > 0) /* a format of lines, which has no column to name */
		fprintf(stderr, " (line %d)", err->line);
	if (err->reason[0])
		fprintf(stderr, ": %s", cli_esc(err->reason, 0));
	fputc('\n', stderr);
	if (err->hint[0])
		fprintf(stderr, "hint: %s\n", cli_esc(err->hint, 0));
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	char msg[1024];
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* The message quotes what was given: escaped whole (its own quotes stay). */
	fprintf(stderr, "confine: invalid arguments: '%s': %s", cli_q(cmd), cli_esc(msg, 0));
	fprintf(stderr, "\nhint: see 'confine %s --help'\n", cli_q(cmd));
	return CLI_EXIT_CONFINE;
}

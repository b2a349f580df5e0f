/* SPDX-License-Identifier: MIT */
#include <stdarg.h>
#include <stdio.h>

#include "cli/cli.h"

void cli_report(const struct confine_error *err)
{
	const char *what = err->what[0] ? err->what : confine_strerror(err->code);
	if (err->subject[0])
		fprintf(stderr, "confine: %s: '%s'", what, err->subject);
	else
		fprintf(stderr, "confine: %s", what);
	if (err->line > 0)
		fprintf(stderr, " (line %d, column %d)", err->line, err->column);
	if (err->reason[0])
		fprintf(stderr, ": %s", err->reason);
	fputc('\n', stderr);
	if (err->hint[0])
		fprintf(stderr, "hint: %s\n", err->hint);
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "confine: invalid arguments: '%s': ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nhint: see 'confine %s --help'\n", cmd);
	return CLI_EXIT_CONFINE;
}

/* SPDX-License-Identifier: MIT */
/*
 * Write allows of missing paths (run_mkallow.c): created below the home or the workspace, one
 * component at a time, never through a symlink.  The caller finds the path missing, and another
 * process may make it before it is created: races.t's swapping directory did, and the creation
 * then read past the end of the path (ASan: heap-buffer-overflow in make_below).  Here the same
 * moment is reached without a race: the path is handed over as missing while it exists.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run_mkallow.h"
#include "../tap.h"

int main(void)
{
	char root[] = "/var/tmp/confine-mkallow.XXXXXX";
	if (!mkdtemp(root)) {
		perror("mkdtemp");
		return 1;
	}
	const char *roots[] = {root};
	char path[256], deep[256], via[256], outside[] = "/var/tmp";
	struct confine_error err;
	struct stat st;

	/* The path exists by the time it is created (another process made it). */
	snprintf(path, sizeof(path), "%s/made-meanwhile", root);
	mkdir(path, 0755);
	memset(&err, 0, sizeof(err));
	/* Sized as a rule's path is, so that ASan sees a read past its end. */
	char *exact = strdup(path);
	TAP_INTEQ(cf_host_make_missing(exact, roots, 1, true, &err), 0,
		  "a path that appeared since the check is taken as it is");
	free(exact);
	TAP_OK(stat(path, &st) == 0 && (st.st_mode & 07777) == 0755,
	       "... and left as it was (mode 0755)");

	/* A missing path two levels down: both made, 0700. */
	snprintf(deep, sizeof(deep), "%s/a/b", root);
	memset(&err, 0, sizeof(err));
	TAP_INTEQ(cf_host_make_missing(deep, roots, 1, true, &err), 0, "a missing path is created");
	TAP_OK(stat(deep, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 07777) == 0700,
	       "... as a directory, mode 0700");

	/* Without create: checked, nothing made. */
	snprintf(deep, sizeof(deep), "%s/c/d", root);
	memset(&err, 0, sizeof(err));
	TAP_INTEQ(cf_host_make_missing(deep, roots, 1, false, &err), 0, "a dry check passes");
	snprintf(path, sizeof(path), "%s/c", root);
	TAP_OK(lstat(path, &st) < 0 && errno == ENOENT, "... and creates nothing");

	/* A symlink on the way: refused, nothing made through it. */
	snprintf(via, sizeof(via), "%s/link", root);
	snprintf(path, sizeof(path), "%s/target", root);
	mkdir(path, 0700);
	if (symlink("target", via) < 0)
		perror("symlink");
	snprintf(deep, sizeof(deep), "%s/link/x", root);
	memset(&err, 0, sizeof(err));
	TAP_INTEQ(cf_host_make_missing(deep, roots, 1, true, &err), CONFINE_E_PLAN,
		  "a symlink on the way is refused");
	TAP_OK(strstr(err.reason, "a symlink") != NULL, "... saying so (%s)", err.reason);
	snprintf(path, sizeof(path), "%s/target/x", root);
	TAP_OK(lstat(path, &st) < 0 && errno == ENOENT, "... and nothing is created through it");

	/* The path itself is now a symlink (the swap's other half). */
	memset(&err, 0, sizeof(err));
	TAP_INTEQ(cf_host_make_missing(via, roots, 1, true, &err), CONFINE_E_PLAN,
		  "a path that became a symlink since the check is refused");

	/* Outside the roots: refused. */
	memset(&err, 0, sizeof(err));
	TAP_INTEQ(cf_host_make_missing(outside, roots, 1, true, &err), CONFINE_E_PLAN,
		  "a path outside the home and the workspace is refused");
	TAP_OK(err.hint[0] != '\0', "... with the remedy (%s)", err.hint);

	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", root);
	return tap_done();
}

/* SPDX-License-Identifier: MIT */
/* A run's workspace resolved (host/workspace.c): a directory through a symbolic link and by a
 * relative path, and the refusals of a missing path (with its hint), a file and a dangling
 * link, each naming the path as given. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host/workspace.h"
#include "util/util.h"
#include "../tap.h"

static char dir[] = "/tmp/test-workspace.XXXXXX";

static char *at(const char *name)
{
	char *p = cf_path_join(dir, name);
	if (!p)
		abort();
	return p;
}

static void refused(const char *given, const char *reason, const char *hint, bool resolved)
{
	struct confine_error err = {0};
	char *out = NULL;
	TAP_INTEQ(cf_workspace_resolve(given, &out, &err), CONFINE_E_WORKSPACE, "%s: refused",
		  reason);
	TAP_STREQ(err.what, "workspace refused", "%s: what failed", reason);
	TAP_STREQ(err.subject, given, "%s: the path as given", reason);
	TAP_STREQ(err.reason, reason, "%s: why", reason);
	TAP_STREQ(err.hint, hint, "%s: the hint", reason);
	TAP_OK((out != NULL) == resolved, "%s: the resolved path %s", reason,
	       resolved ? "kept" : "none");
	free(out);
}

int main(void)
{
	if (!mkdtemp(dir))
		abort();
	char *ws = at("ws"), *file = at("file"), *link = at("link"), *dangling = at("dangling"),
	     *missing = at("missing");
	char real[4096];
	if (mkdir(ws, 0700) < 0 || symlink(ws, link) < 0 || symlink(missing, dangling) < 0)
		abort();
	FILE *f = fopen(file, "w");
	if (!f)
		abort();
	fclose(f);
	if (!realpath(ws, real))
		abort();

	struct confine_error err = {0};
	char *out = NULL;
	TAP_INTEQ(cf_workspace_resolve(link, &out, &err), 0, "a directory through a link");
	TAP_STREQ(out, real, "resolved to where it is");
	free(out);
	out = NULL;
	TAP_OK(chdir(dir) == 0, "into the temp directory");
	TAP_INTEQ(cf_workspace_resolve("ws/../ws/.", &out, &err), 0, "a relative path");
	TAP_STREQ(out, real, "resolved absolute");
	free(out);
	TAP_INTEQ(err.code, 0, "no error recorded");

	const char *hint = "create the directory first or pass an existing --workspace";
	refused(missing, "No such file or directory", hint, false);
	refused(dangling, "No such file or directory", hint, false);
	refused(file, "it is not a directory", "", true);
	char *below = at("file/x");
	refused(below, "Not a directory", "", false);

	TAP_OK(chdir("/") == 0, "out of the temp directory");
	unlink(file);
	unlink(link);
	unlink(dangling);
	rmdir(ws);
	rmdir(dir);
	free(ws);
	free(file);
	free(link);
	free(dangling);
	free(missing);
	free(below);
	return tap_done();
}

/* SPDX-License-Identifier: MIT */
/*
 * The macOS executor's injection glue (exec/macos/inject.c, SPEC 6 R21) is POSIX only, so it is
 * built and run here: a request's env-pointer injections become verified scratch files of a
 * private directory, a fixed-path one is handed on without a file (the compiler refuses it),
 * and the release leaves nothing behind.  (The rest of the macOS executor is never compiled on
 * Linux.)
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exec/macos/inject.h"
#include "../tap.h"

static size_t entries(const char *dir)
{
	DIR *d = opendir(dir);
	size_t n = 0;
	struct dirent *e;
	while (d && (e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	if (d)
		closedir(d);
	return n;
}

int main(void)
{
	char base[] = "/tmp/confine-mac-inject.XXXXXX";
	TAP_OK(mkdtemp(base) != NULL, "a base directory");
	struct confine_error err = {0};
	confine_request *req = NULL;
	TAP_INTEQ(confine_request_new(&req, &err), 0, "a request");
	TAP_INTEQ(confine_request_add_injection(req, CONFINE_INJECT_ENV, "POLICY", "abc", 3, &err),
		  0, "an env-pointer injection");
	TAP_INTEQ(
	    confine_request_add_injection(req, CONFINE_INJECT_PATH, "/etc/x.toml", "z", 1, &err), 0,
	    "a fixed-path injection");

	struct cf_mac_snapshots s;
	int r = cf_mac_snapshots_create(req, base, &s, &err);
	TAP_INTEQ(r, 0, "cf_mac_snapshots_create (%s)", err.reason);
	TAP_INTEQ(s.n, 2, "two injections handed on");
	if (r == 0 && s.n == 2) {
		TAP_OK(s.v[0].name && !strcmp(s.v[0].name, "POLICY") && s.v[0].scratch &&
			   !s.v[0].target,
		       "the env-pointer one: its name and a scratch file");
		struct stat st;
		TAP_OK(stat(s.v[0].scratch, &st) == 0 && S_ISREG(st.st_mode) &&
			   (st.st_mode & 07777) == 0600,
		       "the scratch file is a 0600 regular file");
		FILE *f = fopen(s.v[0].scratch, "rb");
		char buf[8] = {0};
		size_t k = f ? fread(buf, 1, sizeof(buf), f) : 0;
		if (f)
			fclose(f);
		TAP_OK(k == 3 && !memcmp(buf, "abc", 3), "it holds exactly the bytes");
		char *dir = strdup(s.v[0].scratch);
		*strrchr(dir, '/') = '\0';
		TAP_OK(stat(dir, &st) == 0 && (st.st_mode & 07777) == 0700 &&
			   !strncmp(dir, base, strlen(base)),
		       "in a private 0700 directory under the base");
		TAP_OK(s.v[1].target && !strcmp(s.v[1].target, "/etc/x.toml") && !s.v[1].scratch,
		       "the fixed-path one: no scratch file, for the compiler to refuse");
		cf_mac_snapshots_release(&s);
		TAP_OK(stat(dir, &st) < 0, "the release removes the directory");
		free(dir);
	}
	TAP_INTEQ(entries(base), 0, "nothing is left under the base");
	confine_request_free(req);
	confine_request *empty = NULL;
	confine_request_new(&empty, &err);
	TAP_INTEQ(cf_mac_snapshots_create(empty, base, &s, &err), 0, "an empty list");
	TAP_OK(s.n == 0 && !s.module && entries(base) == 0, "makes no directory at all");
	confine_request_free(empty);
	rmdir(base);
	return tap_done();
}

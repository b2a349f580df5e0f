/* SPDX-License-Identifier: MIT */
/*
 * R18: confine_probe_bwrap through its public entry point.  Each case plants a fake `bwrap`
 * (a shell script) in a fresh root-owned 0755 directory and points the probe's PATH there, so
 * every stable code is reached without touching the host's bubblewrap.  The real bwrap is used
 * for the `available` case.  Cases that need root-owned fakes skip when not run as root.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "confine.h"
#include "../tap.h"

/* Lists every option the probe requires; `omit` (or NULL) is left out. */
static void help_text(char *out, size_t cap, const char *omit)
{
	static const char *const opts[] = {
	    "--args FD",
	    "--new-session",
	    "--die-with-parent",
	    "--unshare-user",
	    "--unshare-user-try",
	    "--disable-userns",
	    "--unshare-pid",
	    "--unshare-ipc",
	    "--unshare-uts",
	    "--unshare-cgroup",
	    "--unshare-cgroup-try",
	    "--unshare-net",
	    "--cap-drop CAP",
	    "--ro-bind SRC DEST",
	    "--bind-fd FD DEST",
	    "--ro-bind-fd FD DEST",
	    "--dev DEST",
	    "--proc DEST",
	    "--tmpfs DEST",
	    "--size BYTES",
	    "--perms OCTAL",
	    "--ro-bind-data FD DEST",
	    "--remount-ro DEST",
	    "--add-seccomp-fd FD",
	    "--as-pid-1",
	    "--chdir DIR",
	    "--info-fd FD",
	};
	size_t n =
	    (size_t)snprintf(out, cap, "usage: bwrap [OPTIONS...] [--] COMMAND [ARGS...]\n\n");
	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
		if (omit && !strncmp(opts[i], omit, strlen(omit)) &&
		    (opts[i][strlen(omit)] == ' ' || opts[i][strlen(omit)] == '\0'))
			continue;
		n += (size_t)snprintf(out + n, cap - n, "    %-28s Some text\n", opts[i]);
	}
}

static char scratch[] = "/tmp/confine-probe-test.XXXXXX";
static int ncase;

/* Writes a fake bwrap into a new directory and returns that directory (static buffer). */
static const char *fake(const char *version_body, const char *help_body, const char *sandbox_body,
			mode_t mode)
{
	static char dir[256];
	char path[300];
	snprintf(dir, sizeof(dir), "%s/case%d", scratch, ++ncase);
	mkdir(dir, 0755);
	chmod(dir, 0755);
	snprintf(path, sizeof(path), "%s/bwrap", dir);
	FILE *f = fopen(path, "w");
	if (!f)
		return dir;
	fprintf(f,
		"#!/bin/sh\ncase \"$1\" in\n--version)\n%s\n;;\n--help)\ncat <<'EOF'\n%sEOF\n;;\n"
		"*)\n%s\n;;\nesac\n",
		version_body, help_body, sandbox_body);
	fclose(f);
	chmod(path, mode);
	return dir;
}

static const char *good_fake(const char *sandbox_body)
{
	char help[4096];
	help_text(help, sizeof(help), NULL);
	return fake("echo 'bubblewrap 0.8.0'", help, sandbox_body, 0755);
}

static int probe(const char *path_env, const char *ws, bool use_cache,
		 struct confine_probe_result *r)
{
	struct confine_error err = {0};
	/* ABI v1: the caller says how large its struct is. */
	memset(r, 0, sizeof(*r));
	r->size = sizeof(*r);
	int rc = confine_probe_bwrap(path_env, ws, use_cache, r, &err);
	if (rc != 0)
		printf("# probe returned %d: %s: %s\n", rc, err.what, err.reason);
	return rc;
}

static void set_cache_home(const char *name)
{
	char d[300];
	snprintf(d, sizeof(d), "%s/%s", scratch, name);
	mkdir(d, 0700);
	setenv("XDG_CACHE_HOME", d, 1);
}

static void test_missing(void)
{
	struct confine_probe_result r;
	TAP_INTEQ(probe("/nonexistent:/also/not", NULL, true, &r), 0, "R18 missing: probe ran");
	TAP_STREQ(r.code, "binary_missing", "R18 binary_missing without bwrap in PATH");
	TAP_OK(!r.available && !r.cached, "R18 binary_missing: unavailable, not cached");
	TAP_OK(strstr(r.hint, "bubblewrap") != NULL,
	       "R18 binary_missing hint installs bubblewrap: %s", r.hint);
	TAP_STREQ(r.read_protection, "not provided", "R18 no guarantees without a backend");
	TAP_STREQ(r.backend, "bwrap", "R18 backend name");

	TAP_INTEQ(probe("/no\033[31mwhere", NULL, true, &r), 0, "R18 escape in PATH: probe ran");
	TAP_OK(strchr(r.reason, '\033') == NULL && strstr(r.reason, "/no?[31mwhere"),
	       "R18 control characters never reach the reason: %s", r.reason);
}

static void test_real(void)
{
	struct confine_probe_result r;
	if (access("/usr/bin/bwrap", X_OK) != 0) {
		TAP_SKIP("no /usr/bin/bwrap on this machine");
		return;
	}
	set_cache_home("cache-real");
	TAP_INTEQ(probe(NULL, NULL, true, &r), 0, "R18 real bwrap: probe ran");
	TAP_STREQ(r.code, "available", "R18 the host's bwrap is available (%s)", r.reason);
	TAP_OK(r.path[0] == '/' && r.version[0], "R18 pinned path %s, version %s", r.path,
	       r.version);
	TAP_OK(!r.cached, "R18 first probe is not cached");
	TAP_STREQ(r.write_protection, "enforced (read-only binds)",
		  "R18 guarantees when available");
	TAP_INTEQ(probe(NULL, NULL, true, &r), 0, "R18 second probe ran");
	TAP_OK(r.cached && r.available, "R18 second probe answered from the cache");
	TAP_INTEQ(probe(NULL, NULL, false, &r), 0, "R18 uncached probe ran");
	TAP_OK(!r.cached && r.available, "R18 use_cache=false probes again");
}

static void test_locations(void)
{
	struct confine_probe_result r;
	char ws[300], bin[320], path[700], cwd[4096];

	/* A bwrap planted in the workspace is never trusted. */
	snprintf(ws, sizeof(ws), "%s/ws", scratch);
	mkdir(ws, 0755);
	snprintf(bin, sizeof(bin), "%s/bin", ws);
	mkdir(bin, 0755);
	const char *d = good_fake("exit 0");
	snprintf(path, sizeof(path), "mv %s/bwrap %s/bwrap", d, bin);
	TAP_INTEQ(system(path), 0, "plant bwrap in the workspace");
	TAP_INTEQ(probe(bin, ws, false, &r), 0, "R18 planted: probe ran");
	TAP_STREQ(r.code, "path_rejected", "R18 path_rejected for a bwrap inside the workspace");
	TAP_OK(strstr(r.reason, "workspace") != NULL, "R18 reason names the workspace: %s",
	       r.reason);

	/* An acceptable bwrap later in PATH wins over a rejected one. */
	if (access("/usr/bin/bwrap", X_OK) == 0) {
		snprintf(path, sizeof(path), "%s:/usr/bin", bin);
		TAP_INTEQ(probe(path, ws, false, &r), 0, "R18 planted + system: probe ran");
		TAP_STREQ(r.code, "available", "R18 the system bwrap is used, not the planted one");
		TAP_STREQ(r.path, "/usr/bin/bwrap", "R18 pinned path is the system one");
	} else {
		TAP_SKIP("no /usr/bin/bwrap");
	}

	/* The current directory, and relative entries, are refused. */
	if (!getcwd(cwd, sizeof(cwd)))
		cwd[0] = '\0';
	TAP_INTEQ(chdir(bin), 0, "chdir into the planted directory");
	TAP_INTEQ(probe(bin, NULL, false, &r), 0, "R18 cwd: probe ran");
	TAP_STREQ(r.code, "path_rejected", "R18 path_rejected for the current directory");
	TAP_INTEQ(chdir(ws), 0, "chdir into the workspace");
	TAP_INTEQ(probe("bin", NULL, false, &r), 0, "R18 relative entry: probe ran");
	TAP_STREQ(r.code, "path_rejected", "R18 path_rejected for a relative PATH entry");
	TAP_OK(strstr(r.reason, "relative") != NULL, "R18 reason says relative: %s", r.reason);
	TAP_INTEQ(chdir(bin), 0, "chdir into the planted directory again");
	TAP_INTEQ(probe("", NULL, false, &r), 0, "R18 empty entry: probe ran");
	TAP_STREQ(r.code, "path_rejected", "R18 an empty PATH entry (the cwd) is refused");
	if (cwd[0] && chdir(cwd) != 0)
		perror("chdir");
}

static void test_invalid(void)
{
	struct confine_probe_result r;
	char help[4096], file[320];
	help_text(help, sizeof(help), NULL);

	const char *d = fake("echo 'bubblewrap 0.8.0'", help, "exit 0", 0757);
	TAP_INTEQ(probe(d, NULL, false, &r), 0, "R18 world-writable: probe ran");
	TAP_STREQ(r.code, "binary_invalid", "R18 binary_invalid for a world-writable bwrap");

	d = fake("echo 'bubblewrap 0.8.0'", help, "exit 0", 0755);
	snprintf(file, sizeof(file), "%s/bwrap", d);
	TAP_INTEQ(chown(file, 65534, 65534), 0, "chown the fake to nobody");
	TAP_INTEQ(probe(d, NULL, false, &r), 0, "R18 not root-owned: probe ran");
	TAP_STREQ(r.code, "binary_invalid", "R18 binary_invalid for a bwrap not owned by root");
	TAP_OK(strstr(r.reason, "root") != NULL, "R18 reason names the owner: %s", r.reason);

	d = fake("exit 0", help, "exit 0", 0755);
	chmod(d, 0777);
	TAP_INTEQ(probe(d, NULL, false, &r), 0, "R18 world-writable dir: probe ran");
	TAP_STREQ(r.code, "binary_invalid", "R18 binary_invalid in a world-writable directory");

	/* Executable bits on a file the kernel cannot execute (no #! line): ENOEXEC. */
	d = fake("exit 0", help, "exit 0", 0755);
	snprintf(file, sizeof(file), "%s/bwrap", d);
	FILE *f = fopen(file, "w");
	if (f) {
		fputs("\x01\x02 not a program\n", f);
		fclose(f);
	}
	TAP_INTEQ(probe(d, NULL, false, &r), 0, "R18 not executable: probe ran");
	TAP_STREQ(r.code, "binary_invalid", "R18 binary_invalid when execve fails (%s)", r.reason);
}

static void test_version_and_help(void)
{
	struct confine_probe_result r;
	char help[4096];
	help_text(help, sizeof(help), NULL);

	const char *d = fake("echo 'bubblewrap 0.7.1'", help, "exit 0", 0755);
	TAP_INTEQ(probe(d, NULL, false, &r), 0, "R18 old: probe ran");
	TAP_STREQ(r.code, "version_too_old", "R18 version_too_old for 0.7.1");
	TAP_STREQ(r.version, "0.7.1", "R18 the old version is reported");
	TAP_OK(strstr(r.hint, "bubblewrap") != NULL, "R18 hint installs a newer one: %s", r.hint);

	d = fake("echo 'hello world'", help, "exit 0", 0755);
	TAP_INTEQ(probe(d, NULL, false, &r), 0, "R18 unreadable: probe ran");
	TAP_STREQ(r.code, "version_unreadable", "R18 version_unreadable for garbage");

	d = fake("echo 'bubblewrap 0.8.0'; exit 3", help, "exit 0", 0755);
	TAP_INTEQ(probe(d, NULL, false, &r), 0, "R18 failing --version: probe ran");
	TAP_STREQ(r.code, "version_unreadable", "R18 version_unreadable when --version fails");

	d = fake("echo 'bubblewrap 0.11.0'", help, "exit 0", 0755);
	TAP_INTEQ(probe(d, NULL, false, &r), 0, "R18 newer: probe ran");
	TAP_STREQ(r.code, "available", "R18 0.11.0 compares numerically above 0.8.0");

	help_text(help, sizeof(help), "--add-seccomp-fd");
	d = fake("echo 'bubblewrap 0.8.0'", help, "exit 0", 0755);
	TAP_INTEQ(probe(d, NULL, false, &r), 0, "R18 missing option: probe ran");
	TAP_STREQ(r.code, "required_feature_missing", "R18 required_feature_missing");
	TAP_OK(strstr(r.reason, "--add-seccomp-fd") != NULL, "R18 reason names the option: %s",
	       r.reason);

	/* --unshare-cgroup-try is listed but --unshare-user only as a prefix of -try. */
	help_text(help, sizeof(help), "--unshare-user");
	d = fake("echo 'bubblewrap 0.8.0'", help, "exit 0", 0755);
	TAP_INTEQ(probe(d, NULL, false, &r), 0, "R18 prefix only: probe ran");
	TAP_OK(strstr(r.reason, "--unshare-user,") != NULL,
	       "R18 an option listed only as a prefix is missing: %s", r.reason);
}

static void test_sandbox(void)
{
	struct confine_probe_result r;
	const char *d = good_fake("echo 'bwrap: No permissions to creating new namespace, likely "
				  "because the kernel does not allow non-privileged user "
				  "namespaces.' >&2; exit 1");
	TAP_INTEQ(probe(d, NULL, false, &r), 0, "R18 userns: probe ran");
	TAP_STREQ(r.code, "user_namespace_disabled", "R18 user_namespace_disabled");
	TAP_OK(strstr(r.hint, "sysctl") != NULL || strstr(r.hint, "container") != NULL,
	       "R18 userns hint: %s", r.hint);

	d = good_fake("echo 'bwrap: setting up uid map: Permission denied' >&2; exit 1");
	TAP_INTEQ(probe(d, NULL, false, &r), 0, "R18 uid map: probe ran");
	TAP_STREQ(r.code, "user_namespace_disabled", "R18 uid map refusal (AppArmor) is userns");

	d = good_fake("echo \"bwrap: Can't mount proc on /newroot/proc: Operation not permitted\" "
		      ">&2; exit 1");
	TAP_INTEQ(probe(d, NULL, false, &r), 0, "R18 proc: probe ran");
	TAP_STREQ(r.code, "proc_mount_restricted", "R18 proc_mount_restricted");

	d = good_fake("echo 'bwrap: something unheard of' >&2; exit 1");
	TAP_INTEQ(probe(d, NULL, false, &r), 0, "R18 other: probe ran");
	TAP_STREQ(r.code, "probe_failed", "R18 probe_failed for another failure");
	TAP_OK(strstr(r.reason, "something unheard of") != NULL, "R18 reason quotes bwrap: %s",
	       r.reason);

	/* The production flags reach the test sandbox. */
	d = good_fake("case \" $* \" in *' --disable-userns '*' --cap-drop ALL --as-pid-1 '*"
		      "' --proc /proc '*) exit 0;; esac; echo \"bwrap: flags $*\" >&2; exit 1");
	TAP_INTEQ(probe(d, NULL, false, &r), 0, "R12 flags: probe ran");
	TAP_STREQ(r.code, "available", "R12 the test sandbox gets the production flags (%s)",
		  r.reason);
}

static void test_timeout(void)
{
	struct confine_probe_result r;
	char help[4096];
	help_text(help, sizeof(help), NULL);
	struct timespec a, b;

	const char *d = fake("sleep 5", help, "exit 0", 0755);
	clock_gettime(CLOCK_MONOTONIC, &a);
	TAP_INTEQ(probe(d, NULL, false, &r), 0, "R18 hung --version: probe ran");
	clock_gettime(CLOCK_MONOTONIC, &b);
	TAP_STREQ(r.code, "probe_timeout", "R18 probe_timeout for a hung --version");
	TAP_OK(b.tv_sec - a.tv_sec < 4, "R18 the step was cut after about 1 s (not the 5 s sleep)");

	d = good_fake("sleep 5");
	TAP_INTEQ(probe(d, NULL, false, &r), 0, "R18 hung sandbox: probe ran");
	TAP_STREQ(r.code, "probe_timeout", "R18 probe_timeout for a hung test sandbox");

	/* A child that keeps the output open after bwrap itself exited must not hang the probe. */
	d = good_fake("(sleep 5 &) ; exit 0");
	clock_gettime(CLOCK_MONOTONIC, &a);
	TAP_INTEQ(probe(d, NULL, false, &r), 0, "R18 lingering child: probe ran");
	clock_gettime(CLOCK_MONOTONIC, &b);
	long ms = (b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000;
	TAP_STREQ(r.code, "available", "R18 a lingering child does not fail the probe");
	/* The child lingers 5 s: anything well below that shows the probe did not wait for it,
	 * with room for a machine under load. */
	TAP_OK(ms < 4000, "R18 a lingering child does not hold the probe (%ld ms < 5 s)", ms);
}

static void test_cache(void)
{
	struct confine_probe_result r;
	char file[320], cache[320];
	set_cache_home("cache-fake");
	const char *d = good_fake("exit 0");
	char dir[256];
	snprintf(dir, sizeof(dir), "%s", d);
	snprintf(file, sizeof(file), "%s/bwrap", dir);
	snprintf(cache, sizeof(cache), "%s/cache-fake/confine/probe-bwrap", scratch);

	TAP_INTEQ(probe(dir, NULL, true, &r), 0, "R18 cache: first probe ran");
	TAP_OK(r.available && !r.cached, "R18 first probe is fresh");
	struct stat st;
	TAP_OK(stat(cache, &st) == 0 && (st.st_mode & 0777) == 0600, "R18 cache file is 0600");
	TAP_INTEQ(probe(dir, NULL, true, &r), 0, "R18 cache: second probe ran");
	TAP_OK(r.available && r.cached, "R18 second probe is cached");
	TAP_STREQ(r.version, "0.8.0", "R18 cached answer keeps the version");

	/* A new mtime is a new binary. */
	struct timespec ts[2] = {{.tv_nsec = UTIME_OMIT}, {.tv_sec = 1000000000}};
	TAP_INTEQ(utimensat(AT_FDCWD, file, ts, 0), 0, "touch the binary");
	TAP_INTEQ(probe(dir, NULL, true, &r), 0, "R18 touched: probe ran");
	TAP_OK(r.available && !r.cached, "R18 touching the binary invalidates the cache");

	/* A cache file others could have written is ignored. */
	TAP_INTEQ(chmod(cache, 0620), 0, "make the cache group-writable");
	TAP_INTEQ(probe(dir, NULL, true, &r), 0, "R18 bad cache: probe ran");
	TAP_OK(r.available && !r.cached, "R18 a group-writable cache file is ignored");
	TAP_INTEQ(probe(dir, NULL, true, &r), 0, "R18 rewritten cache: probe ran");
	TAP_OK(r.cached, "R18 the cache was rewritten with safe permissions");

	/* A failure is never cached, and never replaces nor uses a success of another binary. */
	d = good_fake("echo 'bwrap: broken' >&2; exit 1");
	TAP_INTEQ(probe(d, NULL, true, &r), 0, "R18 failing: probe ran");
	TAP_STREQ(r.code, "probe_failed", "R18 failing binary is not answered from the cache");
	TAP_INTEQ(probe(d, NULL, true, &r), 0, "R18 failing again: probe ran");
	TAP_OK(!r.cached && !r.available, "R18 a failure is never cached");
	TAP_INTEQ(probe(dir, NULL, true, &r), 0, "R18 back to the good one: probe ran");
	TAP_OK(r.cached, "R18 the failure did not overwrite the success");

	/* The binary changes while it is probed. */
	d = good_fake("touch \"$0\"; exit 0");
	TAP_INTEQ(probe(d, NULL, true, &r), 0, "R18 changing binary: probe ran");
	TAP_STREQ(r.code, "binary_identity_changed", "R18 binary_identity_changed");
	TAP_OK(!r.available, "R18 a changed binary is not available");
}

int main(void)
{
	if (!mkdtemp(scratch)) {
		perror("mkdtemp");
		return 1;
	}
	chmod(scratch, 0755);
	test_missing();
	test_real();
	if (geteuid() != 0) {
		/* The fakes must be root-owned to pass the file checks. */
		TAP_SKIP("fake bwrap cases need root (root-owned fakes)");
	} else {
		test_locations();
		test_invalid();
		test_version_and_help();
		test_sandbox();
		test_timeout();
		test_cache();
	}
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", scratch);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", scratch);
	return tap_done();
}

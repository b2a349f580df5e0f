/* SPDX-License-Identifier: MIT */
/*
 * The bubblewrap probe (SPEC 3.2, R18): find a trustworthy bwrap, check its version and
 * options, run a tiny sandbox with the production flags, and cache a success.
 *
 * `confine run` calls this on every run, so the cached path does no exec: it searches PATH
 * (a few stats), stats the binary and reads one small file.  A failure is never cached, so a
 * fix (installing bwrap, a sysctl) takes effect on the next run.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "abi.h"
#include "host/kernel.h"
#include "probe/result.h"
#include "plan/bwrap/plan.h"
#include "util/capture.h"
#include "probe/hints.h"
#include "util/util.h"

#define CACHE_TTL_SECONDS 300
#define STEP_TIMEOUT_MS 1000
#define CACHE_MAGIC "confine-probe-bwrap 1"
#define DEFAULT_PATH "/usr/local/bin:/usr/bin:/bin"
#define CGROUP2_MAGIC 0x63677270

/* Debian 12's bubblewrap; --disable-userns first appeared in 0.8.0. */
static const int min_version[3] = {0, 8, 0};

/* Every bwrap option the Linux plan can emit (SPEC 3).  A bwrap that does not list one of them
 * would fail at run time on some rule set, so the probe refuses it up front. */
static const char *const required_options[] = {
    "--args",		"--new-session",    "--die-with-parent",
    "--unshare-user",	"--disable-userns", "--unshare-pid",
    "--unshare-ipc",	"--unshare-uts",    "--unshare-cgroup-try",
    "--unshare-net",	"--cap-drop",	    "--ro-bind",
    "--bind-fd",	"--ro-bind-fd",	    "--dev",
    "--proc",		"--tmpfs",	    "--size",
    "--perms",		"--ro-bind-data",   "--remount-ro",
    "--add-seccomp-fd", "--as-pid-1",	    "--chdir",
    "--info-fd",
};

/* The test sandbox runs with the namespace and capability flags of every production run
 * (cf_bwrap_process_flags, SPEC 3 R12): a kernel or LSM that refuses one of them (for instance
 * --disable-userns, which writes to /proc/sys/user inside the sandbox) must fail here, not in
 * the middle of a run.  These mounts complete it. */
static const char *const sandbox_mounts[] = {"--ro-bind", "/",	    "/",    "--dev",
					     "/dev",	  "--proc", "/proc"};

struct bin_id {
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
};

static void copy_str(char *dst, size_t cap, const char *src)
{
	size_t n = strlen(src);
	if (n >= cap)
		n = cap - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

#define SET(field, src) copy_str((field), sizeof(field), (src))

static void fail(struct confine_probe_result *r, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void fail(struct confine_probe_result *r, const char *code, const char *fmt, ...)
{
	va_list ap;
	r->available = false;
	SET(r->code, code);
	va_start(ap, fmt);
	vsnprintf(r->reason, sizeof(r->reason), fmt, ap);
	va_end(ap);
}

static bool same_id(const struct bin_id *a, const struct bin_id *b)
{
	return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
	       a->mtime.tv_sec == b->mtime.tv_sec && a->mtime.tv_nsec == b->mtime.tv_nsec;
}

static void id_from_stat(struct bin_id *id, const struct stat *st)
{
	id->dev = st->st_dev;
	id->ino = st->st_ino;
	id->size = st->st_size;
	id->mtime = st->st_mtim;
}

/* ---------------------------------------------------------------------------------------- */
/* Finding the binary.                                                                      */

struct search {
	const char *ws;	 /* canonical workspace or NULL */
	const char *cwd; /* canonical current directory or NULL */
	bool rejected;	 /* a bwrap was seen where none may be trusted */
	char rejected_reason[512];
	bool invalid; /* a bwrap was seen that fails the file checks */
	char invalid_path[1024];
	char invalid_reason[512];
};

/* Whether a bwrap in `dir` (canonical) may be used at all; fills why when not. */
static bool location_ok(const struct search *s, const char *dir, char *why, size_t cap)
{
	if (s->ws && cf_path_within(dir, s->ws)) {
		snprintf(why, cap,
			 "inside the workspace '%s', which the sandboxed command can write", s->ws);
		return false;
	}
	if (s->cwd && !strcmp(dir, s->cwd)) {
		snprintf(why, cap, "in the current directory");
		return false;
	}
	return true;
}

/* The file checks on a canonical binary path; fills st and returns true when it passes. */
static bool binary_ok(const char *bin, struct stat *st, char *why, size_t cap)
{
	if (lstat(bin, st) != 0) {
		snprintf(why, cap, "cannot stat it: %s", strerror(errno));
		return false;
	}
	if (!S_ISREG(st->st_mode)) {
		snprintf(why, cap, "not a regular file");
		return false;
	}
	if (st->st_uid != 0) {
		snprintf(why, cap, "owned by uid %u, not by root", (unsigned)st->st_uid);
		return false;
	}
	if (st->st_mode & (S_IWGRP | S_IWOTH)) {
		snprintf(why, cap, "writable by group or others (mode %04o)",
			 (unsigned)(st->st_mode & 07777));
		return false;
	}
	if (!(st->st_mode & 0111) || faccessat(AT_FDCWD, bin, X_OK, AT_EACCESS) != 0) {
		snprintf(why, cap, "not executable by this user (mode %04o)",
			 (unsigned)(st->st_mode & 07777));
		return false;
	}
	/* Whoever can rename entries in the directory can swap the binary after the probe. */
	char *dir = cf_path_dirname(bin);
	struct stat dst;
	bool ok = dir && stat(dir, &dst) == 0;
	if (!ok)
		snprintf(why, cap, "cannot stat its directory");
	else if (dst.st_uid != 0)
		snprintf(why, cap, "its directory '%s' is not owned by root", dir), ok = false;
	else if ((dst.st_mode & S_IWOTH || (dst.st_mode & S_IWGRP && dst.st_gid != 0)) &&
		 !(dst.st_mode & S_ISVTX))
		snprintf(why, cap, "its directory '%s' is writable by others", dir), ok = false;
	free(dir);
	return ok;
}

/* Notes the first candidate turned down for where it lies (path_rejected). */
static void reject(struct search *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void reject(struct search *s, const char *fmt, ...)
{
	if (s->rejected)
		return;
	s->rejected = true;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(s->rejected_reason, sizeof(s->rejected_reason), fmt, ap);
	va_end(ap);
}

/* Notes the first candidate turned down for what it is (binary_invalid). */
static void invalid(struct search *s, const char *path, const char *why)
{
	if (s->invalid)
		return;
	s->invalid = true;
	SET(s->invalid_path, path);
	SET(s->invalid_reason, why);
}

/* One PATH entry: 1 and r->path and id filled when its bwrap is acceptable, 0 when it is not
 * (the search notes why), negative on out-of-memory. */
static int try_entry(const char *entry, struct search *s, struct confine_probe_result *r,
		     struct bin_id *id, struct confine_error *err)
{
	char cand[PATH_MAX + 8], canon[PATH_MAX], why[512];
	struct stat st;
	if (snprintf(cand, sizeof(cand), "%s/bwrap", entry) >= (int)sizeof(cand))
		return 0;
	if (entry[0] != '/') {
		/* Relative entries name a different place in every directory. */
		if (stat(cand, &st) == 0)
			reject(s, "bwrap found only through the relative PATH entry '%s'", entry);
		return 0;
	}
	if (stat(cand, &st) != 0 || !realpath(entry, canon))
		return 0;
	if (!location_ok(s, canon, why, sizeof(why))) {
		reject(s, "bwrap found only at '%s', %s", cand, why);
		return 0;
	}
	if (!realpath(cand, canon))
		return 0;
	/* A symlink from a trusted directory into the workspace is still the workspace. */
	char *bindir = cf_path_dirname(canon);
	if (!bindir)
		return cf_nomem(err);
	bool loc = location_ok(s, bindir, why, sizeof(why));
	free(bindir);
	if (!loc) {
		reject(s, "bwrap found only at '%s' (resolves to '%s'), %s", cand, canon, why);
		return 0;
	}
	if (!binary_ok(canon, &st, why, sizeof(why))) {
		invalid(s, canon, why);
		return 0;
	}
	if (strlen(canon) >= sizeof(r->path)) {
		invalid(s, cand, "its canonical path is too long");
		return 0;
	}
	SET(r->path, canon);
	id_from_stat(id, &st);
	return 1;
}

/* Nothing acceptable in PATH: r says the problem a user is most likely to fix first. */
static void none_found(const struct search *s, const char *path_env, struct confine_probe_result *r)
{
	if (s->invalid) {
		SET(r->path, s->invalid_path);
		fail(r, "binary_invalid", "'%s': %s", s->invalid_path, s->invalid_reason);
		snprintf(
		    r->hint, sizeof(r->hint),
		    "bwrap must be a regular file owned by root and writable only by root, in a "
		    "directory only root can change; reinstall bubblewrap or fix the owner and "
		    "mode of '%.300s' and of its directory",
		    s->invalid_path);
	} else if (s->rejected) {
		fail(r, "path_rejected", "%s", s->rejected_reason);
		char line[256];
		cf_install_line(line, sizeof(line));
		snprintf(
		    r->hint, sizeof(r->hint),
		    "install bwrap in a root-owned directory outside the workspace and put it on "
		    "PATH as an absolute entry: %s",
		    line);
	} else {
		fail(r, "binary_missing", "bwrap was not found in PATH '%s'", path_env);
		cf_hint_install(r->hint, sizeof(r->hint), min_version);
	}
}

/* Searches PATH.  Returns 1 and fills r->path and id when an acceptable bwrap was found, 0 when
 * none was (r->code set), negative on out-of-memory. */
static int find_bwrap(const char *path_env, struct search *s, struct confine_probe_result *r,
		      struct bin_id *id, struct confine_error *err)
{
	int ret = 0;
	char *list = cf_strdup(path_env);
	if (!list)
		return cf_nomem(err);
	/* strtok_r would drop empty entries, which mean the current directory: split by hand. */
	for (char *e = list, *next; e && ret == 0; e = next) {
		next = strchr(e, ':');
		if (next)
			*next++ = '\0';
		ret = try_entry(e[0] ? e : ".", s, r, id, err);
	}
	if (ret == 0)
		none_found(s, path_env, r);
	free(list);
	return ret;
}

/* "bubblewrap X.Y.Z" -> v; true when it parsed.  A suffix ("0.9.0-dev") is ignored. */
static bool parse_version(const char *text, int v[3])
{
	const char *p = text;
	if (strncmp(p, "bubblewrap ", strlen("bubblewrap ")) != 0)
		return false;
	p += strlen("bubblewrap ");
	for (int i = 0; i < 3; i++) {
		if (i > 0 && *p++ != '.')
			return false;
		if (*p < '0' || *p > '9')
			return false;
		char *end;
		long n = strtol(p, &end, 10);
		if (n > 9999)
			return false;
		v[i] = (int)n;
		p = end;
	}
	return *p != '.';
}

/* The first required option that `help` does not list as a word, or NULL. */
static const char *missing_option(const char *help)
{
	for (size_t i = 0; i < sizeof(required_options) / sizeof(required_options[0]); i++) {
		const char *opt = required_options[i];
		size_t n = strlen(opt);
		bool found = false;
		for (const char *p = help; !found && (p = strstr(p, opt)); p += n) {
			char before = p == help ? ' ' : p[-1], after = p[n];
			found = (before == ' ' || before == '\t' || before == '\n') &&
				(after == ' ' || after == '\t' || after == '\n' || after == '\0' ||
				 after == '=');
		}
		if (!found)
			return opt;
	}
	return NULL;
}

/* bwrap's first message line ("bwrap: ..."), printable, into out. */
static void first_message(const char *text, char *out, size_t cap)
{
	const char *p = strstr(text, "bwrap: ");
	if (!p)
		p = text;
	size_t n = strcspn(p, "\n");
	if (n >= cap)
		n = cap - 1;
	for (size_t i = 0; i < n; i++)
		out[i] = (p[i] >= 0x20 && p[i] < 0x7f) ? p[i] : '?';
	out[n] = '\0';
	if (n == 0)
		snprintf(out, cap, "(no message)");
}

static void classify_sandbox_failure(const struct cf_capture *c, struct confine_probe_result *r,
				     const char *const *argv)
{
	char msg[320];
	first_message(c->out, msg, sizeof(msg));
	/* bwrap 0.8 says "No permissions to creating new namespace"; later ones fix the grammar.
	 * An AppArmor restriction lets unshare succeed and fails the uid map write instead. */
	if (strstr(c->out, "No permissions to creat") || strstr(c->out, "setting up uid map") ||
	    strstr(c->out, "Creating new namespace failed") ||
	    (strstr(c->out, "unshare") && strstr(c->out, "Operation not permitted"))) {
		fail(r, "user_namespace_disabled",
		     "the kernel refuses bwrap an unprivileged user namespace: %s", msg);
		cf_hint_userns(r->hint, sizeof(r->hint));
		return;
	}
	if (strstr(c->out, "Can't mount proc")) {
		fail(r, "proc_mount_restricted", "bwrap cannot mount a fresh /proc: %s", msg);
		snprintf(
		    r->hint, sizeof(r->hint),
		    "this usually runs in a container whose /proc is partly masked; run on the "
		    "host, or give the container an unmasked /proc (for example docker run "
		    "--security-opt systempaths=unconfined)");
		return;
	}
	if (WIFSIGNALED(c->status))
		fail(r, "probe_failed", "the test sandbox was killed by signal %d: %s",
		     WTERMSIG(c->status), msg);
	else
		fail(r, "probe_failed", "the test sandbox failed (exit %d): %s",
		     WEXITSTATUS(c->status), msg);
	int n = snprintf(r->hint, sizeof(r->hint), "see the full error with:");
	for (size_t i = 0; argv[i] && n > 0 && (size_t)n < sizeof(r->hint); i++)
		n += snprintf(r->hint + n, sizeof(r->hint) - (size_t)n, " %s", argv[i]);
}

static void timed_out(struct confine_probe_result *r, const char *step)
{
	fail(r, "probe_timeout", "%s did not finish within %d ms (bwrap: '%s')", step,
	     STEP_TIMEOUT_MS, r->path);
	snprintf(r->hint, sizeof(r->hint),
		 "check that '%.300s' is bubblewrap and that the system is not overloaded, then "
		 "run the probe again",
		 r->path);
}

/* Runs the three steps; fills r.  Returns 0 or a negative code (hard error). */
static int probe_binary(struct confine_probe_result *r, struct confine_error *err)
{
	struct cf_capture *c = malloc(sizeof(*c));
	int ret = 0, v[3];
	if (!c)
		return cf_nomem(err);

	const char *vargv[] = {r->path, "--version", NULL};
	ret = cf_run_capture(vargv, STEP_TIMEOUT_MS, c, err);
	if (ret < 0)
		goto out;
	if (ret == CF_RUN_TIMEOUT) {
		timed_out(r, "'bwrap --version'");
		goto done;
	}
	if (c->exec_errno) {
		fail(r, "binary_invalid", "cannot execute '%s': %s", r->path,
		     strerror(c->exec_errno));
		cf_hint_install(r->hint, sizeof(r->hint), min_version);
		goto done;
	}
	if (!WIFEXITED(c->status) || WEXITSTATUS(c->status) != 0 || !parse_version(c->out, v)) {
		char msg[128];
		first_message(c->out, msg, sizeof(msg));
		fail(r, "version_unreadable", "'%s --version' did not print 'bubblewrap X.Y.Z': %s",
		     r->path, msg);
		cf_hint_install(r->hint, sizeof(r->hint), min_version);
		goto done;
	}
	snprintf(r->version, sizeof(r->version), "%d.%d.%d", v[0], v[1], v[2]);
	if (v[0] != min_version[0]   ? v[0] < min_version[0]
	    : v[1] != min_version[1] ? v[1] < min_version[1]
				     : v[2] < min_version[2]) {
		fail(
		    r, "version_too_old",
		    "bubblewrap %s is older than %d.%d.%d, the first version with --disable-userns",
		    r->version, min_version[0], min_version[1], min_version[2]);
		cf_hint_install(r->hint, sizeof(r->hint), min_version);
		goto done;
	}

	const char *hargv[] = {r->path, "--help", NULL};
	ret = cf_run_capture(hargv, STEP_TIMEOUT_MS, c, err);
	if (ret < 0)
		goto out;
	if (ret == CF_RUN_TIMEOUT) {
		timed_out(r, "'bwrap --help'");
		goto done;
	}
	const char *opt = missing_option(c->out);
	if (opt) {
		fail(r, "required_feature_missing",
		     "'%s --help' does not list %s, which confine needs", r->path, opt);
		cf_hint_install(r->hint, sizeof(r->hint), min_version);
		goto done;
	}

	/* /usr/bin/true first: on a merged-/usr system both are the same file anyway. */
	const char *true_path = access("/usr/bin/true", X_OK) == 0 ? "/usr/bin/true" : "/bin/true";
	const char *sargv[64];
	size_t k = 0;
	sargv[k++] = r->path;
	for (size_t i = 0; cf_bwrap_process_flags[i]; i++)
		sargv[k++] = cf_bwrap_process_flags[i];
	for (size_t i = 0; i < sizeof(sandbox_mounts) / sizeof(sandbox_mounts[0]); i++)
		sargv[k++] = sandbox_mounts[i];
	sargv[k++] = "--";
	sargv[k++] = true_path;
	sargv[k] = NULL;
	ret = cf_run_capture(sargv, STEP_TIMEOUT_MS, c, err);
	if (ret < 0)
		goto out;
	if (ret == CF_RUN_TIMEOUT) {
		timed_out(r, "the test sandbox");
		goto done;
	}
	if (!WIFEXITED(c->status) || WEXITSTATUS(c->status) != 0) {
		classify_sandbox_failure(c, r, sargv);
		goto done;
	}
	r->available = true;
	SET(r->code, "available");
done:
	ret = 0;
out:
	free(c);
	return ret;
}

/* ---------------------------------------------------------------------------------------- */
/* The cache: one line of key, the version and the path, in a file only the caller can write. */

/* Creates base (0700) when missing; true when it is the caller's own directory.  Only there do
 * we write: root running with another user's HOME (sudo) must not leave root-owned directories
 * in that home which its owner cannot remove. */
static bool cache_base_ours(const char *base)
{
	struct stat st;
	if (stat(base, &st) == 0)
		return S_ISDIR(st.st_mode) && st.st_uid == geteuid();
	char *parent = cf_path_dirname(base);
	bool ok = parent && stat(parent, &st) == 0 && st.st_uid == geteuid();
	free(parent);
	return ok && (mkdir(base, 0700) == 0 || errno == EEXIST);
}

/* Opens ${XDG_CACHE_HOME:-$HOME/.cache}/confine, creating it (0700) when `create`.  Returns a
 * directory fd, or -1 when there is no usable cache directory (the cache is then skipped). */
static int cache_dir(bool create)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	char base[PATH_MAX];
	/* The XDG spec ignores a relative XDG_CACHE_HOME. */
	if (xdg && xdg[0] == '/')
		snprintf(base, sizeof(base), "%s", xdg);
	else if (home && home[0] == '/')
		snprintf(base, sizeof(base), "%s/.cache", home);
	else
		return -1;
	if (create && !cache_base_ours(base))
		return -1;
	int bfd = open(base, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (bfd < 0)
		return -1;
	if (create && mkdirat(bfd, "confine", 0700) != 0 && errno != EEXIST) {
		close(bfd);
		return -1;
	}
	int fd = openat(bfd, "confine", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	close(bfd);
	struct stat st;
	/* A directory someone else controls could hold a forged answer or redirect our writes. */
	if (fd >= 0 && (fstat(fd, &st) != 0 || st.st_uid != geteuid() || st.st_mode & 022)) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* True when the cache holds a fresh success for this exact binary; fills r->version. */
static bool cache_lookup(struct confine_probe_result *r, const struct bin_id *id)
{
	int dfd = cache_dir(false), fd = -1;
	bool hit = false;
	char buf[2048];
	struct stat st;
	if (dfd < 0)
		goto out;
	fd = openat(dfd, "probe-bwrap", O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
	if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    st.st_mode & 022 || st.st_size >= (off_t)sizeof(buf))
		goto out;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	if (n <= 0)
		goto out;
	buf[n] = '\0';
	long long t, dev, ino, size, msec, mnsec;
	char version[32], path[1100];
	int used = 0;
	if (sscanf(buf, CACHE_MAGIC " %lld %lld %lld %lld %lld %lld %31s\n%n", &t, &dev, &ino,
		   &size, &msec, &mnsec, version, &used) != 7 ||
	    used == 0)
		goto out;
	size_t pl = strcspn(buf + used, "\n");
	if (pl >= sizeof(path))
		goto out;
	memcpy(path, buf + used, pl);
	path[pl] = '\0';
	/* The same clock as cache_store: time() reads the coarse clock, which can still show the
	 * previous second when the precise one has moved on, and the entry would look as if it came
	 * from the future. */
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	long long now = (long long)ts.tv_sec;
	if (t > now || now - t >= CACHE_TTL_SECONDS)
		goto out;
	if (strcmp(path, r->path) || (dev_t)dev != id->dev || (ino_t)ino != id->ino ||
	    (off_t)size != id->size || msec != (long long)id->mtime.tv_sec ||
	    mnsec != (long long)id->mtime.tv_nsec)
		goto out;
	SET(r->version, version);
	hit = true;
out:
	if (fd >= 0)
		close(fd);
	if (dfd >= 0)
		close(dfd);
	return hit;
}

/* Best effort: a cache that cannot be written only costs the next run a probe. */
static void cache_store(const struct confine_probe_result *r, const struct bin_id *id)
{
	int dfd = cache_dir(true), fd = -1;
	char tmp[64], line[1400];
	if (dfd < 0)
		return;
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	snprintf(tmp, sizeof(tmp), ".probe-bwrap.%ld.%ld", (long)getpid(), (long)ts.tv_nsec);
	int n = snprintf(line, sizeof(line), CACHE_MAGIC " %lld %llu %llu %lld %lld %ld %s\n%s\n",
			 (long long)ts.tv_sec, (unsigned long long)id->dev,
			 (unsigned long long)id->ino, (long long)id->size,
			 (long long)id->mtime.tv_sec, (long)id->mtime.tv_nsec, r->version, r->path);
	if (n <= 0 || (size_t)n >= sizeof(line))
		goto out;
	fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		goto out;
	bool ok = write(fd, line, (size_t)n) == n;
	ok = close(fd) == 0 && ok;
	fd = -1;
	/* rename is atomic: a concurrent run reads the old answer or the new one, never half. */
	if (!ok || renameat(dfd, tmp, dfd, "probe-bwrap") != 0)
		unlinkat(dfd, tmp, 0);
out:
	if (fd >= 0)
		close(fd);
	close(dfd);
}

/* ---------------------------------------------------------------------------------------- */

static void printable(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = '?';
}

static char *canonical_or_null(const char *p)
{
	char buf[PATH_MAX];
	if (!p || !realpath(p, buf))
		return NULL;
	return cf_strdup(buf);
}

/* What the bwrap backend enforces here, from the host facts in r; "not provided" throughout when
 * it is unavailable. */
static void guarantees(struct confine_probe_result *r)
{
	if (r->available) {
		SET(r->read_protection, "enforced (mount namespace)");
		SET(r->write_protection, "enforced (read-only binds)");
		SET(r->network_isolation, "enforced with --no-network (network namespace)");
		SET(r->syscall_filter, r->seccomp
					   ? "enforced (seccomp)"
					   : "not provided: the kernel refuses seccomp filters");
		if (r->landlock_abi >= 6)
			SET(r->process_scoping, "enforced (Landlock scoping)");
		else
			SET(r->process_scoping,
			    "not provided: needs Landlock ABI 6 (abstract unix sockets and signals "
			    "reach the host when the network is on)");
		SET(r->resource_limits,
		    r->cgroup ? "enforced with --limit (cgroup)"
			      : "not provided: confine cannot create a cgroup here (--limit "
				"is refused)");
		/* R43: the resolver inside and the routing of TCP need nf_tables NAT, which only a
		 * run sets up (it says so when the kernel refuses). */
		SET(r->network_by_domain,
		    "enforced with --net-allow (own network namespace; proxy 127.0.0.1:3128 and "
		    ":1080 inside; names and TCP of every client via confine, with nf_tables)");
		/* R36: what a kernel without the IPC guard gets (exec/linux/ipcguard.h). */
		const char *lacks = cf_ipc_guard_missing(r->landlock_abi, r->seccomp);
		if (lacks)
			snprintf(r->not_provided, sizeof(r->not_provided),
				 "host FIFOs and pathname sockets outside the writable areas (R36: "
				 "needs %s; only the endpoints the sweep finds are hidden)",
				 lacks);
	} else {
		cf_probe_result_none(r);
	}
}

int cf_probe_bwrap(const char *path_env, const char *workspace, bool use_cache,
		   struct confine_probe_result *result, struct confine_error *err)
{
	struct search s = {0};
	struct bin_id id = {0}, after = {0};
	char *ws = NULL, *cwd = NULL;
	int ret = 0;

	if (!result)
		return cf_err(err, CONFINE_E_INVALID, "cannot probe bwrap", "", "no result given");
	cf_probe_result_begin(result, "bwrap");
	if (!path_env)
		path_env = DEFAULT_PATH;

	/* A workspace that does not exist yet cannot hold a binary; compare lexically then. */
	if (workspace) {
		ws = canonical_or_null(workspace);
		if (!ws && workspace[0] == '/')
			ws = cf_path_normalize(workspace);
	}
	cwd = canonical_or_null(".");
	s.ws = ws;
	s.cwd = cwd;
	ret = find_bwrap(path_env, &s, result, &id, err);
	if (ret <= 0)
		goto out;
	ret = 0;

	if (use_cache && cache_lookup(result, &id)) {
		result->cached = true;
		result->available = true;
		SET(result->code, "available");
		goto out;
	}
	ret = probe_binary(result, err);
	if (ret < 0 || !result->available)
		goto out;
	/* The answer is about the file that was probed: if it changed meanwhile (an upgrade, or a
	 * swap), neither the answer nor the pinned path can be trusted. */
	struct stat st;
	bool same = lstat(result->path, &st) == 0;
	if (same) {
		id_from_stat(&after, &st);
		same = same_id(&id, &after);
	}
	if (!same) {
		fail(result, "binary_identity_changed", "'%s' changed while it was probed",
		     result->path);
		snprintf(result->hint, sizeof(result->hint),
			 "an upgrade of bubblewrap may be in progress; run the command again");
		goto out;
	}
	cache_store(result, &id);
out:
	/* Reasons quote PATH entries and bwrap's output: no control character reaches a terminal.
	 */
	printable(result->reason);
	printable(result->hint);
	guarantees(result);
	free(ws);
	free(cwd);
	return ret;
}

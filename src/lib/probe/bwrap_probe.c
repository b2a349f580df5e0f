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

#include "exec/linux/cgroup.h"
#include "exec/linux/harden.h"
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

/* The namespace and capability flags of every production run (SPEC 3 R12).  The probe must use
 * the same ones: a kernel or LSM that refuses one of them (for instance --disable-userns, which
 * writes to /proc/sys/user inside the sandbox) must fail here, not in the middle of a run. */
static const char *const sandbox_flags[] = {
    "--new-session",
    "--die-with-parent",
    "--unshare-user",
    "--disable-userns",
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-cgroup-try",
    "--cap-drop",
    "ALL",
    "--ro-bind",
    "/",
    "/",
    "--dev",
    "/dev",
    "--proc",
    "/proc",
    "--as-pid-1",
};

struct bin_id {
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
};

/* Output of one bwrap invocation: stdout and stderr together, truncated to the buffer. */
struct capture {
	char out[32768];
	size_t len;
	int status;	/* wait status */
	int exec_errno; /* errno of a failed execve, 0 when the exec succeeded */
};

enum { RUN_DONE = 0, RUN_TIMEOUT = 1 };

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

static int64_t monotonic_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Reads a small file into buf (NUL-terminated); returns its length or -1. */
static ssize_t read_small(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -1;
	size_t len = 0;
	while (len + 1 < cap) {
		ssize_t n = read(fd, buf + len, cap - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	return (ssize_t)len;
}

/* ---------------------------------------------------------------------------------------- */
/* Host facts around the backend.                                                           */

/* True when the whitespace-separated list `ids` contains `id`. */
static bool id_listed(const char *ids, const char *id)
{
	size_t n = strlen(id);
	for (const char *p = ids; *p;) {
		while (*p == ' ')
			p++;
		const char *s = p;
		while (*p && *p != ' ')
			p++;
		if ((size_t)(p - s) == n && !strncmp(s, id, n))
			return true;
	}
	return false;
}

/* Value of KEY= in os-release text, quotes removed, into out. */
static void os_release_value(const char *text, const char *key, char *out, size_t cap)
{
	size_t kl = strlen(key);
	out[0] = '\0';
	for (const char *line = text; line && *line; line = strchr(line, '\n'), line += !!line) {
		if (strncmp(line, key, kl) != 0 || line[kl] != '=')
			continue;
		const char *v = line + kl + 1;
		size_t n = strcspn(v, "\n");
		if (n && (v[0] == '"' || v[0] == '\'')) {
			v++;
			n = n >= 2 ? n - 2 : 0;
		}
		if (n >= cap)
			n = cap - 1;
		memcpy(out, v, n);
		out[n] = '\0';
		return;
	}
}

/* The distribution's install line for bubblewrap, from /etc/os-release ID and ID_LIKE. */
static void install_line(char *out, size_t cap)
{
	static const struct {
		const char *ids;
		const char *cmd;
	} table[] = {
	    {"debian ubuntu", "apt-get install bubblewrap"},
	    {"fedora rhel centos rocky almalinux", "dnf install bubblewrap"},
	    {"arch manjaro endeavouros", "pacman -S bubblewrap"},
	    {"alpine", "apk add bubblewrap"},
	    {"opensuse opensuse-leap opensuse-tumbleweed suse sles", "zypper install bubblewrap"},
	    {"void", "xbps-install -S bubblewrap"},
	};
	char text[4096], id[64], like[256];
	if (read_small("/etc/os-release", text, sizeof(text)) < 0 &&
	    read_small("/usr/lib/os-release", text, sizeof(text)) < 0)
		text[0] = '\0';
	os_release_value(text, "ID", id, sizeof(id));
	os_release_value(text, "ID_LIKE", like, sizeof(like));
	const char *sudo = geteuid() == 0 ? "" : "sudo ";
	if (!strcmp(id, "nixos")) {
		snprintf(out, cap, "nix profile install nixpkgs#bubblewrap");
		return;
	}
	/* ID first, then each ID_LIKE word in order: the closest relative decides. */
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
			bool hit = pass == 0 ? id[0] && id_listed(table[i].ids, id) : false;
			for (const char *p = like; pass == 1 && *p && !hit;) {
				char word[64];
				size_t n = strcspn(p, " ");
				if (n && n < sizeof(word)) {
					memcpy(word, p, n);
					word[n] = '\0';
					hit = id_listed(table[i].ids, word);
				}
				p += n;
				p += strspn(p, " ");
			}
			if (hit) {
				snprintf(out, cap, "%s%s", sudo, table[i].cmd);
				return;
			}
		}
	}
	snprintf(out, cap,
		 "use your package manager, or build it from "
		 "https://github.com/containers/bubblewrap");
}

/* "install bubblewrap 0.8.0 or newer: <the distribution's command>". */
static void install_hint(char *out, size_t cap)
{
	char line[256];
	install_line(line, sizeof(line));
	snprintf(out, cap, "install bubblewrap %d.%d.%d or newer: %s", min_version[0],
		 min_version[1], min_version[2], line);
}

/* The remedy when the kernel refuses an unprivileged user namespace. */
static void userns_hint(char *out, size_t cap)
{
	char v[32];
	if (read_small("/proc/sys/kernel/apparmor_restrict_unprivileged_userns", v, sizeof(v)) >
		0 &&
	    v[0] == '1') {
		snprintf(out, cap,
			 "AppArmor restricts unprivileged user namespaces: "
			 "sysctl -w kernel.apparmor_restrict_unprivileged_userns=0 "
			 "(or install an AppArmor profile that allows bwrap 'userns')");
		return;
	}
	if (read_small("/proc/sys/kernel/unprivileged_userns_clone", v, sizeof(v)) > 0 &&
	    v[0] == '0') {
		snprintf(out, cap, "sysctl -w kernel.unprivileged_userns_clone=1");
		return;
	}
	if (read_small("/proc/sys/user/max_user_namespaces", v, sizeof(v)) > 0 && atol(v) == 0) {
		snprintf(out, cap, "sysctl -w user.max_user_namespaces=15000");
		return;
	}
	snprintf(out, cap,
		 "user namespaces are refused to this user; in a container, allow "
		 "unshare(CLONE_NEWUSER) in its seccomp profile or run confine on the host");
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
	for (char *e = list, *next; e; e = next) {
		next = strchr(e, ':');
		if (next)
			*next++ = '\0';
		const char *entry = e[0] ? e : ".";
		char cand[PATH_MAX + 8], canon[PATH_MAX], why[512];
		struct stat st;
		if (snprintf(cand, sizeof(cand), "%s/bwrap", entry) >= (int)sizeof(cand))
			continue;
		if (entry[0] != '/') {
			/* Relative entries name a different place in every directory. */
			if (!s->rejected && stat(cand, &st) == 0) {
				s->rejected = true;
				snprintf(s->rejected_reason, sizeof(s->rejected_reason),
					 "bwrap found only through the relative PATH entry '%s'",
					 entry);
			}
			continue;
		}
		if (stat(cand, &st) != 0 || !realpath(entry, canon))
			continue;
		if (!location_ok(s, canon, why, sizeof(why))) {
			if (!s->rejected) {
				s->rejected = true;
				snprintf(s->rejected_reason, sizeof(s->rejected_reason),
					 "bwrap found only at '%s', %s", cand, why);
			}
			continue;
		}
		if (!realpath(cand, canon))
			continue;
		/* A symlink from a trusted directory into the workspace is still the workspace. */
		char *bindir = cf_path_dirname(canon);
		if (!bindir) {
			ret = cf_nomem(err);
			goto out;
		}
		bool loc = location_ok(s, bindir, why, sizeof(why));
		free(bindir);
		if (!loc) {
			if (!s->rejected) {
				s->rejected = true;
				snprintf(s->rejected_reason, sizeof(s->rejected_reason),
					 "bwrap found only at '%s' (resolves to '%s'), %s", cand,
					 canon, why);
			}
			continue;
		}
		if (!binary_ok(canon, &st, why, sizeof(why))) {
			if (!s->invalid) {
				s->invalid = true;
				SET(s->invalid_path, canon);
				SET(s->invalid_reason, why);
			}
			continue;
		}
		if (strlen(canon) >= sizeof(r->path)) {
			if (!s->invalid) {
				s->invalid = true;
				SET(s->invalid_path, cand);
				SET(s->invalid_reason, "its canonical path is too long");
			}
			continue;
		}
		SET(r->path, canon);
		id_from_stat(id, &st);
		ret = 1;
		goto out;
	}
	/* Nothing acceptable: report the problem a user is most likely to fix first. */
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
		install_line(line, sizeof(line));
		snprintf(
		    r->hint, sizeof(r->hint),
		    "install bwrap in a root-owned directory outside the workspace and put it on "
		    "PATH as an absolute entry: %s",
		    line);
	} else {
		fail(r, "binary_missing", "bwrap was not found in PATH '%s'", path_env);
		install_hint(r->hint, sizeof(r->hint));
	}
out:
	free(list);
	return ret;
}

/* ---------------------------------------------------------------------------------------- */
/* Running bwrap.                                                                           */

/* One read from whichever pipe is ready; a pipe at EOF is closed and set to -1. */
static void drain(int out[2], int ep[2], struct capture *c)
{
	struct pollfd pf[2] = {{.fd = out[0], .events = POLLIN}, {.fd = ep[0], .events = POLLIN}};
	if (poll(pf, 2, 0) <= 0)
		return;
	if (pf[0].revents) {
		char sink[4096];
		size_t room = sizeof(c->out) - 1 - c->len;
		ssize_t r = read(out[0], room ? c->out + c->len : sink, room ? room : sizeof(sink));
		if (r > 0 && room)
			c->len += (size_t)r;
		else if (r == 0 || (r < 0 && errno != EINTR && errno != EAGAIN))
			close(out[0]), out[0] = -1;
	}
	if (pf[1].revents) {
		int e = 0;
		ssize_t r = read(ep[0], &e, sizeof(e));
		if (r == (ssize_t)sizeof(e))
			c->exec_errno = e;
		if (r != -1 || errno != EINTR)
			close(ep[0]), ep[0] = -1;
	}
}

/* Runs argv[0] with stdout and stderr captured, killing its process group after timeout_ms.
 * Returns RUN_DONE, RUN_TIMEOUT or a negative code. */
static int run_capture(const char *const *argv, int timeout_ms, struct capture *c,
		       struct confine_error *err)
{
	/* A fixed environment: LC_ALL=C keeps bwrap's messages in English for the classifier. */
	static const char *const envp[] = {"LC_ALL=C", "PATH=/usr/bin:/bin", NULL};
	int out[2] = {-1, -1}, ep[2] = {-1, -1}, devnull = -1, pidfd = -1, ret = 0;
	pid_t pid = -1;
	sigset_t empty;

	c->len = 0;
	c->out[0] = '\0';
	c->status = 0;
	c->exec_errno = 0;
	sigemptyset(&empty);
	devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (devnull < 0 || pipe2(out, O_CLOEXEC) != 0 || pipe2(ep, O_CLOEXEC) != 0) {
		ret = cf_err_os(err, CONFINE_E_OS, "cannot probe bwrap", argv[0], "pipe2", errno);
		goto out;
	}
	pid = fork();
	if (pid < 0) {
		ret = cf_err_os(err, CONFINE_E_OS, "cannot probe bwrap", argv[0], "fork", errno);
		goto out;
	}
	if (pid == 0) {
		/* Child: async-signal-safe calls only.  Own process group, so that a timeout kills
		 * whatever a hung bwrap (or an impostor script) started. */
		int e;
		setpgid(0, 0);
		sigprocmask(SIG_SETMASK, &empty, NULL);
		if (dup2(devnull, 0) < 0 || dup2(out[1], 1) < 0 || dup2(out[1], 2) < 0)
			goto child_fail;
#ifdef SYS_close_range
		/* Nothing of the caller's leaks into bwrap; CLOSE_RANGE_CLOEXEC = 1 << 2. */
		syscall(SYS_close_range, 3U, ~0U, 1U << 2);
#endif
		execve(argv[0], (char *const *)argv, (char *const *)envp);
	child_fail:
		e = errno;
		(void)!write(ep[1], &e, sizeof(e));
		_exit(127);
	}
	/* Also from the parent, so that a timeout right after fork still finds the group. */
	setpgid(pid, pid);
	close(out[1]);
	close(ep[1]);
	out[1] = ep[1] = -1;

#ifdef SYS_pidfd_open
	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
#endif
	int64_t deadline = monotonic_ms() + timeout_ms;
	bool timed_out = false;
	/* Read until the process is reaped, not until EOF: a grandchild holding the pipe after
	 * bwrap exited must not hold the probe.  A pidfd wakes us at the exit; without one (kernels
	 * before 5.3), poll in 1 ms slices. */
	while (pid > 0) {
		int64_t left = deadline - monotonic_ms();
		if (left <= 0) {
			timed_out = true;
			break;
		}
		struct pollfd pf[3] = {{.fd = out[0], .events = POLLIN},
				       {.fd = ep[0], .events = POLLIN},
				       {.fd = pidfd, .events = POLLIN}};
		int n = poll(pf, 3, pidfd >= 0 ? (int)left : 1);
		if (n < 0 && errno != EINTR) {
			ret = cf_err_os(err, CONFINE_E_OS, "cannot probe bwrap", argv[0], "poll",
					errno);
			goto out;
		}
		if (n > 0 && (pf[0].revents || pf[1].revents))
			drain(out, ep, c);
		pid_t w = waitpid(pid, &c->status, WNOHANG);
		if (w == pid) {
			pid = -1;
		} else if (w < 0 && errno != EINTR) {
			ret = cf_err_os(err, CONFINE_E_OS, "cannot probe bwrap", argv[0], "waitpid",
					errno);
			pid = -1;
			goto out;
		}
	}
	/* What the process wrote before it exited is still in the pipes; a grandchild that keeps
	 * writing is cut off at the deadline. */
	while (!timed_out && (out[0] >= 0 || ep[0] >= 0) && monotonic_ms() < deadline) {
		struct pollfd pf[2] = {{.fd = out[0], .events = POLLIN},
				       {.fd = ep[0], .events = POLLIN}};
		if (poll(pf, 2, 0) <= 0)
			break;
		drain(out, ep, c);
	}
	c->out[c->len] = '\0';
	if (timed_out && ret == 0)
		ret = RUN_TIMEOUT;
out:
	if (pid > 0) {
		kill(-pid, SIGKILL);
		kill(pid, SIGKILL);
		while (waitpid(pid, &c->status, 0) < 0 && errno == EINTR)
			;
	}
	for (int i = 0; i < 2; i++) {
		if (out[i] >= 0)
			close(out[i]);
		if (ep[i] >= 0)
			close(ep[i]);
	}
	if (devnull >= 0)
		close(devnull);
	if (pidfd >= 0)
		close(pidfd);
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

static void classify_sandbox_failure(const struct capture *c, struct confine_probe_result *r,
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
		userns_hint(r->hint, sizeof(r->hint));
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
	struct capture *c = malloc(sizeof(*c));
	int ret = 0, v[3];
	if (!c)
		return cf_nomem(err);

	const char *vargv[] = {r->path, "--version", NULL};
	ret = run_capture(vargv, STEP_TIMEOUT_MS, c, err);
	if (ret < 0)
		goto out;
	if (ret == RUN_TIMEOUT) {
		timed_out(r, "'bwrap --version'");
		goto done;
	}
	if (c->exec_errno) {
		fail(r, "binary_invalid", "cannot execute '%s': %s", r->path,
		     strerror(c->exec_errno));
		install_hint(r->hint, sizeof(r->hint));
		goto done;
	}
	if (!WIFEXITED(c->status) || WEXITSTATUS(c->status) != 0 || !parse_version(c->out, v)) {
		char msg[128];
		first_message(c->out, msg, sizeof(msg));
		fail(r, "version_unreadable", "'%s --version' did not print 'bubblewrap X.Y.Z': %s",
		     r->path, msg);
		install_hint(r->hint, sizeof(r->hint));
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
		install_hint(r->hint, sizeof(r->hint));
		goto done;
	}

	const char *hargv[] = {r->path, "--help", NULL};
	ret = run_capture(hargv, STEP_TIMEOUT_MS, c, err);
	if (ret < 0)
		goto out;
	if (ret == RUN_TIMEOUT) {
		timed_out(r, "'bwrap --help'");
		goto done;
	}
	const char *opt = missing_option(c->out);
	if (opt) {
		fail(r, "required_feature_missing",
		     "'%s --help' does not list %s, which confine needs", r->path, opt);
		install_hint(r->hint, sizeof(r->hint));
		goto done;
	}

	/* /usr/bin/true first: on a merged-/usr system both are the same file anyway. */
	const char *true_path = access("/usr/bin/true", X_OK) == 0 ? "/usr/bin/true" : "/bin/true";
	const char *sargv[sizeof(sandbox_flags) / sizeof(sandbox_flags[0]) + 4];
	size_t k = 0;
	sargv[k++] = r->path;
	for (size_t i = 0; i < sizeof(sandbox_flags) / sizeof(sandbox_flags[0]); i++)
		sargv[k++] = sandbox_flags[i];
	sargv[k++] = "--";
	sargv[k++] = true_path;
	sargv[k] = NULL;
	ret = run_capture(sargv, STEP_TIMEOUT_MS, c, err);
	if (ret < 0)
		goto out;
	if (ret == RUN_TIMEOUT) {
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
	time_t now = time(NULL);
	if (t > (long long)now || (long long)now - t >= CACHE_TTL_SECONDS)
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

int confine_probe_bwrap(const char *path_env, const char *workspace, bool use_cache,
			struct confine_probe_result *result, struct confine_error *err)
{
	struct search s = {0};
	struct bin_id id = {0}, after = {0};
	char *ws = NULL, *cwd = NULL;
	int ret = 0;

	if (!result)
		return cf_err(err, CONFINE_E_INVALID, "cannot probe bwrap", "", "no result given");
	memset(result, 0, sizeof(*result));
	SET(result->backend, "bwrap");
	result->landlock_abi = cf_landlock_abi();
	result->seccomp = cf_seccomp_available();
	result->cgroup = cf_cgroup_available();
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
	if (result->available) {
		SET(result->read_protection, "enforced (mount namespace)");
		SET(result->write_protection, "enforced (read-only binds)");
		SET(result->network_isolation, "enforced with --no-network (network namespace)");
		SET(result->syscall_filter,
		    result->seccomp ? "enforced (seccomp)"
				    : "not provided: the kernel refuses seccomp filters");
		if (result->landlock_abi >= 6)
			SET(result->process_scoping, "enforced (Landlock scoping)");
		else
			SET(result->process_scoping,
			    "not provided: needs Landlock ABI 6 (abstract unix sockets and signals "
			    "reach the host when the network is on)");
		SET(result->resource_limits,
		    result->cgroup ? "enforced with --limit (cgroup)"
				   : "not provided: confine cannot create a cgroup here (--limit "
				     "is refused)");
	} else {
		SET(result->read_protection, "not provided");
		SET(result->write_protection, "not provided");
		SET(result->network_isolation, "not provided");
		SET(result->syscall_filter, "not provided");
		SET(result->process_scoping, "not provided");
		SET(result->resource_limits, "not provided");
	}
	free(ws);
	free(cwd);
	return ret;
}

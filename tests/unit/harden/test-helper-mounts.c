/* SPDX-License-Identifier: MIT */
/*
 * Helper mode (src/helper/mounts.c): the masks confine-init makes, made for real in a user and
 * mount namespace of a forked child, over a scratch tree of the test's own; the child sends
 * back what it saw, the parent checks it.  As the test's user and, when that is root, again as
 * uid 65534 (with a tree it owns, as a caller's workspace is).
 *  - a hidden file is an empty mode-000 file on a read-only mount; a hidden directory an empty
 *    mode-000 read-only directory; a kernel interface (a directory, or a file such as
 *    /proc/sysrq-trigger) read-only, its content still there;
 *  - a target that changed since the plan fails with its errno and call and is taken as changed
 *    (confine plans again, R34): missing (openat2 ENOENT), reached through a symlink (openat2
 *    ELOOP), itself a symlink (lookup ELOOP), a directory where a file was (lookup EISDIR) and
 *    the reverse (lookup ENOTDIR);
 *  - a pinned directory (R33) cannot be renamed and stays writable;
 *  - a transient endpoint (upper case) that is gone is left out and marked '-' in the list;
 *  - a list without its terminator or with an unknown op is refused (read EINVAL).
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../tap.h"
#include "helper/caches.h"
#include "helper/mounts.h"
#include "plan/bwrap/plan.h"

struct outcome {
	int rc, err;
	char call[32];
	char mark; /* the list's first byte afterwards */
	/* after a successful list: */
	int file_mode, file_size, file_write, dir_mode, dir_entries, dir_create, k_read, k_create;
	int r_read, r_write;
	int pin_rename, pin_write; /* a pinned directory: renamed, written into */
	bool changed;		   /* the helper took the target for changed since the plan */
};

static char top[64];
static unsigned as_uid; /* whom the helper runs as: the test's user, then uid 65534 */
static const char *who;

/* The user this pass runs the helper as, before its namespaces (as confine-init is started by
 * a caller of that uid). */
static int become(unsigned uid)
{
	if (uid == (unsigned)getuid())
		return 0;
	/* Dumpable again after the change of ids, so that its /proc/self files are its own. */
	return setgroups(0, NULL) < 0 || setresgid(uid, uid, uid) < 0 ||
		       setresuid(uid, uid, uid) < 0 || prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) < 0
		   ? -1
		   : 0;
}

static int write_map(const char *file, const char *text)
{
	int fd = open(file, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t k = write(fd, text, strlen(text));
	close(fd);
	return k == (ssize_t)strlen(text) ? 0 : -1;
}

static int enter_namespace(void)
{
	char map[64];
	unsigned uid = (unsigned)getuid(), gid = (unsigned)getgid();
	if (unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0)
		return -1;
	snprintf(map, sizeof(map), "0 %u 1", uid);
	if (write_map("/proc/self/uid_map", map) < 0 ||
	    write_map("/proc/self/setgroups", "deny") < 0)
		return -1;
	snprintf(map, sizeof(map), "0 %u 1", gid);
	if (write_map("/proc/self/gid_map", map) < 0)
		return -1;
	return mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL);
}

/* errno of an open for writing (or a create), 0 when it worked. */
static int open_errno(const char *path, int flags)
{
	int fd = open(path, flags | O_CLOEXEC, 0644);
	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

static int entries(const char *dir)
{
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "ls -A '%s' 2>/dev/null | wc -l", dir);
	FILE *p = popen(cmd, "r");
	int n = -1;
	if (p && fscanf(p, "%d", &n) != 1)
		n = -1;
	if (p)
		pclose(p);
	return n;
}

/* Runs the list (len bytes) in a child; after a successful one, looks at the masks. */
static struct outcome run_list(const char *list, size_t len)
{
	struct outcome o = {.rc = -9};
	int p[2];
	if (pipe(p) < 0)
		return o;
	pid_t pid = fork();
	if (pid == 0) {
		close(p[0]);
		struct outcome c = {.rc = -8};
		int fd = memfd_create("list", MFD_CLOEXEC);
		if (become(as_uid) == 0 && fd >= 0 && write(fd, list, len) == (ssize_t)len &&
		    enter_namespace() == 0) {
			struct cf_helper_err e = {0};
			static struct cf_helper_caches caches = {.proc_dir = -1};
			c.rc = cf_helper_mount_all(list, len, fd, &caches, &e);
			c.err = e.err;
			c.changed = e.changed;
			snprintf(c.call, sizeof(c.call), "%s", e.call ? e.call : "");
			if (pread(fd, &c.mark, 1, 0) != 1)
				c.mark = 0;
			if (c.rc == 0) {
				char f[128], d[128], k[128], x[160];
				struct stat st;
				snprintf(f, sizeof(f), "%s/file", top);
				snprintf(d, sizeof(d), "%s/dir", top);
				snprintf(k, sizeof(k), "%s/kdir", top);
				c.file_mode = stat(f, &st) == 0 ? (int)(st.st_mode & 07777) : -1;
				c.file_size = stat(f, &st) == 0 ? (int)st.st_size : -1;
				c.file_write = open_errno(f, O_WRONLY);
				c.dir_mode = stat(d, &st) == 0 ? (int)(st.st_mode & 07777) : -1;
				c.dir_entries = entries(d);
				snprintf(x, sizeof(x), "%s/new", d);
				c.dir_create = open_errno(x, O_WRONLY | O_CREAT);
				snprintf(x, sizeof(x), "%s/inside", k);
				c.k_read = open_errno(x, O_RDONLY);
				snprintf(x, sizeof(x), "%s/new", k);
				c.k_create = open_errno(x, O_WRONLY | O_CREAT);
				snprintf(x, sizeof(x), "%s/kfile", top);
				c.r_read = open_errno(x, O_RDONLY);
				c.r_write = open_errno(x, O_WRONLY);
				char pin[128], moved[128];
				snprintf(pin, sizeof(pin), "%s/pinned", top);
				snprintf(moved, sizeof(moved), "%s/pinned.old", top);
				c.pin_rename = rename(pin, moved) < 0 ? errno : 0;
				snprintf(x, sizeof(x), "%s/new", pin);
				c.pin_write = open_errno(x, O_WRONLY | O_CREAT);
			}
		} else {
			c.err = errno;
		}
		ssize_t w = write(p[1], &c, sizeof(c));
		_exit(w == (ssize_t)sizeof(c) ? 0 : 1);
	}
	close(p[1]);
	if (pid > 0 && read(p[0], &o, sizeof(o)) != (ssize_t)sizeof(o))
		o.rc = -9;
	close(p[0]);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	return o;
}

/* One record "<op>top/<rel>\0" appended to buf at *n. */
static void rec(char *buf, size_t *n, char op, const char *rel)
{
	*n += (size_t)snprintf(buf + *n, 4096 - *n, "%c%s/%s", op, top, rel) + 1;
}

static void expect_fail(char op, const char *rel, int err, const char *call, const char *why)
{
	char buf[4096];
	size_t n = 0;
	rec(buf, &n, op, rel);
	struct outcome o = run_list(buf, n);
	TAP_OK(o.rc == -1 && o.err == err && !strcmp(o.call, call) && o.changed,
	       "%s: %c %s: %s: %s %s, taken as changed (got rc %d, %s %s, changed %d)", who, op,
	       rel, why, call, strerror(err), o.rc, o.call, strerror(o.err), o.changed);
}

/* One pass: a scratch tree of as_uid's own, every check, the tree removed. */
static void checks(void)
{
	snprintf(top, sizeof(top), "/tmp/confine-hm.XXXXXX");
	if (!mkdtemp(top) || chmod(top, 0755) < 0) {
		TAP_OK(0, "%s: scratch tree", who);
		return;
	}
	char p[160];
	snprintf(p, sizeof(p), "%s/file", top);
	FILE *f = fopen(p, "w");
	if (f) {
		fputs("secret\n", f);
		fclose(f);
	}
	snprintf(p, sizeof(p), "%s/dir", top);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/dir/inner", top);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/kdir", top);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/kdir/inside", top);
	if ((f = fopen(p, "w")))
		fclose(f);
	snprintf(p, sizeof(p), "%s/kfile", top);
	if ((f = fopen(p, "w")))
		fclose(f);
	snprintf(p, sizeof(p), "%s/pinned", top);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/link", top);
	int links = symlink("dir", p);
	snprintf(p, sizeof(p), "%s/flink", top);
	links |= symlink("file", p);
	char cmd[160];
	snprintf(cmd, sizeof(cmd), "chown -R -h %u:%u '%s'", as_uid, as_uid, top);
	TAP_OK(links == 0 && system(cmd) == 0, "%s: a scratch tree of its own", who);

	/* The masks themselves. */
	char buf[4096];
	size_t n = 0;
	rec(buf, &n, 'f', "file");
	rec(buf, &n, 'd', "dir");
	rec(buf, &n, 'k', "kdir");
	rec(buf, &n, 'r', "kfile");
	rec(buf, &n, 'p', "pinned");
	struct outcome o = run_list(buf, n);
	TAP_INTEQ(o.rc, 0,
		  "%s: a hidden file, a hidden directory, a kernel interface: made (%s %s)", who,
		  o.call, strerror(o.err));
	TAP_INTEQ(o.file_mode, 0, "%s: the hidden file is mode 000", who);
	TAP_INTEQ(o.file_size, 0, "%s: and empty: the content is gone", who);
	TAP_INTEQ(o.file_write, EROFS, "%s: and on a read-only mount (open for writing: EROFS)",
		  who);
	TAP_INTEQ(o.dir_mode, 0, "%s: the hidden directory is mode 000", who);
	TAP_INTEQ(o.dir_entries, 0, "%s: and empty (its entry 'inner' is not seen)", who);
	TAP_INTEQ(o.dir_create, EROFS, "%s: and read-only (create: EROFS)", who);
	TAP_INTEQ(o.k_read, 0, "%s: the kernel interface keeps its content", who);
	TAP_INTEQ(o.k_create, EROFS, "%s: but is read-only (create: EROFS)", who);
	TAP_INTEQ(o.r_read, 0, "%s: a kernel file (/proc/sysrq-trigger) stays readable", who);
	TAP_INTEQ(o.r_write, EROFS, "%s: but not writable (EROFS)", who);
	TAP_INTEQ(o.pin_rename, EBUSY, "%s: R33 a pinned directory cannot be renamed (EBUSY)", who);
	TAP_INTEQ(o.pin_write, 0, "%s: and stays as writable as it was", who);
	struct stat st;
	snprintf(p, sizeof(p), "%s/file", top);
	TAP_OK(stat(p, &st) == 0 && st.st_size == 7 && (st.st_mode & 0777) == 0644,
	       "%s: outside the namespace the file is as it was", who);

	/* A target that changed since the plan. */
	expect_fail('f', "gone", ENOENT, "openat2", "missing");
	expect_fail('f', "link/inner", ELOOP, "openat2", "reached through a symlink");
	expect_fail('f', "flink", ELOOP, "lookup", "a symlink itself");
	expect_fail('f', "dir", EISDIR, "lookup", "a directory where the plan saw a file");
	expect_fail('d', "file", ENOTDIR, "lookup", "a file where the plan saw a directory");
	expect_fail('k', "file", ENOTDIR, "lookup", "a kernel interface that is a file now");
	expect_fail('r', "dir", EISDIR, "lookup", "a kernel file that is a directory now");
	expect_fail('p', "file", ENOTDIR, "lookup", "a pinned directory that is a file now");

	/* A transient endpoint that is gone: left out and marked; the next record is made. */
	n = 0;
	rec(buf, &n, 'F', "gone-socket");
	rec(buf, &n, 'f', "file");
	o = run_list(buf, n);
	TAP_OK(o.rc == 0 && o.mark == CF_HELPER_LEFT_OUT && o.file_mode == 0,
	       "%s: a transient endpoint that is gone is left out and marked '%c' (rc %d, mark "
	       "'%c')",
	       who, CF_HELPER_LEFT_OUT, o.rc, o.mark ? o.mark : '0');
	n = 0;
	rec(buf, &n, 'F', "dir");
	o = run_list(buf, n);
	TAP_OK(o.rc == -1 && o.err == EISDIR && o.changed && o.mark == 'F',
	       "%s: a transient endpoint that is there but changed kind still fails (lookup "
	       "EISDIR, taken as changed)",
	       who);

	/* A list that is not one: refused, and not taken for a changed target. */
	n = 0;
	rec(buf, &n, 'f', "file");
	o = run_list(buf, n - 1);
	TAP_OK(o.rc == -1 && o.err == EINVAL && !strcmp(o.call, "read") && !o.changed,
	       "%s: a list without its last terminator is refused (read EINVAL)", who);
	n = 0;
	rec(buf, &n, 'x', "file");
	o = run_list(buf, n);
	TAP_OK(o.rc == -1 && o.err == EINVAL && !strcmp(o.call, "read") && !o.changed,
	       "%s: an unknown op is refused (read EINVAL)", who);
	o = run_list("frelative\0", 10);
	TAP_OK(o.rc == -1 && o.err == EINVAL && !o.changed,
	       "%s: a relative path is refused (read EINVAL)", who);

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	TAP_OK(system(cmd) == 0, "%s: scratch tree removed", who);
}

int main(void)
{
	/* As the test's user; as root, also as uid 65534 (as an unprivileged caller's helper
	 * runs), each with a tree of its own. */
	as_uid = (unsigned)getuid();
	who = as_uid == 0 ? "root" : "caller";
	checks();
	if (as_uid == 0) {
		as_uid = 65534;
		who = "nobody";
		checks();
	}
	return tap_done();
}

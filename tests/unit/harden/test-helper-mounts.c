/* SPDX-License-Identifier: MIT */
/*
 * Helper mode (src/helper/mounts.c): the masks confine-init makes, made for real in a user and
 * mount namespace of a forked child, over a scratch tree of the test's own; the child sends
 * back what it saw, the parent checks it.
 *  - a hidden file is an empty mode-000 file on a read-only mount; a hidden directory an empty
 *    mode-000 read-only directory; a kernel interface (a directory, or a file such as
 *    /proc/sysrq-trigger) read-only, its content still there;
 *  - a target that changed since the plan fails with the errno and call confine reads as "plan
 *    again" (R34): missing (openat2 ENOENT), reached through a symlink (openat2 ELOOP), itself a
 *    symlink (lookup ELOOP), a directory where a file was (lookup EISDIR) and the reverse
 *    (lookup ENOTDIR);
 *  - a pinned directory (R33) cannot be renamed and stays writable;
 *  - a transient endpoint (upper case) that is gone is left out and marked '-' in the list;
 *  - a list without its terminator or with an unknown op is refused (read EINVAL).
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../tap.h"
#include "helper/mounts.h"
#include "plan/plan.h"

struct outcome {
	int rc, err;
	char call[32];
	char mark; /* the list's first byte afterwards */
	/* after a successful list: */
	int file_mode, file_size, file_write, dir_mode, dir_entries, dir_create, k_read, k_create;
	int r_read, r_write;
	int pin_rename, pin_write; /* a pinned directory: renamed, written into */
};

static char top[64];

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
		if (fd >= 0 && write(fd, list, len) == (ssize_t)len && enter_namespace() == 0) {
			struct cf_helper_err e = {0};
			c.rc = cf_helper_mount_all(list, len, fd, &e);
			c.err = e.err;
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
	TAP_OK(o.rc == -1 && o.err == err && !strcmp(o.call, call),
	       "%c %s: %s: %s %s (got rc %d, %s %s)", op, rel, why, call, strerror(err), o.rc,
	       o.call, strerror(o.err));
}

int main(void)
{
	snprintf(top, sizeof(top), "/tmp/confine-hm.XXXXXX");
	if (!mkdtemp(top))
		return 1;
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
	if (symlink("dir", p) < 0)
		return 1;
	snprintf(p, sizeof(p), "%s/flink", top);
	if (symlink("file", p) < 0)
		return 1;

	/* The masks themselves. */
	char buf[4096];
	size_t n = 0;
	rec(buf, &n, 'f', "file");
	rec(buf, &n, 'd', "dir");
	rec(buf, &n, 'k', "kdir");
	rec(buf, &n, 'r', "kfile");
	rec(buf, &n, 'p', "pinned");
	struct outcome o = run_list(buf, n);
	TAP_INTEQ(o.rc, 0, "a hidden file, a hidden directory, a kernel interface: made (%s %s)",
		  o.call, strerror(o.err));
	TAP_INTEQ(o.file_mode, 0, "the hidden file is mode 000");
	TAP_INTEQ(o.file_size, 0, "and empty: the content is gone");
	TAP_INTEQ(o.file_write, EROFS, "and on a read-only mount (open for writing: EROFS)");
	TAP_INTEQ(o.dir_mode, 0, "the hidden directory is mode 000");
	TAP_INTEQ(o.dir_entries, 0, "and empty (its entry 'inner' is not seen)");
	TAP_INTEQ(o.dir_create, EROFS, "and read-only (create: EROFS)");
	TAP_INTEQ(o.k_read, 0, "the kernel interface keeps its content");
	TAP_INTEQ(o.k_create, EROFS, "but is read-only (create: EROFS)");
	TAP_INTEQ(o.r_read, 0, "a kernel file (/proc/sysrq-trigger) stays readable");
	TAP_INTEQ(o.r_write, EROFS, "but not writable (EROFS)");
	TAP_INTEQ(o.pin_rename, EBUSY, "R33 a pinned directory cannot be renamed (EBUSY)");
	TAP_INTEQ(o.pin_write, 0, "and stays as writable as it was");
	struct stat st;
	snprintf(p, sizeof(p), "%s/file", top);
	TAP_OK(stat(p, &st) == 0 && st.st_size == 7 && (st.st_mode & 0777) == 0644,
	       "outside the namespace the file is as it was");

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
	       "a transient endpoint that is gone is left out and marked '%c' (rc %d, mark '%c')",
	       CF_HELPER_LEFT_OUT, o.rc, o.mark ? o.mark : '0');
	n = 0;
	rec(buf, &n, 'F', "dir");
	o = run_list(buf, n);
	TAP_OK(o.rc == -1 && o.err == EISDIR && o.mark == 'F',
	       "a transient endpoint that is there but changed kind still fails (lookup EISDIR)");

	/* A list that is not one. */
	n = 0;
	rec(buf, &n, 'f', "file");
	o = run_list(buf, n - 1);
	TAP_OK(o.rc == -1 && o.err == EINVAL && !strcmp(o.call, "read"),
	       "a list without its last terminator is refused (read EINVAL)");
	n = 0;
	rec(buf, &n, 'x', "file");
	o = run_list(buf, n);
	TAP_OK(o.rc == -1 && o.err == EINVAL && !strcmp(o.call, "read"),
	       "an unknown op is refused (read EINVAL)");
	o = run_list("frelative\0", 10);
	TAP_OK(o.rc == -1 && o.err == EINVAL, "a relative path is refused (read EINVAL)");

	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	if (system(cmd) != 0)
		TAP_OK(0, "scratch tree removed");
	return tap_done();
}

/* SPDX-License-Identifier: MIT */
/*
 * The host's IPC endpoints (SPEC 3.4, R29).  A read-only mount does not stop connect() on a
 * unix socket or open() of a FIFO for writing, and every socket a host daemon has bound is a
 * door: a root-only daemon socket under /run (the system bus, systemd, containerd), an
 * ssh-agent at a non-standard path such as ~/.1password/agent.sock.  So confine hides what the
 * host has bound instead of a list of known names:
 *  - every pathname socket of /proc/net/unix (the caller's network namespace: the sockets
 *    bound by the processes that share it, wherever they live in the file system; the
 *    directory resolved, the file not looked at: the planner lstats every candidate);
 *  - every socket and FIFO below /run and /var/run (a socket bound in another network
 *    namespace, a FIFO such as /run/initctl).
 * Outside the workspace only (the command's own area), never below /tmp (private in the
 * sandbox), /proc, /sys or /dev (the sandbox's own), nor below `skip` (the runtime directory,
 * hidden as a whole already).  Touches the OS.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host/ipc.h"
#include "util/util.h"

/* The walk of /run is bounded: a hostile or huge tree cannot make every launch slow. */
#define RUN_MAX_DEPTH 8
#define RUN_MAX_ENTRIES 20000

struct sweep {
	const char *workspace, *skip;
	struct cf_strv *out;
	size_t entries;
	bool oom;
	char parent[PATH_MAX]; /* the last parent directory canonicalised, and its result */
	char parent_real[PATH_MAX];
	bool parent_ok;
};

static bool excluded(const struct sweep *s, const char *path)
{
	static const char *const own[] = {"/tmp", "/proc", "/sys", "/dev"};
	for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++)
		if (cf_path_within(path, own[i]))
			return true;
	return cf_path_within(path, s->workspace) || (s->skip && cf_path_within(path, s->skip));
}

static void add(struct sweep *s, const char *path)
{
	if (!excluded(s, path) && cf_strv_add(s->out, path) < 0)
		s->oom = true;
}

/* A path as /proc/net/unix names it is what the binder passed to bind(): its directory may
 * have been reached through a symlink (/var/run -> /run).  The directory is resolved (one
 * cached realpath per directory: sockets cluster), the name is kept. */
static void add_bound(struct sweep *s, const char *path)
{
	const char *slash = strrchr(path, '/');
	size_t dl = (size_t)(slash - path);
	if (!slash || dl >= sizeof(s->parent) || !slash[1])
		return;
	if (dl != strlen(s->parent) || strncmp(path, s->parent, dl)) {
		memcpy(s->parent, path, dl);
		s->parent[dl] = '\0';
		s->parent_ok = realpath(dl ? s->parent : "/", s->parent_real) != NULL;
	}
	if (!s->parent_ok)
		return; /* gone, or in another mount namespace: nothing to hide here */
	/* No lstat here: the planner asks for the kind of every candidate anyway, and a socket
	 * whose file was unlinked after bind (still listed) is simply not mounted then. */
	char *full = cf_path_join(s->parent_real, slash + 1);
	if (!full) {
		s->oom = true;
		return;
	}
	add(s, full);
	free(full);
}

/* /proc/net/unix: "Num RefCount Protocol Flags Type St Inode Path"; the path, when there is
 * one, is the eighth field and runs to the end of the line.  Abstract names start with '@'
 * (Landlock scopes those, SPEC 3). */
static int read_proc_net_unix(struct sweep *s, struct confine_error *err)
{
	int fd = open("/proc/net/unix", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0
				       : cf_err_os(err, CONFINE_E_OS, "cannot list host sockets",
						   "/proc/net/unix", "open", errno);
	struct cf_buf b;
	cf_buf_init(&b);
	char chunk[16384];
	ssize_t k;
	while ((k = read(fd, chunk, sizeof(chunk))) > 0)
		cf_buf_addn(&b, chunk, (size_t)k);
	int e = errno;
	close(fd);
	if (k < 0) {
		cf_buf_release(&b);
		return cf_err_os(err, CONFINE_E_OS, "cannot list host sockets", "/proc/net/unix",
				 "read", e);
	}
	if (b.oom) {
		cf_buf_release(&b);
		return cf_nomem(err);
	}
	char *save = NULL;
	bool header = true;
	for (char *line = b.s ? strtok_r(b.s, "\n", &save) : NULL; line && !s->oom;
	     line = strtok_r(NULL, "\n", &save)) {
		if (header) {
			header = false;
			continue;
		}
		char *p = line;
		for (int field = 0; field < 7 && p; field++) {
			p = strchr(p, ' ');
			while (p && *p == ' ')
				p++;
		}
		if (p && p[0] == '/')
			add_bound(s, p);
	}
	cf_buf_release(&b);
	return s->oom ? cf_nomem(err) : 0;
}

static void walk(struct sweep *s, int fd, char *path, size_t len, int depth)
{
	DIR *d = fdopendir(fd);
	if (!d) {
		close(fd);
		return;
	}
	struct dirent *de;
	while ((de = readdir(d)) && !s->oom && s->entries < RUN_MAX_ENTRIES) {
		s->entries++;
		const char *name = de->d_name;
		if (name[0] == '.' && (!name[1] || (name[1] == '.' && !name[2])))
			continue;
		size_t nl = strlen(name);
		if (len + 1 + nl >= PATH_MAX)
			continue;
		path[len] = '/';
		memcpy(path + len + 1, name, nl + 1);
		unsigned char t = de->d_type;
		if (t == DT_UNKNOWN) {
			struct stat st;
			if (fstatat(dirfd(d), name, &st, AT_SYMLINK_NOFOLLOW) < 0)
				continue;
			t = S_ISDIR(st.st_mode)	   ? DT_DIR
			    : S_ISSOCK(st.st_mode) ? DT_SOCK
			    : S_ISFIFO(st.st_mode) ? DT_FIFO
						   : DT_REG;
		}
		if (t == DT_SOCK || t == DT_FIFO) {
			add(s, path);
		} else if (t == DT_DIR && depth < RUN_MAX_DEPTH && !excluded(s, path)) {
			int sub =
			    openat(dirfd(d), name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sub >= 0)
				walk(s, sub, path, len + 1 + nl, depth + 1);
		}
	}
	path[len] = '\0';
	closedir(d);
}

static int walk_root(struct sweep *s, const char *root)
{
	char real[PATH_MAX];
	if (!realpath(root, real))
		return 0;
	int fd = open(real, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s", real);
	walk(s, fd, path, strlen(path), 0);
	return 0;
}

static int cmp_path(const void *a, const void *b)
{
	return cf_path_cmp(*(char *const *)a, *(char *const *)b);
}

/* Whether the directory holds nothing but sockets and FIFOs (and at least one entry). */
static bool only_endpoints(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return false;
	DIR *d = fdopendir(fd);
	if (!d) {
		close(fd);
		return false;
	}
	bool only = true;
	size_t n = 0;
	struct dirent *de;
	while (only && (de = readdir(d))) {
		const char *name = de->d_name;
		if (name[0] == '.' && (!name[1] || (name[1] == '.' && !name[2])))
			continue;
		unsigned char t = de->d_type;
		if (t == DT_UNKNOWN) {
			struct stat st;
			t = fstatat(dirfd(d), name, &st, AT_SYMLINK_NOFOLLOW) < 0 ? DT_UNKNOWN
			    : S_ISSOCK(st.st_mode)				  ? DT_SOCK
			    : S_ISFIFO(st.st_mode)				  ? DT_FIFO
										  : DT_REG;
		}
		only = t == DT_SOCK || t == DT_FIFO;
		n++;
	}
	closedir(d);
	return only && n > 0;
}

int cf_host_ipc_groups(const struct cf_strv *endpoints, struct cf_strv *out,
		       struct confine_error *err)
{
	for (size_t i = 0; i < endpoints->n;) {
		const char *slash = strrchr(endpoints->v[i], '/');
		size_t dl = slash ? (size_t)(slash - endpoints->v[i]) : 0;
		size_t j = i + 1;
		/* Sorted parent first: the endpoints of one directory are contiguous. */
		while (j < endpoints->n && !strncmp(endpoints->v[j], endpoints->v[i], dl) &&
		       endpoints->v[j][dl] == '/' && !strchr(endpoints->v[j] + dl + 1, '/'))
			j++;
		if (j - i >= 2 && dl > 0) {
			char *dir = cf_strndup(endpoints->v[i], dl);
			if (!dir)
				return cf_nomem(err);
			/* Never a root of its own: /run and /var/run hold more than sockets. */
			if (strcmp(dir, "/run") && strcmp(dir, "/var/run") && only_endpoints(dir)) {
				if (cf_strv_take(out, dir) < 0)
					return cf_nomem(err);
			} else {
				free(dir);
			}
		}
		i = j;
	}
	return 0;
}

int cf_host_ipc_endpoints(const char *workspace, const char *skip, struct cf_strv *out,
			  struct confine_error *err)
{
	struct sweep s = {.workspace = workspace, .skip = skip, .out = out};
	int r = read_proc_net_unix(&s, err);
	if (r < 0)
		return r;
	char a[PATH_MAX], b[PATH_MAX];
	walk_root(&s, "/run");
	/* /var/run is a symlink to /run almost everywhere: then one walk covers both. */
	if (realpath("/var/run", a) && (!realpath("/run", b) || strcmp(a, b)))
		walk_root(&s, "/var/run");
	if (s.oom)
		return cf_nomem(err);
	/* Sorted and unique: a listening socket appears once per connection in /proc/net/unix. */
	if (out->n > 1)
		qsort(out->v, out->n, sizeof(out->v[0]), cmp_path);
	size_t w = 0;
	for (size_t i = 0; i < out->n; i++) {
		if (w && !strcmp(out->v[w - 1], out->v[i])) {
			free(out->v[i]);
			continue;
		}
		out->v[w++] = out->v[i];
	}
	out->n = w;
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * The proxy of one run (see netrun.h).  Who can reach its sockets: the directory is 0700 and
 * the sockets 0600, so no other user of the host (root aside, who can do anything anyway);
 * it lives under the host's /tmp, which every sandbox sees only as its own private tmpfs, so
 * no other sandbox finds it; inside this sandbox it is bound read-only at /dev/.confine-net,
 * where confine-init connects to it.  The command can connect there too, and can hand over
 * only connections it already holds, to the same proxy and the same decisions: nothing to
 * gain.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "net/netconst.h"
#include "net/netrun.h"
#include "net/proxy.h"
#include "util/util.h"

struct cf_netrun {
	char *dir;
	char *path; /* the handoff socket */
	int dir_fd;
	struct cf_proxy *proxy;
};

static int listen_unix(const char *path, struct confine_error *err)
{
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	size_t n = strlen(path);
	if (fd < 0 || n >= sizeof(a.sun_path)) {
		if (fd >= 0)
			close(fd);
		return cf_err_os(err, CONFINE_E_OS, "cannot start the network proxy", path,
				 "socket", fd < 0 ? errno : ENAMETOOLONG);
	}
	memcpy(a.sun_path, path, n + 1);
	/* The directory is 0700 already; the mode of the socket itself is tightened right
	 * after bind, without touching the process's umask (a library must not). */
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 || chmod(path, 0600) < 0 ||
	    listen(fd, 4096) < 0) {
		int e = errno;
		close(fd);
		return cf_err_os(err, CONFINE_E_OS, "cannot start the network proxy", path, "bind",
				 e);
	}
	return fd;
}

/* Whether the socket at path has no listener any more (a confine that was killed). */
static bool dead_socket(const char *path)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	size_t n = strlen(path);
	if (n >= sizeof(a.sun_path))
		return false;
	memcpy(a.sun_path, path, n + 1);
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return false;
	bool dead = connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0 && errno == ECONNREFUSED;
	close(fd);
	return dead;
}

/*
 * The directories a killed confine left behind: ours (owner and mode), older than a minute
 * (one being set up right now has an unbound socket for a moment), and whose socket nobody
 * listens on.  Best effort: nothing here can fail the run.
 */
static void sweep_stale(void)
{
	DIR *d = opendir("/tmp");
	if (!d)
		return;
	time_t now = time(NULL);
	struct dirent *e;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, "confine-net.", 12))
			continue;
		char dir[64], sock[96];
		if (snprintf(dir, sizeof(dir), "/tmp/%s", e->d_name) >= (int)sizeof(dir))
			continue;
		struct stat st;
		if (lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
		    (st.st_mode & 07777) != 0700 || now - st.st_mtime < 60)
			continue;
		snprintf(sock, sizeof(sock), "%s/" CF_NET_HANDOFF_SOCK, dir);
		if (!dead_socket(sock))
			continue;
		unlink(sock);
		rmdir(dir);
	}
	closedir(d);
}

int cf_netrun_start(const struct cf_net_policy *policy, struct cf_netrun **out,
		    struct confine_error *err)
{
	int r, hfd = -1;
	struct cf_netrun *n = calloc(1, sizeof(*n));
	*out = NULL;
	if (!n)
		return cf_nomem(err);
	n->dir_fd = -1;
	sweep_stale();
	n->dir = cf_strdup("/tmp/confine-net.XXXXXX");
	if (!n->dir)
		goto oom;
	if (!mkdtemp(n->dir)) {
		r = cf_err_os(err, CONFINE_E_OS, "cannot start the network proxy", "/tmp",
			      "mkdtemp", errno);
		cf_err_hint(err, "confine keeps the proxy's sockets in a private directory under "
				 "/tmp; make /tmp writable");
		free(n->dir);
		n->dir = NULL;
		goto out;
	}
	n->path = cf_path_join(n->dir, CF_NET_HANDOFF_SOCK);
	if (!n->path)
		goto oom;
	n->dir_fd = open(n->dir, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (n->dir_fd < 0) {
		r = cf_err_os(err, CONFINE_E_OS, "cannot start the network proxy", n->dir, "open",
			      errno);
		goto out;
	}
	if ((hfd = listen_unix(n->path, err)) < 0) {
		r = CONFINE_E_OS;
		goto out;
	}
	struct cf_proxy_config cfg = CF_PROXY_CONFIG_DEFAULT;
	r = cf_proxy_new(&cfg, policy, -1, -1, hfd, &n->proxy, err);
	hfd = -1; /* the proxy's now, whatever happened */
	if (r == 0)
		r = cf_proxy_start(n->proxy, err);
	if (r < 0)
		goto out;
	*out = n;
	n = NULL;
	goto out;
oom:
	r = cf_nomem(err);
out:
	if (hfd >= 0)
		close(hfd);
	cf_netrun_free(n);
	return r;
}

int cf_netrun_dir_fd(const struct cf_netrun *n)
{
	return n->dir_fd;
}

const char *cf_netrun_dir(const struct cf_netrun *n)
{
	return n->dir;
}

int cf_netrun_finish(struct cf_netrun *n, struct confine_net_event **events, size_t *n_events,
		     size_t *dropped, struct confine_error *err)
{
	*events = NULL;
	*n_events = *dropped = 0;
	if (!n->proxy)
		return 0;
	cf_proxy_stop(n->proxy);
	size_t k;
	const struct confine_net_event *ev = cf_proxy_events(n->proxy, &k, dropped);
	if (!k)
		return 0;
	*events = malloc(k * sizeof(**events));
	if (!*events)
		return cf_nomem(err);
	memcpy(*events, ev, k * sizeof(**events));
	*n_events = k;
	return 0;
}

void cf_netrun_free(struct cf_netrun *n)
{
	if (!n)
		return;
	cf_proxy_free(n->proxy);
	if (n->path)
		unlink(n->path);
	if (n->dir)
		rmdir(n->dir);
	if (n->dir_fd >= 0)
		close(n->dir_fd);
	free(n->path);
	free(n->dir);
	free(n);
}

/* SPDX-License-Identifier: MIT */
/*
 * The proxy of one run (see netrun.h).  Who can reach its sockets: the directory is 0700 and
 * the sockets 0600, so no other user of the host (root aside, who can do anything anyway);
 * it lives under the host's /tmp, which every sandbox sees only as its own private tmpfs, so
 * no other sandbox finds it; inside this sandbox it is bound read-only at /dev/.confine-net,
 * where confine-init connects to it.  The command can connect there too, and can hand over
 * only connections it already holds, to the same proxy and the same decisions: nothing to
 * gain.
 *
 * The landlock backend's variant has no directory: a TCP listener on 127.0.0.1 that every
 * process of the host can reach, which is why each request must carry the run's secret.  The
 * secret is in the command's environment (the proxy variables) and nowhere else: not on a
 * command line, not in a file, not in the report.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "net/auth.h"
#include "net/inspect.h"
#include "net/netconst.h"
#include "net/netrun.h"
#include "net/proxy.h"
#include "net/resolvconf.h"
#include "net/resolver.h"
#include "rules/upstream.h"
#include "util/owntmp.h"
#include "util/util.h"

/* The sandbox's resolver configuration in the directory (R43), each bound over its host path. */
static const char *const conf_files[] = {"resolv.conf", "hosts", "nsswitch.conf"};

struct cf_netrun {
	char *dir;
	char *path; /* the handoff socket */
	bool conf;  /* conf_files were written */
	int dir_fd;
	int lock_fd; /* the directory's lock (util/owntmp.h) */
	struct cf_proxy *proxy;
	struct cf_inspector *inspector;	      /* R45 */
	unsigned port;			      /* the TCP variant */
	char secret[CF_PROXY_SECRET_LEN + 1]; /* the TCP variant */
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

/* A host file's text, at most CF_RESOLVCONF_MAX_INPUT bytes; NULL when it cannot be read. */
static char *slurp(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return NULL;
	char *b = malloc(CF_RESOLVCONF_MAX_INPUT + 1);
	size_t n = 0;
	while (b && n < CF_RESOLVCONF_MAX_INPUT) {
		ssize_t k = read(fd, b + n, CF_RESOLVCONF_MAX_INPUT - n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		n += (size_t)k;
	}
	close(fd);
	if (b)
		b[n] = '\0';
	return b;
}

/* resolv.conf, hosts and nsswitch.conf of the sandbox, from the host's (R43). */
static int write_conf(struct cf_netrun *n, struct confine_error *err)
{
	static const char *const host[] = {"/etc/resolv.conf", "/etc/hosts", "/etc/nsswitch.conf"};
	void (*const make[])(const char *, struct cf_buf *) = {cf_resolv_conf, cf_hosts_file,
							       cf_nsswitch};
	for (size_t i = 0; i < 3; i++) {
		char *text = slurp(host[i]);
		struct cf_buf b;
		cf_buf_init(&b);
		make[i](text, &b);
		free(text);
		int fd = b.oom ? -1
			       : openat(n->dir_fd, conf_files[i],
					O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0444);
		int e = b.oom ? ENOMEM : errno;
		ssize_t k = fd >= 0 ? write(fd, b.s, b.len) : -1;
		if (fd >= 0) {
			e = k < 0 ? errno : EIO;
			close(fd);
		}
		bool ok = fd >= 0 && k == (ssize_t)b.len;
		cf_buf_release(&b);
		n->conf = true;
		if (!ok)
			return cf_err_os(err, CONFINE_E_OS, "cannot start the network proxy",
					 conf_files[i], fd < 0 ? "openat" : "write", e);
	}
	return 0;
}

/* R43: the upstream proxy's addresses, looked up once. */
static void resolve_upstream(struct cf_upstream *u)
{
	if (!u)
		return;
	if (u->is_ip) {
		u->addrs[0] = u->ip;
		u->n_addrs = 1;
		return;
	}
	int k = cf_net_lookup(u->host, u->addrs, CF_UPSTREAM_MAX_ADDRS, u->resolve_error,
			      sizeof(u->resolve_error));
	u->n_addrs = k > 0 ? (size_t)k : 0;
}

static void proxy_config(struct cf_proxy_config *cfg, const struct cf_netrun_opts *o)
{
	if (!o)
		return;
	cfg->ask = o->ask;
	cfg->ask_user = o->ask_user;
	cfg->upstream = o->upstream;
	resolve_upstream(o->upstream);
}

/* R45: the inspector of the run's secrets, given to the proxy before it starts. */
static int with_secrets(struct cf_netrun *n, const struct cf_netrun_opts *o,
			struct confine_error *err)
{
	if (!o || !o->secrets || (!o->secrets->n && !o->secrets->n_inspect))
		return 0;
	int r = cf_inspector_new(o->secrets, o->tls, &n->inspector, err);
	if (r == 0)
		cf_proxy_set_secrets(n->proxy, o->secrets, n->inspector);
	return r;
}

int cf_netrun_start(const struct cf_net_policy *policy, const struct cf_netrun_opts *o,
		    struct cf_netrun **out, struct confine_error *err)
{
	int r, hfd = -1;
	struct cf_netrun *n = calloc(1, sizeof(*n));
	*out = NULL;
	if (!n)
		return cf_nomem(err);
	n->dir_fd = n->lock_fd = -1;
	/* Locked while this run lives; a killed run's is removed by the next run of any kind
	 * (util/owntmp.c, from confine_run_start). */
	if ((r = cf_owntmp_make(CF_OWNTMP_NET, &n->dir, &n->lock_fd, err)) < 0)
		goto out;
	n->path = cf_path_join(n->dir, CF_NET_HANDOFF_SOCK);
	if (!n->path)
		goto oom;
	n->dir_fd = open(n->dir, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (n->dir_fd < 0) {
		r = cf_err_os(err, CONFINE_E_OS, "cannot start the network proxy", n->dir, "open",
			      errno);
		goto out;
	}
	if ((r = write_conf(n, err)) < 0)
		goto out;
	if ((hfd = listen_unix(n->path, err)) < 0) {
		r = CONFINE_E_OS;
		goto out;
	}
	struct cf_proxy_config cfg = CF_PROXY_CONFIG_DEFAULT;
	proxy_config(&cfg, o);
	r = cf_proxy_new(&cfg, policy, -1, -1, hfd, &n->proxy, err);
	hfd = -1; /* the proxy's now, whatever happened */
	if (r == 0)
		r = with_secrets(n, o, err);
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

/* A fresh secret: 16 bytes of the kernel's random generator, as hex. */
static int make_secret(char out[CF_PROXY_SECRET_LEN + 1], struct confine_error *err)
{
	unsigned char b[CF_PROXY_SECRET_LEN / 2];
	size_t got = 0;
	while (got < sizeof(b)) {
		ssize_t k = getrandom(b + got, sizeof(b) - got, 0);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return cf_err_os(err, CONFINE_E_OS, "cannot start the network proxy",
					 "secret", "getrandom", errno);
		got += (size_t)k;
	}
	static const char hex[] = "0123456789abcdef";
	for (size_t i = 0; i < sizeof(b); i++) {
		out[2 * i] = hex[b[i] >> 4];
		out[2 * i + 1] = hex[b[i] & 15];
	}
	out[CF_PROXY_SECRET_LEN] = '\0';
	explicit_bzero(b, sizeof(b));
	return 0;
}

int cf_netrun_start_tcp(const struct cf_net_policy *policy, const struct cf_netrun_opts *o,
			struct cf_netrun **out, struct confine_error *err)
{
	int r, fd = -1;
	struct cf_netrun *n = calloc(1, sizeof(*n));
	*out = NULL;
	if (!n)
		return cf_nomem(err);
	n->dir_fd = n->lock_fd = -1;
	if ((r = make_secret(n->secret, err)) < 0)
		goto out;
	/* The kernel picks the port: a fixed one could be taken, or be taken over by another
	 * user between two runs. */
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t al = sizeof(a);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(fd, 4096) < 0 ||
	    getsockname(fd, (struct sockaddr *)&a, &al) < 0) {
		r = cf_err_os(err, CONFINE_E_OS, "cannot start the network proxy", "127.0.0.1",
			      fd < 0 ? "socket" : "bind", errno);
		cf_err_hint(err, "the landlock backend's proxy listens on the host's loopback; "
				 "check that 127.0.0.1 is configured");
		goto out;
	}
	n->port = ntohs(a.sin_port);
	struct cf_proxy_config cfg = CF_PROXY_CONFIG_DEFAULT;
	proxy_config(&cfg, o);
	r = cf_proxy_new_auth(&cfg, policy, fd, n->secret, &n->proxy, err);
	fd = -1; /* the proxy's now, whatever happened */
	if (r == 0)
		r = with_secrets(n, o, err);
	if (r == 0)
		r = cf_proxy_start(n->proxy, err);
	if (r < 0)
		goto out;
	*out = n;
	n = NULL;
out:
	if (fd >= 0)
		close(fd);
	cf_netrun_free(n);
	return r;
}

int cf_netrun_inside(struct cf_netrun *n, const struct cf_inside_fds *fds,
		     struct confine_error *err)
{
	return cf_proxy_inside(n->proxy, fds, err);
}

void cf_netrun_inside_failed(struct cf_netrun *n, const struct confine_error *why)
{
	cf_proxy_inside_failed(n->proxy, why);
}

unsigned cf_netrun_port(const struct cf_netrun *n)
{
	return n->port;
}

const char *cf_netrun_secret(const struct cf_netrun *n)
{
	return n->secret;
}

int cf_netrun_dir_fd(const struct cf_netrun *n)
{
	return n->dir_fd;
}

int cf_netrun_finish(struct cf_netrun *n, struct cf_net_event **events, size_t *n_events,
		     size_t *dropped, struct confine_error *err)
{
	*events = NULL;
	*n_events = *dropped = 0;
	if (!n->proxy)
		return 0;
	cf_proxy_stop(n->proxy);
	cf_inspector_stop(n->inspector); /* R45: its connections end, their records are in */
	size_t k;
	const struct cf_net_event *ev = cf_proxy_events(n->proxy, &k, dropped);
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
	cf_inspector_free(n->inspector);
	if (n->path)
		unlink(n->path);
	for (size_t i = 0; n->conf && n->dir_fd >= 0 && i < 3; i++)
		unlinkat(n->dir_fd, conf_files[i], 0);
	cf_owntmp_remove(n->dir, n->lock_fd);
	if (n->dir_fd >= 0)
		close(n->dir_fd);
	free(n->path);
	free(n->dir);
	explicit_bzero(n->secret, sizeof(n->secret));
	free(n);
}

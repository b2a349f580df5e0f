/* SPDX-License-Identifier: MIT */
/*
 * Network by domain for one run (SPEC 12): the proxy's unix sockets in a private directory on
 * the host, the proxy thread for the command's lifetime, and its decisions afterwards.
 */
#ifndef CONFINE_NET_NETRUN_H
#define CONFINE_NET_NETRUN_H

#include "confine.h"
#include "net/decide.h"

struct cf_netrun;
struct cf_upstream;
struct cf_secrets;
struct cf_tls;

/* R43: what the proxy of a run is given besides the rules (each may be NULL). */
struct cf_netrun_opts {
	confine_net_ask_fn ask; /* the asker of live asks, and its argument */
	void *ask_user;
	struct cf_upstream *upstream; /* the caller's upstream proxy: its addresses are looked up
				       * when the proxy starts; borrowed until cf_netrun_free */
	/* R45: the run's credential placeholders and its TLS (NULL: none), borrowed until
	 * cf_netrun_free. */
	struct cf_secrets *secrets;
	struct cf_tls *tls;
};

/* Creates /tmp/confine-net.XXXXXX (0700) with the handoff socket proxy.sock (0600) and the
 * resolver configuration of the sandbox (R43, net/resolvconf.h: resolv.conf, hosts and
 * nsswitch.conf, 0444, made from the host's), and starts the proxy over it.  `policy` is
 * borrowed until cf_netrun_free.  Touches the OS. */
int cf_netrun_start(const struct cf_net_policy *policy, const struct cf_netrun_opts *o,
		    struct cf_netrun **out, struct confine_error *err);
/*
 * The landlock backend's variant (no network namespace): the proxy listens on 127.0.0.1, on a
 * port the kernel picks, for HTTP and SOCKS5 alike, and requires the credentials of a secret
 * made for this run (getrandom; net/auth.h).  No directory.  Touches the OS.
 */
int cf_netrun_start_tcp(const struct cf_net_policy *policy, const struct cf_netrun_opts *o,
			struct cf_netrun **out, struct confine_error *err);
/* R43: the sockets of the sandbox's namespace go to the proxy (net/proxy.h cf_proxy_inside).
 * 0, or a negative (the descriptors are closed). */
struct cf_inside_fds;
int cf_netrun_inside(struct cf_netrun *n, const struct cf_inside_fds *fds,
		     struct confine_error *err);
/* R43: why the resolver inside could not be set up, recorded with the run's decisions. */
void cf_netrun_inside_failed(struct cf_netrun *n, const struct confine_error *why);
/* The TCP variant's port (host byte order), 0 for the other. */
unsigned cf_netrun_port(const struct cf_netrun *n);
/* The TCP variant's secret (CF_PROXY_SECRET_LEN hex digits), "" for the other. */
const char *cf_netrun_secret(const struct cf_netrun *n);
/* An O_PATH descriptor of the directory, for bwrap's --ro-bind-fd (owned by the netrun). */
int cf_netrun_dir_fd(const struct cf_netrun *n);
/* Stops the proxy and hands over its decisions (malloc'd array, the caller frees it). */
int cf_netrun_finish(struct cf_netrun *n, struct cf_net_event **events, size_t *n_events,
		     size_t *dropped, struct confine_error *err);
/* Stops the proxy if it runs, removes the sockets and the directory.  Accepts NULL. */
void cf_netrun_free(struct cf_netrun *n);

#endif

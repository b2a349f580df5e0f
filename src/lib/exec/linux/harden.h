/* SPDX-License-Identifier: MIT */
/*
 * Hardening inside the sandbox (SPEC 3 R17, 3.1): the seccomp filter and Landlock scoping.
 * Linux only.  These functions touch the OS.
 */
#ifndef CONFINE_HARDEN_H
#define CONFINE_HARDEN_H

#include <stdbool.h>

#include "confine.h"

/* Restricts the calling process and its future children with Landlock scoping of abstract
 * unix sockets and signals (ABI >= 6).  Returns the ABI that was applied, 0 when the kernel is
 * too old (nothing applied: the caller records the downgrade), or a negative code. */
int cf_landlock_scope_self(struct confine_error *err);

/* Builds the filter of SPEC 3.1 for the native architecture with libseccomp and writes its BPF
 * program into a new sealed memfd, positioned at offset 0 (the form bwrap's --add-seccomp-fd
 * reads).  *fd_out is O_CLOEXEC; the caller clears that for the descriptor it hands on. */
int cf_seccomp_build_fd(int *fd_out, struct confine_error *err);

/* Socket families the filter lets socket(2) create (the landlock backend, SPEC 3.3). */
enum cf_sockets {
	CF_SOCKETS_ANY,		/* no socket rule (bwrap: the network namespace does the work) */
	CF_SOCKETS_UNIX_ONLY,	/* every family but AF_UNIX refused with EPERM */
	CF_SOCKETS_NONE,	/* every family refused with EPERM, AF_UNIX included (and the
				   datagram socketpair, which can address a host socket) */
	CF_SOCKETS_NO_UNIX,	/* AF_UNIX refused with EPERM (the datagram socketpair too), every
				   other family allowed */
	CF_SOCKETS_PROXY,	/* network by domain: socket(2) only for TCP over AF_INET and
				   AF_INET6 (everything else EPERM, AF_UNIX included), socketpair
				   as NONE, connect(2) goes to confine's connect guard
				   (SECCOMP_RET_USER_NOTIF), listen(2) and MSG_FASTOPEN EPERM */
	CF_SOCKETS_GUARDED,	/* as ANY, for a sandbox whose command runs under the IPC guard
				   (R36): openat2 is left to the guard's own filter, which refuses
				   it to the command (ENOSYS), so that pid 1 may resolve paths
				   with it */
	CF_SOCKETS_PROXY_AGENT, /* PROXY, and AF_UNIX streams for the ssh-agent filter (R44):
				   the connect guard lets them reach its socket, nothing else */
	CF_SOCKETS_AGENT,	/* no network but the ssh-agent filter (R44): socket(2) only for
				   AF_UNIX streams, socketpair as NONE, connect(2) to the guard,
				   listen(2) EPERM */
};
#define CF_SECCOMP_N_SOCKETS 8
#define CF_SUPERVISE_META 1
#define CF_SUPERVISE_PATHS 2
#define CF_SUPERVISE_READS 3
#define CF_SUPERVISE_N_LEVELS 4
struct cf_seccomp_opts {
	enum cf_sockets sockets;
	/* The landlock backend's supervised calls (supervise_rules.c; the filter is then loaded
	 * with a listener): CF_SUPERVISE_META: metadata calls and the SysV refusal;
	 * CF_SUPERVISE_PATHS: those and the calls that open or make a directory entry;
	 * CF_SUPERVISE_READS: the metadata calls and the opens that could read a FIFO (R36). */
	int supervise;
};
/* cf_seccomp_build_fd with the socket rules of `o`: the program made at build time. */
int cf_seccomp_build_fd_opts(const struct cf_seccomp_opts *o, int *fd_out,
			     struct confine_error *err);
/* The same program, made now with libseccomp (what the build runs, and what the tests compare
 * the build's programs with). */
int cf_seccomp_build_fd_libseccomp(const struct cf_seccomp_opts *o, int *fd_out,
				   struct confine_error *err);

/* One line per rule of the filter, for --print-plan; a static string. */
const char *cf_seccomp_describe(void);

/* R36: the IPC guard's filter (seccomp.c says what it sends to confine-init and what it
 * refuses), for the command's own process under the filter above: the program made at build
 * time in a sealed memfd, or made now with libseccomp.  Its rules, one per line. */
int cf_seccomp_guard_build_fd(int *fd_out, struct confine_error *err);
int cf_seccomp_guard_build_fd_libseccomp(int *fd_out, struct confine_error *err);

#endif

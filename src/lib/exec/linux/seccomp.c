/* SPDX-License-Identifier: MIT */
/*
 * The seccomp filter of SPEC 3.1, built with libseccomp and exported as a BPF program into a
 * sealed memfd for `bwrap --add-seccomp-fd` (at build time: see cf_seccomp_blob).  Nothing here
 * loads a filter: bwrap installs it right before it execs the helper, after it has set no_new_privs
 * itself.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/seccomp.h>
#include <seccomp.h>
/* libseccomp's SCMP_A*_32 comparisons leave datum_b to its zero default, which clang's
 * -Wmissing-field-initializers reports (gcc's does not, for a designated initializer). */
#ifdef __clang__
#pragma clang diagnostic ignored "-Wmissing-field-initializers"
#endif

#include "exec/linux/harden.h"
#include "exec/linux/supervise_rules.h"
#include "util/util.h"

#ifndef CLONE_NEWUSER
#define CLONE_NEWUSER 0x10000000
#endif
#ifndef TIOCSTI
#define TIOCSTI 0x5412
#endif
#ifndef TIOCLINUX
#define TIOCLINUX 0x541C
#endif
#ifndef MFD_NOEXEC_SEAL
#define MFD_NOEXEC_SEAL 0x0008U
#endif
#include "util/linux_abi.h"

/* O_TMPFILE without the O_DIRECTORY bit it carries; asm-generic value (x86, arm64, riscv). */
#ifndef __O_TMPFILE
#define __O_TMPFILE 020000000
#endif
/* fchmodat2 (Linux 6.6) has the same number on every architecture; libseccomp 2.5 does not
 * know its name. */
#ifndef __NR_fchmodat2
#define __NR_fchmodat2 452
#endif

/* clone's flags are the first argument everywhere except s390, where the stack comes first. */
#if defined(__s390__) || defined(__s390x__)
#define CLONE_FLAGS_ARG 1
#else
#define CLONE_FLAGS_ARG 0
#endif

/* Denied outright with EPERM, whatever their arguments. */
static const char *const deny_eperm[] = {
    "keyctl",	       "add_key",
    "request_key",     "io_uring_setup",
    "io_uring_enter",  "io_uring_register",
    "perf_event_open", "bpf",
    "userfaultfd",     "fsopen",
    "fsconfig",	       "fsmount",
    "fspick",	       "open_tree",
    "move_mount",      "mount_setattr",
};

static const char describe_text[] =
    "seccomp: default allow; native architecture only, foreign ones (x32, i386) killed\n"
    "seccomp: ioctl TIOCSTI, TIOCLINUX (request compared on its low 32 bits) -> EPERM\n"
    "seccomp: keyctl, add_key, request_key -> EPERM\n"
    "seccomp: io_uring_setup, io_uring_enter, io_uring_register -> EPERM\n"
    "seccomp: perf_event_open, bpf, userfaultfd -> EPERM\n"
    "seccomp: fsopen, fsconfig, fsmount, fspick, open_tree, move_mount, mount_setattr -> EPERM\n"
    "seccomp: unshare, clone with CLONE_NEWUSER -> EPERM\n"
    "seccomp: clone3 -> ENOSYS (flags live in memory the filter cannot read; libc falls back "
    "to clone)\n"
    "seccomp: chmod, fchmod, fchmodat, fchmodat2 with a mode that sets setuid or setgid -> "
    "EPERM\n"
    "seccomp: open, openat, creat, mknod, mknodat creating a file with setuid or setgid -> "
    "EPERM\n"
    "seccomp: openat2 -> ENOSYS (its mode lives in memory the filter cannot read; libc uses "
    "openat)\n";

const char *cf_seccomp_describe(void)
{
	return describe_text;
}

static int rule_error(struct confine_error *err, const char *what, int rc)
{
	/* libseccomp returns negative errno values. */
	return cf_err_os(err, CONFINE_E_OS, "cannot build seccomp filter", what, "libseccomp",
			 rc < 0 ? -rc : EINVAL);
}

static int resolve(const char *name, int *nr, struct confine_error *err)
{
	*nr = seccomp_syscall_resolve_name(name);
	/* A name libseccomp does not know would leave a hole in the filter: fail closed. */
	if (*nr == __NR_SCMP_ERROR)
		return cf_err(err, CONFINE_E_OS, "cannot build seccomp filter", name,
			      "libseccomp does not know this system call");
	return 0;
}

/*
 * No setuid or setgid bit (SPEC 3.1).  A sandbox started by root runs as uid 0 without
 * capabilities, which still owns what it creates: a setuid-root binary left in the workspace
 * would be root for every local user afterwards.  Every way of putting the bit on a file: the
 * chmod family, and creating the file with it (open/openat/creat with O_CREAT or O_TMPFILE,
 * mknod of a regular file).  The mode is compared one bit at a time with a masked compare, so
 * whatever else the register holds cannot hide the bit.  openat2 takes its mode from memory the
 * filter cannot read: ENOSYS, and libc keeps using openat.  A setgid directory (mkdir 02775)
 * stays possible: it grants nobody more than the directory's group already has.
 */
struct setid_call {
	const char *name;
	int nr;	       /* 0: resolve the name */
	int mode_arg;  /* which argument holds the mode */
	int flags_arg; /* which argument holds open flags, -1: the call always sets the mode */
};

static const struct setid_call setid_calls[] = {
    {"chmod", 0, 1, -1},    {"fchmod", 0, 1, -1},
    {"fchmodat", 0, 2, -1}, {"fchmodat2", __NR_fchmodat2, 2, -1},
    {"creat", 0, 1, -1},    {"mknod", 0, 1, -1},
    {"mknodat", 0, 2, -1},  {"open", 0, 2, 1},
    {"openat", 0, 3, 2},
};

static int add_setid_rules(scmp_filter_ctx ctx, bool openat2, struct confine_error *err)
{
	static const uint64_t bits[] = {S_ISUID, S_ISGID};
	static const uint64_t creating[] = {O_CREAT, __O_TMPFILE};
	int nr, rc;
	for (size_t i = 0; i < sizeof(setid_calls) / sizeof(setid_calls[0]); i++) {
		const struct setid_call *c = &setid_calls[i];
		nr = c->nr;
		if (!nr && (rc = resolve(c->name, &nr, err)) < 0)
			return rc;
		for (size_t b = 0; b < 2; b++) {
			struct scmp_arg_cmp mode =
			    SCMP_CMP64((unsigned)c->mode_arg, SCMP_CMP_MASKED_EQ, bits[b], bits[b]);
			if (c->flags_arg < 0) {
				rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 1, mode);
				if (rc < 0)
					return rule_error(err, c->name, rc);
				continue;
			}
			for (size_t f = 0; f < 2; f++) {
				struct scmp_arg_cmp flags =
				    SCMP_CMP64((unsigned)c->flags_arg, SCMP_CMP_MASKED_EQ,
					       creating[f], creating[f]);
				rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 2, flags,
						      mode);
				if (rc < 0)
					return rule_error(err, c->name, rc);
			}
		}
	}
	if (!openat2)
		return 0; /* the IPC guard's filter refuses it to the command (R36) */
	rc = resolve("openat2", &nr, err);
	if (rc < 0)
		return rc;
	rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), nr, 0);
	return rc < 0 ? rule_error(err, "openat2", rc) : 0;
}

static int add_rules(scmp_filter_ctx ctx, bool openat2, struct confine_error *err)
{
	int nr, rc;

	for (size_t i = 0; i < sizeof(deny_eperm) / sizeof(deny_eperm[0]); i++) {
		rc = resolve(deny_eperm[i], &nr, err);
		if (rc < 0)
			return rc;
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 0);
		if (rc < 0)
			return rule_error(err, deny_eperm[i], rc);
	}

	/* The kernel takes ioctl's request as an unsigned int and drops the upper half, so
	 * 0xffffffff00005412 is TIOCSTI too.  SCMP_A1_32 would only cast the datum and still
	 * require a zero upper half; a masked compare on the low 32 bits ignores it. */
	static const unsigned long ioctls[] = {TIOCSTI, TIOCLINUX};
	for (size_t i = 0; i < sizeof(ioctls) / sizeof(ioctls[0]); i++) {
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ioctl), 1,
				      SCMP_A1_64(SCMP_CMP_MASKED_EQ, 0xffffffffULL, ioctls[i]));
		if (rc < 0)
			return rule_error(err, "ioctl", rc);
	}

	rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(unshare), 1,
			      SCMP_A0_64(SCMP_CMP_MASKED_EQ, CLONE_NEWUSER, CLONE_NEWUSER));
	if (rc < 0)
		return rule_error(err, "unshare", rc);
	rc = seccomp_rule_add(
	    ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
	    SCMP_CMP64(CLONE_FLAGS_ARG, SCMP_CMP_MASKED_EQ, CLONE_NEWUSER, CLONE_NEWUSER));
	if (rc < 0)
		return rule_error(err, "clone", rc);

	/* clone3 passes its flags in a struct the filter cannot dereference.  ENOSYS makes glibc
	 * (pthread_create, posix_spawn) fall back to clone, whose flags are checked above. */
	rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
	if (rc < 0)
		return rule_error(err, "clone3", rc);
	return add_setid_rules(ctx, openat2, err);
}

static int new_memfd(struct confine_error *err)
{
	/* MFD_NOEXEC_SEAL (Linux 6.3) keeps the kernel from warning about an executable memfd
	 * and is required when vm.memfd_noexec=2; older kernels reject it with EINVAL. */
	int fd = memfd_create("confine-seccomp", MFD_CLOEXEC | MFD_ALLOW_SEALING | MFD_NOEXEC_SEAL);
	if (fd < 0 && errno == EINVAL)
		fd = memfd_create("confine-seccomp", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return cf_err_os(err, CONFINE_E_OS, "cannot build seccomp filter", "memfd",
				 "memfd_create", errno);
	return fd;
}

/*
 * The landlock backend has no network namespace: with the network off, socket(2) is refused for
 * every family but AF_UNIX (SPEC 3.3); and where Landlock cannot govern connect(2) to pathname
 * unix sockets (ABI < 9), AF_UNIX is refused too, so that the host's IPC endpoints stay out of
 * reach.  socketpair(2) stays allowed for AF_UNIX streams and seqpackets, whose ends are
 * connected to each other for good; not for datagrams where AF_UNIX is refused: an end of a
 * datagram pair can still connect(2) or sendto(2) any pathname socket on the host, a lookup
 * Landlock below ABI 9 does not see.  The family and the type are ints: compared on their low
 * 32 bits, the type under SOCK_TYPE_MASK (SOCK_CLOEXEC and SOCK_NONBLOCK ride on it).
 */
/* The kernel's mask of the socket type under SOCK_CLOEXEC and SOCK_NONBLOCK (linux/net.h). */
#define CF_SOCK_TYPE_MASK 0xf

/*
 * Network by domain on the landlock backend (CF_SOCKETS_PROXY).  The command needs TCP to reach
 * the proxy on the host's loopback, and nothing else: socket(2) is allowed for AF_INET and
 * AF_INET6 with SOCK_STREAM and protocol 0 or IPPROTO_TCP only.  The protocol matters:
 * Landlock's TCP rules look at TCP sockets alone, so an MPTCP or SCTP stream socket would
 * connect anywhere.  Every other combination is refused with EPERM: UDP (DNS), raw, packet,
 * netlink, AF_UNIX.  Written as refusals, since the default is to allow: a family below
 * AF_INET, above AF_INET6 or between them; a type other than SOCK_STREAM (under its mask); a
 * protocol other than 0 and 6.
 *
 * connect(2) is handed to confine (SECCOMP_RET_USER_NOTIF, exec/linux/landlock/connguard.c), which
 * connects the socket itself to the proxy, and only when the address asked for is the proxy's:
 * Landlock matches ports, not addresses, so without it any server of any host would be
 * reachable on the proxy's port number.  listen(2) is refused: a TCP socket that listens
 * without bind(2) is bound to an ephemeral port on every address, which Landlock's bind rule
 * never sees (an inbound channel).  sendto(2), sendmsg(2) and sendmmsg(2) with MSG_FASTOPEN
 * are refused: TCP Fast Open connects without connect(2), where neither Landlock nor the guard
 * looks.
 */
#define CF_MSG_FASTOPEN 0x20000000

/* What the proxy's and the agent's rules share: socketpair(2) of AF_UNIX streams and
 * seqpackets only, connect(2) to the connect guard, listen(2) EPERM. */
static int add_connect_rules(scmp_filter_ctx ctx, struct confine_error *err)
{
	int rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(socketpair), 1,
				  SCMP_A0_32(SCMP_CMP_NE, AF_UNIX));
	if (rc == 0)
		rc =
		    seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(socketpair), 1,
				     SCMP_A1_32(SCMP_CMP_MASKED_EQ, CF_SOCK_TYPE_MASK, SOCK_DGRAM));
	if (rc < 0)
		return rule_error(err, "socketpair", rc);
	rc = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(connect), 0);
	if (rc < 0)
		return rule_error(err, "connect", rc);
	rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(listen), 0);
	return rc < 0 ? rule_error(err, "listen", rc) : 0;
}

static int add_proxy_rules(scmp_filter_ctx ctx, bool agent, struct confine_error *err)
{
	int rc;
	/* With the ssh-agent filter (R44) AF_UNIX stays: the type and protocol rules below
	 * leave it streams alone, and the guard connects them to the agent's socket only. */
	rc = agent ? seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(socket), 1,
				      SCMP_A0_32(SCMP_CMP_EQ, AF_UNSPEC))
		   : seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(socket), 1,
				      SCMP_A0_32(SCMP_CMP_LT, AF_INET));
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(socket), 1,
				      SCMP_A0_32(SCMP_CMP_GT, AF_INET6));
	for (unsigned f = AF_INET + 1; rc == 0 && f < AF_INET6; f++)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(socket), 1,
				      SCMP_A0_32(SCMP_CMP_EQ, f));
	for (unsigned t = 0; rc == 0 && t <= CF_SOCK_TYPE_MASK; t++)
		if (t != SOCK_STREAM)
			rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(socket), 1,
					      SCMP_A1_32(SCMP_CMP_MASKED_EQ, CF_SOCK_TYPE_MASK, t));
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(socket), 1,
				      SCMP_A2_32(SCMP_CMP_GT, IPPROTO_TCP));
	for (unsigned p = 1; rc == 0 && p < IPPROTO_TCP; p++)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(socket), 1,
				      SCMP_A2_32(SCMP_CMP_EQ, p));
	if (rc < 0)
		return rule_error(err, "socket", rc);
	if ((rc = add_connect_rules(ctx, err)) < 0)
		return rc;
	rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(sendto), 1,
			      SCMP_A3_32(SCMP_CMP_MASKED_EQ, CF_MSG_FASTOPEN, CF_MSG_FASTOPEN));
	if (rc == 0)
		rc = seccomp_rule_add(
		    ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(sendmsg), 1,
		    SCMP_A2_32(SCMP_CMP_MASKED_EQ, CF_MSG_FASTOPEN, CF_MSG_FASTOPEN));
	if (rc == 0)
		rc = seccomp_rule_add(
		    ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(sendmmsg), 1,
		    SCMP_A3_32(SCMP_CMP_MASKED_EQ, CF_MSG_FASTOPEN, CF_MSG_FASTOPEN));
	return rc < 0 ? rule_error(err, "sendto", rc) : 0;
}

/*
 * No network but the ssh-agent filter on the landlock backend (CF_SOCKETS_AGENT, R44): socket(2)
 * only for AF_UNIX streams (another family, or another type under SOCK_TYPE_MASK: EPERM);
 * socketpair(2) of AF_UNIX streams and seqpackets as with no network; connect(2) to the guard,
 * which connects a unix stream to the agent's socket and refuses everything else; listen(2)
 * EPERM, so that no pathname socket the command binds accepts anyone.
 */
static int add_agent_rules(scmp_filter_ctx ctx, struct confine_error *err)
{
	int rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(socket), 1,
				  SCMP_A0_32(SCMP_CMP_NE, AF_UNIX));
	for (unsigned t = 0; rc == 0 && t <= CF_SOCK_TYPE_MASK; t++)
		if (t != SOCK_STREAM)
			rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(socket), 1,
					      SCMP_A1_32(SCMP_CMP_MASKED_EQ, CF_SOCK_TYPE_MASK, t));
	if (rc < 0)
		return rule_error(err, "socket", rc);
	return add_connect_rules(ctx, err);
}

static int add_socket_rules(scmp_filter_ctx ctx, const struct cf_seccomp_opts *o,
			    struct confine_error *err)
{
	int rc = 0;
	if (o->sockets == CF_SOCKETS_PROXY || o->sockets == CF_SOCKETS_PROXY_AGENT)
		return add_proxy_rules(ctx, o->sockets == CF_SOCKETS_PROXY_AGENT, err);
	if (o->sockets == CF_SOCKETS_AGENT)
		return add_agent_rules(ctx, err);
	if (o->sockets == CF_SOCKETS_NONE)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(socket), 0);
	else if (o->sockets == CF_SOCKETS_UNIX_ONLY)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(socket), 1,
				      SCMP_A0_32(SCMP_CMP_NE, AF_UNIX));
	else if (o->sockets == CF_SOCKETS_NO_UNIX)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(socket), 1,
				      SCMP_A0_32(SCMP_CMP_EQ, AF_UNIX));
	if (rc < 0)
		return rule_error(err, "socket", rc);
	if (o->sockets == CF_SOCKETS_UNIX_ONLY || o->sockets == CF_SOCKETS_NONE) {
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(socketpair), 1,
				      SCMP_A0_32(SCMP_CMP_NE, AF_UNIX));
		if (rc < 0)
			return rule_error(err, "socketpair", rc);
	}
	if (o->sockets == CF_SOCKETS_NONE || o->sockets == CF_SOCKETS_NO_UNIX) {
		rc =
		    seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(socketpair), 1,
				     SCMP_A1_32(SCMP_CMP_MASKED_EQ, CF_SOCK_TYPE_MASK, SOCK_DGRAM));
		if (rc < 0)
			return rule_error(err, "socketpair", rc);
	}
	return 0;
}

/*
 * The IPC guard's filter (R36), loaded by confine-init in the command's own process, on top of
 * the filter above, with SECCOMP_FILTER_FLAG_NEW_LISTENER: confine-init answers (src/helper/
 * guard.c).  The kernel cannot tell from a path whether it names a FIFO, nor read a socket
 * address, so:
 *   - open and openat that could open an existing FIFO for reading go to confine-init, which
 *     opens the object itself and hands back the descriptor (SECCOMP_IOCTL_NOTIF_ADDFD), or
 *     refuses a FIFO outside the writable areas.  Not sent: a write access (O_WRONLY, O_RDWR:
 *     Landlock's WRITE_FILE, granted in the writable areas only, refuses FIFOs elsewhere),
 *     O_PATH (opens nothing), O_DIRECTORY (a FIFO is no directory), O_CREAT|O_EXCL (creates a
 *     new file or fails).  Flags are an int: compared on their low 32 bits.
 *   - openat2 is ENOSYS (as in the filter above: its flags live in memory).
 *   - connect goes to confine-init, which connects the command's socket itself (to a
 *     pathname socket only when it lies in a writable area or is allowed).
 *   - AF_UNIX datagram sockets (SOCK_DGRAM, and SOCK_RAW, which the kernel makes a datagram
 *     socket) cannot be made, by socket(2) or socketpair(2): a datagram socket can send to any
 *     path with sendto(2) or sendmsg(2), whose address the filter cannot read; a stream or
 *     seqpacket socket ignores or refuses an address there, and reaches a path only by
 *     connect(2).  Every type but SOCK_STREAM and SOCK_SEQPACKET (under SOCK_TYPE_MASK) is EPERM.
 */
#ifndef O_PATH
#define O_PATH 010000000
#endif

static int add_guard_rules(scmp_filter_ctx ctx, struct confine_error *err)
{
	int nr, rc;
	for (size_t i = 0; i < CF_SUPERVISE_N_OPENS; i++) {
		const struct cf_supervise_open *o = &cf_supervise_opens[i];
		if ((rc = resolve(o->name, &nr, err)) < 0)
			return rc;
		if ((rc = cf_supervise_add_read_rule(ctx, nr, o->flags_arg)) < 0)
			return rule_error(err, o->name, rc);
	}
	if ((rc = resolve("openat2", &nr, err)) < 0)
		return rc;
	if ((rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), nr, 0)) < 0)
		return rule_error(err, "openat2", rc);
	if ((rc = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(connect), 0)) < 0)
		return rule_error(err, "connect", rc);
	static const int calls[] = {SCMP_SYS(socket), SCMP_SYS(socketpair)};
	for (size_t c = 0; c < 2; c++)
		for (unsigned t = 0; t <= CF_SOCK_TYPE_MASK; t++) {
			if (t == SOCK_STREAM || t == SOCK_SEQPACKET)
				continue;
			rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), calls[c], 2,
					      SCMP_A0_32(SCMP_CMP_EQ, AF_UNIX),
					      SCMP_A1_32(SCMP_CMP_MASKED_EQ, CF_SOCK_TYPE_MASK, t));
			if (rc < 0)
				return rule_error(err, c ? "socketpair" : "socket", rc);
		}
	return 0;
}

int cf_seccomp_build_fd(int *fd_out, struct confine_error *err)
{
	struct cf_seccomp_opts o = {.sockets = CF_SOCKETS_ANY};
	return cf_seccomp_build_fd_opts(&o, fd_out, err);
}

/* Seals the memfd and rewinds it: nobody holding the descriptor can change the program between
 * now and the moment bwrap reads it. */
static int seal(int fd, struct confine_error *err)
{
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) < 0)
		return cf_err_os(err, CONFINE_E_OS, "cannot build seccomp filter", "memfd",
				 "fcntl(F_ADD_SEALS)", errno);
	if (lseek(fd, 0, SEEK_SET) != 0)
		return cf_err_os(err, CONFINE_E_OS, "cannot build seccomp filter", "memfd", "lseek",
				 errno);
	return 0;
}

static int build_libseccomp(const struct cf_seccomp_opts *o, bool guard, int *fd_out,
			    struct confine_error *err);

#ifndef CF_SECCOMP_GEN
/*
 * The programs libseccomp exports for these rules, made once at build time (seccomp-gen, one per
 * enum cf_sockets): building one at run time cost every spawn about 0.3 ms of CPU (the kernel
 * probing of a fresh process and the BPF generation), for a program that never changes.
 * tests/unit/harden/test-seccomp-blob checks that they are what libseccomp makes now, byte for
 * byte; KILL_PROCESS, the one action a kernel may lack, is checked by cf_seccomp_available
 * (host/kernel.c) before any run.
 */
#include "seccomp_blob.h"

/* A sealed memfd holding the `n` bytes of a generated program (seccomp_blob.h). */
static int blob_fd(const unsigned char *p, size_t n, int *fd_out, struct confine_error *err)
{
	*fd_out = -1;
	int fd = new_memfd(err);
	if (fd < 0)
		return fd;
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			int e = errno;
			close(fd);
			return cf_err_os(err, CONFINE_E_OS, "cannot build seccomp filter", "memfd",
					 "write", e);
		}
		p += w;
		n -= (size_t)w;
	}
	int rc = seal(fd, err);
	if (rc < 0) {
		close(fd);
		return rc;
	}
	*fd_out = fd;
	return 0;
}

int cf_seccomp_build_fd_opts(const struct cf_seccomp_opts *o, int *fd_out,
			     struct confine_error *err)
{
	/* One program per socket rule set, then the same again for each level of supervision. */
	size_t k = (size_t)o->sockets + (size_t)o->supervise * CF_SECCOMP_N_SOCKETS;
	*fd_out = -1;
	if (k >= sizeof(cf_seccomp_blob) / sizeof(cf_seccomp_blob[0]) || !cf_seccomp_blob[k].n)
		return cf_seccomp_build_fd_libseccomp(o, fd_out, err);
	return blob_fd(cf_seccomp_blob[k].bytes, cf_seccomp_blob[k].n, fd_out, err);
}

int cf_seccomp_guard_build_fd(int *fd_out, struct confine_error *err)
{
	return blob_fd(cf_seccomp_guard_blob, sizeof(cf_seccomp_guard_blob), fd_out, err);
}
#else
int cf_seccomp_build_fd_opts(const struct cf_seccomp_opts *o, int *fd_out,
			     struct confine_error *err)
{
	return cf_seccomp_build_fd_libseccomp(o, fd_out, err);
}

int cf_seccomp_guard_build_fd(int *fd_out, struct confine_error *err)
{
	return cf_seccomp_guard_build_fd_libseccomp(fd_out, err);
}
#endif

int cf_seccomp_build_fd_libseccomp(const struct cf_seccomp_opts *o, int *fd_out,
				   struct confine_error *err)
{
	return build_libseccomp(o, false, fd_out, err);
}

int cf_seccomp_guard_build_fd_libseccomp(int *fd_out, struct confine_error *err)
{
	struct cf_seccomp_opts o = {.sockets = CF_SOCKETS_ANY};
	return build_libseccomp(&o, true, fd_out, err);
}

static int build_libseccomp(const struct cf_seccomp_opts *o, bool guard, int *fd_out,
			    struct confine_error *err)
{
	scmp_filter_ctx ctx = NULL;
	int fd = -1;
	int rc;

	*fd_out = -1;
	ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx)
		return cf_nomem(err);

	/* Only the native architecture is in the filter; every other one (i386, and x32 on
	 * x86_64, which shares the audit arch but sets bit 30 of the number) is killed. */
	rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
	if (rc < 0) {
		rc = rule_error(err, "bad architecture action", rc);
		goto out_ctx;
	}
	/* The filter is exported, never loaded here; bwrap sets no_new_privs before it loads. */
	rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0);
	if (rc < 0) {
		rc = rule_error(err, "no_new_privs attribute", rc);
		goto out_ctx;
	}
	if (guard) {
		rc = add_guard_rules(ctx, err);
	} else {
		rc = add_rules(ctx, o->sockets != CF_SOCKETS_GUARDED, err);
		if (rc == 0)
			rc = add_socket_rules(ctx, o, err);
		if (rc == 0 && o->supervise)
			rc = cf_supervise_add_rules(ctx, o->supervise, err);
	}
	if (rc < 0)
		goto out_ctx;

	fd = new_memfd(err);
	if (fd < 0) {
		rc = fd;
		goto out_ctx;
	}
	rc = seccomp_export_bpf(ctx, fd);
	if (rc < 0) {
		rc = rule_error(err, "export", rc);
		goto out_fd;
	}
	if ((rc = seal(fd, err)) < 0)
		goto out_fd;
	*fd_out = fd;
	fd = -1;
	rc = 0;
out_fd:
	if (fd >= 0)
		close(fd);
out_ctx:
	seccomp_release(ctx);
	return rc;
}

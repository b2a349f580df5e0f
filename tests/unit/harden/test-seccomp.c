/* SPDX-License-Identifier: MIT */
/*
 * The seccomp filter of SPEC 3.1 (R17): the exported program is read back from its memfd and
 * installed in a forked child per case, the way bwrap installs it; each case checks the exact
 * errno of the denied call and that the allowed neighbour still behaves as it does unfiltered.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <netinet/in.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include "exec/linux/harden.h"
#include "host/kernel.h"
#include "tap.h"

#ifndef CLONE_NEWUSER
#define CLONE_NEWUSER 0x10000000
#endif
#ifndef __X32_SYSCALL_BIT
#define __X32_SYSCALL_BIT 0x40000000
#endif

extern char **environ;

static struct sock_fprog prog;
static int pty_slave = -1;

/* A case runs in a forked child: 0 when the call succeeded, its errno otherwise, or minus the
 * signal that killed the child. */
typedef int (*op_fn)(void);

static int result(long rc)
{
	return rc < 0 ? errno : 0;
}

static int run_case(op_fn op, bool filtered)
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0)
		return -1000;
	if (pid == 0) {
		if (filtered) {
			if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
				_exit(200);
			if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0)
				_exit(201);
		}
		int r = op();
		_exit(r > 199 ? 199 : r);
	}
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1001;
	if (WIFSIGNALED(st))
		return -WTERMSIG(st);
	return WEXITSTATUS(st);
}

/* ---- operations ---- */

static int op_getpid(void)
{
	return result(syscall(SYS_getpid));
}

static int op_tiocgwinsz(void)
{
	struct winsize ws;
	return result(ioctl(pty_slave, TIOCGWINSZ, &ws));
}

/* TIOCSTI needs the terminal to be the caller's controlling terminal (or CAP_SYS_ADMIN). */
static int sti(unsigned long request)
{
	if (setsid() < 0)
		return 198;
	if (ioctl(pty_slave, TIOCSCTTY, 0) < 0)
		return 197;
	char c = '#';
	return result(syscall(SYS_ioctl, pty_slave, request, &c));
}

static int op_tiocsti(void)
{
	return sti(TIOCSTI);
}

static int op_tiocsti_high(void)
{
	return sti(0xffffffff00000000UL | TIOCSTI);
}

static int op_tiocsti_high_bit32(void)
{
	return sti(0x0000000100000000UL | TIOCSTI);
}

static int op_tioclinux(void)
{
	char sub = 6; /* TIOCL_GETSHIFTSTATE: harmless, and pty is not a console anyway */
	return result(syscall(SYS_ioctl, pty_slave, 0xffffffff00000000UL | TIOCLINUX, &sub));
}

static int op_keyctl(void)
{
	/* KEYCTL_GET_KEYRING_ID of the session keyring, without creating it. */
	return result(syscall(SYS_keyctl, 0, -3, 0, 0, 0));
}

static int op_add_key(void)
{
	return result(syscall(SYS_add_key, "user", "confine-test", "x", 1, -3));
}

static int op_request_key(void)
{
	return result(syscall(SYS_request_key, "user", "confine-test-none", NULL, 0));
}

static int op_io_uring_setup(void)
{
	char params[120] = {0}; /* struct io_uring_params */
	return result(syscall(SYS_io_uring_setup, 1, params));
}

static int op_io_uring_enter(void)
{
	return result(syscall(SYS_io_uring_enter, -1, 0, 0, 0, NULL, 0));
}

static int op_io_uring_register(void)
{
	return result(syscall(SYS_io_uring_register, -1, 0, NULL, 0));
}

static int op_perf_event_open(void)
{
	char attr[128] = {0}; /* struct perf_event_attr, zero: a hardware cycles counter */
	return result(syscall(SYS_perf_event_open, attr, 0, -1, -1, 0));
}

static int op_bpf(void)
{
	char attr[128] = {0};
	return result(syscall(SYS_bpf, 0 /* BPF_MAP_CREATE */, attr, sizeof(attr)));
}

static int op_userfaultfd(void)
{
	return result(syscall(SYS_userfaultfd, O_CLOEXEC | 1 /* UFFD_USER_MODE_ONLY */));
}

static int op_fsopen(void)
{
	return result(syscall(SYS_fsopen, "tmpfs", 1 /* FSOPEN_CLOEXEC */));
}

static int op_fsconfig(void)
{
	return result(syscall(SYS_fsconfig, -1, 0, NULL, NULL, 0));
}

static int op_fsmount(void)
{
	return result(syscall(SYS_fsmount, -1, 0, 0));
}

static int op_fspick(void)
{
	return result(syscall(SYS_fspick, AT_FDCWD, "/", 1 /* FSPICK_CLOEXEC */));
}

static int op_open_tree(void)
{
	return result(syscall(SYS_open_tree, AT_FDCWD, "/", O_CLOEXEC));
}

static int op_move_mount(void)
{
	return result(syscall(SYS_move_mount, -1, "", -1, "", 0));
}

static int op_mount_setattr(void)
{
	return result(syscall(SYS_mount_setattr, -1, "", 0, NULL, 0));
}

static int op_unshare_user(void)
{
	return result(syscall(SYS_unshare, CLONE_NEWUSER));
}

static int op_unshare_user_ns(void)
{
	return result(syscall(SYS_unshare, CLONE_NEWUSER | CLONE_NEWNS));
}

static int op_unshare_ns(void)
{
	return result(syscall(SYS_unshare, CLONE_NEWNS));
}

static int op_unshare_none(void)
{
	return result(syscall(SYS_unshare, 0));
}

static int raw_clone(unsigned long flags)
{
	/* A fork-like raw clone: no new stack, the child returns 0 and leaves at once. */
	long pid = syscall(SYS_clone, flags | SIGCHLD, NULL, NULL, NULL, NULL);
	if (pid == 0)
		_exit(0);
	if (pid < 0)
		return errno;
	int st;
	if (waitpid((pid_t)pid, &st, 0) < 0)
		return 196;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 195;
}

static int op_clone_newuser(void)
{
	return raw_clone(CLONE_NEWUSER);
}

static int op_clone_newuser_high(void)
{
	/* clone truncates its flags to 32 bits; the masked compare must not care. */
	return raw_clone(0xffffffff00000000UL | CLONE_NEWUSER);
}

static int op_clone_plain(void)
{
	return raw_clone(0);
}

static int op_clone3(void)
{
	uint64_t args[11] = {0}; /* struct clone_args, CLONE_ARGS_SIZE_VER2 */
	args[4] = SIGCHLD;	 /* exit_signal */
	long pid = syscall(SYS_clone3, args, sizeof(args));
	if (pid == 0)
		_exit(0);
	if (pid < 0)
		return errno;
	waitpid((pid_t)pid, NULL, 0);
	return 0;
}

static int op_fork(void)
{
	pid_t pid = fork();
	if (pid == 0)
		_exit(0);
	if (pid < 0)
		return errno;
	int st;
	waitpid(pid, &st, 0);
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 195;
}

static void *thread_main(void *arg)
{
	return arg;
}

/* glibc tries clone3 first and falls back to clone on ENOSYS. */
static int op_pthread(void)
{
	pthread_t t;
	int rc = pthread_create(&t, NULL, thread_main, NULL);
	if (rc != 0)
		return rc;
	pthread_join(t, NULL);
	return 0;
}

static int op_posix_spawn(void)
{
	char *argv[] = {"true", NULL};
	pid_t pid;
	int rc = posix_spawn(&pid, "/bin/true", NULL, NULL, argv, environ);
	if (rc != 0)
		return rc;
	int st;
	waitpid(pid, &st, 0);
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 195;
}

static int op_x32_getpid(void)
{
	return result(syscall(__X32_SYSCALL_BIT | SYS_getpid));
}

#if defined(__x86_64__)
static int op_i386_getpid(void)
{
	long ret;
	/* getpid is 20 in the i386 table; int $0x80 enters the compat entry point. */
	__asm__ volatile("int $0x80" : "=a"(ret) : "a"(20L) : "memory");
	return ret < 0 ? (int)-ret : 0;
}
#endif

/* ---- network by domain on the landlock backend (CF_SOCKETS_PROXY) ---- */

#ifndef IPPROTO_MPTCP
#define IPPROTO_MPTCP 262
#endif
#ifndef MSG_FASTOPEN
#define MSG_FASTOPEN 0x20000000
#endif

static int sock(int family, int type, int proto)
{
	int fd = socket(family, type, proto);
	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}
static int op_tcp4(void)
{
	return sock(AF_INET, SOCK_STREAM, 0);
}
static int op_tcp6_flags(void)
{
	return sock(AF_INET6, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_TCP);
}
static int op_mptcp(void)
{
	return sock(AF_INET, SOCK_STREAM, IPPROTO_MPTCP);
}
static int op_sctp_stream(void)
{
	return sock(AF_INET6, SOCK_STREAM, IPPROTO_SCTP);
}
static int op_udp4(void)
{
	return sock(AF_INET, SOCK_DGRAM, 0);
}
static int op_udp6(void)
{
	return sock(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
}
static int op_seqpacket4(void)
{
	return sock(AF_INET, SOCK_SEQPACKET, 0);
}
static int op_raw4(void)
{
	return sock(AF_INET, SOCK_RAW, IPPROTO_ICMP);
}
static int op_packet(void)
{
	return sock(AF_PACKET, SOCK_RAW, 0);
}
static int op_netlink(void)
{
	return sock(AF_NETLINK, SOCK_RAW, 0);
}
static int op_unix_stream(void)
{
	return sock(AF_UNIX, SOCK_STREAM, 0);
}
static int op_ax25(void)
{
	return sock(3 /* AF_AX25, between AF_INET and AF_INET6 */, SOCK_STREAM, 0);
}
static int pair(int type)
{
	int sv[2];
	if (socketpair(AF_UNIX, type, 0, sv) < 0)
		return errno;
	close(sv[0]);
	close(sv[1]);
	return 0;
}
static int op_pair_stream(void)
{
	return pair(SOCK_STREAM);
}
static int op_pair_dgram(void)
{
	return pair(SOCK_DGRAM);
}
/* A TCP socket that listens without bind: bound to an ephemeral port on every address. */
static int op_listen_unbound(void)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0)
		return 100;
	int r = result(listen(fd, 1));
	close(fd);
	return r;
}
static int op_connect_loopback(void)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0)
		return 100;
	struct sockaddr_in a = {
	    .sin_family = AF_INET, .sin_port = htons(9), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	int r = result(connect(fd, (struct sockaddr *)&a, sizeof(a)));
	close(fd);
	return r;
}
static int op_fastopen(void)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0)
		return 100;
	struct sockaddr_in a = {
	    .sin_family = AF_INET, .sin_port = htons(9), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	int r = result(sendto(fd, "x", 1, MSG_FASTOPEN, (struct sockaddr *)&a, sizeof(a)));
	close(fd);
	return r;
}
static int op_fastopen_msg(void)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0)
		return 100;
	struct sockaddr_in a = {
	    .sin_family = AF_INET, .sin_port = htons(9), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	struct iovec io = {.iov_base = "x", .iov_len = 1};
	struct msghdr m = {
	    .msg_name = &a, .msg_namelen = sizeof(a), .msg_iov = &io, .msg_iovlen = 1};
	int r = result(sendmsg(fd, &m, MSG_FASTOPEN));
	close(fd);
	return r;
}

static const struct denied_proxy_case {
	const char *name;
	op_fn op;
	int want;
} proxy_cases[] = {
    {"socket(AF_INET, SOCK_STREAM, 0)", op_tcp4, 0},
    {"socket(AF_INET6, SOCK_STREAM|NONBLOCK|CLOEXEC, IPPROTO_TCP)", op_tcp6_flags, 0},
    {"socketpair(AF_UNIX, SOCK_STREAM)", op_pair_stream, 0},
    {"socket(AF_INET, SOCK_STREAM, IPPROTO_MPTCP)", op_mptcp, EPERM},
    {"socket(AF_INET6, SOCK_STREAM, IPPROTO_SCTP)", op_sctp_stream, EPERM},
    {"socket(AF_INET, SOCK_DGRAM)", op_udp4, EPERM},
    {"socket(AF_INET6, SOCK_DGRAM|CLOEXEC)", op_udp6, EPERM},
    {"socket(AF_INET, SOCK_SEQPACKET)", op_seqpacket4, EPERM},
    {"socket(AF_INET, SOCK_RAW)", op_raw4, EPERM},
    {"socket(AF_PACKET)", op_packet, EPERM},
    {"socket(AF_NETLINK)", op_netlink, EPERM},
    {"socket(AF_UNIX)", op_unix_stream, EPERM},
    {"socket(AF_AX25), a family between AF_INET and AF_INET6", op_ax25, EPERM},
    {"socketpair(AF_UNIX, SOCK_DGRAM)", op_pair_dgram, EPERM},
    {"listen(2) of an unbound TCP socket", op_listen_unbound, EPERM},
    {"sendto(MSG_FASTOPEN)", op_fastopen, EPERM},
    {"sendmsg(MSG_FASTOPEN)", op_fastopen_msg, EPERM},
    /* SECCOMP_RET_USER_NOTIF with no listener attached (the test loads no supervisor). */
    {"connect(2) goes to the supervisor (ENOSYS without one)", op_connect_loopback, ENOSYS},
};

static int read_program(int fd);

static void check_proxy_sockets(void)
{
	struct cf_seccomp_opts o = {.sockets = CF_SOCKETS_PROXY};
	struct confine_error err = {0};
	int fd = -1;
	int rc = cf_seccomp_build_fd_opts(&o, &fd, &err);
	TAP_INTEQ(rc, 0, "the network-by-domain program builds (%s)", err.reason);
	if (rc < 0)
		return;
	struct sock_fprog saved = prog;
	static struct sock_filter copy[4096];
	TAP_OK(prog.len <= sizeof(copy) / sizeof(copy[0]), "the first program fits the copy");
	memcpy(copy, prog.filter, prog.len * sizeof(copy[0]));
	saved.filter = copy;
	rc = read_program(fd);
	TAP_OK(rc == 0, "the network-by-domain program: %u instructions", prog.len);
	close(fd);
	for (size_t i = 0; i < sizeof(proxy_cases) / sizeof(proxy_cases[0]); i++) {
		const struct denied_proxy_case *c = &proxy_cases[i];
		int bare = run_case(c->op, false);
		int got = run_case(c->op, true);
		if (c->want)
			TAP_OK(got == c->want && bare != c->want,
			       "network by domain: %s -> %s (%d; unfiltered %d)", c->name,
			       c->want == EPERM ? "EPERM" : "ENOSYS", got, bare);
		else
			TAP_OK(got == bare, "network by domain: %s allowed (%d, unfiltered %d)",
			       c->name, got, bare);
	}
	prog = saved;
}

/* ---- checks ---- */

struct denied_case {
	const char *name;
	op_fn op;
	int want;
};

static const struct denied_case denied[] = {
    {"ioctl TIOCSTI", op_tiocsti, EPERM},
    {"ioctl TIOCSTI with the upper 32 bits set", op_tiocsti_high, EPERM},
    {"ioctl TIOCSTI with bit 32 set", op_tiocsti_high_bit32, EPERM},
    {"ioctl TIOCLINUX with the upper 32 bits set", op_tioclinux, EPERM},
    {"keyctl", op_keyctl, EPERM},
    {"add_key", op_add_key, EPERM},
    {"request_key", op_request_key, EPERM},
    {"io_uring_setup", op_io_uring_setup, EPERM},
    {"io_uring_enter", op_io_uring_enter, EPERM},
    {"io_uring_register", op_io_uring_register, EPERM},
    {"perf_event_open", op_perf_event_open, EPERM},
    {"bpf", op_bpf, EPERM},
    {"userfaultfd", op_userfaultfd, EPERM},
    {"fsopen", op_fsopen, EPERM},
    {"fsconfig", op_fsconfig, EPERM},
    {"fsmount", op_fsmount, EPERM},
    {"fspick", op_fspick, EPERM},
    {"open_tree", op_open_tree, EPERM},
    {"move_mount", op_move_mount, EPERM},
    {"mount_setattr", op_mount_setattr, EPERM},
    {"unshare(CLONE_NEWUSER)", op_unshare_user, EPERM},
    {"unshare(CLONE_NEWUSER|CLONE_NEWNS)", op_unshare_user_ns, EPERM},
    {"clone(CLONE_NEWUSER)", op_clone_newuser, EPERM},
    {"clone(CLONE_NEWUSER) with the upper 32 bits set", op_clone_newuser_high, EPERM},
    {"clone3", op_clone3, ENOSYS},
};

/* Allowed neighbours: the filter must not change their outcome. */
struct allowed_case {
	const char *name;
	op_fn op;
};

static const struct allowed_case allowed[] = {
    {"getpid", op_getpid},
    {"ioctl TIOCGWINSZ", op_tiocgwinsz},
    {"unshare(CLONE_NEWNS)", op_unshare_ns},
    {"unshare(0)", op_unshare_none},
    {"clone without CLONE_NEWUSER", op_clone_plain},
    {"fork", op_fork},
    {"pthread_create (clone3 falls back to clone)", op_pthread},
    {"posix_spawn /bin/true", op_posix_spawn},
};

/* A classic-BPF evaluator over struct seccomp_data, enough for any program libseccomp emits:
 * it lets the test ask what the program decides for an architecture this kernel cannot enter. */
static uint32_t bpf_eval(uint32_t arch, int nr, uint64_t arg0)
{
	struct seccomp_data d = {.nr = nr, .arch = arch};
	d.args[0] = arg0;
	uint32_t a = 0, x = 0, mem[BPF_MEMWORDS] = {0};
	const uint32_t bad = 0xdeadbeefU;
	for (unsigned pc = 0; pc < prog.len; pc++) {
		const struct sock_filter *f = &prog.filter[pc];
		uint32_t src = BPF_SRC(f->code) == BPF_X ? x : f->k;
		switch (BPF_CLASS(f->code)) {
		case BPF_LD:
		case BPF_LDX: {
			uint32_t v;
			if (BPF_MODE(f->code) == BPF_ABS) {
				if (f->k % 4 || f->k + 4 > sizeof(d))
					return bad;
				memcpy(&v, (const char *)&d + f->k, 4);
			} else if (BPF_MODE(f->code) == BPF_IMM) {
				v = f->k;
			} else if (BPF_MODE(f->code) == BPF_MEM && f->k < BPF_MEMWORDS) {
				v = mem[f->k];
			} else if (BPF_MODE(f->code) == BPF_LEN) {
				v = sizeof(d);
			} else {
				return bad;
			}
			if (BPF_CLASS(f->code) == BPF_LD)
				a = v;
			else
				x = v;
			break;
		}
		case BPF_ST:
		case BPF_STX:
			if (f->k >= BPF_MEMWORDS)
				return bad;
			mem[f->k] = BPF_CLASS(f->code) == BPF_ST ? a : x;
			break;
		case BPF_ALU:
			switch (BPF_OP(f->code)) {
			case BPF_ADD:
				a += src;
				break;
			case BPF_SUB:
				a -= src;
				break;
			case BPF_MUL:
				a *= src;
				break;
			case BPF_DIV:
				if (!src)
					return bad;
				a /= src;
				break;
			case BPF_AND:
				a &= src;
				break;
			case BPF_OR:
				a |= src;
				break;
			case BPF_LSH:
				a <<= (src & 31);
				break;
			case BPF_RSH:
				a >>= (src & 31);
				break;
			case BPF_NEG:
				a = -a;
				break;
			default:
				return bad;
			}
			break;
		case BPF_JMP: {
			bool c;
			switch (BPF_OP(f->code)) {
			case BPF_JA:
				pc += f->k;
				continue;
			case BPF_JEQ:
				c = a == src;
				break;
			case BPF_JGT:
				c = a > src;
				break;
			case BPF_JGE:
				c = a >= src;
				break;
			case BPF_JSET:
				c = (a & src) != 0;
				break;
			default:
				return bad;
			}
			pc += c ? f->jt : f->jf;
			break;
		}
		case BPF_RET:
			return BPF_RVAL(f->code) == BPF_K ? f->k : a;
		case BPF_MISC:
			if (BPF_MISCOP(f->code) == BPF_TAX)
				x = a;
			else
				a = x;
			break;
		default:
			return bad;
		}
	}
	return bad;
}

static int read_program(int fd)
{
	struct stat st;
	if (fstat(fd, &st) < 0 || st.st_size <= 0 || st.st_size % sizeof(struct sock_filter) != 0)
		return -1;
	/* Static storage, not malloc: the forked cases _exit, and a leak checker would report a
	 * heap copy still owned by the parent from every child. */
	static struct sock_filter f[4096];
	if ((size_t)st.st_size > sizeof(f))
		return -1;
	ssize_t n = pread(fd, f, (size_t)st.st_size, 0);
	if (n != st.st_size)
		return -1;
	prog.len = (unsigned short)(st.st_size / sizeof(struct sock_filter));
	prog.filter = f;
	return 0;
}

static void check_fd(int fd)
{
	TAP_OK(fd >= 0, "cf_seccomp_build_fd gives a descriptor");
	int fdfl = fcntl(fd, F_GETFD);
	TAP_OK(fdfl >= 0 && (fdfl & FD_CLOEXEC), "the descriptor is close-on-exec");
	int seals = fcntl(fd, F_GET_SEALS);
	int want = F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL;
	TAP_OK(seals >= 0 && (seals & want) == want, "the memfd is sealed (seals 0x%x)", seals);
	TAP_INTEQ(lseek(fd, 0, SEEK_CUR), 0, "the memfd is positioned at offset 0");
	TAP_OK(write(fd, "x", 1) < 0 && errno == EPERM, "writing to the memfd fails with EPERM");
	TAP_OK(ftruncate(fd, 0) < 0 && errno == EPERM, "truncating the memfd fails with EPERM");
}

/* The programs made at build time are the ones libseccomp makes now, for every socket rule
 * set, byte for byte (a rule changed without the build noticing, or another libseccomp). */
static void check_blob(void)
{
	static const char *const names[] = {"any",   "unix only", "none",	 "no unix",
					    "proxy", "guarded",	  "proxy+agent", "agent"};
	_Static_assert(sizeof(names) / sizeof(names[0]) == CF_SECCOMP_N_SOCKETS,
		       "a name for every socket rule set");
	for (int k = 0; k < CF_SUPERVISE_N_LEVELS * CF_SECCOMP_N_SOCKETS; k++) {
		/* Each socket rule set, then the same with each level of the landlock supervisor.
		 */
		struct cf_seccomp_opts o = {.sockets = (enum cf_sockets)(k % CF_SECCOMP_N_SOCKETS),
					    .supervise = k / CF_SECCOMP_N_SOCKETS};
		int a = -1, b = -1;
		unsigned char x[8192], y[8192];
		ssize_t nx = -1, ny = -2;
		if (cf_seccomp_build_fd_opts(&o, &a, NULL) == 0 &&
		    cf_seccomp_build_fd_libseccomp(&o, &b, NULL) == 0) {
			nx = pread(a, x, sizeof(x), 0);
			ny = pread(b, y, sizeof(y), 0);
		}
		TAP_OK(nx > 0 && nx == ny && !memcmp(x, y, (size_t)nx),
		       "sockets %s%s: the build's program is what libseccomp makes now (%zd, %zd "
		       "bytes)",
		       names[k % CF_SECCOMP_N_SOCKETS],
		       o.supervise == CF_SUPERVISE_PATHS   ? ", supervised paths"
		       : o.supervise == CF_SUPERVISE_READS ? ", supervised reads"
		       : o.supervise			   ? ", supervised"
							   : "",
		       nx, ny);
		if (a >= 0)
			close(a);
		if (b >= 0)
			close(b);
	}
}

static void check_speed(void)
{
	/* Built on every `confine run`: keep an eye on the cost. */
	enum { rounds = 200 };
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	int ok = 1;
	for (int i = 0; i < rounds; i++) {
		int fd;
		if (cf_seccomp_build_fd(&fd, NULL) < 0) {
			ok = 0;
			break;
		}
		close(fd);
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	double us =
	    ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) / 1e3 / rounds;
	printf("# building the filter takes %.1f us on average over %d rounds\n", us, rounds);
	TAP_OK(ok && us < 5000.0, "building the filter takes well under 5 ms (%.1f us)", us);
}

int main(void)
{
	struct confine_error err = {0};

	TAP_OK(cf_seccomp_available(), "seccomp filters are available on this kernel");
	const char *d = cf_seccomp_describe();
	TAP_OK(d && strstr(d, "TIOCSTI") && strstr(d, "clone3 -> ENOSYS") && strstr(d, "killed"),
	       "cf_seccomp_describe names the rules");

	int fd = -1;
	int rc = cf_seccomp_build_fd(&fd, &err);
	TAP_INTEQ(rc, 0, "cf_seccomp_build_fd succeeds (%s)", err.reason);
	if (rc < 0)
		return tap_done();
	check_fd(fd);
	TAP_OK(read_program(fd) == 0, "the memfd holds a whole BPF program (%u instructions)",
	       prog.len);
	close(fd);
	if (!prog.filter)
		return tap_done();

	int master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (master >= 0 && grantpt(master) == 0 && unlockpt(master) == 0)
		pty_slave = open(ptsname(master), O_RDWR | O_NOCTTY | O_CLOEXEC);
	TAP_OK(pty_slave >= 0, "a pty pair for the terminal cases");

	/* The unfiltered TIOCSTI proves that the high-bit request reaches the kernel as TIOCSTI,
	 * so the filter's EPERM is the filter's doing. */
	int plain = run_case(op_tiocsti_high, false);
	TAP_INTEQ(plain, 0, "without the filter, TIOCSTI with the upper bits set injects input");

	for (size_t i = 0; i < sizeof(denied) / sizeof(denied[0]); i++) {
		int got = run_case(denied[i].op, true);
		TAP_INTEQ(got, denied[i].want, "filtered: %s -> %s", denied[i].name,
			  denied[i].want == EPERM ? "EPERM" : "ENOSYS");
	}
	for (size_t i = 0; i < sizeof(allowed) / sizeof(allowed[0]); i++) {
		int bare = run_case(allowed[i].op, false);
		int got = run_case(allowed[i].op, true);
		TAP_OK(got == bare,
		       "allowed: %s behaves as without the filter (errno %d, unfiltered %d)",
		       allowed[i].name, got, bare);
	}
	TAP_INTEQ(run_case(op_getpid, true), 0, "allowed: getpid succeeds under the filter");
	TAP_INTEQ(run_case(op_tiocgwinsz, true), 0, "allowed: ioctl TIOCGWINSZ succeeds");
	TAP_INTEQ(run_case(op_clone_plain, true), 0, "allowed: clone without CLONE_NEWUSER");
	TAP_INTEQ(run_case(op_pthread, true), 0, "allowed: pthread_create under the filter");
	TAP_INTEQ(run_case(op_io_uring_enter, false), EBADF,
		  "control: io_uring_enter(-1) is EBADF without the filter");
	TAP_OK(run_case(op_unshare_ns, true) != EPERM || getuid() != 0,
	       "allowed: unshare(CLONE_NEWNS) is not EPERM as root");

	TAP_INTEQ(run_case(op_x32_getpid, true), -SIGSYS,
		  "foreign architecture: an x32 system call kills the process (SIGSYS)");
#if defined(__x86_64__)
	/* The program itself decides i386 calls the same way on every kernel; the evaluator is
	 * trusted only after it agrees with the kernel on the native cases above. */
	TAP_INTEQ(bpf_eval(AUDIT_ARCH_X86_64, SYS_getpid, 0), SECCOMP_RET_ALLOW,
		  "BPF evaluation agrees with the kernel: native getpid is allowed");
	TAP_INTEQ(bpf_eval(AUDIT_ARCH_X86_64, SYS_keyctl, 0), SECCOMP_RET_ERRNO | EPERM,
		  "BPF evaluation agrees with the kernel: native keyctl is EPERM");
	TAP_INTEQ(bpf_eval(AUDIT_ARCH_X86_64, SYS_clone3, 0), SECCOMP_RET_ERRNO | ENOSYS,
		  "BPF evaluation agrees with the kernel: native clone3 is ENOSYS");
	TAP_INTEQ(bpf_eval(AUDIT_ARCH_X86_64, __X32_SYSCALL_BIT | SYS_getpid, 0),
		  SECCOMP_RET_KILL_PROCESS, "BPF evaluation agrees with the kernel: x32 is killed");
	TAP_INTEQ(bpf_eval(AUDIT_ARCH_I386, 20 /* getpid */, 0), SECCOMP_RET_KILL_PROCESS,
		  "the program kills an i386 getpid (BPF evaluated)");
	TAP_INTEQ(bpf_eval(AUDIT_ARCH_I386, 288 /* keyctl */, 0), SECCOMP_RET_KILL_PROCESS,
		  "the program kills an i386 keyctl (BPF evaluated)");
	int i386_bare = run_case(op_i386_getpid, false);
	if (i386_bare == 0)
		TAP_INTEQ(run_case(op_i386_getpid, true), -SIGSYS,
			  "foreign architecture: an i386 system call kills the process (SIGSYS)");
	else
		/* A kernel without IA32 emulation (CONFIG_IA32_EMULATION off, or ia32_emulation=0
		 * on the command line) faults int 0x80 before any filter runs: there is no i386
		 * door to close on this machine, and the program above closes it where there is. */
		TAP_INTEQ(i386_bare, -SIGSEGV,
			  "this kernel has no i386 entry: int 0x80 faults without the filter");
#endif

	check_blob();
	check_proxy_sockets();
	check_speed();
	return tap_done();
}

/* SPDX-License-Identifier: MIT */
/*
 * tryk: attempt ONE kernel-surface operation and print its outcome, so that the escape tests
 * can assert the exact result inside the sandbox (THREATS.md "Environment, descriptors,
 * kernel" and "Terminal, processes, signals").
 *
 *   tryk OP ARGS...
 *
 * Prints `OK` or the errno's symbolic name (`EPERM`, `ENOSYS`, ...) on stdout and exits 0
 * either way; a usage error exits 2.  A few operations print a value instead (caps, core,
 * nnp).  Raw system calls throughout, so that the libc in use cannot hide or emulate one.
 *
 * Operations:
 *   tiocsti-tty            open /dev/tty, ioctl TIOCSTI one byte
 *   tiocsti-fd N           ioctl TIOCSTI one byte on inherited descriptor N
 *   tiocsti-high N         the same with the request's upper 32 bits set (the kernel drops them)
 *   tioclinux-fd N         ioctl TIOCLINUX TIOCL_GETSHIFTSTATE (reads only) on descriptor N
 *   keyctl-read ID         KEYCTL_READ of key serial ID
 *   keyctl-session         KEYCTL_GET_KEYRING_ID of the session keyring (no creation)
 *   io_uring               io_uring_setup with one entry
 *   perf                   perf_event_open of a software clock on the caller, user space only
 *   bpf                    BPF_MAP_CREATE of a one-entry array
 *   userfaultfd            userfaultfd(UFFD_USER_MODE_ONLY)
 *   unshare-user           unshare(CLONE_NEWUSER)
 *   clone-newuser          raw clone(CLONE_NEWUSER); the child exits at once
 *   clone3                 raw clone3 without flags; the child exits at once
 *   fsopen                 fsopen("tmpfs")
 *   open_tree              open_tree("/", OPEN_TREE_CLOEXEC)
 *   abstract-connect NAME  connect to the abstract unix socket NAME (no leading NUL or @)
 *   abstract-listen NAME   listen on the abstract unix socket NAME, print OK once listening,
 *                          then accept and close connections until killed
 *   unix-listen PATH       the same on the pathname unix socket PATH
 *   unix-connect PATH      connect to the unix socket PATH
 *   unix-flicker PATH      bind a unix socket at PATH, unlink it, bind again... until killed
 *                          (a short-lived service: the socket comes and goes)
 *   unix-dgram-listen PATH bind a datagram unix socket at PATH, print OK once bound, then
 *                          append a line to PATH.got for every datagram until killed
 *   pair-sendto PATH       socketpair(AF_UNIX, SOCK_DGRAM), then sendto(PATH) from one end:
 *                          a datagram socket made without socket(2) addressing a host socket
 *   pair-connect PATH      the same with connect(PATH) (a datagram socket may reconnect)
 *   kill PID SIG           kill(PID, SIG)
 *   ptrace PID             PTRACE_SEIZE then detach
 *   caps                   CapEff of /proc/self/status, 16 hex digits
 *   caps-all               CapInh, CapPrm, CapEff, CapBnd and CapAmb, space-separated
 *   umount PATH            umount2(PATH, 0)
 *   mount-tmpfs PATH       mount a tmpfs on PATH
 *   core                   RLIMIT_CORE soft limit in bytes, or `unlimited`
 *   nnp                    PR_GET_NO_NEW_PRIVS: `0` or `1`
 *   pty-run CMD ARG...     run CMD in a new session whose controlling terminal is a fresh pty
 *                          slave, given as descriptor 0; exits with CMD's status
 *   setid VIA MODE PATH    put MODE (octal, e.g. 4755) on PATH by VIA: chmod, fchmod, fchmodat,
 *                          fchmodat2 (PATH exists), or create PATH with it: open, openat, creat,
 *                          mknod, mknodat, tmpfile (O_TMPFILE in PATH's directory, then linkat),
 *                          openat2; raw system calls.  OK only when the file then carries every
 *                          setuid/setgid bit of MODE (umask 0); `NOBIT` when the call succeeded
 *                          but the bit did not stick
 *   with-key DESC CMD ARG...  join a new session keyring holding one user key DESC that only
 *                          its possessors may see or read (0x3f000000), then exec CMD; an
 *                          argument `@KEY` becomes the key's serial
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef CLONE_NEWUSER
#define CLONE_NEWUSER 0x10000000
#endif
#ifndef SYS_clone3
#define SYS_clone3 435
#endif
#ifndef SYS_fsopen
#define SYS_fsopen 430
#endif
#ifndef SYS_open_tree
#define SYS_open_tree 428
#endif
#ifndef SYS_io_uring_setup
#define SYS_io_uring_setup 425
#endif
#define CF_KEYCTL_GET_KEYRING_ID 0
#define CF_KEYCTL_JOIN_SESSION_KEYRING 1
#define CF_KEYCTL_SETPERM 5
#define CF_KEYCTL_READ 11
#define CF_KEY_SPEC_SESSION_KEYRING (-3)
#define CF_FSOPEN_CLOEXEC 0x1
#define CF_OPEN_TREE_CLOEXEC O_CLOEXEC
#define CF_UFFD_USER_MODE_ONLY 1
#define CF_BPF_MAP_CREATE 0
#define CF_BPF_MAP_TYPE_ARRAY 2
#define CF_PERF_TYPE_SOFTWARE 1
#define CF_PERF_COUNT_SW_CPU_CLOCK 0
/* perf_event_attr: the first flag bits are disabled(0) inherit(1) pinned(2) exclusive(3)
 * exclude_user(4) exclude_kernel(5) exclude_hv(6). */
#define CF_PERF_DISABLED (1ULL << 0)
#define CF_PERF_EXCLUDE_KERNEL (1ULL << 5)
#define CF_PERF_EXCLUDE_HV (1ULL << 6)

static int usage(void)
{
	fprintf(stderr, "usage: tryk OP [ARGS...]  (see the comment at the top of tryk.c)\n");
	return 2;
}

static int outcome(long rc)
{
	if (rc < 0) {
		const char *name = strerrorname_np(errno);
		if (name)
			printf("%s\n", name);
		else
			printf("E%d\n", errno);
	} else {
		printf("OK\n");
	}
	return 0;
}

static int parse_long(const char *s, long *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 0);
	if (errno != 0 || end == s || *end != '\0')
		return -1;
	*out = v;
	return 0;
}

static long sti(int fd, unsigned long request)
{
	char c = '#';
	return syscall(SYS_ioctl, fd, request, &c);
}

static int op_tiocsti_tty(void)
{
	int fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return outcome(-1);
	long rc = sti(fd, TIOCSTI);
	int saved = errno;
	close(fd);
	errno = saved;
	return outcome(rc);
}

static long raw_clone(unsigned long flags)
{
	/* Fork-like: no new stack, the child leaves at once. */
	long pid = syscall(SYS_clone, flags | SIGCHLD, NULL, NULL, NULL, NULL);
	if (pid == 0)
		_exit(0);
	if (pid > 0)
		waitpid((pid_t)pid, NULL, 0);
	return pid;
}

static long raw_clone3(void)
{
	uint64_t args[11] = {0}; /* struct clone_args, CLONE_ARGS_SIZE_VER2 */
	args[4] = SIGCHLD;	 /* exit_signal */
	long pid = syscall(SYS_clone3, args, sizeof(args));
	if (pid == 0)
		_exit(0);
	if (pid > 0)
		waitpid((pid_t)pid, NULL, 0);
	return pid;
}

static long closing(long fd)
{
	if (fd >= 0)
		close((int)fd);
	return fd;
}

static long io_uring(void)
{
	uint32_t params[30] = {0}; /* struct io_uring_params is 120 bytes */
	return closing(syscall(SYS_io_uring_setup, 1, params));
}

static long perf(void)
{
	uint64_t attr[16] = {0}; /* struct perf_event_attr, PERF_ATTR_SIZE_VER5 = 112 */
	uint32_t *w = (uint32_t *)attr;
	w[0] = CF_PERF_TYPE_SOFTWARE; /* type */
	w[1] = 112;		      /* size */
	attr[1] = CF_PERF_COUNT_SW_CPU_CLOCK;
	attr[5] = CF_PERF_DISABLED | CF_PERF_EXCLUDE_KERNEL | CF_PERF_EXCLUDE_HV;
	return closing(syscall(SYS_perf_event_open, attr, 0, -1, -1, 0));
}

static long bpf_map(void)
{
	uint32_t attr[32] = {0}; /* union bpf_attr, map-create part */
	attr[0] = CF_BPF_MAP_TYPE_ARRAY;
	attr[1] = 4; /* key_size */
	attr[2] = 4; /* value_size */
	attr[3] = 1; /* max_entries */
	return closing(syscall(SYS_bpf, CF_BPF_MAP_CREATE, attr, sizeof(attr)));
}

static socklen_t unix_addr(struct sockaddr_un *sa, const char *name, bool abstract)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	size_t off = abstract ? 1 : 0;
	size_t n = strlen(name);
	if (n + off >= sizeof(sa->sun_path))
		n = sizeof(sa->sun_path) - off - 1;
	memcpy(sa->sun_path + off, name, n);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + off + n + (abstract ? 0 : 1));
}

static int op_connect(const char *name, bool abstract)
{
	struct sockaddr_un sa;
	socklen_t len = unix_addr(&sa, name, abstract);
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return outcome(-1);
	long rc = connect(s, (struct sockaddr *)&sa, len);
	int saved = errno;
	close(s);
	errno = saved;
	return outcome(rc);
}

static int op_listen(const char *name, bool abstract)
{
	struct sockaddr_un sa;
	socklen_t len = unix_addr(&sa, name, abstract);
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0 || bind(s, (struct sockaddr *)&sa, len) < 0 || listen(s, 16) < 0)
		return outcome(-1);
	outcome(0);
	fflush(stdout);
	for (;;) {
		int c = accept4(s, NULL, NULL, SOCK_CLOEXEC);
		if (c >= 0)
			close(c);
	}
}

static int op_flicker(const char *path)
{
	struct sockaddr_un sa;
	socklen_t len = unix_addr(&sa, path, false);
	for (;;) {
		int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (s < 0 || bind(s, (struct sockaddr *)&sa, len) < 0)
			return outcome(-1);
		usleep(200);
		unlink(path);
		close(s);
		usleep(200);
	}
}

static int op_dgram_listen(const char *path)
{
	struct sockaddr_un sa;
	socklen_t len = unix_addr(&sa, path, false);
	char got[PATH_MAX];
	snprintf(got, sizeof(got), "%s.got", path);
	int s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0 || bind(s, (struct sockaddr *)&sa, len) < 0)
		return outcome(-1);
	outcome(0);
	fflush(stdout);
	for (;;) {
		char buf[256];
		ssize_t n = recv(s, buf, sizeof(buf), 0);
		int fd = n >= 0 ? open(got, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644) : -1;
		if (fd >= 0) {
			ssize_t k = write(fd, "datagram\n", 9);
			(void)k;
			close(fd);
		}
	}
}

static int op_pair(const char *path, bool use_connect)
{
	struct sockaddr_un sa;
	socklen_t len = unix_addr(&sa, path, false);
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv) < 0)
		return outcome(-1);
	long rc;
	if (use_connect) {
		rc = connect(sv[0], (struct sockaddr *)&sa, len);
		if (rc == 0)
			rc = send(sv[0], "x", 1, 0);
	} else {
		rc = sendto(sv[0], "x", 1, 0, (struct sockaddr *)&sa, len);
	}
	int saved = errno;
	close(sv[0]);
	close(sv[1]);
	errno = saved;
	return outcome(rc < 0 ? -1 : 0);
}

static int op_ptrace(long pid)
{
	long rc = ptrace(PTRACE_SEIZE, (pid_t)pid, NULL, NULL);
	if (rc == 0)
		ptrace(PTRACE_DETACH, (pid_t)pid, NULL, NULL);
	return outcome(rc);
}

/* Prints the named capability sets of /proc/self/status ("CapEff", ...), space-separated. */
static int print_caps(const char *const *sets, size_t n)
{
	FILE *f = fopen("/proc/self/status", "re");
	if (!f)
		return outcome(-1);
	char vals[5][32] = {{0}};
	char line[256];
	while (fgets(line, sizeof(line), f))
		for (size_t i = 0; i < n; i++)
			if (!strncmp(line, sets[i], 6) && line[6] == ':') {
				char *v = line + 7;
				v += strspn(v, " \t");
				v[strcspn(v, "\n")] = '\0';
				snprintf(vals[i], sizeof(vals[i]), "%s", v);
			}
	fclose(f);
	for (size_t i = 0; i < n; i++)
		if (!vals[i][0]) {
			errno = ENOENT;
			return outcome(-1);
		}
	for (size_t i = 0; i < n; i++)
		printf("%s%s", i ? " " : "", vals[i]);
	putchar('\n');
	return 0;
}

static int op_caps_all(void)
{
	static const char *const sets[] = {"CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"};
	return print_caps(sets, 5);
}

static int op_caps(void)
{
	static const char *const sets[] = {"CapEff"};
	return print_caps(sets, 1);
}

static int op_core(void)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_CORE, &rl) < 0)
		return outcome(-1);
	if (rl.rlim_cur == RLIM_INFINITY)
		printf("unlimited\n");
	else
		printf("%llu\n", (unsigned long long)rl.rlim_cur);
	return 0;
}

static int op_nnp(void)
{
	int v = prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0);
	if (v < 0)
		return outcome(-1);
	printf("%d\n", v);
	return 0;
}

static int op_pty_run(char **argv)
{
	int master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (master < 0 || grantpt(master) < 0 || unlockpt(master) < 0) {
		perror("tryk: pty");
		return 2;
	}
	/* Its peer as glibc's openpty asks for it (TIOCGPTPEER); by name where the kernel lacks
	 * it (the landlock backend grants no /dev/pts/N path, only the peer of a master the
	 * command holds). */
	int slave = ioctl(master, _IO('T', 0x41), O_RDWR | O_NOCTTY | O_CLOEXEC);
	const char *name = slave < 0 ? ptsname(master) : NULL;
	if (slave < 0 && name)
		slave = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (slave < 0) {
		perror("tryk: pty slave");
		return 2;
	}
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0) {
		perror("tryk: fork");
		return 2;
	}
	if (pid == 0) {
		if (setsid() < 0 || ioctl(slave, TIOCSCTTY, 0) < 0 || dup2(slave, 0) < 0)
			_exit(2);
		execvp(argv[0], argv);
		_exit(errno == ENOENT ? 127 : 126);
	}
	close(slave);
	/* The master stays open until the command ends; otherwise the slave hangs up. */
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return 2;
	close(master);
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return WEXITSTATUS(st);
}

static int op_with_key(const char *desc, char **argv)
{
	if (syscall(SYS_keyctl, CF_KEYCTL_JOIN_SESSION_KEYRING, NULL) < 0) {
		perror("tryk: keyctl(JOIN_SESSION_KEYRING)");
		return 2;
	}
	long id =
	    syscall(SYS_add_key, "user", desc, "s3cret", (size_t)6, CF_KEY_SPEC_SESSION_KEYRING);
	if (id < 0 || syscall(SYS_keyctl, CF_KEYCTL_SETPERM, id, 0x3f000000U) < 0) {
		perror("tryk: add_key");
		return 2;
	}
	char serial[32];
	snprintf(serial, sizeof(serial), "%ld", id);
	for (char **a = argv; *a; a++)
		if (strcmp(*a, "@KEY") == 0)
			*a = serial;
	execvp(argv[0], argv);
	perror("tryk: exec");
	return errno == ENOENT ? 127 : 126;
}

#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452
#endif
#ifndef SYS_openat2
#define SYS_openat2 437
#endif

struct cf_open_how {
	uint64_t flags, mode, resolve;
};

static long setid_call(const char *via, unsigned mode, const char *path)
{
	long rc;
	if (!strcmp(via, "chmod"))
		return syscall(SYS_chmod, path, mode);
	if (!strcmp(via, "fchmodat"))
		return syscall(SYS_fchmodat, AT_FDCWD, path, mode);
	if (!strcmp(via, "fchmodat2"))
		return syscall(SYS_fchmodat2, AT_FDCWD, path, mode, 0);
	if (!strcmp(via, "fchmod")) {
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return -1;
		rc = syscall(SYS_fchmod, fd, mode);
		int e = errno;
		close(fd);
		errno = e;
		return rc;
	}
	if (!strcmp(via, "open"))
		return closing(
		    syscall(SYS_open, path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, mode));
	if (!strcmp(via, "openat"))
		return closing(syscall(SYS_openat, AT_FDCWD, path,
				       O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, mode));
	if (!strcmp(via, "creat"))
		return closing(syscall(SYS_creat, path, mode));
	if (!strcmp(via, "mknod"))
		return syscall(SYS_mknod, path, S_IFREG | mode, 0);
	if (!strcmp(via, "mknodat"))
		return syscall(SYS_mknodat, AT_FDCWD, path, S_IFREG | mode, 0);
	if (!strcmp(via, "openat2")) {
		struct cf_open_how how = {.flags = O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC,
					  .mode = mode};
		return closing(syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how)));
	}
	if (!strcmp(via, "tmpfile")) {
		char dir[PATH_MAX];
		snprintf(dir, sizeof(dir), "%s", path);
		char *slash = strrchr(dir, '/');
		if (slash)
			*(slash == dir ? slash + 1 : slash) = '\0';
		int fd = (int)syscall(SYS_openat, AT_FDCWD, slash ? dir : ".",
				      O_TMPFILE | O_WRONLY | O_CLOEXEC, mode);
		if (fd < 0)
			return -1;
		char proc[64];
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
		rc = linkat(AT_FDCWD, proc, AT_FDCWD, path, AT_SYMLINK_FOLLOW);
		int e = errno;
		close(fd);
		errno = e;
		return rc;
	}
	errno = EINVAL;
	return -2;
}

static int op_setid(const char *via, const char *mode_s, const char *path)
{
	char *end;
	unsigned long mode = strtoul(mode_s, &end, 8);
	if (*end || end == mode_s)
		return usage();
	umask(0);
	long rc = setid_call(via, (unsigned)mode, path);
	if (rc == -2)
		return usage();
	if (rc < 0)
		return outcome(rc);
	struct stat st;
	if (stat(path, &st) < 0)
		return outcome(-1);
	unsigned want = (unsigned)mode & (S_ISUID | S_ISGID);
	printf("%s\n", (st.st_mode & want) == want ? "OK" : "NOBIT");
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage();
	const char *op = argv[1];
	int nargs = argc - 2;
	long a = 0, b = 0;

	if (strcmp(op, "pty-run") == 0)
		return nargs >= 1 ? op_pty_run(argv + 2) : usage();
	if (strcmp(op, "with-key") == 0)
		return nargs >= 2 ? op_with_key(argv[2], argv + 3) : usage();

	/* Operations without arguments. */
	if (nargs == 0) {
		if (strcmp(op, "tiocsti-tty") == 0)
			return op_tiocsti_tty();
		if (strcmp(op, "keyctl-session") == 0)
			return outcome(syscall(SYS_keyctl, CF_KEYCTL_GET_KEYRING_ID,
					       CF_KEY_SPEC_SESSION_KEYRING, 0));
		if (strcmp(op, "io_uring") == 0)
			return outcome(io_uring());
		if (strcmp(op, "perf") == 0)
			return outcome(perf());
		if (strcmp(op, "bpf") == 0)
			return outcome(bpf_map());
		if (strcmp(op, "userfaultfd") == 0)
			return outcome(
			    closing(syscall(SYS_userfaultfd, O_CLOEXEC | CF_UFFD_USER_MODE_ONLY)));
		if (strcmp(op, "unshare-user") == 0)
			return outcome(syscall(SYS_unshare, CLONE_NEWUSER));
		if (strcmp(op, "clone-newuser") == 0)
			return outcome(raw_clone(CLONE_NEWUSER));
		if (strcmp(op, "clone3") == 0)
			return outcome(raw_clone3());
		if (strcmp(op, "fsopen") == 0)
			return outcome(closing(syscall(SYS_fsopen, "tmpfs", CF_FSOPEN_CLOEXEC)));
		if (strcmp(op, "open_tree") == 0)
			return outcome(
			    closing(syscall(SYS_open_tree, AT_FDCWD, "/", CF_OPEN_TREE_CLOEXEC)));
		if (strcmp(op, "caps") == 0)
			return op_caps();
		if (strcmp(op, "caps-all") == 0)
			return op_caps_all();
		if (strcmp(op, "core") == 0)
			return op_core();
		if (strcmp(op, "nnp") == 0)
			return op_nnp();
		return usage();
	}

	if (nargs == 1) {
		const char *arg = argv[2];
		if (strcmp(op, "abstract-connect") == 0)
			return op_connect(arg, true);
		if (strcmp(op, "abstract-listen") == 0)
			return op_listen(arg, true);
		if (strcmp(op, "unix-listen") == 0)
			return op_listen(arg, false);
		if (strcmp(op, "unix-connect") == 0)
			return op_connect(arg, false);
		if (strcmp(op, "unix-flicker") == 0)
			return op_flicker(arg);
		if (strcmp(op, "unix-dgram-listen") == 0)
			return op_dgram_listen(arg);
		if (strcmp(op, "pair-sendto") == 0)
			return op_pair(arg, false);
		if (strcmp(op, "pair-connect") == 0)
			return op_pair(arg, true);
		if (strcmp(op, "umount") == 0)
			return outcome(umount2(arg, 0));
		if (strcmp(op, "mount-tmpfs") == 0)
			return outcome(mount("tmpfs", arg, "tmpfs", 0, "size=64k"));
		if (parse_long(arg, &a) < 0)
			return usage();
		if (strcmp(op, "tiocsti-fd") == 0)
			return outcome(sti((int)a, TIOCSTI));
		if (strcmp(op, "tiocsti-high") == 0)
			return outcome(sti((int)a, 0xffffffff00000000UL | TIOCSTI));
		if (strcmp(op, "tioclinux-fd") == 0) {
			char sub[2] = {6 /* TIOCL_GETSHIFTSTATE */, 0};
			return outcome(syscall(SYS_ioctl, (int)a, TIOCLINUX, sub));
		}
		if (strcmp(op, "keyctl-read") == 0) {
			char buf[4096];
			return outcome(syscall(SYS_keyctl, CF_KEYCTL_READ, a, buf, sizeof(buf)));
		}
		if (strcmp(op, "ptrace") == 0)
			return op_ptrace(a);
		return usage();
	}

	if (nargs == 3 && strcmp(op, "setid") == 0)
		return op_setid(argv[2], argv[3], argv[4]);
	if (nargs == 2 && strcmp(op, "kill") == 0) {
		if (parse_long(argv[2], &a) < 0 || parse_long(argv[3], &b) < 0)
			return usage();
		return outcome(kill((pid_t)a, (int)b));
	}
	return usage();
}

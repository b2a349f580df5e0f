/* SPDX-License-Identifier: MIT */
/*
 * tryop: attempt ONE operation and print its outcome, so that the enforcement tests can assert
 * the exact result of a real system call inside the sandbox.
 *
 *   tryop OP ARGS...
 *
 * Prints `OK` (followed by data for some operations) or the errno's symbolic name (`EACCES`,
 * `EROFS`, ...) on stdout and exits 0 either way; a usage error exits 2.  `exit N` and
 * `selfkill SIG` exist to test exit status propagation and print nothing.
 *
 * Operations:
 *   read PATH            open O_RDONLY, read one byte                    -> OK
 *   cat PATH             open, read up to 64 KiB                         -> OK <content>
 *   write PATH           open O_WRONLY|O_CREAT|O_TRUNC 0644, write "x"    -> OK
 *   append PATH          open O_WRONLY|O_APPEND|O_CREAT 0644, write "x"   -> OK
 *   fill PATH BYTES      create PATH and write BYTES zero bytes to it     -> OK
 *   mkdir PATH           mkdir 0755                                      -> OK
 *   rmdir PATH           rmdir                                           -> OK
 *   unlink PATH          unlink                                          -> OK
 *   rename A B           rename                                          -> OK
 *   link A B             hard link                                       -> OK
 *   symlink TARGET PATH  symlink                                         -> OK
 *   readdir PATH         opendir + readdir                               -> OK <entries but . and
 * ..> stat PATH            stat                                            -> OK statmode PATH stat
 * -> OK <mode, 4 octal digits> connect-tcp HOST PORT   TCP connect (3 s timeout) -> OK connect-udp
 * HOST PORT   UDP socket, sendto one datagram               -> OK connect-unix PATH       AF_UNIX
 * stream connect; a PATH starting with @ names an abstract socket (the @ stands for the leading
 * NUL)  -> OK readfd N             read one byte from inherited descriptor N       -> OK kill PID
 * SIG         kill(PID, SIG)                                  -> OK killpg0 SIG          kill(0,
 * SIG) (the caller's own process group)   -> OK getenv NAME          getenv -> OK <value> | UNSET
 *   env                  every variable name, one per line (no OK)
 *   caps                 CapEff of /proc/self/status                     -> OK <hex>
 *   landlock-abi         the kernel's Landlock ABI version               -> OK <n>
 *   umount PATH          umount2(PATH, 0)                                -> OK
 *   chmod PATH MODE      chmod, MODE in octal                            -> OK
 *   truncate PATH        truncate(PATH, 0)                               -> OK
 *   remount-rw PATH      mount(MS_REMOUNT|MS_BIND) without MS_RDONLY     -> OK
 *   mount-tmpfs PATH     mount a tmpfs over PATH                         -> OK
 *   sleep SECS           sleep (fractions allowed)                       -> OK
 *   daemon SECS PIDFILE  double fork + setsid; the grandchild writes its pid to PIDFILE, then
 *                        sleeps SECS; the caller prints OK once the pid file is written
 *   selfkill SIG         raise(SIG) with the default disposition (prints SURVIVED, exit 1, if
 *                        the process is still alive afterwards)
 *   exit N               exit(N)
 *   connect-seqpacket PATH  AF_UNIX SOCK_SEQPACKET connect                -> OK
 *   raw-socket           socket(AF_INET, SOCK_RAW, IPPROTO_ICMP)         -> OK
 *   packet-socket        socket(AF_PACKET, SOCK_RAW, 0)                  -> OK
 *   getaddrinfo NAME     the C library's resolver            -> OK <first IPv4> | EAI_<name>
 *   openat DIR REL       open DIR with O_PATH, then openat(dirfd, REL, O_RDONLY), read a byte
 *                                                                        -> OK
 *   socket DOMAIN TYPE   socket(2); DOMAIN inet|inet6|unix|netlink|packet, TYPE
 *                        stream|dgram|raw                                -> OK
 *   socketpair           socketpair(AF_UNIX, SOCK_STREAM)                -> OK
 *   ptrace PID           PTRACE_SEIZE then detach                        -> OK
 *   waitfile PATH SECS   wait until PATH exists                          -> OK | ETIMEDOUT
 *   socket-proto DOMAIN TYPE PROTO  socket(2) with protocol number PROTO    -> OK
 *   listen-tcp           socket(AF_INET, SOCK_STREAM) + listen(2), no bind -> OK
 *   bind-tcp HOST PORT   socket + bind(2) to HOST:PORT                   -> OK
 *   tcp-fastopen HOST PORT  sendto(MSG_FASTOPEN) on a new TCP socket (an implicit connect)
 *                                                                        -> OK
 */
#include <linux/netlink.h>
#include <sys/ptrace.h>
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define ERRNAME(e)                                                                                 \
	{                                                                                          \
		e, #e                                                                              \
	}

static const struct {
	int num;
	const char *name;
} errnames[] = {
    ERRNAME(EPERM),	  ERRNAME(ENOENT),	 ERRNAME(ESRCH),	   ERRNAME(EINTR),
    ERRNAME(EIO),	  ERRNAME(ENXIO),	 ERRNAME(E2BIG),	   ERRNAME(ENOEXEC),
    ERRNAME(EBADF),	  ERRNAME(ECHILD),	 ERRNAME(EAGAIN),	   ERRNAME(ENOMEM),
    ERRNAME(EACCES),	  ERRNAME(EFAULT),	 ERRNAME(EBUSY),	   ERRNAME(EEXIST),
    ERRNAME(EXDEV),	  ERRNAME(ENODEV),	 ERRNAME(ENOTDIR),	   ERRNAME(EISDIR),
    ERRNAME(EINVAL),	  ERRNAME(ENFILE),	 ERRNAME(EMFILE),	   ERRNAME(ENOTTY),
    ERRNAME(ETXTBSY),	  ERRNAME(EFBIG),	 ERRNAME(ENOSPC),	   ERRNAME(ESPIPE),
    ERRNAME(EROFS),	  ERRNAME(EMLINK),	 ERRNAME(EPIPE),	   ERRNAME(EDOM),
    ERRNAME(ERANGE),	  ERRNAME(EDEADLK),	 ERRNAME(ENAMETOOLONG),	   ERRNAME(ENOLCK),
    ERRNAME(ENOSYS),	  ERRNAME(ENOTEMPTY),	 ERRNAME(ELOOP),	   ERRNAME(ENOMSG),
    ERRNAME(EIDRM),	  ERRNAME(ENODATA),	 ERRNAME(ETIME),	   ERRNAME(ENOSR),
    ERRNAME(ENOLINK),	  ERRNAME(EPROTO),	 ERRNAME(EBADMSG),	   ERRNAME(EOVERFLOW),
    ERRNAME(EILSEQ),	  ERRNAME(EUSERS),	 ERRNAME(ENOTSOCK),	   ERRNAME(EDESTADDRREQ),
    ERRNAME(EMSGSIZE),	  ERRNAME(EPROTOTYPE),	 ERRNAME(ENOPROTOOPT),	   ERRNAME(EPROTONOSUPPORT),
    ERRNAME(EOPNOTSUPP),  ERRNAME(EAFNOSUPPORT), ERRNAME(EADDRINUSE),	   ERRNAME(EADDRNOTAVAIL),
    ERRNAME(ENETDOWN),	  ERRNAME(ENETUNREACH),	 ERRNAME(ENETRESET),	   ERRNAME(ECONNABORTED),
    ERRNAME(ECONNRESET),  ERRNAME(ENOBUFS),	 ERRNAME(EISCONN),	   ERRNAME(ENOTCONN),
    ERRNAME(ETIMEDOUT),	  ERRNAME(ECONNREFUSED), ERRNAME(EHOSTDOWN),	   ERRNAME(EHOSTUNREACH),
    ERRNAME(EALREADY),	  ERRNAME(EINPROGRESS),	 ERRNAME(ESTALE),	   ERRNAME(EDQUOT),
    ERRNAME(ECANCELED),	  ERRNAME(EOWNERDEAD),	 ERRNAME(ENOTRECOVERABLE), ERRNAME(ENOKEY),
    ERRNAME(EKEYEXPIRED), ERRNAME(EKEYREVOKED),	 ERRNAME(EKEYREJECTED),	   ERRNAME(ERFKILL),
    ERRNAME(EHWPOISON),
};

static int report_errno(int e)
{
	for (size_t i = 0; i < sizeof(errnames) / sizeof(errnames[0]); i++) {
		if (errnames[i].num == e) {
			printf("%s\n", errnames[i].name);
			return 0;
		}
	}
	printf("E%d\n", e);
	return 0;
}

static int report(int rc)
{
	if (rc < 0)
		return report_errno(errno);
	printf("OK\n");
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: tryop OP [ARGS...]  (see the comment at the top of tryop.c)\n");
	return 2;
}

/* Parses a decimal integer in [min, max]; returns -1 on a malformed or out-of-range value. */
static int parse_int(const char *s, long min, long max, long *out)
{
	char *end = NULL;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

static int parse_secs(const char *s, struct timespec *ts)
{
	char *end = NULL;
	errno = 0;
	double d = strtod(s, &end);
	if (errno != 0 || end == s || *end != '\0' || !(d >= 0) || d > 86400)
		return -1;
	ts->tv_sec = (time_t)d;
	ts->tv_nsec = (long)((d - (double)ts->tv_sec) * 1e9);
	return 0;
}

static int op_openat(const char *dir, const char *rel)
{
	int dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return report(-1);
	int fd = openat(dfd, rel, O_RDONLY | O_CLOEXEC);
	int e = errno;
	close(dfd);
	if (fd < 0) {
		errno = e;
		return report(-1);
	}
	char c;
	ssize_t n = read(fd, &c, 1);
	e = errno;
	close(fd);
	errno = e;
	return report(n < 0 ? -1 : 0);
}

static int op_socket(const char *domain, const char *type)
{
	int d = !strcmp(domain, "inet")	     ? AF_INET
		: !strcmp(domain, "inet6")   ? AF_INET6
		: !strcmp(domain, "unix")    ? AF_UNIX
		: !strcmp(domain, "netlink") ? AF_NETLINK
		: !strcmp(domain, "packet")  ? AF_PACKET
					     : -1;
	int t = !strcmp(type, "stream")	 ? SOCK_STREAM
		: !strcmp(type, "dgram") ? SOCK_DGRAM
		: !strcmp(type, "raw")	 ? SOCK_RAW
					 : -1;
	if (d < 0 || t < 0)
		return usage();
	int proto = d == AF_INET && t == SOCK_RAW ? IPPROTO_ICMP
		    : d == AF_NETLINK		  ? NETLINK_ROUTE
						  : 0;
	int fd = socket(d, t | SOCK_CLOEXEC, proto);
	if (fd < 0)
		return report(-1);
	close(fd);
	return report(0);
}

static int op_socket_proto(const char *domain, const char *type, const char *proto)
{
	int d = !strcmp(domain, "inet") ? AF_INET : !strcmp(domain, "inet6") ? AF_INET6 : -1;
	int t = !strcmp(type, "stream") ? SOCK_STREAM : !strcmp(type, "dgram") ? SOCK_DGRAM : -1;
	long p;
	if (d < 0 || t < 0 || parse_int(proto, 0, 65535, &p) < 0)
		return usage();
	int fd = socket(d, t | SOCK_CLOEXEC, (int)p);
	if (fd < 0)
		return report(-1);
	close(fd);
	return report(0);
}

/* A TCP socket that listens without bind(2): the kernel binds it to an ephemeral port on every
 * address. */
static int op_listen_tcp(void)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return report(-1);
	int r = listen(fd, 1);
	int e = errno;
	close(fd);
	errno = e;
	return report(r);
}

static int op_ptrace(long pid)
{
	if (ptrace(PTRACE_SEIZE, (pid_t)pid, NULL, NULL) < 0)
		return report(-1);
	ptrace(PTRACE_DETACH, (pid_t)pid, NULL, NULL);
	return report(0);
}

static int op_waitfile(const char *path, const struct timespec *limit)
{
	struct timespec tick = {0, 10 * 1000 * 1000};
	long ticks = limit->tv_sec * 100 + limit->tv_nsec / 10000000;
	struct stat st;
	for (long i = 0; i <= ticks; i++) {
		if (lstat(path, &st) == 0)
			return report(0);
		nanosleep(&tick, NULL);
	}
	errno = ETIMEDOUT;
	return report(-1);
}

static int op_read(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return report(-1);
	char c;
	ssize_t n = read(fd, &c, 1);
	int e = errno;
	close(fd);
	errno = e;
	return report(n < 0 ? -1 : 0);
}

static int op_cat(const char *path)
{
	static char buf[65536];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return report(-1);
	size_t len = 0;
	for (;;) {
		ssize_t n = read(fd, buf + len, sizeof(buf) - 1 - len);
		if (n < 0) {
			int e = errno;
			close(fd);
			return report_errno(e);
		}
		if (n == 0 || (len += (size_t)n) == sizeof(buf) - 1)
			break;
	}
	close(fd);
	/* One trailing newline is dropped so that `echo secret > f` reads back as "OK secret". */
	if (len > 0 && buf[len - 1] == '\n')
		len--;
	buf[len] = '\0';
	printf("OK %s\n", buf);
	return 0;
}

static int op_write(const char *path, int flags)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | flags, 0644);
	if (fd < 0)
		return report(-1);
	ssize_t n = write(fd, "x", 1);
	int e = errno;
	if (n >= 0 && close(fd) < 0)
		return report(-1);
	if (n < 0) {
		close(fd);
		return report_errno(e);
	}
	return report(0);
}

static int op_fill(const char *path, long bytes)
{
	static const char zeros[65536];
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return report(-1);
	while (bytes > 0) {
		size_t chunk = bytes < (long)sizeof(zeros) ? (size_t)bytes : sizeof(zeros);
		ssize_t n = write(fd, zeros, chunk);
		if (n < 0) {
			int e = errno;
			close(fd);
			return report_errno(e);
		}
		bytes -= n;
	}
	return report(close(fd));
}

static int op_readdir(const char *path)
{
	DIR *d = opendir(path);
	if (!d)
		return report(-1);
	long count = 0;
	struct dirent *de;
	errno = 0;
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			count++;
		errno = 0;
	}
	int e = errno;
	closedir(d);
	if (e != 0)
		return report_errno(e);
	printf("OK %ld\n", count);
	return 0;
}

static int op_statmode(const char *path)
{
	struct stat st;
	if (stat(path, &st) < 0)
		return report(-1);
	printf("OK %04o\n", (unsigned)(st.st_mode & 07777));
	return 0;
}

static int resolve(const char *host, const char *port, int socktype, struct addrinfo **res)
{
	struct addrinfo hints;
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = socktype;
	hints.ai_flags = AI_NUMERICSERV;
	int rc = getaddrinfo(host, port, &hints, res);
	if (rc != 0) {
		printf("EAI %s\n", gai_strerror(rc));
		return -1;
	}
	return 0;
}

static int op_connect_tcp(const char *host, const char *port)
{
	struct addrinfo *ai = NULL;
	if (resolve(host, port, SOCK_STREAM, &ai) < 0)
		return 0;
	int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		freeaddrinfo(ai);
		return report(-1);
	}
	int rc = connect(fd, ai->ai_addr, ai->ai_addrlen);
	freeaddrinfo(ai);
	if (rc < 0 && errno == EINPROGRESS) {
		/* A bounded wait: a test must never hang on a black-holed address. */
		struct pollfd p = {.fd = fd, .events = POLLOUT};
		int n = poll(&p, 1, 3000);
		if (n == 0) {
			errno = ETIMEDOUT;
			rc = -1;
		} else if (n < 0) {
			rc = -1;
		} else {
			int err = 0;
			socklen_t len = sizeof(err);
			if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
				rc = -1;
			else if (err != 0) {
				errno = err;
				rc = -1;
			} else
				rc = 0;
		}
	}
	int e = errno;
	close(fd);
	errno = e;
	return report(rc);
}

static int op_connect_udp(const char *host, const char *port)
{
	struct addrinfo *ai = NULL;
	if (resolve(host, port, SOCK_DGRAM, &ai) < 0)
		return 0;
	int fd = socket(ai->ai_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		freeaddrinfo(ai);
		return report(-1);
	}
	ssize_t n = sendto(fd, "tryop", 5, 0, ai->ai_addr, ai->ai_addrlen);
	int e = errno;
	freeaddrinfo(ai);
	close(fd);
	errno = e;
	return report(n < 0 ? -1 : 0);
}

static int op_bind_tcp(const char *host, const char *port)
{
	struct addrinfo *ai = NULL;
	if (resolve(host, port, SOCK_STREAM, &ai) < 0)
		return 0;
	int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		freeaddrinfo(ai);
		return report(-1);
	}
	int rc = bind(fd, ai->ai_addr, ai->ai_addrlen);
	int e = errno;
	freeaddrinfo(ai);
	close(fd);
	errno = e;
	return report(rc);
}

/* TCP Fast Open: sendto(2) with MSG_FASTOPEN connects without connect(2). */
static int op_tcp_fastopen(const char *host, const char *port)
{
	struct addrinfo *ai = NULL;
	if (resolve(host, port, SOCK_STREAM, &ai) < 0)
		return 0;
	int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		freeaddrinfo(ai);
		return report(-1);
	}
#ifndef MSG_FASTOPEN
#define MSG_FASTOPEN 0x20000000
#endif
	struct timeval tv = {3, 0};
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	ssize_t n = sendto(fd, "x", 1, MSG_FASTOPEN | MSG_NOSIGNAL, ai->ai_addr, ai->ai_addrlen);
	int e = errno;
	freeaddrinfo(ai);
	close(fd);
	errno = e;
	return report(n < 0 ? -1 : 0);
}

/* A raw IP socket (ICMP) or a packet socket: both need CAP_NET_RAW in the network namespace's
 * owner, which the sandbox does not hold. */
static int op_raw_socket(int family)
{
	int fd = family == AF_INET ? socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_ICMP)
				   : socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (fd >= 0)
		close(fd);
	return report(fd < 0 ? -1 : 0);
}

/* The C library's resolver, as a tool that ignores proxy variables would use it: OK and the
 * first address, or the EAI_ name. */
static int op_getaddrinfo(const char *name)
{
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *ai = NULL;
	int rc = getaddrinfo(name, NULL, &hints, &ai);
	if (rc != 0) {
		const char *e = rc == EAI_NONAME   ? "EAI_NONAME"
				: rc == EAI_AGAIN  ? "EAI_AGAIN"
				: rc == EAI_FAIL   ? "EAI_FAIL"
				: rc == EAI_SYSTEM ? "EAI_SYSTEM"
						   : "EAI_OTHER";
		printf("%s\n", e);
		return 1;
	}
	char buf[64] = "?";
	if (ai->ai_family == AF_INET)
		inet_ntop(AF_INET, &((struct sockaddr_in *)ai->ai_addr)->sin_addr, buf,
			  sizeof(buf));
	freeaddrinfo(ai);
	printf("OK %s\n", buf);
	return 0;
}

static int op_connect_unix(const char *path, int type)
{
	struct sockaddr_un sa;
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sa.sun_path))
		return usage();
	memcpy(sa.sun_path, path, strlen(path));
	socklen_t len = sizeof(sa);
	if (path[0] == '@') {
		/* Abstract names are not NUL-terminated: the length says where they end. */
		sa.sun_path[0] = '\0';
		len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(path));
	}
	int fd = socket(AF_UNIX, type | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return report(-1);
	int rc = connect(fd, (struct sockaddr *)&sa, len);
	int e = errno;
	close(fd);
	errno = e;
	return report(rc);
}

static int op_readfd(long fd)
{
	char c;
	ssize_t n = read((int)fd, &c, 1);
	return report(n < 0 ? -1 : 0);
}

static int op_caps(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	if (!f)
		return report(-1);
	char line[256];
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "CapEff:", 7) == 0) {
			char *v = line + 7;
			v += strspn(v, " \t");
			v[strcspn(v, " \t\n")] = '\0';
			fclose(f);
			printf("OK %s\n", v);
			return 0;
		}
	}
	fclose(f);
	return report_errno(ENODATA);
}

static int op_landlock_abi(void)
{
#ifdef SYS_landlock_create_ruleset
	/* LANDLOCK_CREATE_RULESET_VERSION (1U << 0): returns the ABI version, no ruleset. */
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, 1U << 0);
	if (abi < 0)
		return report(-1);
	printf("OK %ld\n", abi);
	return 0;
#else
	return report_errno(ENOSYS);
#endif
}

static int op_env(void)
{
	extern char **environ;
	for (char **e = environ; e && *e; e++) {
		const char *eq = strchr(*e, '=');
		size_t len = eq ? (size_t)(eq - *e) : strlen(*e);
		printf("%.*s\n", (int)len, *e);
	}
	return 0;
}

static int op_sleep(const char *secs)
{
	struct timespec ts;
	if (parse_secs(secs, &ts) < 0)
		return usage();
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
	return report(0);
}

/*
 * A classic daemon: fork, setsid, fork again, so that the grandchild is reparented away from
 * the caller and lives in a session of its own.  The test checks that it does not outlive the
 * sandboxed command.  The caller returns only once the pid file is written, so the test never
 * races against the grandchild's start.
 */
static int op_daemon(const char *secs, const char *pidfile)
{
	struct timespec ts;
	if (parse_secs(secs, &ts) < 0)
		return usage();
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0)
		return report(-1);
	fflush(stdout);
	pid_t child = fork();
	if (child < 0)
		return report(-1);
	if (child == 0) {
		close(p[0]);
		if (setsid() < 0)
			_exit(1);
		pid_t grandchild = fork();
		if (grandchild < 0)
			_exit(1);
		if (grandchild > 0)
			_exit(0);
		int fd = open(pidfile, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd >= 0) {
			char buf[32];
			int len = snprintf(buf, sizeof(buf), "%ld\n", (long)getpid());
			if (write(fd, buf, (size_t)len) < 0) {
				/* reported below through the pipe */
			}
			close(fd);
		}
		char status = fd >= 0 ? 'y' : 'n';
		if (write(p[1], &status, 1) < 0) {
			/* the caller sees EOF and reports the failure */
		}
		close(p[1]);
		/* Detach from the caller's stdio so that its pipes close when the caller exits. The
		 * open can fail: on the landlock backend every open for reading is made by
		 * confine's opener, which stops with the run, and an open after it fails (ENOSYS,
		 * closed to the last); the daemon closes them then, or confine would wait on them.
		 */
		int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
		for (int i = 0; i < 3; i++)
			if (devnull < 0 || dup2(devnull, i) < 0)
				close(i);
		while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
			;
		_exit(0);
	}
	close(p[1]);
	waitpid(child, NULL, 0);
	char status = 0;
	ssize_t n = read(p[0], &status, 1);
	close(p[0]);
	if (n != 1 || status != 'y') {
		printf("DAEMON_FAILED\n");
		return 0;
	}
	return report(0);
}

static int op_selfkill(long sig)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sigaction((int)sig, &sa, NULL);
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, (int)sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	fflush(stdout);
	raise((int)sig);
	printf("SURVIVED\n");
	return 1;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage();
	const char *op = argv[1];
	int nargs = argc - 2;
	char **a = argv + 2;
	long n = 0, m = 0;

	/* Unbuffered output: what was printed before a signal death still reaches the test. */
	setvbuf(stdout, NULL, _IONBF, 0);

	if (strcmp(op, "openat") == 0 && nargs == 2)
		return op_openat(a[0], a[1]);
	if (strcmp(op, "socket") == 0 && nargs == 2)
		return op_socket(a[0], a[1]);
	if (strcmp(op, "socket-proto") == 0 && nargs == 3)
		return op_socket_proto(a[0], a[1], a[2]);
	if (strcmp(op, "listen-tcp") == 0 && nargs == 0)
		return op_listen_tcp();
	if (strcmp(op, "bind-tcp") == 0 && nargs == 2)
		return op_bind_tcp(a[0], a[1]);
	if (strcmp(op, "tcp-fastopen") == 0 && nargs == 2)
		return op_tcp_fastopen(a[0], a[1]);
	if (strcmp(op, "socketpair") == 0 && nargs == 0) {
		int sv[2];
		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
			return report(-1);
		close(sv[0]);
		close(sv[1]);
		return report(0);
	}
	if (strcmp(op, "ptrace") == 0 && nargs == 1) {
		if (parse_int(a[0], 1, 1L << 30, &n) < 0)
			return usage();
		return op_ptrace(n);
	}
	if (strcmp(op, "waitfile") == 0 && nargs == 2) {
		struct timespec ts;
		if (parse_secs(a[1], &ts) < 0)
			return usage();
		return op_waitfile(a[0], &ts);
	}
	if (strcmp(op, "read") == 0 && nargs == 1)
		return op_read(a[0]);
	if (strcmp(op, "cat") == 0 && nargs == 1)
		return op_cat(a[0]);
	if (strcmp(op, "write") == 0 && nargs == 1)
		return op_write(a[0], O_TRUNC);
	if (strcmp(op, "append") == 0 && nargs == 1)
		return op_write(a[0], O_APPEND);
	if (strcmp(op, "fill") == 0 && nargs == 2) {
		if (parse_int(a[1], 0, LONG_MAX, &n) < 0)
			return usage();
		return op_fill(a[0], n);
	}
	if (strcmp(op, "mkdir") == 0 && nargs == 1)
		return report(mkdir(a[0], 0755));
	if (strcmp(op, "rmdir") == 0 && nargs == 1)
		return report(rmdir(a[0]));
	if (strcmp(op, "unlink") == 0 && nargs == 1)
		return report(unlink(a[0]));
	if (strcmp(op, "rename") == 0 && nargs == 2)
		return report(rename(a[0], a[1]));
	if (strcmp(op, "link") == 0 && nargs == 2)
		return report(link(a[0], a[1]));
	if (strcmp(op, "symlink") == 0 && nargs == 2)
		return report(symlink(a[0], a[1]));
	if (strcmp(op, "readdir") == 0 && nargs == 1)
		return op_readdir(a[0]);
	if (strcmp(op, "stat") == 0 && nargs == 1) {
		struct stat st;
		return report(stat(a[0], &st));
	}
	if (strcmp(op, "statmode") == 0 && nargs == 1)
		return op_statmode(a[0]);
	if (strcmp(op, "connect-tcp") == 0 && nargs == 2)
		return op_connect_tcp(a[0], a[1]);
	if (strcmp(op, "connect-udp") == 0 && nargs == 2)
		return op_connect_udp(a[0], a[1]);
	if (strcmp(op, "connect-unix") == 0 && nargs == 1)
		return op_connect_unix(a[0], SOCK_STREAM);
	if (strcmp(op, "connect-seqpacket") == 0 && nargs == 1)
		return op_connect_unix(a[0], SOCK_SEQPACKET);
	if (strcmp(op, "raw-socket") == 0 && nargs == 0)
		return op_raw_socket(AF_INET);
	if (strcmp(op, "packet-socket") == 0 && nargs == 0)
		return op_raw_socket(AF_PACKET);
	if (strcmp(op, "getaddrinfo") == 0 && nargs == 1)
		return op_getaddrinfo(a[0]);
	if (strcmp(op, "readfd") == 0 && nargs == 1) {
		if (parse_int(a[0], 0, INT_MAX, &n) < 0)
			return usage();
		return op_readfd(n);
	}
	if (strcmp(op, "kill") == 0 && nargs == 2) {
		if (parse_int(a[0], INT_MIN, INT_MAX, &n) < 0 || parse_int(a[1], 0, 64, &m) < 0)
			return usage();
		return report(kill((pid_t)n, (int)m));
	}
	if (strcmp(op, "killpg0") == 0 && nargs == 1) {
		if (parse_int(a[0], 0, 64, &m) < 0)
			return usage();
		return report(kill(0, (int)m));
	}
	if (strcmp(op, "getenv") == 0 && nargs == 1) {
		const char *v = getenv(a[0]);
		if (v)
			printf("OK %s\n", v);
		else
			printf("UNSET\n");
		return 0;
	}
	if (strcmp(op, "env") == 0 && nargs == 0)
		return op_env();
	if (strcmp(op, "caps") == 0 && nargs == 0)
		return op_caps();
	if (strcmp(op, "landlock-abi") == 0 && nargs == 0)
		return op_landlock_abi();
	if (strcmp(op, "chmod") == 0 && nargs == 1 + 1) {
		char *end;
		errno = 0;
		long mode = strtol(a[1], &end, 8);
		if (errno || *end || mode < 0 || mode > 07777)
			return usage();
		return report(chmod(a[0], (mode_t)mode));
	}
	if (strcmp(op, "truncate") == 0 && nargs == 1)
		return report(truncate(a[0], 0));
	if (strcmp(op, "remount-rw") == 0 && nargs == 1)
		return report(mount(NULL, a[0], NULL, MS_REMOUNT | MS_BIND, NULL));
	if (strcmp(op, "mount-tmpfs") == 0 && nargs == 1)
		return report(mount("tmpfs", a[0], "tmpfs", 0, NULL));
	if (strcmp(op, "umount") == 0 && nargs == 1)
		return report(umount2(a[0], 0));
	if (strcmp(op, "sleep") == 0 && nargs == 1)
		return op_sleep(a[0]);
	if (strcmp(op, "daemon") == 0 && nargs == 2)
		return op_daemon(a[0], a[1]);
	if (strcmp(op, "selfkill") == 0 && nargs == 1) {
		if (parse_int(a[0], 1, 64, &n) < 0)
			return usage();
		return op_selfkill(n);
	}
	if (strcmp(op, "exit") == 0 && nargs == 1) {
		if (parse_int(a[0], 0, 255, &n) < 0)
			return usage();
		return (int)n;
	}
	return usage();
}

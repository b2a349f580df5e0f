/* SPDX-License-Identifier: MIT */
/*
 * tryipc: attempt ONE IPC operation on a FIFO or a pathname unix socket and print its outcome
 * (R36, tests/enforce/hostipc.t): `OK` (with data for some) or the errno's symbolic name; exit
 * 0 either way, 2 on a usage error.  Raw system calls where libc could hide one.
 *
 *   fifo MODE PATH           open(2) PATH with MODE: r, w, rw (O_RDONLY, O_WRONLY, O_RDWR),
 *                            rn, wn, rwn (the same with O_NONBLOCK), rc (O_RDONLY|O_CREAT)
 *                            -> OK
 *   fifo-read PATH           open O_RDONLY, read up to a newline (5 s at most) -> OK <line>
 *   fifo-opath MODE PATH [VIA]  open PATH with O_PATH (nothing is opened), then open
 *                            /proc/self/fd/N with MODE, or VIA/N (/dev/fd,
 *                            /proc/thread-self/fd; "pid": /proc/<getpid()>/fd) -> OK
 *   fifo-race FILE FIFO N    a thread points the symlink FILE.link at FILE and at FIFO in
 *                            turn (rename over it) while N opens of FILE.link O_RDONLY |
 *                            O_NONBLOCK are made: FIFO when one of them opened a FIFO, else OK
 *                            when some opened the file (NOFILE when none did)
 *   fifo-at MODE DIR NAME    openat(O_PATH descriptor of DIR, NAME, MODE) -> OK
 *   connect TYPE PATH        socket(AF_UNIX, TYPE: stream | seqpacket) + connect(PATH); the
 *                            first line the server sends after it -> OK <line>
 *   connect-opath TYPE PATH  the same to /proc/self/fd/N of an O_PATH descriptor of PATH
 *   dgram-sendto PATH        socket(AF_UNIX, SOCK_DGRAM) + sendto(PATH) -> OK
 *   dgram-sendmsg PATH       socket(AF_UNIX, SOCK_DGRAM) + sendmsg with msg_name PATH -> OK
 *   pair-sendmsg PATH        socketpair(AF_UNIX, SOCK_DGRAM) + sendmsg to PATH from one end
 *   stream-sendto PATH       socket(AF_UNIX, SOCK_STREAM) + sendto(PATH) without connect:
 *                            a stream socket refuses an address there -> the errno
 *   listen TYPE PATH         the host's side: bind TYPE (stream | seqpacket | dgram) at PATH,
 *                            print OK once bound (stdout is then closed), then serve until
 *                            killed: a stream or seqpacket peer gets "hello\n"; a datagram is
 *                            appended as a line to PATH.got
 *   fifo-write PATH DATA     open O_WRONLY (waits for a reader), write DATA and a newline
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static int report(int rc)
{
	if (rc == 0)
		printf("OK\n");
	else
		printf("%s\n", strerrorname_np(errno) ? strerrorname_np(errno) : "EUNKNOWN");
	return 0;
}

static int mode_flags(const char *m)
{
	int f = !strncmp(m, "rw", 2) ? O_RDWR : m[0] == 'w' ? O_WRONLY : O_RDONLY;
	if (m[strlen(m) - 1] == 'n')
		f |= O_NONBLOCK;
	if (m[strlen(m) - 1] == 'c')
		f |= O_CREAT;
	return f | O_CLOEXEC;
}

/* fifo-race: the swapping thread. */
struct race {
	const char *link, *file, *fifo;
	volatile int stop;
	volatile unsigned swaps;
};

static void *swap_link(void *arg)
{
	struct race *r = arg;
	char tmp[4200];
	snprintf(tmp, sizeof(tmp), "%s.new", r->link);
	for (unsigned i = 0; !r->stop; i++) {
		unlink(tmp);
		if (symlink(i % 2 ? r->fifo : r->file, tmp) == 0 && rename(tmp, r->link) == 0)
			r->swaps++;
	}
	return NULL;
}

static int do_race(const char *file, const char *fifo, int n)
{
	char link[4096];
	snprintf(link, sizeof(link), "%s.link", file);
	unlink(link);
	if (symlink(file, link) < 0)
		return report(-1);
	struct race r = {.link = link, .file = file, .fifo = fifo};
	pthread_t t;
	if (pthread_create(&t, NULL, swap_link, &r) != 0)
		return report(-1);
	int files = 0, fifos = 0;
	/* N opens at least, while the link was swapped N times at least (a busy machine may
	 * run the two threads one after the other): 20 s at most. */
	time_t end = time(NULL) + 20;
	for (int i = 0; (i < n || r.swaps < (unsigned)n) && time(NULL) < end; i++) {
		int fd = open(link, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		struct stat st;
		if (fd >= 0 && fstat(fd, &st) == 0) {
			if (S_ISFIFO(st.st_mode))
				fifos++;
			else
				files++;
		}
		if (fd >= 0)
			close(fd);
	}
	r.stop = 1;
	pthread_join(t, NULL);
	printf("%s\n", fifos ? "FIFO" : files ? "OK" : "NOFILE");
	return 0;
}

static struct sockaddr_un addr_of(const char *path, socklen_t *len)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
	*len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(a.sun_path) + 1);
	return a;
}

static int sock_type(const char *t)
{
	return !strcmp(t, "seqpacket") ? SOCK_SEQPACKET
	       : !strcmp(t, "dgram")   ? SOCK_DGRAM
				       : SOCK_STREAM;
}

static int do_connect(const char *type, const char *path)
{
	int s = (int)syscall(SYS_socket, AF_UNIX, sock_type(type) | SOCK_CLOEXEC, 0);
	if (s < 0)
		return report(-1);
	socklen_t len;
	struct sockaddr_un a = addr_of(path, &len);
	if (connect(s, (struct sockaddr *)&a, len) < 0)
		return report(-1);
	char buf[64] = "";
	struct pollfd p = {.fd = s, .events = POLLIN};
	ssize_t n = poll(&p, 1, 5000) == 1 ? read(s, buf, sizeof(buf) - 1) : -1;
	buf[n > 0 ? n : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	printf("OK %s\n", buf);
	return 0;
}

static int do_dgram(const char *op, const char *path)
{
	int sv[2] = {-1, -1};
	bool pair = !strcmp(op, "pair-sendmsg");
	bool stream = !strcmp(op, "stream-sendto");
	if (pair ? syscall(SYS_socketpair, AF_UNIX, SOCK_DGRAM, 0, sv) < 0
		 : (sv[0] = (int)syscall(SYS_socket, AF_UNIX, stream ? SOCK_STREAM : SOCK_DGRAM,
					 0)) < 0)
		return report(-1);
	socklen_t len;
	struct sockaddr_un a = addr_of(path, &len);
	char data[] = "datagram";
	if (!strcmp(op, "dgram-sendto") || stream)
		return report(
		    sendto(sv[0], data, sizeof(data) - 1, 0, (struct sockaddr *)&a, len) < 0 ? -1
											     : 0);
	struct iovec io = {.iov_base = data, .iov_len = sizeof(data) - 1};
	struct msghdr m = {.msg_name = &a, .msg_namelen = len, .msg_iov = &io, .msg_iovlen = 1};
	return report(sendmsg(sv[0], &m, 0) < 0 ? -1 : 0);
}

static int do_listen(const char *type, const char *path)
{
	int t = sock_type(type);
	int s = socket(AF_UNIX, t | SOCK_CLOEXEC, 0);
	socklen_t len;
	struct sockaddr_un a = addr_of(path, &len);
	unlink(path);
	if (s < 0 || bind(s, (struct sockaddr *)&a, len) < 0 ||
	    (t != SOCK_DGRAM && listen(s, 64) < 0))
		return report(-1);
	printf("OK\n");
	fflush(stdout);
	close(1);
	char got[200];
	snprintf(got, sizeof(got), "%s.got", path);
	for (;;) {
		if (t == SOCK_DGRAM) {
			char buf[256];
			ssize_t n = recv(s, buf, sizeof(buf) - 1, 0);
			if (n <= 0)
				continue;
			int g = open(got, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
			if (g >= 0) {
				buf[n] = '\n';
				ssize_t k = write(g, buf, (size_t)n + 1);
				(void)k;
				close(g);
			}
			continue;
		}
		int c = accept4(s, NULL, NULL, SOCK_CLOEXEC);
		if (c < 0)
			continue;
		ssize_t k = write(c, "hello\n", 6);
		(void)k;
		close(c);
	}
}

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	const char *op = argv[1];
	if (!strcmp(op, "fifo") && argc == 4) {
		int fd = open(argv[3], mode_flags(argv[2]), 0644);
		return report(fd < 0 ? -1 : 0);
	}
	if (!strcmp(op, "fifo-read") && argc == 3) {
		int fd = open(argv[2], O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return report(-1);
		char buf[128] = "";
		size_t n = 0;
		struct pollfd p = {.fd = fd, .events = POLLIN};
		while (n < sizeof(buf) - 1 && poll(&p, 1, 5000) == 1) {
			ssize_t k = read(fd, buf + n, sizeof(buf) - 1 - n);
			if (k <= 0)
				break;
			n += (size_t)k;
			if (memchr(buf, '\n', n))
				break;
		}
		buf[n] = '\0';
		buf[strcspn(buf, "\n")] = '\0';
		printf("OK %s\n", buf);
		return 0;
	}
	if (!strcmp(op, "fifo-write") && argc == 4) {
		int fd = open(argv[2], O_WRONLY | O_CLOEXEC);
		if (fd < 0)
			return report(-1);
		dprintf(fd, "%s\n", argv[3]);
		return report(0);
	}
	if (!strcmp(op, "fifo-opath") && (argc == 4 || argc == 5)) {
		int p = open(argv[3], O_PATH | O_CLOEXEC);
		if (p < 0)
			return report(-1);
		char via[128];
		if (argc == 4)
			snprintf(via, sizeof(via), "/proc/self/fd/%d", p);
		else if (!strcmp(argv[4], "pid"))
			snprintf(via, sizeof(via), "/proc/%d/fd/%d", (int)getpid(), p);
		else
			snprintf(via, sizeof(via), "%s/%d", argv[4], p);
		return report(open(via, mode_flags(argv[2]), 0644) < 0 ? -1 : 0);
	}
	if (!strcmp(op, "fifo-race") && argc == 5)
		return do_race(argv[2], argv[3], atoi(argv[4]));
	if (!strcmp(op, "fifo-at") && argc == 5) {
		int d = open(argv[3], O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (d < 0)
			return report(-1);
		return report(openat(d, argv[4], mode_flags(argv[2]), 0644) < 0 ? -1 : 0);
	}
	if (!strcmp(op, "connect") && argc == 4)
		return do_connect(argv[2], argv[3]);
	if (!strcmp(op, "connect-opath") && argc == 4) {
		int p = open(argv[3], O_PATH | O_CLOEXEC);
		if (p < 0)
			return report(-1);
		char via[64];
		snprintf(via, sizeof(via), "/proc/self/fd/%d", p);
		return do_connect(argv[2], via);
	}
	if ((!strcmp(op, "dgram-sendto") || !strcmp(op, "dgram-sendmsg") ||
	     !strcmp(op, "pair-sendmsg") || !strcmp(op, "stream-sendto")) &&
	    argc == 3)
		return do_dgram(op, argv[2]);
	if (!strcmp(op, "listen") && argc == 4)
		return do_listen(argv[2], argv[3]);
	return 2;
}

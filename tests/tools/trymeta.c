/* SPDX-License-Identifier: MIT */
/*
 * trymeta: attempt ONE metadata, terminal or SysV IPC operation and print its outcome (`OK`,
 * maybe followed by data, or the errno's symbolic name), for the landlock backend's tests
 * (tests/enforce/landlock-*.t, R42).  Exits 0 either way; a usage error exits 2.
 *
 *   chmod PATH MODE        chmod(2), MODE in octal
 *   fchmod PATH MODE       open O_RDONLY, fchmod(2)
 *   fchmodat-fd PATH MODE  open O_PATH, fchmodat2(fd, "", MODE, AT_EMPTY_PATH)
 *   chown PATH UID GID     chown(2)            lchown PATH UID GID   lchown(2)
 *   fchown PATH UID GID    open O_RDONLY, fchown(2)
 *   utimensat PATH         utimensat(AT_FDCWD, PATH, {1,1}, 0)
 *   utimes PATH            utimes(2) to 1 s    futimens PATH   open O_RDONLY, futimens(2)
 *   setxattr PATH NAME VAL  lsetxattr ...  fsetxattr ... (open O_RDONLY)
 *   removexattr PATH NAME   fremovexattr PATH NAME
 *   setxattrat PATH NAME VAL   removexattrat PATH NAME   (Linux 6.13; ENOSYS before)
 *   setflags PATH          open O_RDONLY, FS_IOC_GETFLAGS then FS_IOC_SETFLAGS (same flags)
 *   mode PATH              -> OK <mode in octal, 4 digits> <uid> <gid> <mtime>
 *   shmget KEY             shmget(KEY, 4096, 0600)                        -> OK <id>
 *   shmat ID               shmat(ID), read the first bytes                -> OK <text>
 *   msgget KEY             semget KEY           SysV queues and semaphores -> OK <id>
 *   mq-open NAME           mq_open(NAME, O_CREAT|O_RDWR) (POSIX, unchanged) -> OK
 *   open-tty PATH          open(PATH, O_RDWR|O_NOCTTY)                    -> OK
 *   openpty                posix_openpt, grantpt, unlockpt, then the terminal side opened by
 *                          TIOCGPTPEER and by its name                  -> OK OK | errno errno
 *   ipc32                  x86_64 only: the i386 ipc(2) multiplexer through int $0x80 (SHMGET
 *                          of a private segment)                        -> OK <result>
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <mqueue.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/xattr.h>
#include <termios.h>
#include <unistd.h>

#ifndef TIOCGPTPEER
#define TIOCGPTPEER _IO('T', 0x41)
#endif
#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452
#endif

static const char *ename(int e)
{
	switch (e) {
#define E(x)                                                                                       \
	case x:                                                                                    \
		return #x;
		E(EACCES)
		E(EPERM)
		E(ENOENT)
		E(EROFS)
		E(EINVAL)
		E(ENOSYS)
		E(EBADF)
		E(ENOTSUP)
		E(ENXIO)
		E(EIO)
		E(ENODATA)
		E(ELOOP)
		E(EEXIST)
		E(ENOTTY)
		E(ENOSPC)
		E(EMFILE)
		E(ENAMETOOLONG)
#undef E
	default:
		return "EOTHER";
	}
}

static int report(int r)
{
	if (r < 0)
		printf("%s\n", ename(errno));
	else
		printf("OK\n");
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: trymeta OP ARGS... (see the source)\n");
	return 2;
}

static int opened(const char *path, int flags)
{
	int fd = open(path, flags | O_CLOEXEC);
	if (fd < 0)
		printf("open:%s\n", ename(errno));
	return fd;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage();
	const char *op = argv[1];
	char **a = argv + 2;
	int n = argc - 2, fd;
	if (!strcmp(op, "chmod") && n == 2)
		return report(chmod(a[0], (mode_t)strtol(a[1], NULL, 8)));
	if (!strcmp(op, "fchmod") && n == 2) {
		if ((fd = opened(a[0], O_RDONLY)) < 0)
			return 0;
		return report(fchmod(fd, (mode_t)strtol(a[1], NULL, 8)));
	}
	if (!strcmp(op, "fchmodat-fd") && n == 2) {
		if ((fd = opened(a[0], O_PATH)) < 0)
			return 0;
		return report((int)syscall(SYS_fchmodat2, fd, "", (mode_t)strtol(a[1], NULL, 8),
					   AT_EMPTY_PATH));
	}
	if ((!strcmp(op, "chown") || !strcmp(op, "lchown")) && n == 3) {
		uid_t u = (uid_t)strtol(a[1], NULL, 10);
		gid_t g = (gid_t)strtol(a[2], NULL, 10);
		return report(op[0] == 'l' ? lchown(a[0], u, g) : chown(a[0], u, g));
	}
	if (!strcmp(op, "fchown") && n == 3) {
		if ((fd = opened(a[0], O_RDONLY)) < 0)
			return 0;
		return report(
		    fchown(fd, (uid_t)strtol(a[1], NULL, 10), (gid_t)strtol(a[2], NULL, 10)));
	}
	if (!strcmp(op, "utimensat") && n == 1) {
		struct timespec ts[2] = {{1, 0}, {1, 0}};
		return report(utimensat(AT_FDCWD, a[0], ts, 0));
	}
	if (!strcmp(op, "utimes") && n == 1) {
		struct timeval tv[2] = {{1, 0}, {1, 0}};
		return report(utimes(a[0], tv));
	}
	if (!strcmp(op, "futimens") && n == 1) {
		struct timespec ts[2] = {{1, 0}, {1, 0}};
		if ((fd = opened(a[0], O_RDONLY)) < 0)
			return 0;
		return report(futimens(fd, ts));
	}
	if ((!strcmp(op, "setxattr") || !strcmp(op, "lsetxattr")) && n == 3)
		return report(op[0] == 'l' ? lsetxattr(a[0], a[1], a[2], strlen(a[2]), 0)
					   : setxattr(a[0], a[1], a[2], strlen(a[2]), 0));
	if (!strcmp(op, "fsetxattr") && n == 3) {
		if ((fd = opened(a[0], O_RDONLY)) < 0)
			return 0;
		return report(fsetxattr(fd, a[1], a[2], strlen(a[2]), 0));
	}
	if (!strcmp(op, "removexattr") && n == 2)
		return report(removexattr(a[0], a[1]));
	if (!strcmp(op, "fremovexattr") && n == 2) {
		if ((fd = opened(a[0], O_RDONLY)) < 0)
			return 0;
		return report(fremovexattr(fd, a[1]));
	}
	if (!strcmp(op, "setxattrat") && n == 3) {
		struct {
			unsigned long long value;
			unsigned size, flags;
		} xa = {(unsigned long long)(uintptr_t)a[2], (unsigned)strlen(a[2]), 0};
		return report((int)syscall(463, AT_FDCWD, a[0], 0, a[1], &xa, sizeof(xa)));
	}
	if (!strcmp(op, "removexattrat") && n == 2)
		return report((int)syscall(466, AT_FDCWD, a[0], 0, a[1]));
	if (!strcmp(op, "setflags") && n == 1) {
		int flags = 0;
		if ((fd = opened(a[0], O_RDONLY)) < 0)
			return 0;
		if (ioctl(fd, FS_IOC_GETFLAGS, &flags) < 0)
			return report(-1);
		return report(ioctl(fd, FS_IOC_SETFLAGS, &flags));
	}
	if (!strcmp(op, "mode") && n == 1) {
		struct stat st;
		if (lstat(a[0], &st) < 0)
			return report(-1);
		printf("OK %04o %u %u %lld\n", (unsigned)(st.st_mode & 07777), (unsigned)st.st_uid,
		       (unsigned)st.st_gid, (long long)st.st_mtime);
		return 0;
	}
	if (!strcmp(op, "shmget") && n == 1) {
		int id = shmget((key_t)strtol(a[0], NULL, 0), 4096, IPC_CREAT | 0600);
		if (id < 0)
			return report(-1);
		printf("OK %d\n", id);
		return 0;
	}
	if (!strcmp(op, "shmat") && n == 1) {
		char *p = shmat((int)strtol(a[0], NULL, 10), NULL, 0);
		if (p == (char *)-1)
			return report(-1);
		printf("OK %.32s\n", p);
		return 0;
	}
	if ((!strcmp(op, "msgget") || !strcmp(op, "semget")) && n == 1) {
		key_t k = (key_t)strtol(a[0], NULL, 0);
		int id =
		    op[0] == 'm' ? msgget(k, IPC_CREAT | 0600) : semget(k, 1, IPC_CREAT | 0600);
		if (id < 0)
			return report(-1);
		printf("OK %d\n", id);
		return 0;
	}
	if (!strcmp(op, "mq-open") && n == 1) {
		/* Small: the user's RLIMIT_MSGQUEUE counts every queue of the machine's tests. */
		struct mq_attr at = {.mq_maxmsg = 1, .mq_msgsize = 16};
		mqd_t q = mq_open(a[0], O_CREAT | O_RDWR, 0600, &at);
		if (q == (mqd_t)-1)
			return report(-1);
		mq_unlink(a[0]);
		return report(0);
	}
	if (!strcmp(op, "open-tty") && n == 1) {
		fd = open(a[0], O_RDWR | O_NOCTTY | O_CLOEXEC);
		return report(fd);
	}
	if (!strcmp(op, "openpty") && n == 0) {
		int m = posix_openpt(O_RDWR | O_NOCTTY);
		if (m < 0 || grantpt(m) < 0 || unlockpt(m) < 0)
			return report(-1);
		int s = ioctl(m, TIOCGPTPEER, O_RDWR | O_NOCTTY);
		const char *e1 = s < 0 ? ename(errno) : "OK";
		char *name = ptsname(m);
		int s2 = name ? open(name, O_RDWR | O_NOCTTY) : -1;
		printf("%s %s\n", e1, s2 < 0 ? ename(errno) : "OK");
		return 0;
	}
#if defined(__x86_64__)
	if (!strcmp(op, "ipc32") && n == 0) {
		long r;
		/* ipc(SHMGET, IPC_PRIVATE, 4096, 0600) in the i386 ABI: number 117, call 23. */
		__asm__ volatile("int $0x80"
				 : "=a"(r)
				 : "a"(117L), "b"(23L), "c"(0L), "d"(4096L), "S"(0600L)
				 : "memory");
		printf("OK %ld\n", r);
		return 0;
	}
#endif
	return usage();
}

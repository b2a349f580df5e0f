/* SPDX-License-Identifier: MIT */
/*
 * withfilter: run a command under confine's own seccomp filter (SPEC 3.1) and nothing else — no
 * namespace, no mount, no capability dropped — so that a test can tell what the filter denies
 * from what the sandbox's missing privileges deny.
 *
 *   withfilter CMD [ARG...]
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/filter.h>
#include <linux/seccomp.h>

#include "exec/linux/harden.h"

int main(int argc, char **argv)
{
	struct confine_error err = {0};
	int fd;
	if (argc < 2) {
		fprintf(stderr, "usage: withfilter CMD [ARG...]\n");
		return 2;
	}
	if (cf_seccomp_build_fd(&fd, &err) < 0) {
		fprintf(stderr, "withfilter: %s: %s\n", err.what, err.reason);
		return 125;
	}
	static struct sock_filter prog[8192];
	ssize_t n = read(fd, prog, sizeof(prog));
	if (n <= 0 || n % (ssize_t)sizeof(prog[0])) {
		fprintf(stderr, "withfilter: cannot read the filter\n");
		return 125;
	}
	struct sock_fprog fprog = {.len = (unsigned short)(n / (ssize_t)sizeof(prog[0])),
				   .filter = prog};
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fprog) < 0) {
		perror("withfilter: seccomp");
		return 125;
	}
	execvp(argv[1], argv + 1);
	perror("withfilter: exec");
	return 127;
}

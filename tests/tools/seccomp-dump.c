/* SPDX-License-Identifier: MIT */
/* Writes confine's seccomp BPF program (SPEC 3.1) to stdout, so that benchmarks can hand raw
 * bwrap exactly the filter confine uses. */
#include <stdio.h>
#include <unistd.h>

#include "exec/linux/harden.h"

int main(void)
{
	struct confine_error err = {0};
	int fd;
	if (cf_seccomp_build_fd(&fd, &err) < 0) {
		fprintf(stderr, "seccomp-dump: %s: %s\n", err.what, err.reason);
		return 1;
	}
	char buf[4096];
	ssize_t n;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		if (write(1, buf, (size_t)n) != n)
			return 1;
	return n < 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * denysys: run a command on a kernel that lacks some system calls, so that tests can check how
 * confine copes with an old kernel or a container's seccomp profile.
 *
 *   denysys NAME[:ARG0]=ERRNO... -- CMD [ARG...]
 *
 * Installs a seccomp filter (no_new_privs set) under which each NAME fails with ERRNO (a
 * number or EPERM, ENOSYS, EINVAL, EACCES) — only when its first argument equals ARG0 if one is
 * given (for example prctl:22=EINVAL refuses PR_SET_SECCOMP) — then execs CMD.  The filter is
 * inherited by everything CMD starts, sandboxes included.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <seccomp.h>
/* SCMP_A*_32 leaves datum_b to its zero default (clang warns, gcc does not). */
#ifdef __clang__
#pragma clang diagnostic ignored "-Wmissing-field-initializers"
#endif

static int errno_of(const char *s)
{
	static const struct {
		const char *name;
		int num;
	} names[] = {{"EPERM", EPERM}, {"ENOSYS", ENOSYS}, {"EINVAL", EINVAL}, {"EACCES", EACCES}};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(s, names[i].name))
			return names[i].num;
	char *end;
	long v = strtol(s, &end, 10);
	return *end || v <= 0 ? -1 : (int)v;
}

int main(int argc, char **argv)
{
	int i;
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx)
		return 125;
	for (i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		char spec[256];
		snprintf(spec, sizeof(spec), "%s", argv[i]);
		char *eq = strchr(spec, '=');
		if (!eq)
			goto usage;
		*eq = '\0';
		int e = errno_of(eq + 1);
		char *colon = strchr(spec, ':');
		if (colon)
			*colon = '\0';
		int nr = seccomp_syscall_resolve_name(spec);
		if (e < 0 || nr == __NR_SCMP_ERROR)
			goto usage;
		int rc = colon
			     ? seccomp_rule_add(ctx, SCMP_ACT_ERRNO(e), nr, 1,
						SCMP_A0(SCMP_CMP_EQ, strtoull(colon + 1, NULL, 0)))
			     : seccomp_rule_add(ctx, SCMP_ACT_ERRNO(e), nr, 0);
		if (rc < 0) {
			fprintf(stderr, "denysys: %s: %s\n", argv[i], strerror(-rc));
			return 125;
		}
	}
	if (i + 1 >= argc)
		goto usage;
	if (seccomp_load(ctx) < 0) {
		perror("denysys: seccomp_load");
		return 125;
	}
	seccomp_release(ctx);
	execvp(argv[i + 1], argv + i + 1);
	perror("denysys: exec");
	return 127;
usage:
	fprintf(stderr, "usage: denysys NAME[:ARG0]=ERRNO... -- CMD [ARG...]\n");
	return 2;
}

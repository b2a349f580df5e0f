/* SPDX-License-Identifier: MIT */
/*
 * Times the host IPC sweep (R29) as confine runs it before every launch.
 *
 *   ipc-tool RUNS WORKSPACE
 *
 * Prints the number of endpoints found and the median, minimum and maximum time of one sweep
 * in microseconds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "host/ipc.h"

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	if (argc != 3)
		return fprintf(stderr, "usage: ipc-tool RUNS WORKSPACE\n"), 2;
	int runs = atoi(argv[1]);
	if (runs < 1)
		return 2;
	double *t = calloc((size_t)runs, sizeof(*t));
	size_t found = 0;
	for (int i = 0; i < runs; i++) {
		struct cf_strv out = {0};
		struct confine_error err = {0};
		struct timespec a, b;
		clock_gettime(CLOCK_MONOTONIC, &a);
		if (cf_host_ipc_endpoints(argv[2], NULL, &out, &err) < 0)
			return fprintf(stderr, "ipc-tool: %s: %s\n", err.what, err.reason), 1;
		clock_gettime(CLOCK_MONOTONIC, &b);
		t[i] = (double)(b.tv_sec - a.tv_sec) * 1e6 + (double)(b.tv_nsec - a.tv_nsec) / 1e3;
		found = out.n;
		cf_strv_release(&out);
	}
	qsort(t, (size_t)runs, sizeof(*t), cmp);
	printf("endpoints %zu median %.0f us min %.0f us max %.0f us (%d sweeps)\n", found,
	       t[runs / 2], t[0], t[runs - 1], runs);
	free(t);
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * The resolver of the test build of confine (tests/tools/confine-testresolve): the proxy's
 * lookups answered from a hosts-style file, never from DNS, so the network tests reach their
 * own servers on 127.0.0.0/8 under made-up names.  Production binaries link net/lookup.c
 * instead; this file exists only in the test executable (linked before the library, so the
 * library's lookup.o is never pulled in).
 *
 *   CONFINE_TEST_HOSTS=FILE          lines "ADDRESS NAME..." (# comments), and
 *                                    "wait PATH NAME": the lookup of NAME blocks until PATH
 *                                    exists (at most 30 s), to show other connections go on
 *   CONFINE_TEST_RESOLVER_LOG=FILE   each name looked up is appended, one per line
 *
 * A name the file does not list fails ("unknown name"): no test ever reaches real DNS.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "net/resolver.h"

static void log_name(const char *name)
{
	const char *log = getenv("CONFINE_TEST_RESOLVER_LOG");
	if (!log)
		return;
	int fd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	char line[300];
	int n = snprintf(line, sizeof(line), "%s\n", name);
	ssize_t k = write(fd, line, (size_t)n); /* one write: lines never interleave */
	(void)k;
	close(fd);
}

static void wait_for(const char *path)
{
	for (int i = 0; i < 3000 && access(path, F_OK) != 0; i++) {
		struct timespec ts = {0, 10 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
}

int cf_net_lookup(const char *name, struct cf_ip *out, size_t max, char *reason, size_t cap)
{
	log_name(name);
	const char *hosts = getenv("CONFINE_TEST_HOSTS");
	FILE *f = hosts ? fopen(hosts, "re") : NULL;
	if (!f) {
		snprintf(reason, cap, "test resolver: CONFINE_TEST_HOSTS is not a readable file");
		return -1;
	}
	char line[1024];
	size_t n = 0;
	while (fgets(line, sizeof(line), f)) {
		char *save = NULL, *first = strtok_r(line, " \t\n", &save);
		if (!first || first[0] == '#')
			continue;
		if (!strcmp(first, "wait")) {
			char *path = strtok_r(NULL, " \t\n", &save);
			char *who = strtok_r(NULL, " \t\n", &save);
			if (path && who && !strcmp(who, name))
				wait_for(path);
			continue;
		}
		struct cf_ip ip;
		if (!cf_ip_parse(first, strlen(first), &ip))
			continue;
		for (char *w = strtok_r(NULL, " \t\n", &save); w;
		     w = strtok_r(NULL, " \t\n", &save))
			if (!strcmp(w, name) && n < max)
				out[n++] = ip;
	}
	fclose(f);
	if (!n) {
		snprintf(reason, cap, "unknown name (test resolver)");
		return -1;
	}
	return (int)n;
}

/* SPDX-License-Identifier: MIT */
/* The one reader of /proc/PID (procfs.h).  Only libc: confine-init links this file too. */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/procfs.h"

int cf_proc_open(int proc_fd, pid_t pid, const char *name, int flags)
{
	char path[128], id[24];
	if ((pid <= 0 && pid != CF_PROC_SELF) || !name || !*name || name[0] == '/') {
		errno = EINVAL;
		return -1;
	}
	if (pid == CF_PROC_SELF)
		snprintf(id, sizeof(id), "self");
	else
		snprintf(id, sizeof(id), "%d", (int)pid);
	int n =
	    snprintf(path, sizeof(path), "%s%s/%s", proc_fd == AT_FDCWD ? "/proc/" : "", id, name);
	if (n < 0 || (size_t)n >= sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return openat(proc_fd, path, flags | O_CLOEXEC);
}

/* Up to cap - 1 bytes of fd into buf, NUL-terminated; their count, or -1 with errno. */
static ssize_t read_upto(int fd, char *buf, size_t cap)
{
	size_t got = 0;
	while (got + 1 < cap) {
		ssize_t k = read(fd, buf + got, cap - 1 - got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -1;
		if (k == 0)
			break;
		got += (size_t)k;
	}
	buf[got] = '\0';
	return (ssize_t)got;
}

ssize_t cf_proc_read(int proc_fd, pid_t pid, const char *name, char *buf, size_t cap)
{
	if (!buf || cap == 0) {
		errno = EINVAL;
		return -1;
	}
	int fd = cf_proc_open(proc_fd, pid, name, O_RDONLY);
	if (fd < 0)
		return -1;
	ssize_t n = read_upto(fd, buf, cap);
	int e = errno;
	close(fd);
	errno = e;
	return n;
}

char *cf_proc_read_all(int proc_fd, pid_t pid, const char *name, size_t *len)
{
	int fd = cf_proc_open(proc_fd, pid, name, O_RDONLY);
	if (fd < 0)
		return NULL;
	size_t cap = 8192, got = 0;
	char *s = malloc(cap);
	while (s) {
		ssize_t k = read_upto(fd, s + got, cap - got);
		if (k < 0)
			break;
		got += (size_t)k;
		if (got + 1 < cap) { /* the end: read_upto stops short only there */
			close(fd);
			if (len)
				*len = got;
			return s;
		}
		char *t = cap > ((size_t)-1) / 2 ? NULL : realloc(s, cap * 2);
		if (!t) {
			errno = ENOMEM;
			break;
		}
		s = t;
		cap *= 2;
	}
	int e = s ? errno : ENOMEM;
	free(s);
	close(fd);
	errno = e;
	return NULL;
}

int cf_proc_status_parse(const char *text, const char *field, char *out, size_t cap)
{
	size_t flen = strlen(field);
	for (const char *line = text; line && *line;) {
		const char *end = strchr(line, '\n');
		if (!strncmp(line, field, flen) && line[flen] == ':') {
			const char *v = line + flen + 1;
			while (*v == ' ' || *v == '\t')
				v++;
			size_t n = end ? (size_t)(end - v) : strlen(v);
			if (n >= cap)
				return -1;
			memcpy(out, v, n);
			out[n] = '\0';
			return 0;
		}
		line = end ? end + 1 : NULL;
	}
	return -1;
}

int cf_proc_status_long(int proc_fd, pid_t pid, const char *field, int base, long *out)
{
	char buf[4096], v[64];
	if (cf_proc_read(proc_fd, pid, "status", buf, sizeof(buf)) < 0)
		return -1;
	char *end;
	if (cf_proc_status_parse(buf, field, v, sizeof(v)) < 0 || !v[0])
		goto invalid;
	errno = 0;
	long n = strtol(v, &end, base);
	if (errno || *end)
		goto invalid;
	*out = n;
	return 0;
invalid:
	errno = EINVAL;
	return -1;
}

/* A decimal pid at *s, then s past it; false when there is none. */
static bool take_pid(const char **s, pid_t *out)
{
	char *end;
	errno = 0;
	long v = strtol(*s, &end, 10);
	if (end == *s || errno || v < 0 || v > 0x7fffffffL)
		return false;
	*out = (pid_t)v;
	*s = end;
	return true;
}

int cf_proc_stat_parse(const char *text, struct cf_proc_stat *st)
{
	memset(st, 0, sizeof(*st));
	const char *s = text;
	if (!take_pid(&s, &st->pid) || strncmp(s, " (", 2))
		return -1;
	const char *open = s + 2, *close = strrchr(open, ')');
	if (!close)
		return -1;
	size_t n = (size_t)(close - open);
	if (n >= sizeof(st->comm))
		n = sizeof(st->comm) - 1;
	memcpy(st->comm, open, n);
	s = close + 1;
	/* " STATE PPID PGRP SESSION" */
	if (s[0] != ' ' || !s[1] || s[1] == ' ' || s[2] != ' ')
		return -1;
	st->state = s[1];
	s += 3;
	if (!take_pid(&s, &st->ppid) || *s++ != ' ' || !take_pid(&s, &st->pgrp) || *s++ != ' ' ||
	    !take_pid(&s, &st->session))
		return -1;
	return 0;
}

int cf_proc_stat_read(int proc_fd, pid_t pid, struct cf_proc_stat *st)
{
	char buf[1024];
	if (cf_proc_read(proc_fd, pid, "stat", buf, sizeof(buf)) < 0)
		return -1;
	if (cf_proc_stat_parse(buf, st) < 0) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * The one reader of /proc/PID: a file of a process or thread opened below a /proc descriptor,
 * a field of its status, the fields of its stat.  Linux only; the readers touch the OS, the
 * parsers do not.  Plain libc, so that confine-init links it too.
 */
#ifndef CONFINE_UTIL_PROCFS_H
#define CONFINE_UTIL_PROCFS_H

#include <stddef.h>
#include <sys/types.h>

/* The calling process, as a PID for the functions below. */
#define CF_PROC_SELF ((pid_t)-1)

/* PROC/PID/NAME opened with openat(2) `flags` (O_CLOEXEC added): PROC the directory open at
 * `proc_fd` (AT_FDCWD: "/proc"), PID a process or thread id (CF_PROC_SELF: "self"; 0 and
 * other negative ids are refused with EINVAL, never taken for "self"), NAME a fixed name
 * below it ("status", "ns/net", "cwd").  Nothing on the way is a link the caller does not
 * name: PID is a number, not /proc/self's link, and NAME's last component (a magic link such
 * as ns/net or cwd) is followed only as openat follows it (O_NOFOLLOW in `flags` refuses it).
 * A descriptor, or -1 with errno. */
int cf_proc_open(int proc_fd, pid_t pid, const char *name, int flags);

/* Up to cap - 1 bytes of PROC/PID/NAME into buf, NUL-terminated (reads until the end or buf is
 * full).  Their count, or -1 with errno. */
ssize_t cf_proc_read(int proc_fd, pid_t pid, const char *name, char *buf, size_t cap);

/* The whole of PROC/PID/NAME (mountinfo, which has no bound): malloc'd and NUL-terminated, its
 * length in *len (may be NULL).  NULL with errno (ENOMEM included). */
char *cf_proc_read_all(int proc_fd, pid_t pid, const char *name, size_t *len);

/* The value of `field` in the text of a status file: the line that starts "FIELD:", the blanks
 * after the colon skipped, up to the end of that line.  A field is matched whole at a line's
 * start ("Tgid" is not "NStgid", nor a "Tgid:" inside another field's value).  0 and the value
 * in out (NUL-terminated), or -1 when the field is absent or its value does not fit in cap. */
int cf_proc_status_parse(const char *text, const char *field, char *out, size_t cap);

/* PROC/PID/status's `field` as a number in `base` (Tgid 10, Umask 8); 0, or -1 when the file
 * cannot be read (errno) or the field is absent or not a number (errno EINVAL). */
int cf_proc_status_long(int proc_fd, pid_t pid, const char *field, int base, long *out);

/* The first fields of a stat file, "PID (COMM) STATE PPID PGRP SESSION ...": COMM is whatever
 * the process named itself (spaces, parentheses, ") " included), so it is what lies between the
 * first '(' and the last ')'; the fields after it hold neither. */
struct cf_proc_stat {
	pid_t pid;
	char comm[64]; /* truncated to fit */
	char state;
	pid_t ppid;
	pid_t pgrp;
	pid_t session;
};

/* Parses the text of a stat file; 0, or -1 when it is not one. */
int cf_proc_stat_parse(const char *text, struct cf_proc_stat *st);

/* PROC/PID/stat read and parsed; 0, or -1 (errno EINVAL when the text is not a stat file). */
int cf_proc_stat_read(int proc_fd, pid_t pid, struct cf_proc_stat *st);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * The audit log (SPEC 8, R24): one JSON line per spawn attempt, on every exit path, appended
 * with a single write(2) to a file opened O_APPEND before anything could run, so that lines of
 * concurrent runs never interleave.  The file is hidden from the sandbox by an override.
 *
 * No line is lost or broken silently (doc/running.md, the audit log): the append holds an exclusive
 * flock, so that confines writing the same log take turns; a last line without its newline (a
 * confine killed in the middle of its write) is cut off before the new line, which says how many
 * bytes it removed; a write that cannot be completed (a full file system) is undone and is an error
 * the caller sees (confine_request_audit_error, CONFINE_E_RECORD).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "record/run_facts.h"
#include "util/util.h"

const struct confine_error *cf_audit_state_error(const struct cf_audit_state *st)
{
	return st && __atomic_load_n(&st->failed, __ATOMIC_ACQUIRE) ? &st->err : NULL;
}

static void add_time(struct cf_jobj *j, const struct timespec *ts)
{
	struct tm tm;
	char buf[64];
	time_t t = ts->tv_sec;
	gmtime_r(&t, &tm);
	size_t n = strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf + n, sizeof(buf) - n, ".%03ldZ", ts->tv_nsec / 1000000);
	cf_jput_str(j, "time", buf);
}

static long long duration_ms(const struct cf_run_record *r)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (long long)(now.tv_sec - r->mono_start.tv_sec) * 1000 +
	       (now.tv_nsec - r->mono_start.tv_nsec) / 1000000;
}

static char *audit_line(const struct cf_run_facts *f, int status, const struct confine_error *why)
{
	struct cf_jobj j;
	const char *outcome, *exit_path;
	cf_record_outcome(f, why, &outcome, &exit_path);
	cf_jobj_init(&j);
	cf_jput_int(&j, "version", 1);
	add_time(&j, &f->rec->wall_start);
	cf_record_facts(&j, f);
	cf_jput_str(&j, "outcome", outcome);
	cf_jput_str(&j, "exit_path", exit_path);
	cf_jput_int(&j, "exit_status", status);
	cf_jput_str(&j, "status_from", f->from_command ? "command" : "confine");
	cf_jput_int(&j, "duration_ms", duration_ms(f->rec));
	json_t *ev = json_array();
	for (size_t i = 0; ev && i < f->n_events; i++) {
		struct cf_jobj e;
		cf_jobj_init(&e);
		cf_jput_str(&e, "kind", f->events[i].kind);
		cf_jput_str(&e, "path", f->events[i].path);
		if (e.oom || json_array_append_new(ev, e.o) < 0)
			j.oom = true;
	}
	cf_jput(&j, "events", ev);
	cf_jput_strv(&j, "denied_paths", f->rec->denials.path, f->rec->denials.n);
	cf_jput(&j, "error", cf_record_error(why));
	return cf_jobj_dump(&j);
}

/* A torn line is at most a line of confine's; a longer tail without a newline is not one, and
 * is not cut (the append is refused instead). */
#define TORN_MAX (1 << 20)

/* The size of the incomplete last line: the bytes after the last newline (0 when the file is
 * empty or ends with one); -1 with errno when the file cannot be read (EFBIG: longer than
 * TORN_MAX). */
static off_t torn_tail(int fd, off_t size)
{
	char buf[4096];
	off_t end = size;
	while (end > 0) {
		if (size - end >= TORN_MAX) {
			errno = EFBIG;
			return -1;
		}
		size_t n = end < (off_t)sizeof(buf) ? (size_t)end : sizeof(buf);
		ssize_t k = pread(fd, buf, n, end - (off_t)n);
		if (k != (ssize_t)n) {
			if (k >= 0)
				errno = EIO;
			return -1;
		}
		for (size_t i = n; i > 0; i--)
			if (buf[i - 1] == '\n')
				return size - (end - (off_t)n + (off_t)i);
		end -= (off_t)n;
	}
	return size;
}

/* The exclusive lock of the log, waited for up to 10 s (a confine holds it for one write); -1
 * with errno.  ENOLCK or EOPNOTSUPP (a file system without locks): 1, go on without it. */
static int lock_log(int fd)
{
	for (int tries = 0;; tries++) {
		if (flock(fd, LOCK_EX | LOCK_NB) == 0)
			return 0;
		if (errno == ENOLCK || errno == EOPNOTSUPP || errno == EINVAL)
			return 1;
		if (errno != EWOULDBLOCK && errno != EINTR)
			return -1;
		if (tries >= 2000) {
			errno = EWOULDBLOCK;
			return -1;
		}
		usleep(5000);
	}
}

/*
 * Appends `line` (a JSON object) and its newline.  With the lock: a torn last line is cut off
 * first, and the line says so ("log_repaired_bytes": its size; a log opened write-only cannot
 * be read and is not checked); a write that cannot be completed is undone.  0, or -1 with errno
 * and *call the failing call.
 */
static int append_line(int fd, const char *line, const char **call)
{
	size_t n = strlen(line);
	char *s = malloc(n + 48);
	*call = "malloc";
	if (!s)
		return -1;
	memcpy(s, line, n + 1);
	int r = -1, locked = lock_log(fd);
	struct stat st;
	*call = "flock";
	if (locked < 0)
		goto out;
	*call = "fstat";
	if (fstat(fd, &st) < 0)
		goto out;
	off_t size = st.st_size;
	if (locked == 0 && size > 0) {
		off_t tail = torn_tail(fd, size);
		if (tail < 0 && errno != EBADF) {
			*call = errno == EFBIG ? "" : "pread";
			goto out;
		}
		*call = "ftruncate";
		if (tail > 0 && ftruncate(fd, size - tail) < 0)
			goto out;
		if (tail > 0 && n > 0 && s[n - 1] == '}') {
			n += (size_t)snprintf(s + n - 1, 48, ",\"log_repaired_bytes\":%lld}",
					      (long long)tail) -
			     1;
		}
		size -= tail > 0 ? tail : 0;
	}
	s[n] = '\n';
	size_t off = 0;
	*call = "write";
	while (off < n + 1) {
		ssize_t k = write(fd, s + off, n + 1 - off);
		if (k < 0 && errno == EINTR)
			continue;
		if (k == 0)
			errno = ENOSPC;
		if (k <= 0)
			break;
		off += (size_t)k;
	}
	if (off == n + 1) {
		r = 0;
	} else if (locked == 0) {
		/* Undone: nothing of this line stays (the error says it is missing). */
		int e = errno;
		if (ftruncate(fd, size) < 0)
			e = e ? e : errno;
		errno = e;
	}
out:;
	int e = errno;
	if (locked == 0)
		flock(fd, LOCK_UN);
	free(s);
	errno = e;
	return r;
}

int cf_audit_write(const struct cf_run_facts *f, int status, const struct confine_error *why)
{
	if (f->rec->audit_fd < 0)
		return 0;
	char *line = audit_line(f, status, why);
	const char *call = "malloc";
	int k = append_line(f->rec->audit_fd,
			    line ? line
				 : "{\"version\":1,\"outcome\":\"failed\",\"exit_path\":"
				   "\"setup_failed\",\"error\":{\"kind\":\"out of memory\"}}",
			    &call);
	free(line);
	if (k == 0)
		return 0;
	struct cf_audit_state *st = f->rec->audit_state;
	int e = errno;
	if (st && !__atomic_exchange_n(&st->claimed, 1, __ATOMIC_ACQ_REL)) {
		if (!*call) /* torn_tail's EFBIG */
			cf_err(
			    &st->err, CONFINE_E_RECORD, "cannot write the audit log",
			    st->path ? st->path : "",
			    "its last %d bytes hold no newline: that is no line of confine's, so "
			    "nothing was cut off and nothing appended",
			    TORN_MAX);
		else
			cf_err_os(&st->err, CONFINE_E_RECORD, "cannot write the audit log",
				  st->path ? st->path : "", call, e);
		cf_err_hint(&st->err,
			    "the line of this attempt is missing from the log, and "
			    "nothing of it was left there; %s",
			    e == ENOSPC || e == EDQUOT ? "free space on its file system"
			    : !*call		       ? "check that the file is the audit log"
						       : "check the file and its file system");
		__atomic_store_n(&st->failed, true, __ATOMIC_RELEASE);
	}
	return CONFINE_E_RECORD;
}

/* SPDX-License-Identifier: MIT */
/*
 * Reading the files of --inject-env and --inject-path (SPEC 6, R21).
 *
 * Everything that can be refused without touching the file system is refused first, for every
 * injection of the command line: a bad NAME or TARGET, a duplicate, too many, policy off.  Only
 * then are the files opened: O_NOFOLLOW (a symlink at FILE is refused, not followed),
 * O_NONBLOCK (a FIFO cannot stall confine), a regular file whose size, read from the descriptor,
 * is within the limits before anything is read; and at most one byte more than that size is
 * read, so a file that grows meanwhile is noticed instead of read without end.  What confine
 * read is what the command gets: a later change of FILE changes nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "args.h"
#include "inject.h"
#include "cli.h"

struct spec {
	enum confine_inject_placement placement;
	char *where;
	const char *file;
	const char *option;
};

static int split(const struct cli_opts *o, size_t i, struct spec *s, struct confine_error *err)
{
	const char *v = o->inject[i];
	const char *eq = strchr(v, '=');
	s->placement = o->inject_path[i] ? CONFINE_INJECT_PATH : CONFINE_INJECT_ENV;
	s->option = o->inject_path[i] ? "--inject-path" : "--inject-env";
	s->file = eq + 1; /* cli_parse checked that there is a '=' */
	if (!*s->file)
		return confine_error_set(err, CONFINE_E_INVALID, "invalid arguments", v,
					 "%s expects %s=FILE", s->option,
					 o->inject_path[i] ? "TARGET" : "NAME");
	s->where = cli_strndup(v, (size_t)(eq - v));
	return s->where ? 0 : cli_nomem(err);
}

/* Reads FILE whole, within the limits; *data is malloc'd. */
static int read_file(const struct spec *s, uint64_t total, unsigned char **data, size_t *len,
		     struct confine_error *err)
{
	const char *what = "cannot read injection file";
	int fd = open(s->file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		int e = errno;
		confine_error_set_os(err, CONFINE_E_INVALID, what, s->file, "open", e);
		if (e == ELOOP)
			confine_error_hint(err, "FILE is a symlink; name the file itself");
		return CONFINE_E_INVALID;
	}
	struct stat st;
	int r = 0;
	*data = NULL;
	if (fstat(fd, &st) < 0) {
		r = confine_error_set_os(err, CONFINE_E_INVALID, what, s->file, "fstat", errno);
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		r = confine_error_set(
		    err, CONFINE_E_INVALID, what, s->file,
		    "not a regular file (injections are read from regular files)");
		goto out;
	}
	if ((uint64_t)st.st_size > CONFINE_INJECT_MAX_BYTES) {
		r = confine_error_set(
		    err, CONFINE_E_LIMIT, "injection too large", s->file,
		    "%llu bytes for %s %s; an injection may hold at most %u bytes (8 MiB)",
		    (unsigned long long)st.st_size, s->option, s->where, CONFINE_INJECT_MAX_BYTES);
		goto out;
	}
	if (total + (uint64_t)st.st_size > CONFINE_INJECT_MAX_TOTAL) {
		r = confine_error_set(
		    err, CONFINE_E_LIMIT, "injections too large", s->file,
		    "%llu bytes in all with this file; the injections of a run may hold at "
		    "most %u bytes (16 MiB) together",
		    (unsigned long long)(total + (uint64_t)st.st_size), CONFINE_INJECT_MAX_TOTAL);
		goto out;
	}
	size_t want = (size_t)st.st_size, got = 0;
	if (!(*data = malloc(want + 1))) {
		r = cli_nomem(err);
		goto out;
	}
	/* One byte more than fstat said: a file that grew since is refused, not truncated. */
	while (got < want + 1) {
		ssize_t k = read(fd, *data + got, want + 1 - got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			r = confine_error_set_os(err, CONFINE_E_INVALID, what, s->file, "read",
						 errno);
			goto out;
		}
		if (k == 0)
			break;
		got += (size_t)k;
	}
	if (got != want) {
		r = confine_error_set(
		    err, CONFINE_E_INVALID, what, s->file,
		    "the file changed size while confine read it (%zu bytes, then %zu)", want, got);
		confine_error_hint(err, "inject a file nothing writes to while confine starts");
		goto out;
	}
	*len = got;
out:
	close(fd);
	if (r < 0) {
		free(*data);
		*data = NULL;
	}
	return r;
}

int cli_load_injections(struct cli_opts *o, bool run, struct confine_error *err)
{
	struct spec specs[CONFINE_INJECT_MAX_COUNT];
	confine_request *check = NULL;
	size_t n = 0;
	uint64_t total = 0;
	int r = 0;

	if (o->n_inject == 0)
		return 0;
	if ((r = confine_request_new(&check, err)) < 0)
		return r;
	/* Everything about names and targets, for every injection, on a scratch request with
	 * empty contents: nothing is opened before all of them are known good. */
	for (; n < o->n_inject; n++) {
		if ((r = split(o, n, &specs[n], err)) < 0)
			goto out;
		if ((r = confine_request_add_injection(check, specs[n].placement, specs[n].where,
						       NULL, 0, err)) < 0) {
			if (err && !err->hint[0])
				confine_error_hint(err,
						   "see 'confine run --help' and README \"File "
						   "injection\"");
			n++;
			goto out;
		}
	}
	if (run && confine_request_policy(o->req) == CONFINE_POLICY_OFF) {
		r = confine_error_set(
		    err, CONFINE_E_INVALID, "read-only file injection refused", o->inject[0],
		    "the sandbox policy is off, and without a sandbox nothing keeps the "
		    "command (or anyone else) from changing the file (SPEC 4)");
		confine_error_hint(
		    err, "run with the sandbox (--policy required), or without --inject-*");
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		unsigned char *data = NULL;
		size_t len = 0;
		if ((r = read_file(&specs[i], total, &data, &len, err)) < 0)
			goto out;
		r = confine_request_add_injection(o->req, specs[i].placement, specs[i].where, data,
						  len, err);
		free(data);
		if (r < 0)
			goto out;
		total += len;
	}
out:
	for (size_t i = 0; i < n; i++)
		free(specs[i].where);
	confine_request_free(check);
	return r;
}

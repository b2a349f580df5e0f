/* SPDX-License-Identifier: MIT */
/*
 * Receipts mean once (SPEC 7.1, "this once"): the receipt of an approved escalation or write
 * grant is spent when its run starts, in confine's own state, $XDG_CACHE_HOME/confine/receipts,
 * which the sandbox can never write (an override, R30).  One line per spent receipt,
 * "DIGEST SECONDS\n" (lower-case hex, the time it was spent), the newest last; at most
 * CF_RECEIPTS_MAX lines, the oldest dropped first (a digest covers its card's random request
 * id, so an old receipt is of no use to anyone but whoever kept it that long).  The file is
 * read and rewritten under an exclusive lock of the directory; one that is not exactly what
 * confine writes (a symlink, another owner, writable by others, a malformed line) refuses the
 * approval: forgetting what was spent would let a receipt run twice.
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

#include "host/scan_cache.h"
#include "request.h"
#include "util/util.h"

#define CF_RECEIPTS_MAX 4096
#define LINE_MAX_LEN 96

static int refuse(const char *what, const char *dir, const char *why, struct confine_error *err)
{
	cf_err(err, CONFINE_E_APPROVAL, what, dir, "%s", why);
	cf_err_hint(err, "confine keeps the receipts it has spent in its cache directory, so that "
			 "none runs twice; make that directory yours alone (0700) and run again");
	return CONFINE_E_APPROVAL;
}

/* Reads the spent receipts into buf (NUL-terminated); 0, or -1 with why. */
static int read_spent(int dfd, char *buf, size_t cap, size_t *len, const char **why)
{
	struct stat st;
	*len = 0;
	buf[0] = '\0';
	int fd = openat(dfd, "receipts", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return 0;
		*why = errno == ELOOP ? "the record of spent receipts is a symlink"
				      : "the record of spent receipts cannot be read";
		return -1;
	}
	int r = -1;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 022) || st.st_nlink != 1) {
		*why = "the record of spent receipts is not a file of yours alone";
		goto out;
	}
	if ((size_t)st.st_size >= cap) {
		*why = "the record of spent receipts is larger than confine writes it";
		goto out;
	}
	while (*len < cap - 1) {
		ssize_t k = read(fd, buf + *len, cap - 1 - *len);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			*why = "the record of spent receipts cannot be read";
			goto out;
		}
		if (k == 0)
			break;
		*len += (size_t)k;
	}
	buf[*len] = '\0';
	r = 0;
out:
	close(fd);
	return r;
}

/* Each line: 64 lower-case hex digits, a blank, decimal seconds, a newline.  Returns the number
 * of lines, or -1 for anything else. */
static long check_lines(const char *s, size_t len)
{
	long n = 0;
	for (size_t i = 0; i < len; n++) {
		const char *nl = memchr(s + i, '\n', len - i);
		size_t l = nl ? (size_t)(nl - (s + i)) : 0;
		if (!nl || l < 66 || l > LINE_MAX_LEN || s[i + 64] != ' ')
			return -1;
		for (size_t k = 0; k < 64; k++)
			if (!strchr("0123456789abcdef", s[i + k]) || !s[i + k])
				return -1;
		for (size_t k = 65; k < l; k++)
			if (s[i + k] < '0' || s[i + k] > '9')
				return -1;
		i += l + 1;
	}
	return n;
}

/* Whether digest is among the lines. */
static bool spent(const char *s, size_t len, const char *digest)
{
	for (size_t i = 0; i + 65 <= len;) {
		if (!strncmp(s + i, digest, 64))
			return true;
		const char *nl = memchr(s + i, '\n', len - i);
		if (!nl)
			break;
		i = (size_t)(nl - s) + 1;
	}
	return false;
}

/* The lines kept (the newest CF_RECEIPTS_MAX - 1) and the new one, written to a new file that
 * replaces the old one. */
static int store(int dfd, const char *s, size_t len, long n, const char *digest)
{
	const char *keep = s;
	for (long drop = n - (CF_RECEIPTS_MAX - 1); drop > 0; drop--)
		keep = strchr(keep, '\n') + 1;
	char line[LINE_MAX_LEN + 2];
	int ll = snprintf(line, sizeof(line), "%.64s %lld\n", digest, (long long)time(NULL));
	unlinkat(dfd, "receipts.new", 0); /* a crash's leftover: we hold the lock */
	int fd =
	    openat(dfd, "receipts.new", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	size_t kl = len - (size_t)(keep - s);
	bool ok = (kl == 0 || write(fd, keep, kl) == (ssize_t)kl) &&
		  write(fd, line, (size_t)ll) == ll && fsync(fd) == 0;
	ok = close(fd) == 0 && ok;
	if (!ok || renameat(dfd, "receipts.new", dfd, "receipts") < 0) {
		unlinkat(dfd, "receipts.new", 0);
		return -1;
	}
	fsync(dfd);
	return 0;
}

int cf_record_spend_ready(confine_run *run, struct confine_error *err)
{
	const char *why = NULL;
	int dfd = run->cache_dir ? cf_cache_dir_open(run->cache_dir, true, &why) : -1;
	if (dfd < 0)
		return refuse("cannot spend the receipt", run->cache_dir ? run->cache_dir : "",
			      why ? why : "no cache directory", err);
	close(dfd);
	return 0;
}

int cf_record_spend(confine_run *run, struct confine_error *err)
{
	const struct cf_run_record *rec = &run->record;
	if (!rec->approved || rec->reusable || !rec->card)
		return 0;
	const char *why = NULL;
	const char *dir = run->cache_dir;
	int dfd = dir ? cf_cache_dir_open(dir, true, &why) : -1;
	if (dfd < 0)
		return refuse("cannot spend the receipt", dir ? dir : "",
			      why ? why : "no cache directory", err);
	char *buf = malloc((size_t)CF_RECEIPTS_MAX * (LINE_MAX_LEN + 1) + 1);
	size_t len = 0;
	int r = 0;
	if (!buf) {
		r = cf_nomem(err);
		goto out;
	}
	while (flock(dfd, LOCK_EX) < 0 && errno == EINTR)
		;
	long n = -1;
	if (read_spent(dfd, buf, (size_t)CF_RECEIPTS_MAX * (LINE_MAX_LEN + 1) + 1, &len, &why) <
		0 ||
	    (n = check_lines(buf, len)) < 0) {
		r = refuse("cannot spend the receipt", dir,
			   why ? why : "the record of spent receipts is not what confine wrote",
			   err);
		goto out;
	}
	if (spent(buf, len, rec->card->digest)) {
		cf_err(err, CONFINE_E_APPROVAL, "receipt already used", rec->argv.v[0],
		       "the receipt %.12s... approved this request once, and that run has started; "
		       "an approval is good for one run",
		       rec->card->digest);
		cf_err_hint(err, "ask for a new approval: 'confine card' with the same options "
				 "prints a new card (a new request id and digest)");
		r = CONFINE_E_APPROVAL;
		goto out;
	}
	if (store(dfd, buf, len, n, rec->card->digest) < 0)
		r = refuse("cannot spend the receipt", dir,
			   "the record of spent receipts cannot be written", err);
out:
	free(buf);
	close(dfd); /* and the lock with it */
	return r;
}

/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "inject/memfd.h"
#include "util/util.h"

int cf_inject_memfd(const char *label, const void *data, size_t len, const char *expected,
		    char hash[CF_HASH_HEX], struct confine_error *caller)
{
	/* The failure is made in a struct of its own: the code returned is this one's. */
	struct confine_error mine = {0}, *err = &mine;
	char want[CF_HASH_HEX];
	const char *what = "cannot seal injection";
	int fd = memfd_create("confine-inject", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0) {
		cf_err_os(err, CONFINE_E_OS, what, label, "memfd_create", errno);
		cf_err_hint(err, "read-only file injection needs memfd_create with sealing (Linux "
				 "3.17 or later)");
		cf_err_publish(caller, &mine);
		return CONFINE_E_OS;
	}
	/* The host's check: the hash of the bytes the caller handed over. */
	if (expected)
		snprintf(want, sizeof(want), "%s", expected);
	else
		cf_blake3_hex(data, len, want);
	for (size_t done = 0; done < len;) {
		ssize_t k = write(fd, (const char *)data + done, len - done);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			cf_err_os(err, CONFINE_E_OS, what, label, "write", k < 0 ? errno : EIO);
			goto fail;
		}
		done += (size_t)k;
	}
	/* F_SEAL_WRITE fails with EBUSY while anyone holds a writable shared mapping of it:
	 * then it cannot be sealed, and nothing runs. */
	if (fcntl(fd, F_ADD_SEALS, CF_INJECT_SEALS) < 0) {
		cf_err_os(err, CONFINE_E_OS, what, label, "fcntl(F_ADD_SEALS)", errno);
		goto fail;
	}
	int seals = fcntl(fd, F_GET_SEALS);
	if (seals < 0 || (seals & CF_INJECT_SEALS) != CF_INJECT_SEALS) {
		cf_err(err, CONFINE_E_SPAWN, what, label,
		       "the memfd does not carry the seals it was given (0x%x)", seals);
		goto fail;
	}
	/* Verified from the memfd itself, after sealing: this is what bwrap copies. */
	size_t got = 0;
	if (cf_blake3_fd(fd, hash, &got, err) < 0)
		goto fail;
	struct stat st;
	if (fstat(fd, &st) < 0 || (uint64_t)st.st_size != (uint64_t)len || got != len ||
	    strcmp(hash, want)) {
		cf_err(err, CONFINE_E_SPAWN, "integrity check failed", label,
		       "the sealed copy (%zu bytes, BLAKE3 %s) differs from the content given "
		       "(%zu bytes, BLAKE3 %s): another process wrote to it before it was sealed",
		       got, hash, len, want);
		cf_err_hint(err, "nothing was run; a process of the same user can reach confine's "
				 "descriptors through /proc: find out which one");
		goto fail;
	}
	return fd;
fail:
	close(fd);
	return cf_err_publish(caller, &mine) ? mine.code : CONFINE_E_OS;
}

int cf_inject_memfd_reader(int memfd, const char *label, struct confine_error *err)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/fd/%d", memfd);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0)
		return fd;
	/* Without /proc: a duplicate shares the offset, which one launch at a time may rewind. */
	fd = fcntl(memfd, F_DUPFD_CLOEXEC, 3);
	if (fd < 0 || lseek(fd, 0, SEEK_SET) < 0) {
		cf_err_os(err, CONFINE_E_OS, "cannot pass injection", label, "fcntl", errno);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

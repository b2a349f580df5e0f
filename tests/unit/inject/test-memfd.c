/* SPDX-License-Identifier: MIT */
/*
 * The sealed memfd of an injection (SPEC 6, Linux): the seals are all there, writing, growing,
 * shrinking and unsealing fail with EPERM (exact errno), a shared writable mapping is refused,
 * the hash is the content's, and a launch's reader is read-only with its own offset.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../tap.h"
#include "inject/memfd.h"

int main(void)
{
	struct confine_error err = {0};
	char hash[CF_HASH_HEX], want[CF_HASH_HEX];
	const char content[] = "managed settings\n";
	size_t len = sizeof(content) - 1;

	int fd = cf_inject_memfd("env:X", content, len, NULL, hash, &err);
	TAP_OK(fd >= 0, "R21 memfd created (%s)", err.reason);
	if (fd < 0)
		return tap_done();
	cf_blake3_hex(content, len, want);
	TAP_STREQ(hash, want, "R21 the hash from the sealed memfd is the content's");
	int seals = fcntl(fd, F_GET_SEALS);
	TAP_INTEQ(seals & CF_INJECT_SEALS, CF_INJECT_SEALS,
		  "R21 F_SEAL_WRITE|F_SEAL_GROW|F_SEAL_SHRINK|F_SEAL_SEAL are set");
	TAP_OK(fcntl(fd, F_GETFD) & FD_CLOEXEC, "close-on-exec");

	errno = 0;
	TAP_OK(pwrite(fd, "X", 1, 0) < 0 && errno == EPERM, "R21 a write fails with EPERM");
	errno = 0;
	TAP_OK(pwrite(fd, "X", 1, (off_t)len) < 0 && errno == EPERM,
	       "R21 an append fails with EPERM");
	errno = 0;
	TAP_OK(ftruncate(fd, 0) < 0 && errno == EPERM, "R21 shrinking fails with EPERM");
	errno = 0;
	TAP_OK(ftruncate(fd, 4096) < 0 && errno == EPERM, "R21 growing fails with EPERM");
	errno = 0;
	TAP_OK(fcntl(fd, F_ADD_SEALS, 0) < 0 && errno == EPERM,
	       "R21 the seals cannot be changed (F_SEAL_SEAL): EPERM");
	errno = 0;
	void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	TAP_OK(m == MAP_FAILED && errno == EPERM, "R21 a shared writable mapping fails with EPERM");
	if (m != MAP_FAILED)
		munmap(m, len);
	char buf[64] = {0};
	TAP_INTEQ(pread(fd, buf, sizeof(buf), 0), (long)len, "the content reads back");
	TAP_STREQ(buf, content, "the bytes are the content");

	int r1 = cf_inject_memfd_reader(fd, "env:X", &err);
	int r2 = cf_inject_memfd_reader(fd, "env:X", &err);
	TAP_OK(r1 >= 0 && r2 >= 0, "two launch readers");
	memset(buf, 0, sizeof(buf));
	TAP_INTEQ(read(r1, buf, sizeof(buf)), (long)len, "reader 1 reads everything");
	memset(buf, 0, sizeof(buf));
	TAP_INTEQ(read(r2, buf, sizeof(buf)), (long)len, "reader 2 starts at 0 (its own offset)");
	errno = 0;
	TAP_OK(write(r1, "X", 1) < 0 && errno == EBADF, "a reader is read-only (EBADF)");
	TAP_OK((fcntl(r1, F_GETFL) & O_ACCMODE) == O_RDONLY, "a reader is O_RDONLY");
	close(r1);
	close(r2);
	close(fd);

	/* The content's hash given by the caller is what the sealed copy must match: a wrong one
	 * is an integrity failure (what a write before the seal would cause), and no descriptor
	 * is left. */
	memset(&err, 0, sizeof(err));
	fd = cf_inject_memfd("env:X", content, len,
			     "0000000000000000000000000000000000000000000000000000000000000000",
			     hash, &err);
	TAP_INTEQ(fd, CONFINE_E_SPAWN,
		  "R21 a sealed copy that differs from the content is refused");
	TAP_STREQ(err.what, "integrity check failed", "R21 ... 'integrity check failed'");

	/* Empty content is sealed like any other. */
	fd = cf_inject_memfd("env:EMPTY", "", 0, NULL, hash, &err);
	TAP_OK(fd >= 0, "empty content");
	TAP_STREQ(hash, "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262",
		  "the hash of empty content");
	if (fd >= 0)
		close(fd);
	return tap_done();
}

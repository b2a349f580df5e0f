/* SPDX-License-Identifier: MIT */
/* BLAKE3 (SPEC 6): the official test vectors, and the descriptor path agreeing with the
 * in-memory one at every size around BLAKE3's chunk and the reader's buffer. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../tap.h"
#include "inject/hash.h"

int main(void)
{
	char h[CF_HASH_HEX], h2[CF_HASH_HEX];
	cf_blake3_hex("", 0, h);
	TAP_STREQ(h, "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262",
		  "BLAKE3 of the empty input");
	cf_blake3_hex("abc", 3, h);
	TAP_STREQ(h, "6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85",
		  "BLAKE3 of 'abc'");
	TAP_INTEQ(strlen(h), 64, "64 hex digits");
	bool lower = true;
	for (size_t i = 0; i < 64; i++)
		lower &= (h[i] >= '0' && h[i] <= '9') || (h[i] >= 'a' && h[i] <= 'f');
	TAP_OK(lower, "lower-case hex");

	/* The official test vector input: byte i is i % 251; 102400 bytes, the reference hash
	 * of the BLAKE3 repository's test_vectors.json. */
	size_t big = 102400;
	unsigned char *buf = malloc(big);
	TAP_OK(buf != NULL, "buffer");
	if (!buf)
		return tap_done();
	for (size_t i = 0; i < big; i++)
		buf[i] = (unsigned char)(i % 251);
	cf_blake3_hex(buf, big, h);
	TAP_STREQ(h, "bc3e3d41a1146b069abffad3c0d44860cf664390afce4d9661f7902e7943e085",
		  "BLAKE3 of the 102400-byte test vector (SIMD paths)");

	int fd = memfd_create("t", MFD_CLOEXEC);
	TAP_OK(fd >= 0, "memfd");
	size_t sizes[] = {0, 1, 1023, 1024, 1025, 16384, 16385, 65536, 102400};
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct confine_error err = {0};
		size_t got = 0;
		if (ftruncate(fd, 0) < 0 || pwrite(fd, buf, sizes[i], 0) != (ssize_t)sizes[i]) {
			TAP_OK(0, "write %zu bytes", sizes[i]);
			continue;
		}
		cf_blake3_hex(buf, sizes[i], h);
		TAP_INTEQ(cf_blake3_fd(fd, h2, &got, &err), 0, "cf_blake3_fd %zu bytes", sizes[i]);
		TAP_STREQ(h2, h, "the descriptor's hash equals the memory's at %zu bytes",
			  sizes[i]);
		TAP_INTEQ(got, sizes[i], "cf_blake3_fd read %zu bytes", sizes[i]);
	}
	close(fd);
	/* Sealed against shrinking, a memfd is hashed through a mapping: the same answers. */
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct confine_error err = {0};
		size_t got = 0;
		int sfd = memfd_create("s", MFD_CLOEXEC | MFD_ALLOW_SEALING);
		bool ready =
		    sfd >= 0 && pwrite(sfd, buf, sizes[i], 0) == (ssize_t)sizes[i] &&
		    fcntl(sfd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE) == 0;
		TAP_OK(ready, "sealed memfd of %zu bytes", sizes[i]);
		cf_blake3_hex(buf, sizes[i], h);
		TAP_INTEQ(cf_blake3_fd(sfd, h2, &got, &err), 0, "cf_blake3_fd, sealed, %zu bytes",
			  sizes[i]);
		TAP_STREQ(h2, h, "the sealed memfd's hash equals the memory's at %zu bytes",
			  sizes[i]);
		TAP_INTEQ(got, sizes[i], "... %zu bytes hashed", sizes[i]);
		if (sfd >= 0)
			close(sfd);
	}
	free(buf);
	return tap_done();
}

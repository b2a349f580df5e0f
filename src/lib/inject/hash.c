/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <blake3.h>

#include "inject/hash.h"
#include "util/util.h"

static void hex(const uint8_t *digest, char out[CF_HASH_HEX])
{
	static const char digits[] = "0123456789abcdef";
	for (size_t i = 0; i < BLAKE3_OUT_LEN; i++) {
		out[2 * i] = digits[digest[i] >> 4];
		out[2 * i + 1] = digits[digest[i] & 15];
	}
	out[2 * BLAKE3_OUT_LEN] = '\0';
}

void cf_blake3_hex(const void *data, size_t len, char out[CF_HASH_HEX])
{
	blake3_hasher h;
	uint8_t digest[BLAKE3_OUT_LEN];
	blake3_hasher_init(&h);
	blake3_hasher_update(&h, data, len);
	blake3_hasher_finalize(&h, digest, sizeof(digest));
	hex(digest, out);
}

#ifdef F_GET_SEALS
/* A memfd sealed against shrinking can be hashed through a mapping: nobody can truncate it
 * under the reader (a mapped file that shrinks raises SIGBUS), and 16 MiB then cost no read
 * calls and no copies.  Returns 1 when done this way, 0 to fall back to reading. */
static int hash_sealed(int fd, char out[CF_HASH_HEX], size_t *len)
{
	struct stat st;
	int seals = fcntl(fd, F_GET_SEALS);
	if (seals < 0 || !(seals & F_SEAL_SHRINK) || fstat(fd, &st) < 0 || st.st_size <= 0)
		return 0;
	void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		return 0;
	cf_blake3_hex(m, (size_t)st.st_size, out);
	munmap(m, (size_t)st.st_size);
	*len = (size_t)st.st_size;
	return 1;
}
#endif

int cf_blake3_fd(int fd, char out[CF_HASH_HEX], size_t *len, struct confine_error *err)
{
	blake3_hasher h;
#ifdef F_GET_SEALS
	if (hash_sealed(fd, out, len))
		return 0;
#endif
	uint8_t digest[BLAKE3_OUT_LEN];
	/* 16 of BLAKE3's 1 KiB chunks per update: enough for its widest SIMD path (AVX-512
	 * hashes 16 chunks at once). */
	unsigned char buf[16 * 1024];
	off_t off = 0;
	blake3_hasher_init(&h);
	for (;;) {
		ssize_t k = pread(fd, buf, sizeof(buf), off);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return cf_err_os(err, CONFINE_E_OS, "cannot read injection content", "",
					 "pread", errno);
		if (k == 0)
			break;
		blake3_hasher_update(&h, buf, (size_t)k);
		off += k;
	}
	blake3_hasher_finalize(&h, digest, sizeof(digest));
	hex(digest, out);
	*len = (size_t)off;
	return 0;
}

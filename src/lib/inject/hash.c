/* SPDX-License-Identifier: MIT */
#include <errno.h>
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

int cf_blake3_fd(int fd, char out[CF_HASH_HEX], size_t *len, struct confine_error *err)
{
	blake3_hasher h;
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

/*
 * SHA-256 (FIPS 180-4), for fingerprinting shape files and other inputs a run
 * depends on. No external crypto library is linked; this is a small
 * self-contained implementation checked against the NIST test vectors.
 *
 * Hex digests are 64 lowercase hex digits plus a NUL, written into a
 * caller-provided char[65]. Nothing here allocates memory the caller must free.
 */
#ifndef ZLBENCH_SHA256_H
#define ZLBENCH_SHA256_H

#include <stddef.h>
#include <stdint.h>

#include "strbuf.h"

#define ZL_SHA256_DIGEST_LEN 32
#define ZL_SHA256_HEX_LEN 64

/* Streaming state; plain data, no release needed. */
struct zl_sha256 {
	uint32_t h[8];
	uint64_t total;          /* bytes fed so far */
	unsigned char block[64];
	size_t fill;             /* bytes waiting in block */
};

void zl_sha256_init(struct zl_sha256 *ctx);
void zl_sha256_update(struct zl_sha256 *ctx, const void *data, size_t len);
/* Finish and write the 32-byte digest; ctx must be re-initialised before reuse. */
void zl_sha256_final(struct zl_sha256 *ctx, unsigned char out[ZL_SHA256_DIGEST_LEN]);

/* One-shot digest of a buffer as lowercase hex. */
void zl_sha256_hex(const void *data, size_t len, char out[ZL_SHA256_HEX_LEN + 1]);
/*
 * Digest of a whole regular file of at most ZL_CAP_LARGE bytes (zl_open_regular), read in
 * chunks. 0, or -1 with "cannot read '<path>': ..." in err.
 */
int zl_sha256_file_hex(const char *path, char out[ZL_SHA256_HEX_LEN + 1], struct strbuf *err);

#endif

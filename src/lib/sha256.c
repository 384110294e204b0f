#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "zlbench/error.h"
#include "zlbench/fsutil.h"
#include "zlbench/sha256.h"
#include "zlbench/banned.h"

/* FIPS 180-4 section 4.2.2: the first 32 bits of the fractional parts of the
 * cube roots of the first 64 primes. */
static const uint32_t K[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static uint32_t ror(uint32_t x, unsigned n)
{
	return (x >> n) | (x << (32 - n));
}

static void compress(uint32_t h[8], const unsigned char *p)
{
	uint32_t w[64], a, b, c, d, e, f, g, hh;
	int i;

	for (i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | (uint32_t)p[4 * i + 3];
	for (i = 16; i < 64; i++) {
		uint32_t s0 = ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^ (w[i - 15] >> 3);
		uint32_t s1 = ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ (w[i - 2] >> 10);
		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	a = h[0]; b = h[1]; c = h[2]; d = h[3];
	e = h[4]; f = h[5]; g = h[6]; hh = h[7];
	for (i = 0; i < 64; i++) {
		uint32_t t1 = hh + (ror(e, 6) ^ ror(e, 11) ^ ror(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i];
		uint32_t t2 = (ror(a, 2) ^ ror(a, 13) ^ ror(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
		hh = g; g = f; f = e; e = d + t1;
		d = c; c = b; b = a; a = t1 + t2;
	}
	h[0] += a; h[1] += b; h[2] += c; h[3] += d;
	h[4] += e; h[5] += f; h[6] += g; h[7] += hh;
}

void zl_sha256_init(struct zl_sha256 *ctx)
{
	static const uint32_t iv[8] = {
		0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
		0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
	};

	memcpy(ctx->h, iv, sizeof(iv));
	ctx->total = 0;
	ctx->fill = 0;
}

void zl_sha256_update(struct zl_sha256 *ctx, const void *data, size_t len)
{
	const unsigned char *p = data;

	ctx->total += len;
	if (ctx->fill) {
		size_t take = 64 - ctx->fill < len ? 64 - ctx->fill : len;
		memcpy(ctx->block + ctx->fill, p, take);
		ctx->fill += take;
		p += take;
		len -= take;
		if (ctx->fill < 64)
			return;
		compress(ctx->h, ctx->block);
		ctx->fill = 0;
	}
	for (; len >= 64; p += 64, len -= 64)
		compress(ctx->h, p);
	if (len) {
		memcpy(ctx->block, p, len);
		ctx->fill = len;
	}
}

void zl_sha256_final(struct zl_sha256 *ctx, unsigned char out[ZL_SHA256_DIGEST_LEN])
{
	uint64_t bits = ctx->total * 8;
	unsigned char pad[72];
	size_t padlen = (ctx->fill < 56 ? 56 : 120) - ctx->fill;
	int i;

	/* 0x80, zeros up to 56 mod 64, then the message length in bits, big-endian. */
	memset(pad, 0, sizeof(pad));
	pad[0] = 0x80;
	for (i = 0; i < 8; i++)
		pad[padlen + i] = (unsigned char)(bits >> (56 - 8 * i));
	zl_sha256_update(ctx, pad, padlen + 8);
	for (i = 0; i < 8; i++) {
		out[4 * i] = (unsigned char)(ctx->h[i] >> 24);
		out[4 * i + 1] = (unsigned char)(ctx->h[i] >> 16);
		out[4 * i + 2] = (unsigned char)(ctx->h[i] >> 8);
		out[4 * i + 3] = (unsigned char)ctx->h[i];
	}
}

static void to_hex(const unsigned char *digest, char out[ZL_SHA256_HEX_LEN + 1])
{
	static const char hex[] = "0123456789abcdef";
	int i;

	for (i = 0; i < ZL_SHA256_DIGEST_LEN; i++) {
		out[2 * i] = hex[digest[i] >> 4];
		out[2 * i + 1] = hex[digest[i] & 15];
	}
	out[ZL_SHA256_HEX_LEN] = '\0';
}

void zl_sha256_hex(const void *data, size_t len, char out[ZL_SHA256_HEX_LEN + 1])
{
	struct zl_sha256 ctx;
	unsigned char digest[ZL_SHA256_DIGEST_LEN];

	zl_sha256_init(&ctx);
	zl_sha256_update(&ctx, data, len);
	zl_sha256_final(&ctx, digest);
	to_hex(digest, out);
}

int zl_sha256_file_hex(const char *path, char out[ZL_SHA256_HEX_LEN + 1], struct strbuf *err)
{
	struct zl_sha256 ctx;
	unsigned char digest[ZL_SHA256_DIGEST_LEN];
	unsigned char buf[65536];
	int fd = zl_open_regular(path, NULL, ZL_CAP_LARGE, err);

	if (fd < 0)
		return -1;
	zl_sha256_init(&ctx);
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n < 0) {
			int saved = errno;
			if (saved == EINTR)
				continue;
			close(fd);
			return zl_error(err, "cannot read '%s': %s", path, strerror(saved));
		}
		if (!n)
			break;
		zl_sha256_update(&ctx, buf, (size_t)n);
	}
	if (close(fd))
		return zl_error(err, "cannot close '%s': %s", path, strerror(errno));
	zl_sha256_final(&ctx, digest);
	to_hex(digest, out);
	return 0;
}

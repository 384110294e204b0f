#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "zlbench/fsutil.h"
#include "zlbench/sha256.h"
#include "zlbench/strbuf.h"
#include "zlbench/util.h"

/* NIST FIPS 180-4 examples (csrc.nist.gov SHA256.pdf, SHA256_2.pdf) and the long message. */
static void test_nist_vectors(void **state)
{
	static const struct { const char *msg; const char *hex; } v[] = {
		{ "", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
		{ "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" },
		{ "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
		  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1" },
		{ "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
		  "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1" },
	};
	char out[65];
	size_t i;
	(void)state;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		zl_sha256_hex(v[i].msg, strlen(v[i].msg), out);
		assert_string_equal(out, v[i].hex);
	}
}

/* Lengths around the 55/56/64-byte padding boundaries (digests from Python's hashlib). */
static void test_padding_boundaries(void **state)
{
	static const struct { size_t n; const char *hex; } v[] = {
		{ 55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318" },
		{ 56, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a" },
		{ 57, "f13b2d724659eb3bf47f2dd6af1accc87b81f09f59f2b75e5c0bed6589dfe8c6" },
		{ 63, "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34" },
		{ 64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb" },
		{ 65, "635361c48bb9eab14198e76ea8ab7f1a41685d6ad62aa9146d301d4f17eb0ae0" },
		{ 119, "31eba51c313a5c08226adf18d4a359cfdfd8d2e816b13f4af952f7ea6584dcfb" },
		{ 120, "2f3d335432c70b580af0e8e1b3674a7c020d683aa5f73aaaedfdc55af904c21c" },
		{ 128, "6836cf13bac400e9105071cd6af47084dfacad4e5e302c94bfed24e013afb73e" },
	};
	char buf[128], out[65];
	size_t i;
	(void)state;

	memset(buf, 'a', sizeof(buf));
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		zl_sha256_hex(buf, v[i].n, out);
		assert_string_equal(out, v[i].hex);
	}
}

/* One million 'a', fed in uneven pieces so that the block-buffering path is exercised. */
static void test_million_a_streamed(void **state)
{
	struct zl_sha256 ctx;
	unsigned char digest[32];
	char chunk[997];
	size_t left = 1000000;
	static const unsigned char want[32] = {
		0xcd, 0xc7, 0x6e, 0x5c, 0x99, 0x14, 0xfb, 0x92, 0x81, 0xa1, 0xc7, 0xe2, 0x84, 0xd7, 0x3e, 0x67,
		0xf1, 0x80, 0x9a, 0x48, 0xa4, 0x97, 0x20, 0x0e, 0x04, 0x6d, 0x39, 0xcc, 0xc7, 0x11, 0x2c, 0xd0,
	};
	size_t step = 1;
	(void)state;

	memset(chunk, 'a', sizeof(chunk));
	zl_sha256_init(&ctx);
	while (left) {
		size_t n = step < left ? step : left;
		zl_sha256_update(&ctx, chunk, n);
		left -= n;
		step = (step + 13) % sizeof(chunk) + 1;
	}
	zl_sha256_final(&ctx, digest);
	assert_memory_equal(digest, want, 32);
}

static void test_file(void **state)
{
	struct strbuf err = STRBUF_INIT, content = STRBUF_INIT;
	char dir_tmpl[] = "/tmp/zl-sha256-XXXXXX";
	char *path, out[65], again[65];
	const char *fixtures = getenv("ZL_FIXTURES_DIR");
	char *real;
	(void)state;

	assert_non_null(mkdtemp(dir_tmpl));
	path = zl_path_join(dir_tmpl, "abc.txt");
	assert_int_equal(zl_write_file_atomic(path, "abc", 3, &err), 0);
	assert_int_equal(zl_sha256_file_hex(path, out, &err), 0);
	assert_string_equal(out, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	assert_int_equal(unlink(path), 0);

	/* A missing file is an error naming it. */
	assert_int_equal(zl_sha256_file_hex(path, out, &err), -1);
	assert_non_null(strstr(err.buf, path));
	assert_non_null(strstr(err.buf, "cannot read"));
	/* So is a directory (open succeeds, read fails). */
	assert_int_equal(zl_sha256_file_hex(dir_tmpl, out, &err), -1);
	assert_non_null(strstr(err.buf, dir_tmpl));
	assert_int_equal(rmdir(dir_tmpl), 0);
	free(path);

	/* A real file larger than the read chunk: file and buffer digests agree,
	 * and match the digest Python's hashlib gives for this fixture. */
	assert_non_null(fixtures);
	real = xstrfmt("%s/flaggems-data/core_shapes.yaml", fixtures);
	assert_int_equal(zl_sha256_file_hex(real, out, &err), 0);
	assert_true(strbuf_read_file(&content, real) > 0);
	zl_sha256_hex(content.buf, content.len, again);
	assert_string_equal(out, again);
	assert_string_equal(out, "b9c61bb43b477d5592a7f53e8f4383ff6907cb75e41a2c377a7893be3377bae6");
	free(real);
	strbuf_release(&content);
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nist_vectors),
		cmocka_unit_test(test_padding_boundaries),
		cmocka_unit_test(test_million_a_streamed),
		cmocka_unit_test(test_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

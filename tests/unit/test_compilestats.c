#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <unistd.h>
#include <cmocka.h>

#include "zlbench/compilestats.h"
#include "zlbench/fsutil.h"
#include "zlbench/strbuf.h"
#include "zlbench/util.h"

static char *fixture_cache(void)
{
	const char *fixtures = getenv("ZL_FIXTURES_DIR");

	assert_non_null(fixtures);
	return xstrfmt("%s/triton-cache-h200", fixtures);
}

static void put_file(const char *dir, const char *name, const char *data, size_t len)
{
	struct strbuf err = STRBUF_INIT;
	char *path = zl_path_join(dir, name);

	assert_int_equal(zl_mkdir_p(dir, &err), 0);
	if (zl_write_file_atomic(path, data, len, &err))
		fail_msg("%s", err.buf);
	free(path);
	strbuf_release(&err);
}

/* Copy one hash directory of the fixture (flat) into dst/<as>. */
static void copy_hash_dir(const char *src_cache, const char *hash, const char *dst_cache, const char *as)
{
	char *src = zl_path_join(src_cache, hash);
	char *dst = zl_path_join(dst_cache, as);
	DIR *d = opendir(src);
	struct dirent *de;

	assert_non_null(d);
	while ((de = readdir(d))) {
		struct strbuf data = STRBUF_INIT;
		char *f;
		if (de->d_name[0] == '.')
			continue;
		f = zl_path_join(src, de->d_name);
		assert_true(strbuf_read_file(&data, f) >= 0);
		put_file(dst, de->d_name, data.buf, data.len);
		strbuf_release(&data);
		free(f);
	}
	assert_int_equal(closedir(d), 0);
	free(src);
	free(dst);
}

static char *make_tmp(void)
{
	char tmpl[] = "/tmp/zl-tcache-XXXXXX";

	assert_non_null(mkdtemp(tmpl));
	return xstrdup(tmpl);
}

static void remove_dir(char *dir)
{
	struct strbuf err = STRBUF_INIT;

	assert_int_equal(zl_remove_tree(dir, &err), 0);
	strbuf_release(&err);
	free(dir);
}

static int notes_mention(const struct zl_compile_stats *st, const char *what)
{
	size_t i;

	for (i = 0; i < st->notes.nr; i++)
		if (strstr(st->notes.v[i], what))
			return 1;
	return 0;
}

static void test_count_convert_layout(void **state)
{
	static const struct { const char *text; long want; } v[] = {
		{ "    %15 = ttg.convert_layout %0 : tensor<64x64xf32, #blocked1> -> tensor<64x64xf32, #blocked>\n", 1 },
		{ "%1 = ttg.convert_layout %0\n%2 = ttg.convert_layout %1\n", 2 },
		{ "%1 = triton_gpu.convert_layout %0 : tensor<4xf32>\n", 1 },
		/* Not the op: inside a loc() string, part of a longer name, or another op. */
		{ "#loc3 = loc(\"/src/ttg.convert_layout.py\":5:0)\n", 0 },
		{ "%1 = ttg.convert_layouts %0\n", 0 },
		{ "%1 = xttg.convert_layout %0\n", 0 },
		{ "%1 = ttg.local_alloc %0\n", 0 },
		{ "ttg.convert_layout", 1 },
		{ "", 0 },
		/* A quote does not leak across lines. */
		{ "loc(\"unterminated\n%1 = ttg.convert_layout %0\n", 1 },
	};
	size_t i;
	(void)state;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		if (zl_count_convert_layout(v[i].text, strlen(v[i].text)) != v[i].want)
			fail_msg("case %zu: '%s' counted %ld, want %ld", i, v[i].text,
				 zl_count_convert_layout(v[i].text, strlen(v[i].text)), v[i].want);
}

static void test_real_cache(void **state)
{
	char *cache = fixture_cache();
	struct zl_compile_stats st = ZL_COMPILE_STATS_INIT;
	struct strbuf err = STRBUF_INIT;
	(void)state;

	/* 6 hash dirs: 3 kernel variants, 3 launcher/utility .so dirs that must not count. */
	assert_int_equal(zl_compile_stats(cache, NULL, &st, &err), 0);
	assert_int_equal(st.variants, 3);
	assert_int_equal(st.convert_layout, 2);
	assert_int_equal(st.no_ttgir, 0);
	assert_int_equal(st.notes.nr, 0);
	assert_int_equal(st.nr, 2);
	assert_string_equal(st.kernels[0].name, "add_kernel");
	assert_int_equal(st.kernels[0].variants, 1);
	assert_int_equal(st.kernels[0].convert_layout, 0);
	assert_string_equal(st.kernels[1].name, "transpose_kernel");
	assert_int_equal(st.kernels[1].variants, 2);
	assert_int_equal(st.kernels[1].convert_layout, 2);
	zl_compile_stats_release(&st);
	assert_int_equal(st.nr, 0);
	assert_null(st.kernels);
	strbuf_release(&err);
	free(cache);
}

static void test_snapshot(void **state)
{
	char *cache = fixture_cache();
	char *tmp = make_tmp();
	struct zl_compile_snapshot snap = ZL_COMPILE_SNAPSHOT_INIT;
	struct zl_compile_stats st = ZL_COMPILE_STATS_INIT;
	struct strbuf err = STRBUF_INIT;
	(void)state;

	/* Nothing is new relative to a snapshot of the same cache. */
	assert_int_equal(zl_compile_snapshot(cache, &snap, &err), 0);
	assert_int_equal(snap.names.nr, 6);
	assert_int_equal(zl_compile_stats(cache, &snap, &st, &err), 0);
	assert_int_equal(st.variants, 0);
	assert_int_equal(st.nr, 0);
	zl_compile_stats_release(&st);

	/* A cache with add_kernel and a launcher; then a run compiles one transpose variant. */
	copy_hash_dir(cache, "RIJMDMBXNIOM2G535KSZJTA4MNOAQXOFWS2NMGHTZCVS2QBIF7EQ", tmp, "AAA");
	copy_hash_dir(cache, "HEUKIG4JTP2YEOVQFSWBTVS6LZOIS6UFCDGRSN4HPQYM3RTA6GRQ", tmp, "BBB");
	assert_int_equal(zl_compile_snapshot(tmp, &snap, &err), 0);
	assert_int_equal(snap.names.nr, 2);
	copy_hash_dir(cache, "FUBDTMEEQE4RK5TPLMUTMADSS3MXUDMAGCUD45D7LN43OLIEBIGA", tmp, "CCC");
	put_file(tmp, "stray-file", "x", 1); /* not a hash directory */
	assert_int_equal(zl_compile_stats(tmp, &snap, &st, &err), 0);
	assert_int_equal(st.variants, 1);
	assert_int_equal(st.convert_layout, 1);
	assert_int_equal(st.nr, 1);
	assert_string_equal(st.kernels[0].name, "transpose_kernel");
	zl_compile_stats_release(&st);
	/* Without the snapshot, everything. */
	assert_int_equal(zl_compile_stats(tmp, NULL, &st, &err), 0);
	assert_int_equal(st.variants, 2);
	zl_compile_stats_release(&st);

	zl_compile_snapshot_release(&snap);
	assert_int_equal(snap.names.nr, 0);
	strbuf_release(&err);
	remove_dir(tmp);
	free(cache);
}

static void test_what_is_a_variant(void **state)
{
	char *tmp = make_tmp();
	char *d;
	struct zl_compile_stats st = ZL_COMPILE_STATS_INIT;
	struct strbuf err = STRBUF_INIT;
	(void)state;

	/* Metadata plus a binary but no .ttgir: a variant whose layouts cannot be counted. */
	d = zl_path_join(tmp, "H1");
	put_file(d, "k_amd.json", "{\"name\": \"k_amd\"}", 17);
	put_file(d, "k_amd.hsaco", "\x7f" "ELF", 4);
	put_file(d, "__grp__k_amd.json", "{}", 2);
	free(d);
	/* Only a group file and the source: not a variant. */
	d = zl_path_join(tmp, "H2");
	put_file(d, "__grp__lonely.json", "{}", 2);
	put_file(d, "lonely.json", "{}", 2);
	put_file(d, "lonely.source", "def f(): pass", 13);
	free(d);
	/* An autotuner results file: not a variant. */
	d = zl_path_join(tmp, "H3");
	put_file(d, "fn.autotune.json", "{}", 2);
	free(d);
	/* A stage output whose name merely starts like the kernel's: not a variant. */
	d = zl_path_join(tmp, "H4");
	put_file(d, "k.json", "{}", 2);
	put_file(d, "k_other.ttgir", "%1 = ttg.convert_layout %0\n", 27);
	free(d);

	assert_int_equal(zl_compile_stats(tmp, NULL, &st, &err), 0);
	assert_int_equal(st.variants, 1);
	assert_int_equal(st.no_ttgir, 1);
	assert_int_equal(st.convert_layout, 0);
	assert_string_equal(st.kernels[0].name, "k_amd");
	assert_true(notes_mention(&st, "without a .ttgir"));
	zl_compile_stats_release(&st);

	strbuf_release(&err);
	remove_dir(tmp);
}

static void test_missing_dir(void **state)
{
	struct zl_compile_snapshot snap = ZL_COMPILE_SNAPSHOT_INIT;
	struct zl_compile_stats st = ZL_COMPILE_STATS_INIT;
	struct strbuf err = STRBUF_INIT;
	char *tmp = make_tmp();
	char *gone = zl_path_join(tmp, "never-created");
	char *file = zl_path_join(tmp, "a-file");
	(void)state;

	assert_int_equal(zl_compile_snapshot(gone, &snap, &err), 0);
	assert_int_equal(snap.names.nr, 0);
	assert_int_equal(zl_compile_stats(gone, &snap, &st, &err), 0);
	assert_int_equal(st.variants, 0);
	assert_true(notes_mention(&st, gone));
	zl_compile_stats_release(&st);

	/* A file where the cache directory should be is an error naming it. */
	put_file(tmp, "a-file", "x", 1);
	assert_int_equal(zl_compile_stats(file, NULL, &st, &err), -1);
	assert_non_null(strstr(err.buf, file));
	assert_int_equal(zl_compile_snapshot(file, &snap, &err), -1);

	zl_compile_snapshot_release(&snap);
	zl_compile_stats_release(&st);
	strbuf_release(&err);
	free(gone);
	free(file);
	remove_dir(tmp);
}

static void test_default_dir(void **state)
{
	char *saved = getenv("TRITON_CACHE_DIR") ? xstrdup(getenv("TRITON_CACHE_DIR")) : NULL;
	char *home = getenv("HOME") ? xstrdup(getenv("HOME")) : NULL;
	char *dir;
	(void)state;

	assert_int_equal(setenv("TRITON_CACHE_DIR", "/x/tc", 1), 0);
	dir = zl_triton_default_cache_dir();
	assert_string_equal(dir, "/x/tc");
	free(dir);
	assert_int_equal(unsetenv("TRITON_CACHE_DIR"), 0);
	assert_int_equal(setenv("HOME", "/home/someone", 1), 0);
	dir = zl_triton_default_cache_dir();
	assert_string_equal(dir, "/home/someone/.triton/cache");
	free(dir);
	assert_int_equal(unsetenv("HOME"), 0);
	assert_null(zl_triton_default_cache_dir());

	if (saved)
		assert_int_equal(setenv("TRITON_CACHE_DIR", saved, 1), 0);
	if (home)
		assert_int_equal(setenv("HOME", home, 1), 0);
	free(saved);
	free(home);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_count_convert_layout),
		cmocka_unit_test(test_real_cache),
		cmocka_unit_test(test_snapshot),
		cmocka_unit_test(test_what_is_a_variant),
		cmocka_unit_test(test_missing_dir),
		cmocka_unit_test(test_default_dir),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

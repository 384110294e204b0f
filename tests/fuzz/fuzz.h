/*
 * Shared by the libFuzzer harnesses of tests/fuzz (docs/fuzzing.md). Each fuzz_<target>.c
 * defines LLVMFuzzerTestOneInput for one reader of outside input; built with -DZL_FUZZ=ON
 * under clang it is a fuzzer, and linked with replay_main.c (any compiler) it replays the
 * files given on its command line: the seed corpus and the kept crashes, as a ctest test.
 *
 * A harness that finds its own invariant broken calls fuzz_fail(), which aborts: the
 * fuzzer keeps the input, the replay test fails.
 */
#ifndef ZLBENCH_FUZZ_H
#define ZLBENCH_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A private directory for the files a harness writes, made once, removed at exit. */
const char *fuzz_dir(void);
/* <fuzz_dir>/<rel>; caller frees. */
char *fuzz_path(const char *rel);
/* Write data to <fuzz_dir>/<rel> (parents made); aborts on failure. */
void fuzz_write(const char *rel, const void *data, size_t size);
/* A NUL-terminated copy of data; caller frees. */
char *fuzz_cstr(const uint8_t *data, size_t size);
/* Abort with a message: an invariant of the harness does not hold. */
void fuzz_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

#endif

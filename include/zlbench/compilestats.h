/*
 * What Triton compiled: kernel variants and layout conversions in its cache.
 *
 * The cache ($TRITON_CACHE_DIR, default ~/.triton/cache) holds one directory per
 * compile hash. A kernel variant is a hash directory holding "<name>.json" (the
 * kernel metadata Triton writes once every stage succeeded) next to at least
 * one stage output "<name>.<ext>" (.ttir, .ttgir, .llir, the binary: .cubin,
 * .hsaco, ... any extension but .json and .source). Directories holding the
 * compiled launcher or utility Python extensions (*.so) and the "__grp__<name>.json"
 * group files are not variants.
 *
 * Layout conversions: occurrences of the op "ttg.convert_layout" (spelled
 * "triton_gpu.convert_layout" before Triton 3.2) in the variant's <name>.ttgir.
 *
 * "Only what this run compiled": take zl_compile_snapshot() before the run and
 * pass it to zl_compile_stats() afterwards; hash directories named in the
 * snapshot are skipped. With a cache shared by concurrent runs, their compiles
 * count too.
 */
#ifndef ZLBENCH_COMPILESTATS_H
#define ZLBENCH_COMPILESTATS_H

#include <stddef.h>

#include "strbuf.h"
#include "strvec.h"

/* The hash directory names present at one moment. Owner: the caller; release frees them. */
struct zl_compile_snapshot {
	struct strvec names;   /* sorted */
};
#define ZL_COMPILE_SNAPSHOT_INIT { STRVEC_INIT }

void zl_compile_snapshot_release(struct zl_compile_snapshot *snap);
/* A missing dir gives an empty snapshot (Triton creates it on the first compile). */
int zl_compile_snapshot(const char *dir, struct zl_compile_snapshot *snap, struct strbuf *err);

struct zl_compile_kernel {
	char *name;            /* kernel function name, e.g. "transpose_kernel" */
	long variants;
	long convert_layout;
};

/*
 * Owner: the caller; zl_compile_stats_release() frees kernels and notes and
 * leaves the struct reusable.
 */
struct zl_compile_stats {
	long variants;
	long convert_layout;
	long no_ttgir;                    /* variants without a .ttgir (not counted for layouts) */
	struct zl_compile_kernel *kernels; /* sorted by name */
	size_t nr, alloc;
	struct strvec notes;              /* one lowercase line per thing not counted */
};
#define ZL_COMPILE_STATS_INIT { 0, 0, 0, NULL, 0, 0, STRVEC_INIT }

void zl_compile_stats_init(struct zl_compile_stats *st);
void zl_compile_stats_release(struct zl_compile_stats *st);

/*
 * Count the variants under dir that are not in snap (snap NULL: all of them).
 * A missing dir counts zero with a note. -1 with err only when dir exists but
 * cannot be listed; unreadable entries inside become notes. Adds to st.
 */
int zl_compile_stats(const char *dir, const struct zl_compile_snapshot *snap,
		     struct zl_compile_stats *st, struct strbuf *err);

/* Occurrences of the layout-conversion op in a TTGIR text. */
long zl_count_convert_layout(const char *text, size_t len);

/* $TRITON_CACHE_DIR, or $HOME/.triton/cache, as cachedir.h reads them; NULL when neither is set. Caller frees. */
char *zl_triton_default_cache_dir(void);

#endif

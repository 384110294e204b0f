/*
 * plugins/skips.json, written by the zl_skips plugin at the end of a session: the tests by
 * outcome and every skip with its reason (plugins/README.md). A run whose tests were all
 * skipped is `skipped` (src/run/watch.c).
 * Owner: the caller declares struct zl_skips; zl_skips_release() frees what it holds.
 */
#ifndef ZLBENCH_SKIPS_H
#define ZLBENCH_SKIPS_H

#include <stddef.h>

#include "strbuf.h"
#include "strvec.h"

struct zl_skips {
	long passed, failed, skipped;  /* tests by outcome */
	struct strvec reasons;         /* the skips' distinct reasons, in order */
	size_t unsupported_dtype;      /* skips for a dtype the op does not support */
};
#define ZL_SKIPS_INIT { 0, 0, 0, STRVEC_INIT, 0 }
void zl_skips_release(struct zl_skips *s);

/* Parse the document; 0, or -1 with err (out is left empty) when it is not one. */
int zl_skips_parse(const char *text, size_t len, struct zl_skips *out, struct strbuf *err);
/* <run_dir>/plugins/skips.json (a regular file, under ZL_CAP_DOC); -1 with err when absent or bad. */
int zl_skips_load(const char *run_dir, struct zl_skips *out, struct strbuf *err);

/* 1 when the session ran tests and skipped every one (none passed, none failed). */
int zl_skips_all_skipped(const struct zl_skips *s);
/* The reasons as one line: the first three joined by "; ", then "and N more". Caller frees. */
char *zl_skips_reason(const struct zl_skips *s);

#endif

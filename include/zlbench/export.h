/*
 * --json-out FILE, --csv-out FILE, --md-out FILE (after hyperfine's --export-json): a
 * command that can print JSON, CSV or Markdown also writes them to files while the
 * terminal shows its usual view. Each file is written whole and atomically (a
 * temporary file beside it, renamed: fsutil.h), so a reader never sees half of one.
 *
 * A command declares the rows it offers in its option table with the macros below,
 * pointing at one struct zl_exports of its own, checks them with zl_exports_check()
 * before it starts its work (a FILE whose directory is missing is a usage error, not a
 * lost export after an hour of runs) and writes them with zl_exports_write().
 *
 * Owner: the paths point into argv (the option parser's); nothing here allocates.
 */
#ifndef ZLBENCH_EXPORT_H
#define ZLBENCH_EXPORT_H

#include "options.h"
#include "strbuf.h"

enum zl_export_format { ZL_EXPORT_JSON, ZL_EXPORT_CSV, ZL_EXPORT_MD, ZL_EXPORT__COUNT };

struct zl_exports {
	const char *path[ZL_EXPORT__COUNT];    /* NULL: not asked */
};

#define ZL_OPT_JSON_OUT(e) \
	{ .type = ZL_OPT_STRING, .long_name = "json-out", .value = &(e)->path[ZL_EXPORT_JSON], .argh = "FILE", \
	  .help = "also write the JSON document to FILE (the terminal keeps its view)" }
#define ZL_OPT_CSV_OUT(e) \
	{ .type = ZL_OPT_STRING, .long_name = "csv-out", .value = &(e)->path[ZL_EXPORT_CSV], .argh = "FILE", \
	  .help = "also write the CSV to FILE" }
#define ZL_OPT_MD_OUT(e) \
	{ .type = ZL_OPT_STRING, .long_name = "md-out", .value = &(e)->path[ZL_EXPORT_MD], .argh = "FILE", \
	  .help = "also write the Markdown to FILE" }

/* "--json-out", "--csv-out", "--md-out". */
const char *zl_export_option(enum zl_export_format f);

/*
 * Each FILE asked for can be written: its directory exists and it is not there or a
 * regular file. 0, or -1 with err naming the option and the file.
 */
int zl_exports_check(const struct zl_exports *e, struct strbuf *err);

/* What a format renders to: append the document to out; 0, or -1 with err. */
typedef int (*zl_export_fn)(enum zl_export_format f, const void *data, struct strbuf *out, struct strbuf *err);

/* Render and write every FILE asked for. 0, or -1 with err (the files written before stay). */
int zl_exports_write(const struct zl_exports *e, zl_export_fn render, const void *data, struct strbuf *err);

#endif

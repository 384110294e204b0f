/*
 * Push's documents (push.h says their form): the one line sent for a run
 * directory, and which run directories a batch directory holds.
 */
#ifndef ZLBENCH_PUSH_DOC_H
#define ZLBENCH_PUSH_DOC_H

#include <stddef.h>

#include "strbuf.h"
#include "strvec.h"

/*
 * Build the push document of one run directory: *doc (one line) and *name (its
 * run_id, else the directory's name); the caller frees both. -1 when
 * run_identity.json is missing or not a JSON object, results.json (optional) is
 * not one, or the run is still running.
 */
int zl_push_build_document(const char *run_dir, char **doc, char **name, struct strbuf *err);

/* 1 when dir holds a run_identity.json (a run directory). */
int zl_push_has_identity(const char *dir);
/*
 * Push the run directories below dir (depth 1 for dir's children, at most 3 levels)
 * onto runs in name order; warm-up shards (warmup.role "shard") are counted in
 * *skipped instead. -1 with err when a directory cannot be read.
 */
int zl_push_find_runs(const char *dir, int depth, struct strvec *runs, size_t *skipped,
		      struct strbuf *err);

#endif

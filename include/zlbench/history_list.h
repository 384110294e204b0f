/*
 * `zlbench history`'s listing of stored runs, rendered: text for people (a line that
 * says how many runs of which status, then a table fitted to a width: started_at, level,
 * device and backend are left out in that order when it is too narrow, the run id saying
 * when and where), JSON (an array of run objects, each with its schema key: schema.h) and
 * CSV (RFC 4180 with a header row).
 *
 * Owner: the list is the caller's; nothing here keeps it.
 */
#ifndef ZLBENCH_HISTORY_LIST_H
#define ZLBENCH_HISTORY_LIST_H

#include <stddef.h>
#include <stdio.h>

#include "history.h"
#include "strbuf.h"

/* limit: the filter's (0: none), to say when the list may be cut; width 0: no limit. */
void zl_history_list_print_text(const struct zl_history_list *l, const char *db_path, long limit, size_t width,
				FILE *out);
int zl_history_list_json(const struct zl_history_list *l, struct strbuf *sb, struct strbuf *err);
void zl_history_list_csv(const struct zl_history_list *l, struct strbuf *sb);

#endif

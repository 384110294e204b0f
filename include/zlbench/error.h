/*
 * Errors as values: low-level functions take a struct strbuf *err, and on failure
 * write one lowercase line naming the culprit and return -1:
 *     return zl_error(err, "cannot read shape file '%s': %s", path, strerror(errno));
 * Only the cmd_* layer turns that into an exit code (enum zl_exit).
 */
#ifndef ZLBENCH_ERROR_H
#define ZLBENCH_ERROR_H

#include "strbuf.h"

int zl_error(struct strbuf *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Output helpers for commands: "zlbench: error: ..." / "zlbench: warning: ..." on stderr. */
void zl_print_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void zl_print_warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* --quiet / --verbose; set once by main. */
extern int zl_verbosity; /* -1 quiet, 0 normal, 1 verbose */

#endif

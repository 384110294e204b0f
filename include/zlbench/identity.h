/* run_identity.json: built with cJSON, written atomically (docs/run-directory.md). */
#ifndef ZLBENCH_IDENTITY_H
#define ZLBENCH_IDENTITY_H

#include <cjson/cJSON.h>

#include "redact.h"
#include "runctx.h"

#define ZL_IDENTITY_SCHEMA_VERSION 1

/* Secrets (a secret-named variable's value, a URL's password and tokens) are redacted by redact.h's rule. */

/* The identity document of the run as its context has it now (caller deletes it), or NULL with err. */
cJSON *zl_identity_build(const struct zl_run_ctx *c, struct strbuf *err);
/* Build and atomically write <run>/run_identity.json. */
int zl_identity_write(const struct zl_run_ctx *c, struct strbuf *err);

#endif

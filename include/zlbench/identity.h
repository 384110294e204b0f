/* run_identity.json: built with cJSON, written atomically (docs/run-directory.md). */
#ifndef ZLBENCH_IDENTITY_H
#define ZLBENCH_IDENTITY_H

#include <cjson/cJSON.h>

#include "runctx.h"

#define ZL_IDENTITY_SCHEMA_VERSION 1

/* Names whose values are never written: they contain TOKEN, SECRET, PASSWORD or KEY, in any case. */
int zl_env_name_is_secret(const char *name);
/* text with the user:password of every URL in it replaced by "<redacted>". Caller frees. */
char *zl_redact_url_credentials(const char *text);

/* The identity document of the run as its context has it now (caller deletes it), or NULL with err. */
cJSON *zl_identity_build(const struct zl_run_ctx *c, struct strbuf *err);
/* Build and atomically write <run>/run_identity.json. */
int zl_identity_write(const struct zl_run_ctx *c, struct strbuf *err);

#endif

/*
 * The name and version of every JSON document a command prints or writes, each
 * "zlbench.<name>/<version>" in the document's "schema" key (docs/json.md lists their
 * fields). A version changes when a key is removed, renamed or changes its meaning;
 * keys are added without one, so a reader ignores keys it does not know.
 */
#ifndef ZLBENCH_SCHEMA_H
#define ZLBENCH_SCHEMA_H

#include <cjson/cJSON.h>

/* what commands print with --json (and write with --json-out) */
#define ZL_SCHEMA_AB "zlbench.ab/1"                 /* ab --json, DIR/ab.json */
#define ZL_SCHEMA_BACKENDS "zlbench.backends/1"     /* backends --json */
#define ZL_SCHEMA_CALIBRATION "zlbench.calibration/1" /* calibrate --json, DIR/calibration.json */
#define ZL_SCHEMA_COMPARE "zlbench.compare/1"       /* compare --json */
#define ZL_SCHEMA_DEVICES "zlbench.devices/1"       /* devices --json */
#define ZL_SCHEMA_DOCTOR "zlbench.doctor/1"         /* doctor --json */
#define ZL_SCHEMA_HISTORY_RUN "zlbench.history-run/1" /* each element of history --json's array */
#define ZL_SCHEMA_PLAN "zlbench.plan/1"             /* plan --json */
#define ZL_SCHEMA_PREFLIGHT "zlbench.preflight/1"   /* preflight --json */

/* files commands write besides their result (read back with zl_json_read_schema) */
#define ZL_SCHEMA_CALIBRATE_PLAN "zlbench.calibrate/1" /* DIR/calibrate.json: a calibration's plan */
#define ZL_SCHEMA_BATCH_COSTS "zlbench.batch_costs/1" /* BATCH/costs.json: where a batch's time went */

/* Put "schema": schema first in the object doc (replacing one there). 0, or -1 out of memory. */
int zl_json_add_schema(cJSON *doc, const char *schema);

#endif

/*
 * run_identity.json field by field, in the order it is written (docs/run-directory.md).
 * This list is the one description of the record: the writer (run/identity.c), the run
 * loader (results/runload.c) and the history's columns (results/history.c) are made from
 * it. A consumer defines
 *
 *     ZL_IDENTITY_FIELD(key, kind, value, record, member, column)
 *
 * includes this file (it has no include guard) and undefines the macro; each uses the
 * arguments it needs, so nothing here needs a type.
 *
 *   key     the dotted path; the members of an object follow the object's own row
 *   kind    how the writer makes the value (identity.c): OBJECT, STR (a string, null when
 *           NULL), NUM (a number), COUNT (a long, null when negative), BOOL, MAYBE_BOOL (an
 *           int, null when negative), STRVEC (a struct strvec: an array of strings), PLUGIN
 *           (the key of the same name in a JSON file under <run>/plugins/, null when
 *           absent), JSON (a cJSON item made for it)
 *   value   where the run holds it: an expression over the run context `c` (runctx.h),
 *           read by identity.c only; for PLUGIN the file's name
 *   record  how struct zl_run keeps it (runload.h): NONE (in run->identity only), STRING,
 *           JOINED (an array of strings joined by " "), DEVICE_NAMES (the distinct
 *           devices[].name joined by ", "), REAL (NAN when null), LONG (-1 when null)
 *   member  its member of struct zl_run (_ when NONE)
 *   column  its column in the history's runs table (enum zl_history_col), -1 when none
 *
 * Adding a field: a row here, where it belongs in the document; its line in
 * docs/run-directory.md; a member of struct zl_run and a history column (a migration) only
 * when something reads it without the whole identity.
 */

/*                key                              kind        value                                                    record        member            column */
ZL_IDENTITY_FIELD("schema_version",                NUM,        ZL_IDENTITY_SCHEMA_VERSION,                              NONE,         _,                -1)
ZL_IDENTITY_FIELD("run_id",                        STR,        c->f.run_id,                                             STRING,       run_id,           ZL_HCOL_RUN_ID)
ZL_IDENTITY_FIELD("zlbench_version",               STR,        ZL_VERSION_STRING,                                       NONE,         _,                -1)
ZL_IDENTITY_FIELD("started_at",                    JSON,       utc_json(c->f.started_epoch, 1),                         STRING,       started_at,       ZL_HCOL_STARTED_AT)
ZL_IDENTITY_FIELD("finished_at",                   JSON,       utc_json(c->f.finished_epoch, !running(c)),              STRING,       finished_at,      ZL_HCOL_FINISHED_AT)
ZL_IDENTITY_FIELD("duration_s",                    JSON,       number_json(c->f.finished_epoch - c->f.started_epoch,
                                                                           !running(c)),                                REAL,         duration_s,       ZL_HCOL_DURATION_S)
ZL_IDENTITY_FIELD("host",                          STR,        c->f.host,                                               STRING,       host,             ZL_HCOL_HOST)
ZL_IDENTITY_FIELD("argv",                          JSON,       argv_json(c->self_argv),                                 NONE,         _,                -1)
ZL_IDENTITY_FIELD("child_argv",                    JSON,       argv_json(c->child_argv.v),                              NONE,         _,                -1)
ZL_IDENTITY_FIELD("backend",                       STR,        c->s->backend->name,                                     STRING,       backend,          ZL_HCOL_BACKEND)
ZL_IDENTITY_FIELD("backend_source",                STR,        zl_source_name(c->s->v[ZL_SET_BACKEND].source),          NONE,         _,                -1)
ZL_IDENTITY_FIELD("vendor",                        STR,        c->s->backend->vendor_name,                              STRING,       vendor,           ZL_HCOL_VENDOR)
ZL_IDENTITY_FIELD("devices",                       JSON,       devices_json(c),                                         DEVICE_NAMES, device_name,      ZL_HCOL_DEVICE_NAME)
ZL_IDENTITY_FIELD("devices_verified",              BOOL,       c->pf->devs.available,                                   NONE,         _,                -1)
ZL_IDENTITY_FIELD("devices_how",                   STR,        c->pf->devs.how,                                         NONE,         _,                -1)
ZL_IDENTITY_FIELD("visibility",                    OBJECT,     0,                                                       NONE,         _,                -1)
ZL_IDENTITY_FIELD("visibility.variable",           STR,        c->s->backend->visibility_var,                           NONE,         _,                -1)
ZL_IDENTITY_FIELD("visibility.value",              STR,        c->f.visibility_value,                                   NONE,         _,                -1)
ZL_IDENTITY_FIELD("level",                         STR,        c->s->level,                                             STRING,       level,            ZL_HCOL_LEVEL)
ZL_IDENTITY_FIELD("level_source",                  STR,        zl_source_name(c->s->v[ZL_SET_LEVEL].source),            NONE,         _,                -1)
ZL_IDENTITY_FIELD("shape_mode",                    STR,        c->s->shape_mode_file ? "file" : "upstream",             STRING,       shape_mode,       ZL_HCOL_SHAPE_MODE)
ZL_IDENTITY_FIELD("shape_file",                    OBJECT,     0,                                                       NONE,         _,                -1)
ZL_IDENTITY_FIELD("shape_file.path",               STR,        c->pf->shape_source,                                     NONE,         _,                -1)
ZL_IDENTITY_FIELD("shape_file.sha256",             STR,        c->pf->shape_sha256[0] ? c->pf->shape_sha256 : NULL,     STRING,       shape_sha256,     ZL_HCOL_SHAPE_SHA256)
ZL_IDENTITY_FIELD("shape_file.shapes_for_op",      COUNT,      c->pf->shapes_for_op,                                    NONE,         _,                -1)
/* draw: where integer and bool inputs were drawn (--draw-inputs); the rest: what zl_inputs replaced and drew */
ZL_IDENTITY_FIELD("inputs",                        OBJECT,     0,                                                       NONE,         _,                -1)
ZL_IDENTITY_FIELD("inputs.draw",                   STR,        c->s->draw_inputs,                                       NONE,         _,                -1)
ZL_IDENTITY_FIELD("inputs.replaced",               PLUGIN,     "inputs.json",                                           NONE,         _,                -1)
ZL_IDENTITY_FIELD("inputs.drawn_on_device",        PLUGIN,     "inputs.json",                                           NONE,         _,                -1)
ZL_IDENTITY_FIELD("test_node",                     STRVEC,     &c->pf->nodes.nodes,                                     JOINED,       test_node,        ZL_HCOL_TEST_NODE)
ZL_IDENTITY_FIELD("marker",                        STR,        c->pf->nodes.marker,                                     NONE,         _,                -1)
ZL_IDENTITY_FIELD("op",                            STR,        c->pf->nodes.op ? c->pf->nodes.op : c->pf->nodes.marker, STRING,       op,               ZL_HCOL_OP)
ZL_IDENTITY_FIELD("flaggems_mode",                 STR,        "kernel",                                                STRING,       flaggems_mode,    -1)
ZL_IDENTITY_FIELD("flaggems",                      OBJECT,     0,                                                       NONE,         _,                -1)
ZL_IDENTITY_FIELD("flaggems.dir",                  STR,        c->s->flaggems_dir,                                      NONE,         _,                -1)
ZL_IDENTITY_FIELD("flaggems.commit",               STR,        c->f.flaggems_commit,                                    STRING,       flaggems_commit,  ZL_HCOL_FLAGGEMS_COMMIT)
ZL_IDENTITY_FIELD("flaggems.dirty",                MAYBE_BOOL, c->f.flaggems_dirty,                                     NONE,         _,                -1)
ZL_IDENTITY_FIELD("flaggems.demo",                 JSON,       demo_json(c),                                            NONE,         _,                -1)
ZL_IDENTITY_FIELD("python",                        OBJECT,     0,                                                       NONE,         _,                -1)
ZL_IDENTITY_FIELD("python.path",                   STR,        c->pf->python_path,                                      NONE,         _,                -1)
ZL_IDENTITY_FIELD("python.version",                STR,        c->pf->python_version,                                   NONE,         _,                -1)
ZL_IDENTITY_FIELD("python.pytest",                 STR,        c->pf->pytest_version,                                   NONE,         _,                -1)
ZL_IDENTITY_FIELD("plugins",                       STRVEC,     &c->plan.plugins,                                        NONE,         _,                -1)
ZL_IDENTITY_FIELD("timer",                         OBJECT,     0,                                                       NONE,         _,                -1)
ZL_IDENTITY_FIELD("timer.plan",                    STR,        c->plan.timer,                                           STRING,       timer_plan,       ZL_HCOL_TIMER_PLAN)
ZL_IDENTITY_FIELD("timer.used",                    PLUGIN,     "timer_summary.json",                                    NONE,         _,                -1)
ZL_IDENTITY_FIELD("timer.profiler",                PLUGIN,     "timer_summary.json",                                    NONE,         _,                -1)
ZL_IDENTITY_FIELD("timer.graph",                   PLUGIN,     "timer_summary.json",                                    NONE,         _,                -1)
ZL_IDENTITY_FIELD("timer.direct",                  PLUGIN,     "timer_summary.json",                                    NONE,         _,                -1)
ZL_IDENTITY_FIELD("timer.fallbacks",               PLUGIN,     "timer_summary.json",                                    NONE,         _,                -1)
ZL_IDENTITY_FIELD("timer.noise_target",            PLUGIN,     "timer_summary.json",                                    NONE,         _,                -1)
ZL_IDENTITY_FIELD("timer.max_time_per_shape_s",    PLUGIN,     "timer_summary.json",                                    NONE,         _,                -1)
ZL_IDENTITY_FIELD("timer.clock_mhz",               PLUGIN,     "timer_summary.json",                                    NONE,         _,                -1)
ZL_IDENTITY_FIELD("timer.clock_source",            PLUGIN,     "timer_summary.json",                                    NONE,         _,                -1)
ZL_IDENTITY_FIELD("timer.dropped_throttled",       PLUGIN,     "timer_summary.json",                                    NONE,         _,                -1)
ZL_IDENTITY_FIELD("timer.profiler_call_mode",      PLUGIN,     "timer_summary.json",                                    NONE,         _,                -1)
ZL_IDENTITY_FIELD("timer.profiler_settle",         PLUGIN,     "timer_summary.json",                                    NONE,         _,                -1)
ZL_IDENTITY_FIELD("direct_repeat",                 NUM,        c->s->direct_repeat,                                     NONE,         _,                -1)
ZL_IDENTITY_FIELD("autotune",                      OBJECT,     0,                                                       NONE,         _,                -1)
ZL_IDENTITY_FIELD("autotune.mode",                 STR,        autotune_mode(c->s),                                     STRING,       autotune_mode,    ZL_HCOL_AUTOTUNE_MODE)
ZL_IDENTITY_FIELD("autotune.replay_from",          STR,        c->s->replay_from,                                       STRING,       replay_from,      -1)
ZL_IDENTITY_FIELD("autotune.replay_run_id",        JSON,       replay_run_id(c->s->replay_from),                        NONE,         _,                -1)
ZL_IDENTITY_FIELD("autotune.replay_miss",          STR,        c->s->replay_from ? c->s->replay_miss : NULL,            NONE,         _,                -1)
/* kernels: the tuned ones, so that compare can tell whether two runs share a tuner's winners */
ZL_IDENTITY_FIELD("autotune.recorded",             PLUGIN,     "autotune_summary.json",                                 NONE,         _,                -1)
ZL_IDENTITY_FIELD("autotune.pinned",               PLUGIN,     "autotune_summary.json",                                 NONE,         _,                -1)
ZL_IDENTITY_FIELD("autotune.missed",               PLUGIN,     "autotune_summary.json",                                 NONE,         _,                -1)
ZL_IDENTITY_FIELD("autotune.tuned_on_miss",        PLUGIN,     "autotune_summary.json",                                 NONE,         _,                -1)
ZL_IDENTITY_FIELD("autotune.no_tuner",             PLUGIN,     "autotune_summary.json",                                 NONE,         _,                -1)
ZL_IDENTITY_FIELD("autotune.no_tuner_earlier",     PLUGIN,     "autotune_summary.json",                                 NONE,         _,                -1)
ZL_IDENTITY_FIELD("autotune.kernels",              PLUGIN,     "autotune_summary.json",                                 NONE,         _,                -1)
ZL_IDENTITY_FIELD("autotune.replay_conflicts",     PLUGIN,     "autotune_summary.json",                                 NONE,         _,                -1)
ZL_IDENTITY_FIELD("tuner_cache",                   OBJECT,     0,                                                       NONE,         _,                -1)
ZL_IDENTITY_FIELD("tuner_cache.mode",              STR,        c->s->isolate ? "isolated" : "shared",                   STRING,       tuner_cache_mode, ZL_HCOL_TUNER_CACHE_MODE)
ZL_IDENTITY_FIELD("tuner_cache.path",              STR,        c->f.flaggems_cache,                                     NONE,         _,                -1)
ZL_IDENTITY_FIELD("tuner_cache.winners_before",    COUNT,      c->f.winners_before,                                     LONG,         winners_before,   -1)
ZL_IDENTITY_FIELD("tuner_cache.winners_after",     COUNT,      c->f.winners_after,                                      NONE,         _,                -1)
ZL_IDENTITY_FIELD("tuner_cache.configs_before",    COUNT,      c->f.configs_before,                                     NONE,         _,                -1)
ZL_IDENTITY_FIELD("tuner_cache.configs_after",     COUNT,      c->f.configs_after,                                      NONE,         _,                -1)
ZL_IDENTITY_FIELD("tuner_cache.note",              STR,        c->f.tuner_note,                                         NONE,         _,                -1)
ZL_IDENTITY_FIELD("tuner_cache.note_before",       STR,        c->f.tuner_note_before,                                  NONE,         _,                -1)
ZL_IDENTITY_FIELD("tuner_cache.note_after",        STR,        c->f.tuner_note_after,                                   NONE,         _,                -1)
/* FLAGGEMS_DB_URL: the child's tuner database is not the one counted, or it was removed */
ZL_IDENTITY_FIELD("tuner_cache.db_url",            STR,        db_url_note(c->s),                                       NONE,         _,                -1)
ZL_IDENTITY_FIELD("tuner_cache.removed",           BOOL,       c->s->isolate && !running(c),                            NONE,         _,                -1)
ZL_IDENTITY_FIELD("tuner_cache.tables",            JSON,       tuner_tables_json(&c->f),                                NONE,         _,                -1)
ZL_IDENTITY_FIELD("triton_cache",                  OBJECT,     0,                                                       NONE,         _,                -1)
ZL_IDENTITY_FIELD("triton_cache.mode",             STR,        c->s->isolate ? "isolated" : "shared",                   NONE,         _,                -1)
ZL_IDENTITY_FIELD("triton_cache.path",             STR,        c->f.triton_cache,                                       NONE,         _,                -1)
ZL_IDENTITY_FIELD("compile",                       OBJECT,     0,                                                       NONE,         _,                -1)
ZL_IDENTITY_FIELD("compile.variants",              COUNT,      c->f.compile_variants,                                   NONE,         _,                -1)
ZL_IDENTITY_FIELD("compile.convert_layout",        COUNT,      c->f.compile_convert_layout,                             NONE,         _,                -1)
ZL_IDENTITY_FIELD("compile.note",                  STR,        c->f.compile_note,                                       NONE,         _,                -1)
ZL_IDENTITY_FIELD("vendor_guard",                  JSON,       plugin_json(c->run_dir, "vendor.json"),                  NONE,         _,                -1)
ZL_IDENTITY_FIELD("foreign_vendor",                JSON,       plugin_json(c->run_dir, "foreign_vendor.json"),          NONE,         _,                -1)
ZL_IDENTITY_FIELD("scheduler",                     JSON,       env_object(ZL_ENV_SCHEDULER),                              NONE,         _,                -1)
ZL_IDENTITY_FIELD("warmup",                        JSON,       env_object(ZL_ENV_WARMUP),                                 NONE,         _,                -1)
ZL_IDENTITY_FIELD("start",                         JSON,       c->f.start ? cJSON_Duplicate(c->f.start, 1)
                                                                          : zl_worker_start_json(NULL, NULL),           NONE,         _,                -1)
ZL_IDENTITY_FIELD("env",                           JSON,       env_json(&c->child_env, c->s->backend),                  NONE,         _,                -1)
ZL_IDENTITY_FIELD("status",                        STR,        c->f.status,                                             STRING,       status,           ZL_HCOL_STATUS)
ZL_IDENTITY_FIELD("exit_code",                     JSON,       number_json(c->f.exit_code,
                                                                           !running(c) && c->f.exit_code >= 0),         LONG,         exit_code,        ZL_HCOL_EXIT_CODE)
ZL_IDENTITY_FIELD("signal",                        JSON,       number_json(c->f.signal, c->f.signal > 0),               NONE,         _,                -1)
ZL_IDENTITY_FIELD("reason",                        STR,        c->f.reason,                                             NONE,         _,                -1)

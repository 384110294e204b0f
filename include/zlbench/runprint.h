/*
 * What a run prints: the header on stderr before the child starts (the caliber, one line
 * each: backend, devices, FlagGems, level, shapes, nodes, plugins, timer, tuner cache,
 * replay, run directory), the summary table on stdout once it ended (from the run's
 * record), and the footer on stderr (status, timer used, clock, autotune, foreign vendors,
 * compile and tuner counts). Nothing with --quiet but the summary's absence.
 */
#ifndef ZLBENCH_RUNPRINT_H
#define ZLBENCH_RUNPRINT_H

#include <stdio.h>
#include <cjson/cJSON.h>

#include "runctx.h"
#include "runload.h"

void zl_run_print_header(const struct zl_run_ctx *c);
/* The table of the run's rows: op, dtype, shape, torch and gems latency, speedup; then its notes. */
void zl_run_print_summary(const struct zl_run *run, FILE *out);
/*
 * The closing lines: status and duration; from the finished identity (NULL when there is
 * none) the timer used, the clock, the autotune counts and foreign vendors; compile stats
 * and winners.
 */
void zl_run_print_footer(const struct zl_run_facts *f, const cJSON *identity, FILE *out);

#endif

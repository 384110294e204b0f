/*
 * results.json of a run directory (FlagGems' --record json output), through every reader:
 * zl_run_load (compare, history, the run summary), compare's rows, verdicts and renderers,
 * compare --efficiency, and push's document. Invariants: every loaded row is found again by
 * its own key, a run compared with itself has no row faster or slower, each row's bytes
 * and FLOPs (efficiency.h) are unknown or a count >= 0, each with its rule, and the
 * row-by-row scan of results.json (jscan.h) loads exactly the rows and notes the whole
 * tree does.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "zlbench/compare.h"
#include "zlbench/efficiency.h"
#include "zlbench/push.h"
#include "zlbench/push_doc.h"
#include "zlbench/runload.h"
#include "zlbench/strbuf.h"

static const char identity[] =
	"{\"schema_version\": 1, \"run_id\": \"20260101-000000-cuda-mm-fuzz00\", \"status\": \"passed\","
	" \"exit_code\": 0, \"backend\": \"cuda\", \"level\": \"core\", \"op\": \"mm\"}\n";

static void check_rows(const struct zl_run *run)
{
	size_t i;

	for (i = 0; i < run->nr_results; i++) {
		const struct zl_result *r = &run->results[i];

		if (r->occurrence < 1 || zl_run_find(run, r->op, r->dtype, r->shape, r->occurrence, r->side) != r)
			fuzz_fail("row %zu (%s %s %s #%d) is not found by its own key", i, r->op, r->dtype, r->shape,
				  r->occurrence);
	}
}

static void check_counts(const struct zl_run *run)
{
	size_t i;

	for (i = 0; i < run->nr_results; i++) {
		const struct zl_result *r = &run->results[i];
		struct zl_eff_counts c;

		zl_eff_counts_init(&c);
		zl_eff_count(r->op, r->dtype, r->shape, r->fg_bytes, r->fg_flops, &c);
		if (!(c.bytes >= 0 || c.bytes != c.bytes) || !(c.flops >= 0 || c.flops != c.flops) || !c.bytes_rule ||
		    !c.flops_rule)
			fuzz_fail("row %zu (%s %s %s): bytes %g, FLOPs %g", i, r->op, r->dtype, r->shape, c.bytes, c.flops);
		zl_eff_counts_release(&c);
	}
}

static void compare_with_itself(const struct zl_run *run)
{
	struct zl_compare_opts opts = ZL_COMPARE_OPTS_INIT;
	struct zl_compare c;
	struct strbuf sb = STRBUF_INIT, err = STRBUF_INIT;
	FILE *null = fopen("/dev/null", "w");
	size_t i;

	opts.resamples = 20;
	opts.fail_pct = 1;
	zl_compare_init(&c);
	zl_compare_runs(run, run, &opts, &c);
	for (i = 0; i < c.nr_rows; i++)
		if (c.rows[i].verdict == ZL_VERDICT_FASTER || c.rows[i].verdict == ZL_VERDICT_SLOWER)
			fuzz_fail("row %zu of a run compared with itself is %s (%g vs %g ms)", i,
				  zl_verdict_name(c.rows[i].verdict), c.rows[i].a_ms, c.rows[i].b_ms);
	if (zl_compare_render_json(&c, &sb, &err))
		fuzz_fail("compare's json: %s", err.buf);
	zl_compare_render_csv(&c, &sb);
	zl_compare_render_markdown(&c, NULL, &sb);
	if (null) {
		zl_compare_print_text(&c, NULL, null);
		zl_compare_print_efficiency(&c, null, 0);
		fclose(null);
	}
	zl_compare_release(&c);
	strbuf_release(&sb);
	strbuf_release(&err);
}

static int same_num(double a, double b)
{
	return (isnan(a) && isnan(b)) || a == b;
}

/* The scan and the whole tree read the same rows and say the same notes. */
static void same_as_tree(const char *dir, const struct zl_run *scanned)
{
	struct strbuf err = STRBUF_INIT;
	struct zl_run tree;
	size_t i;

	zl_run_init(&tree);
	zl_runload_whole_tree = 1;
	if (zl_run_load(dir, &tree, &err))
		fuzz_fail("the run did not load as a tree: %s", err.buf);
	zl_runload_whole_tree = 0;
	if (tree.nr_results != scanned->nr_results || tree.has_results != scanned->has_results ||
	    tree.notes.nr != scanned->notes.nr)
		fuzz_fail("scan: %zu rows, %zu notes; tree: %zu rows, %zu notes", scanned->nr_results,
			  scanned->notes.nr, tree.nr_results, tree.notes.nr);
	for (i = 0; i < tree.notes.nr; i++)
		if (strcmp(tree.notes.v[i], scanned->notes.v[i]))
			fuzz_fail("note %zu: scan '%s', tree '%s'", i, scanned->notes.v[i], tree.notes.v[i]);
	for (i = 0; i < tree.nr_results; i++) {
		const struct zl_result *a = &scanned->results[i], *b = &tree.results[i];

		if (strcmp(a->op, b->op) || strcmp(a->dtype, b->dtype) || strcmp(a->shape, b->shape) ||
		    a->occurrence != b->occurrence || a->side != b->side || !same_num(a->latency_ms, b->latency_ms) ||
		    !same_num(a->latency_base_ms, b->latency_base_ms) || !same_num(a->speedup, b->speedup) ||
		    !same_num(a->fg_bytes, b->fg_bytes) || !same_num(a->fg_flops, b->fg_flops) ||
		    (!a->error_msg != !b->error_msg) || (a->error_msg && strcmp(a->error_msg, b->error_msg)))
			fuzz_fail("row %zu differs: scan %s %s %s, tree %s %s %s", i, a->op, a->dtype, a->shape, b->op,
				  b->dtype, b->shape);
	}
	zl_run_release(&tree);
	strbuf_release(&err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char *dir;
	struct strbuf err = STRBUF_INIT;
	struct zl_run run;
	char *doc = NULL, *name = NULL;

	if (!dir) {
		dir = fuzz_path("run");
		fuzz_write("run/run_identity.json", identity, strlen(identity));
	}
	fuzz_write("run/results.json", data, size);
	zl_run_init(&run);
	if (zl_run_load(dir, &run, &err))
		fuzz_fail("the run did not load: %s", err.buf);
	check_rows(&run);
	check_counts(&run);
	same_as_tree(dir, &run);
	compare_with_itself(&run);
	zl_run_release(&run);
	if (!zl_push_build_document(dir, &doc, &name, &err) && (!doc || !name))
		fuzz_fail("push built no document");
	free(doc);
	free(name);
	strbuf_release(&err);
	return 0;
}

/*
 * What a batch's cost table reads: a run's plugins/timer_summary.json ("cost") and the
 * batch's workers/events.jsonl, both this input. zl_cost_parse and zl_batch_startups_parse
 * on the bytes, then zl_batch_costs_load over a batch directory holding them, and the
 * files zl_batch_costs_write makes. Invariants: a part is NAN or a finite number >= 0 (never
 * made up); a start-up is finite and >= 0; costs.json reads back with its schema.
 */
#include <math.h>
#include <stdlib.h>

#include <cjson/cJSON.h>

#include "fuzz.h"
#include "zlbench/batch.h"
#include "zlbench/batch_costs.h"
#include "zlbench/fsutil.h"
#include "zlbench/json.h"
#include "zlbench/strbuf.h"
#include "zlbench/util.h"

static void check_parts(const double *v, const char *what)
{
	int p;

	for (p = 0; p < ZL_COST__COUNT; p++)
		if (!isnan(v[p]) && !(isfinite(v[p]) && v[p] >= 0))
			fuzz_fail("%s: %s is %g", what, zl_cost_key(p), v[p]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char *dir;
	static const char rows[] = "op,status,wall_s,run_dir,attempt\r\nmm,passed,3.5,runs/mm,1\r\n";
	struct zl_batch_config c;
	struct zl_batch_costs k;
	struct zl_batch_startups s;
	struct strbuf err = STRBUF_INIT, text = STRBUF_INIT;
	double v[ZL_COST__COUNT];
	char *path;
	cJSON *doc;
	size_t i;

	if (!dir)
		dir = fuzz_path("batch");
	(void)zl_cost_parse((const char *)data, size, v);
	check_parts(v, "zl_cost_parse");
	zl_batch_startups_init(&s);
	zl_batch_startups_parse((const char *)data, size, &s);
	for (i = 0; i < s.nr; i++)
		if (!isfinite(s.wall[i]) || s.wall[i] < 0)
			fuzz_fail("a start-up of %g s", s.wall[i]);
	zl_batch_startups_release(&s);

	fuzz_write("batch/ops_status.csv", rows, sizeof(rows) - 1);
	fuzz_write("batch/runs/mm/plugins/timer_summary.json", data, size);
	fuzz_write("batch/workers/events.jsonl", data, size);
	zl_batch_config_init(&c);
	c.dir = xstrdup(dir);
	strvec_push(&c.ops, "mm");
	zl_batch_costs_init(&k);
	zl_batch_costs_load(&c, &k);
	if (k.nr != 1)
		fuzz_fail("%zu ops from one row", k.nr);
	check_parts(k.v[0].v, "the op");
	if (zl_batch_costs_write(dir, &k, &err))
		fuzz_fail("cannot write the cost files: %s", err.buf);
	path = zl_path_join(dir, ZL_BATCH_COSTS_JSON);
	if (zl_read_file(&text, path, NULL, ZL_CAP_DOC, &err))
		fuzz_fail("costs.json: %s", err.buf);
	doc = cJSON_Parse(text.buf);
	if (!zl_json_path_string(doc, "schema"))
		fuzz_fail("costs.json does not read back");
	cJSON_Delete(doc);
	free(path);
	zl_batch_costs_release(&k);
	zl_batch_config_release(&c);
	strbuf_release(&err);
	strbuf_release(&text);
	return 0;
}

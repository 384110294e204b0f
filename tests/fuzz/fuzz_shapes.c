/*
 * Shape files (--shape-file, FlagGems' core_shapes.yaml): zl_shapes_parse, then what a run
 * asks of the document: the entry of an op (by key and by class fallbacks), its count, the
 * flow rendering, and the shapes.yaml archive, which must read back.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "zlbench/shapes.h"
#include "zlbench/strbuf.h"

static const char *const fallbacks[] = { "BlasBenchmark", "UnaryPointwiseBenchmark", "Benchmark", NULL };

static void query(const struct zl_shapes_doc *doc, const char *op)
{
	struct zl_shapes_archive a = { op, "comprehensive", "file", "fuzz.yaml", "0", fallbacks };
	struct zl_shapes_entry e;
	struct zl_shapes_doc *back = NULL;
	struct strbuf sb = STRBUF_INIT, err = STRBUF_INIT;

	(void)zl_shapes_has_op(doc, op);
	(void)zl_shapes_count(doc, op);
	if (!zl_shapes_find(doc, op, fallbacks, &e) && e.shapes)
		zl_yaml_flow(&sb, e.shapes);
	strbuf_reset(&sb);
	if (zl_shapes_archive_render(doc, &a, &sb, &err))
		return;
	/* the archive is YAML that zlbench itself reads back */
	if (zl_shapes_parse(sb.buf, sb.len, "archive", &back, &err))
		fuzz_fail("the archive of op '%s' does not read back: %s\n%s", op, err.buf, sb.buf);
	zl_shapes_free(back);
	strbuf_release(&sb);
	strbuf_release(&err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct zl_shapes_doc *doc = NULL;
	struct strbuf err = STRBUF_INIT, flow = STRBUF_INIT;
	long n;

	if (zl_shapes_parse((const char *)data, size, "fuzz.yaml", &doc, &err)) {
		if (doc || !err.len)
			fuzz_fail("a refused file left a document or no message");
		strbuf_release(&err);
		return 0;
	}
	if (doc->root->kind != ZL_YAML_MAP)
		fuzz_fail("the top level is not a mapping");
	zl_yaml_flow(&flow, doc->root);
	query(doc, "mm");
	if (doc->root->nr)
		query(doc, doc->root->keys[0]);
	if (doc->root->nr && zl_yaml_to_long(doc->root->items[0], &n) == 0 && doc->root->items[0]->kind != ZL_YAML_SCALAR)
		fuzz_fail("a non-scalar read as an integer");
	zl_shapes_free(doc);
	strbuf_release(&err);
	strbuf_release(&flow);
	return 0;
}

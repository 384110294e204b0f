/*
 * A batch's ops_status.csv, read on --resume and by the summary: zl_batch_rows_parse (RFC
 * 4180 records, the header naming the columns). Invariants: the complete part is within the
 * text; rendering the parsed rows and parsing that again gives the same rows.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "zlbench/batch.h"
#include "zlbench/strbuf.h"

static int same(const char *a, const char *b)
{
	return !strcmp(a ? a : "", b ? b : "");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct zl_batch_rows rows = ZL_BATCH_ROWS_INIT, again = ZL_BATCH_ROWS_INIT;
	struct strbuf err = STRBUF_INIT, text = STRBUF_INIT;
	size_t complete = 0, complete2 = 0, i, c;

	if (zl_batch_rows_parse((const char *)data, size, &rows, &complete, &err))
		goto out;
	if (complete > size)
		fuzz_fail("complete length %zu past the text's %zu bytes", complete, size);
	zl_batch_row_render(NULL, &text);
	for (i = 0; i < rows.nr; i++) {
		zl_batch_row_render(&rows.v[i], &text);
		if (rows.v[i].v[ZL_BCOL_OP])
			(void)zl_batch_rows_last(&rows, rows.v[i].v[ZL_BCOL_OP]);
		(void)zl_batch_status_final(rows.v[i].v[ZL_BCOL_STATUS] ? rows.v[i].v[ZL_BCOL_STATUS] : "", 1);
	}
	if (zl_batch_rows_parse(text.buf, text.len, &again, &complete2, &err))
		fuzz_fail("the rendered rows do not parse: %s\n%s", err.buf, text.buf);
	if (again.nr != rows.nr || complete2 != text.len)
		fuzz_fail("%zu rows rendered, %zu read back", rows.nr, again.nr);
	for (i = 0; i < rows.nr; i++)
		for (c = 0; c < ZL_BCOL__COUNT; c++)
			if (!same(rows.v[i].v[c], again.v[i].v[c]))
				fuzz_fail("row %zu column %s: '%s' read back as '%s'", i, zl_batch_columns[c],
					  rows.v[i].v[c], again.v[i].v[c]);
out:
	zl_batch_rows_release(&rows);
	zl_batch_rows_release(&again);
	strbuf_release(&err);
	strbuf_release(&text);
	return 0;
}

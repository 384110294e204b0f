/* results/rowview: the sections of compared rows, their order, the groups of unsure rows, the width. */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "zlbench/rowview.h"
#include "zlbench/util.h"

static struct zl_view_row *row(struct zl_view *v, const char *shape, enum zl_side side, double a, double b,
			       enum zl_verdict verdict)
{
	struct zl_view_row *r = zl_view_add(v);

	r->op = "mm";
	r->dtype = "torch.float16";
	r->shape = shape;
	r->occurrence = 1;
	r->side = side;
	r->a_ms = a;
	r->b_ms = b;
	r->ratio = b / a;
	r->verdict = verdict;
	return r;
}

static char *printed(const struct zl_view *v, const struct zl_view_opts *o,
		     void (*section)(const struct zl_view *, const struct zl_view_opts *, FILE *))
{
	/* the stream's buffer lives on the heap, not in this frame: gcc 12's -Wdangling-pointer
	   (Release) takes a pointer into a local buffer's memory for a pointer to the local */
	struct { char *buf; size_t len; } *m = calloc(1, sizeof(*m));
	FILE *f;
	char *out;

	assert_non_null(m);
	f = open_memstream(&m->buf, &m->len);
	assert_non_null(f);
	section(v, o, f);
	assert_int_equal(fclose(f), 0);
	out = m->buf;
	free(m);
	return out;
}

/* The index of needle in hay (it must be there). */
static size_t at(const char *hay, const char *needle)
{
	const char *p = strstr(hay, needle);

	assert_non_null(p);
	return (size_t)(p - hay);
}

static void fill(struct zl_view *v)
{
	struct zl_view_row *r;

	zl_view_init(v);
	row(v, "[[1024, 1024]]", ZL_SIDE_TORCH, 0.010, 0.020, ZL_VERDICT_SLOWER);
	row(v, "[[1024, 1024]]", ZL_SIDE_GEMS, 0.100, 0.110, ZL_VERDICT_SLOWER);
	row(v, "[[384, 384]]", ZL_SIDE_GEMS, 0.200, 0.100, ZL_VERDICT_FASTER);
	row(v, "[[4096, 4096]]", ZL_SIDE_GEMS, 2.000, 2.001, ZL_VERDICT_SAME);
	r = row(v, "[[2048, 2048]]", ZL_SIDE_GEMS, 0.300, 0.309, ZL_VERDICT_UNSURE);
	r->unsure = ZL_UNSURE_OVERLAP;
	r->advice = "interleave";
	r = row(v, "[[8, 8]]", ZL_SIDE_GEMS, 0.004, 0.0041, ZL_VERDICT_UNSURE);
	r->unsure = ZL_UNSURE_FEW_SAMPLES;
	r->advice = "more samples";
	r = row(v, "[[16, 16]]", ZL_SIDE_GEMS, 0.005, 0.0052, ZL_VERDICT_UNSURE);
	r->unsure = ZL_UNSURE_OVERLAP;
	r->advice = "interleave";
}

/* Changed rows: gems first, then by the size of the change; by name, numbers as numbers. */
static void test_changed_order(void **state)
{
	struct zl_view_opts o = ZL_VIEW_OPTS_INIT;
	struct zl_view v;
	struct strbuf sb = STRBUF_INIT;
	char *out;

	(void)state;
	fill(&v);
	zl_view_settle(&v, &o);
	assert_int_equal(v.unit, ZL_UNIT_US);
	out = printed(&v, &o, zl_view_print_changed);
	assert_non_null(strstr(out, "changed: 3 of 7 rows (2 slower, 1 faster), gems first, largest change first:"));
	/* gems: 384 (-50 %) before 1024 (+10 %); torch (+100 %) after both */
	assert_true(at(out, "[[384, 384]]") < at(out, "[[1024, 1024]]  gems"));
	assert_true(at(out, "[[1024, 1024]]  gems") < at(out, "torch"));
	assert_non_null(strstr(out, "float16"));
	assert_null(strstr(out, "torch.float16"));
	assert_non_null(strstr(out, "-50.0%"));
	free(out);
	o.sort = ZL_SORT_NAME;
	out = printed(&v, &o, zl_view_print_changed);
	assert_true(at(out, "[[384, 384]]") < at(out, "[[1024, 1024]]  gems"));
	free(out);
	zl_view_counts(&v, ZL_SIDE_GEMS, &sb);
	assert_string_equal(sb.buf, "1 slower, 1 faster, 3 unsure, 1 same");
	strbuf_release(&sb);
	zl_view_release(&v);
}

/* Unsure rows grouped by kind, then advice: two groups, one advice line each; --only-changed: none. */
static void test_unsure_groups(void **state)
{
	struct zl_view_opts o = ZL_VIEW_OPTS_INIT;
	struct zl_view v;
	char *out;

	(void)state;
	fill(&v);
	zl_view_settle(&v, &o);
	out = printed(&v, &o, zl_view_print_unsure);
	assert_non_null(strstr(out, "unsure: 3 rows, by reason"));
	/* too few samples comes before the interval's overlap (enum order); each advice once */
	assert_true(at(out, "too few samples: 1 row") < at(out, "interval overlaps the threshold: 2 rows"));
	assert_non_null(strstr(out, "advice: interleave\n"));
	assert_null(strstr(strstr(out, "advice: interleave\n") + 1, "advice: interleave"));
	free(out);
	out = printed(&v, &o, zl_view_print_rest);
	assert_string_equal(out, "same: 1 row, not listed (--all lists them)\n\n");
	free(out);
	o.only_changed = 1;
	out = printed(&v, &o, zl_view_print_unsure);
	assert_string_equal(out, "");
	free(out);
	zl_view_release(&v);
}

/* A narrow width drops the columns in their order; --time-unit fixes the unit. */
static void test_width_unit(void **state)
{
	struct zl_view_opts o = ZL_VIEW_OPTS_INIT;
	struct zl_view v;
	char *out;

	(void)state;
	fill(&v);
	v.method = 1;
	v.rows[1].method = xstrdup("samples 200/200");
	o.unit = ZL_UNIT_NS;
	zl_view_settle(&v, &o);
	out = printed(&v, &o, zl_view_print_changed);
	assert_non_null(strstr(out, "95% CI"));
	assert_non_null(strstr(out, "samples 200/200"));
	assert_non_null(strstr(out, "A ns"));
	assert_non_null(strstr(out, "100000"));
	free(out);
	o.width = 80;
	out = printed(&v, &o, zl_view_print_changed);
	assert_null(strstr(out, "95% CI"));
	free(out);
	zl_view_release(&v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_changed_order),
		cmocka_unit_test(test_unsure_groups),
		cmocka_unit_test(test_width_unit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

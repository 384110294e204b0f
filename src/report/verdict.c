/*
 * The answer every page opens with (parts.h): one line under the title with the counts
 * and the geomean at the precision its interval supports.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zlbench/compare.h"
#include "zlbench/report/html.h"
#include "zlbench/report/parts.h"
#include "zlbench/util.h"
#include "zlbench/banned.h"

void zl_report_verdict_begin(struct strbuf *out)
{
	strbuf_addstr(out, "<p class=\"verdict\" id=\"verdict\">");
}

void zl_report_verdict_end(struct strbuf *out)
{
	strbuf_addstr(out, "</p>\n");
}

void zl_report_count(struct strbuf *out, size_t n, const char *one, const char *many, const char *cls)
{
	if (cls)
		strbuf_addf(out, "<span class=\"%s\">", cls);
	zl_html_textf(out, "%zu %s", n, zl_plural(n, one, many));
	if (cls)
		strbuf_addstr(out, "</span>");
}

void zl_report_speedups(struct strbuf *out, const double *speedups, size_t n, const char *unit_one,
			const char *unit_many)
{
	double *ok = xcalloc(n ? n : 1, sizeof(*ok));
	struct zl_geomean g;
	struct strbuf t = STRBUF_INIT;
	size_t i, m = 0, faster = 0, slower = 0;

	for (i = 0; i < n; i++)
		if (isfinite(speedups[i]) && speedups[i] > 0) {
			ok[m++] = speedups[i];
			faster += speedups[i] > 1;
			slower += speedups[i] < 1;
		}
	if (!m) {
		zl_html_textf(out, "no speedup: none of the %zu %s has a latency on both sides", n,
			      zl_plural(n, unit_one, unit_many));
		free(ok);
		return;
	}
	strbuf_addstr(out, "FlagGems is faster on ");
	zl_report_count(out, faster, unit_one, unit_many, faster ? "v-faster" : NULL);
	strbuf_addstr(out, " and slower on ");
	zl_report_count(out, slower, unit_one, unit_many, slower ? "v-slower" : NULL);
	zl_html_textf(out, " of %zu; geomean speedup ", m);
	memset(&g, 0, sizeof(g));
	zl_geomean_ci(ok, m, m > 1 ? ZL_BOOTSTRAP_RESAMPLES : 0, ZL_BOOTSTRAP_SEED, &g);
	zl_report_ratio_ci(&t, g.geomean, g.lo, g.hi);
	strbuf_addf(out, "<strong class=\"%s\">", g.geomean < 1 ? "v-slower" : "v-faster");
	zl_html_escape(out, t.buf);
	strbuf_addstr(out, "</strong>");
	if (m > 1)
		zl_html_textf(out, " over %s", unit_many);
	strbuf_release(&t);
	free(ok);
}

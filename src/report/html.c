#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "zlbench/report/html.h"
#include "zlbench/util.h"
#include "zlbench/banned.h"

/*
 * One stylesheet for every page. Colours are variables so that dark mode and
 * print swap them in one place; the charts use the same variables through their
 * classes (svg.c). No font or image is fetched: system fonts only.
 */
static const char stylesheet[] =
	":root{color-scheme:light dark;--bg:#fff;--fg:#1f2328;--mut:#59636e;--line:#d1d9e0;"
	"--grid:#e8ecf0;--box:#f6f8fa;--win:#1a7f37;--loss:#cf222e;--same:#818b98;--uns:#9a6700;"
	"--torch:#818b98;--gems:#0969da;--warnbg:#fff8c5;--badbg:#ffebe9;--okbg:#dafbe1;"
	"--passed:#2da44e;--failed:#cf222e;--timeout:#bc4c00;--crashed:#8250df;--interrupted:#818b98;"
	"--preflight:#9a6700;--running:#0969da}\n"
	"@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--mut:#9198a1;"
	"--line:#3d444d;--grid:#21262d;--box:#151b23;--win:#3fb950;--loss:#f85149;--same:#8b949e;"
	"--uns:#d29922;--torch:#8b949e;--gems:#4493f8;--warnbg:#332701;--badbg:#3c1618;--okbg:#122d1a;"
	"--passed:#3fb950;--failed:#f85149;--timeout:#db6d28;--crashed:#ab7df8;--interrupted:#8b949e;"
	"--preflight:#d29922;--running:#4493f8}}\n"
	"*{box-sizing:border-box}\n"
	"body{margin:0;background:var(--bg);color:var(--fg);"
	"font:15px/1.45 system-ui,-apple-system,\"Segoe UI\",Roboto,sans-serif}\n"
	"main{max-width:75rem;margin:0 auto;padding:.75rem 1.25rem 2.5rem}\n"
	"h1{font-size:1.45rem;margin:.3rem 0 .1rem;overflow-wrap:anywhere}\n"
	"h2{font-size:1.2rem;margin:1.8rem 0 .5rem;padding-bottom:.2rem;border-bottom:1px solid var(--line)}\n"
	"h3{font-size:1.02rem;margin:1.2rem 0 .3rem;overflow-wrap:anywhere}\n"
	"p{margin:.4rem 0}.sub{color:var(--mut);margin:0 0 .6rem;overflow-wrap:anywhere}\n"
	".verdict{font-size:1.05rem;margin:.35rem 0 .3rem;overflow-wrap:anywhere}.eff{overflow-wrap:anywhere}\n"
	"pre.why{white-space:pre-wrap;overflow-wrap:anywhere;margin:.3rem 0;font-size:.8rem}"
	"td details{margin:0}td summary{font-weight:400}\n"
	"code,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.88em}\n"
	".cal{display:grid;grid-template-columns:repeat(auto-fill,minmax(15rem,1fr));gap:.35rem 1.2rem;"
	"margin:.5rem 0;padding:.6rem .8rem;background:var(--box);border:1px solid var(--line);border-radius:6px}\n"
	".cal div{min-width:0;overflow-wrap:anywhere;font-size:.9rem}\n"
	".cal b{display:block;color:var(--mut);font-weight:600;font-size:.75rem;text-transform:uppercase;"
	"letter-spacing:.03em}\n"
	".nr{color:var(--mut);font-style:italic}\n"
	".warn,.bad,.ok{margin:.5rem 0;padding:.45rem .8rem;border-left:4px solid var(--uns);"
	"background:var(--warnbg);border-radius:0 6px 6px 0;overflow-wrap:anywhere}\n"
	".bad{border-left-color:var(--loss);background:var(--badbg)}\n"
	".ok{border-left-color:var(--win);background:var(--okbg)}\n"
	".warn ul,.bad ul,.ok ul{margin:.2rem 0 0;padding-left:1.2rem}\n"
	".scroll{overflow-x:auto;max-width:100%}\n"
	"table{border-collapse:collapse;font-size:.84rem;font-variant-numeric:tabular-nums;margin:.3rem 0}\n"
	"caption{text-align:left;color:var(--mut);padding:.2rem 0}\n"
	"th,td{padding:.22rem .55rem;border-bottom:1px solid var(--line);text-align:left;white-space:nowrap}\n"
	"th{background:var(--box);position:sticky;top:0}\n"
	"td.n{text-align:right}td.wrap{white-space:normal;min-width:14rem}\n"
	".caltab th{position:static;text-align:left;vertical-align:top}.caltab tbody th{font-weight:600;color:var(--mut)}"
	".caltab td,.caltab th{white-space:normal;overflow-wrap:anywhere;min-width:5.5rem}"
	".caltab tr.diff th,.caltab tr.diff td{background:var(--warnbg);color:var(--fg)}\n"
	".v-passed,.v-faster,.v-pass{color:var(--win)}.v-failed,.v-slower,.v-fail,.v-crashed{color:var(--loss)}"
	".v-timeout,.v-unsure,.v-preflight_failed,.v-missing{color:var(--uns)}.v-interrupted,.v-same{color:var(--mut)}\n"
	"figure{margin:.8rem 0 1.2rem}\n"
	"figcaption{color:var(--mut);font-size:.84rem;margin-top:.2rem}\n"
	".chart{display:block;width:100%;height:auto;min-width:34rem;max-width:60rem}\n"
	".small .chart{min-width:0;max-width:100%}\n"
	".grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(22rem,1fr));gap:0 1.2rem}\n"
	".grid figure{margin:.4rem 0 .8rem;min-width:0}\n"
	"details{margin:.4rem 0}summary{cursor:pointer;font-weight:600}\n"
	"footer{color:var(--mut);font-size:.8rem;border-top:1px solid var(--line);margin-top:2rem;padding-top:.5rem}\n"
	".legend{font-size:.84rem;color:var(--mut);margin:.2rem 0}.legend span{margin-right:1.1em;white-space:nowrap}"
	".lt{color:var(--torch)}.lg{color:var(--gems)}.c-passed{color:var(--passed)}.c-failed{color:var(--failed)}"
	".c-timeout{color:var(--timeout)}.c-crashed{color:var(--crashed)}.c-interrupted{color:var(--interrupted)}"
	".c-preflight_failed{color:var(--preflight)}\n"
	"svg text{fill:var(--fg);font-size:12px;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}\n"
	"svg .tl{fill:var(--mut)}svg .hd{font-weight:600;fill:var(--mut)}svg .e{text-anchor:end}"
	"svg .c{text-anchor:middle}svg circle{stroke-width:1.5}svg .nw{fill:var(--win)}svg .nl{fill:var(--loss)}"
	"svg .nu{fill:var(--uns)}svg .ns{fill:var(--mut)}\n"
	"svg .ax{stroke:var(--mut);stroke-width:1;fill:none}svg .gr{stroke:var(--grid);stroke-width:1}\n"
	"svg .ref{stroke:var(--mut);stroke-width:1.2;stroke-dasharray:4 3}\n"
	"svg line,svg path{fill:none;stroke-width:1.6}\n"
	"svg .t{fill:var(--torch);stroke:var(--torch)}svg .g{fill:var(--gems);stroke:var(--gems)}\n"
	"svg .w{fill:var(--win);stroke:var(--win)}svg .l{fill:var(--loss);stroke:var(--loss)}\n"
	"svg .s{fill:var(--same);stroke:var(--same)}svg .u{fill:var(--uns);stroke:var(--uns)}\n"
	"svg .m{fill:none;stroke:var(--uns);stroke-dasharray:2 2}\n"
	"svg .band{fill:var(--same);stroke:none;opacity:.18}svg .box{fill:var(--box);stroke:var(--mut)}\n"
	"svg .ring{fill:var(--bg)}svg .pt{stroke-width:0;opacity:.55}svg path.ln{fill:none;stroke-width:1.8}\n"
	"svg .brk{stroke:var(--uns);stroke-width:1.4;stroke-dasharray:5 3}svg text.brk{fill:var(--uns);stroke:none}\n"
	"svg .st-passed{fill:var(--passed)}svg .st-failed{fill:var(--failed)}svg .st-timeout{fill:var(--timeout)}"
	"svg .st-crashed{fill:var(--crashed)}svg .st-interrupted{fill:var(--interrupted)}"
	"svg .st-preflight_failed{fill:var(--preflight)}svg .st-running{fill:var(--running)}svg .st-other{fill:var(--mut)}\n"
	"svg .shard{opacity:.6}svg text.in{fill:#fff;font-size:11px}\n"
	"svg .roof{stroke:var(--loss);stroke-width:1.6;opacity:.75}svg path.lnk{stroke-width:1;opacity:.5}\n"
	"svg path.fx{stroke-width:2.2}svg .g1{fill:#8250df;stroke:#8250df}svg .g2{fill:#bc4c00;stroke:#bc4c00}"
	"svg .g3{fill:#1b7c83;stroke:#1b7c83}svg path.d1{stroke-dasharray:6 3}svg path.d2{stroke-dasharray:2 3}"
	"svg path.d3{stroke-dasharray:8 3 2 3}\n"
	"@media (max-width:40rem){main{padding:.5rem .7rem 2rem}h1{font-size:1.2rem}.grid{grid-template-columns:1fr}"
	".cal{grid-template-columns:repeat(2,minmax(0,1fr));gap:.3rem .8rem}}\n"
	"@media print{:root{--bg:#fff;--fg:#000;--mut:#444;--line:#bbb;--grid:#e4e4e4;--box:#f4f4f4}"
	"body{font-size:11pt}main{max-width:none;padding:0}.scroll{overflow:visible}"
	".chart{min-width:0}th{position:static}figure,.cal,tr{break-inside:avoid}h2,h3{break-after:avoid}}\n";

void zl_html_escape_len(struct strbuf *sb, const char *s, size_t len)
{
	size_t i, start = 0;

	for (i = 0; i < len; i++) {
		const char *ent;

		switch (s[i]) {
		case '&': ent = "&amp;"; break;
		case '<': ent = "&lt;"; break;
		case '>': ent = "&gt;"; break;
		case '"': ent = "&quot;"; break;
		case '\'': ent = "&#39;"; break;
		default: continue;
		}
		strbuf_add(sb, s + start, i - start);
		strbuf_addstr(sb, ent);
		start = i + 1;
	}
	strbuf_add(sb, s + start, len - start);
}

void zl_html_escape(struct strbuf *sb, const char *s)
{
	if (s)
		zl_html_escape_len(sb, s, strlen(s));
}

void zl_html_textf(struct strbuf *sb, const char *fmt, ...)
{
	struct strbuf tmp = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&tmp, fmt, ap);
	va_end(ap);
	zl_html_escape_len(sb, tmp.buf, tmp.len);
	strbuf_release(&tmp);
}

void zl_html_elem(struct strbuf *sb, const char *tag, const char *attrs, const char *text)
{
	strbuf_addf(sb, "<%s%s%s>", tag, attrs ? " " : "", attrs ? attrs : "");
	zl_html_escape(sb, text);
	strbuf_addf(sb, "</%s>", tag);
}

void zl_html_page_begin(struct strbuf *sb, const char *title, const char *subtitle)
{
	strbuf_addstr(sb, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
		      "<meta name=\"generator\" content=\"zlbench " ZL_VERSION_STRING "\">\n<title>");
	zl_html_escape(sb, title);
	strbuf_addstr(sb, "</title>\n<style>\n");
	strbuf_addstr(sb, stylesheet);
	strbuf_addstr(sb, "</style>\n</head>\n<body>\n<main>\n");
	zl_html_elem(sb, "h1", NULL, title);
	strbuf_addch(sb, '\n');
	if (subtitle) {
		zl_html_elem(sb, "p", "class=\"sub\"", subtitle);
		strbuf_addch(sb, '\n');
	}
}

void zl_html_page_end(struct strbuf *sb, const char *generated_at)
{
	strbuf_addstr(sb, "<footer>Written by zlbench " ZL_VERSION_STRING " report");
	if (generated_at)
		zl_html_textf(sb, " at %s", generated_at);
	strbuf_addstr(sb, ". One self-contained file: no script, nothing fetched.</footer>\n"
		      "</main>\n</body>\n</html>\n");
}

void zl_html_cal_begin(struct strbuf *sb)
{
	strbuf_addstr(sb, "<div class=\"cal\">\n");
}

void zl_html_cal(struct strbuf *sb, const char *name, const char *value)
{
	strbuf_addstr(sb, "<div><b>");
	zl_html_escape(sb, name);
	strbuf_addstr(sb, "</b>");
	if (value && *value)
		zl_html_escape(sb, value);
	else
		strbuf_addstr(sb, "<span class=\"nr\">" ZL_HTML_NOT_RECORDED "</span>");
	strbuf_addstr(sb, "</div>\n");
}

void zl_html_cal_end(struct strbuf *sb)
{
	strbuf_addstr(sb, "</div>\n");
}

void zl_html_notes(struct strbuf *sb, const char *cls, const char *heading, const struct strvec *lines)
{
	size_t i;

	if (!lines->nr)
		return;
	strbuf_addstr(sb, "<div class=\"");
	zl_html_escape(sb, cls);
	strbuf_addstr(sb, "\">");
	if (heading)
		zl_html_elem(sb, "strong", NULL, heading);
	strbuf_addstr(sb, "<ul>");
	for (i = 0; i < lines->nr; i++)
		zl_html_elem(sb, "li", NULL, lines->v[i]);
	strbuf_addstr(sb, "</ul></div>\n");
}

void zl_html_table_begin(struct strbuf *sb, const char *caption, const char *const *heads, size_t n)
{
	size_t i;

	strbuf_addstr(sb, "<div class=\"scroll\"><table>");
	if (caption)
		zl_html_elem(sb, "caption", NULL, caption);
	strbuf_addstr(sb, "<thead><tr>");
	for (i = 0; i < n; i++)
		zl_html_elem(sb, "th", NULL, heads[i]);
	strbuf_addstr(sb, "</tr></thead>\n<tbody><tr>");
}

void zl_html_tr(struct strbuf *sb)
{
	strbuf_addstr(sb, "</tr>\n<tr>");
}

void zl_html_td(struct strbuf *sb, const char *text, const char *cls)
{
	if (cls) {
		strbuf_addstr(sb, "<td class=\"");
		zl_html_escape(sb, cls);
		strbuf_addstr(sb, "\">");
	} else {
		strbuf_addstr(sb, "<td>");
	}
	zl_html_escape(sb, text ? text : "");
	strbuf_addstr(sb, "</td>");
}

void zl_html_table_end(struct strbuf *sb)
{
	strbuf_addstr(sb, "</tr></tbody></table></div>\n");
}

void zl_html_figure_begin(struct strbuf *sb, const char *id)
{
	if (id) {
		strbuf_addstr(sb, "<figure id=\"");
		zl_html_escape(sb, id);
		strbuf_addstr(sb, "\"><div class=\"scroll\">");
	} else {
		strbuf_addstr(sb, "<figure><div class=\"scroll\">");
	}
}

void zl_html_figure_end(struct strbuf *sb, const char *caption)
{
	strbuf_addstr(sb, "</div>");
	if (caption)
		zl_html_elem(sb, "figcaption", NULL, caption);
	strbuf_addstr(sb, "</figure>\n");
}

void zl_fmt_ms(char buf[32], double ms)
{
	if (!isfinite(ms))
		snprintf(buf, 32, "-");
	else if (fabs(ms) >= 100)
		snprintf(buf, 32, "%.0f", ms);
	else
		snprintf(buf, 32, "%.3g", ms);
}

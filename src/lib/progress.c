/* Progress on stderr (include/zlbench/progress.h). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "zlbench/error.h"
#include "zlbench/progress.h"
#include "zlbench/term.h"
#include "zlbench/units.h"
#include "zlbench/util.h"
#include "zlbench/banned.h"

static const struct {
	const char *name;
	enum zl_progress_mode mode;
} modes[] = {
	{ "auto", ZL_PROGRESS_AUTO },
	{ "live", ZL_PROGRESS_LIVE },
	{ "plain", ZL_PROGRESS_PLAIN },
	{ "none", ZL_PROGRESS_NONE },
};

int zl_progress_mode_parse(const char *s, enum zl_progress_mode *out, struct strbuf *err)
{
	size_t i;

	*out = ZL_PROGRESS_AUTO;
	if (!s)
		return 0;
	for (i = 0; i < ZL_ARRAY_SIZE(modes); i++)
		if (!strcmp(s, modes[i].name)) {
			*out = modes[i].mode;
			return 0;
		}
	return zl_error(err, "invalid value '%s' for --progress: choose auto, live, plain or none", s);
}

void zl_progress_init(struct zl_progress *p, enum zl_progress_mode mode)
{
	memset(p, 0, sizeof(*p));
	p->live = zl_verbosity >= 0 && (mode == ZL_PROGRESS_LIVE || (mode == ZL_PROGRESS_AUTO && isatty(2)));
	p->plain = zl_verbosity >= 0 && !p->live && mode != ZL_PROGRESS_NONE;
	p->color = zl_use_color(2);
}

void zl_progress_clear(struct zl_progress *p)
{
	if (p->live && p->live_len) {
		fputs(ZL_TERM_CLEAR_LINE, stderr);
		fflush(stderr);
	}
	p->live_len = 0;
	/* nothing is on screen now: the next line is no redraw to be held back (ab's and calibrate's
	 * next run or round may end within a second, and its line never showed) */
	p->next_refresh = 0;
}

void zl_progress_line(struct zl_progress *p, const char *text, int force)
{
	size_t width, len = strlen(text);
	double now = zl_now_monotonic();

	if (!p->live || (!force && now < p->next_refresh))
		return;
	p->next_refresh = now + 1.0;
	width = zl_term_width(2);
	if (width < 10)
		width = 10;
	if (len > width - 1)
		len = width - 1;
	fprintf(stderr, ZL_TERM_CLEAR_LINE "%.*s", (int)len, text);
	fflush(stderr);
	p->live_len = len;
}

double zl_progress_eta(double elapsed_s, double done, double total, double current_s)
{
	double left;

	if (done <= 0 || elapsed_s < 0)
		return -1;
	left = elapsed_s / done * (total - done) - current_s;
	return left > 0 ? left : 0;
}

void zl_progress_add_eta(struct strbuf *sb, double eta_s)
{
	strbuf_addstr(sb, "ETA ");
	if (eta_s < 0)
		strbuf_addch(sb, '?');
	else
		zl_fmt_duration(sb, eta_s);
}

/* The line zl_progress_step() draws (progress.h): one per process. */
static struct {
	struct zl_progress p;
	int on;
	double t0;
} global;

void zl_progress_global_start(enum zl_progress_mode mode)
{
	zl_progress_init(&global.p, mode);
	global.on = global.p.live;
	global.t0 = zl_now_monotonic();
	/* asked for by name it shows at once; else after a second, so that a quick command draws none */
	global.p.next_refresh = mode == ZL_PROGRESS_LIVE ? 0 : global.t0 + 1.0;
}

void zl_progress_step(const char *what, size_t done, size_t total)
{
	struct strbuf line = STRBUF_INIT;
	double now;

	if (!global.on || (now = zl_now_monotonic()) < global.p.next_refresh)
		return;
	strbuf_addf(&line, "%s %zu/%zu  ", what, done, total);
	zl_progress_add_eta(&line, zl_progress_eta(now - global.t0, (double)done, (double)total, 0));
	zl_progress_line(&global.p, line.buf, 0);
	strbuf_release(&line);
}

void zl_progress_global_stop(void)
{
	zl_progress_clear(&global.p);
	global.on = 0;
}

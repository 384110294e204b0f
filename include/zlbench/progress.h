/*
 * Progress on stderr for the commands that run for minutes (batch, calibrate, ab, report
 * on big inputs), one module so that they all behave alike:
 *   live   one line redrawn in place (cut to the terminal's width, at most once a second
 *          unless forced), wiped before any other line is printed;
 *   plain  no live line: the command prints a line per finished step itself;
 *   none   neither.
 * auto (the default) is live when stderr is a terminal, else plain; --quiet turns both off.
 * The live line ends in
 * an ETA from zl_progress_eta() (or "ETA ?" while there is nothing to guess from).
 *
 * Owner: the caller holds struct zl_progress (no allocations inside).
 */
#ifndef ZLBENCH_PROGRESS_H
#define ZLBENCH_PROGRESS_H

#include <stddef.h>

#include "strbuf.h"

enum zl_progress_mode { ZL_PROGRESS_AUTO, ZL_PROGRESS_LIVE, ZL_PROGRESS_PLAIN, ZL_PROGRESS_NONE };

/* The help text of a --progress option (its choices, as batch, calibrate, ab and report take them). */
#define ZL_PROGRESS_HELP "auto (a live line on a terminal, else a line per step), live, plain, none"
/* The values --progress takes, as an option row's choices (completion offers them; a typo gets a did-you-mean). */
#define ZL_PROGRESS_CHOICES "auto live plain none"

/* A --progress value (NULL: auto): 0, or -1 with err naming the choices. */
int zl_progress_mode_parse(const char *s, enum zl_progress_mode *out, struct strbuf *err);

struct zl_progress {
	int live, plain, color;
	size_t live_len;           /* characters of the live line on screen (0: none) */
	double next_refresh;       /* monotonic time of the next unforced redraw */
};

/* Decide live/plain/colour from the mode, --quiet and whether stderr is a terminal. */
void zl_progress_init(struct zl_progress *p, enum zl_progress_mode mode);
/* Redraw the live line (cut to the terminal's width); unforced at most once a second. */
void zl_progress_line(struct zl_progress *p, const char *text, int force);
/* Wipe the live line so that other output starts on a clean line; the next line draws at once. */
void zl_progress_clear(struct zl_progress *p);

/*
 * The time left when done of total units of work took elapsed_s (the units alike), minus
 * what the current unit has run (current_s); -1 when nothing is done yet.
 */
double zl_progress_eta(double elapsed_s, double done, double total, double current_s);
/* "ETA 3m05s", or "ETA ?" for a negative eta_s. */
void zl_progress_add_eta(struct strbuf *sb, double eta_s);

/*
 * The process's one progress line for work deep in a library (report's pages loading
 * thousands of runs) that the command cannot see step by step: the command starts it,
 * the loops call zl_progress_step() (nothing happens when it is not started, or not
 * live), the command stops it before printing. In auto mode the line shows after a
 * second, so that a quick command draws none; asked for by name (live), at once.
 */
void zl_progress_global_start(enum zl_progress_mode mode);
void zl_progress_step(const char *what, size_t done, size_t total);
void zl_progress_global_stop(void);

#endif

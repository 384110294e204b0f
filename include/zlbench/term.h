/* Colour on a terminal: when to use it, and the escape sequences. */
#ifndef ZLBENCH_TERM_H
#define ZLBENCH_TERM_H

#include <stddef.h>

enum zl_color {
	ZL_COLOR_NONE = 0, ZL_COLOR_GREEN, ZL_COLOR_RED, ZL_COLOR_YELLOW, ZL_COLOR_BOLD,
	ZL_COLOR_DIM, ZL_COLOR_BOLD_RED
};

/* Colour on a terminal only and never with NO_COLOR. */
int zl_use_color(int fd);
/* The escape sequence that starts a colour ("" for none) and the reset sequence. */
const char *zl_color_start(enum zl_color c);
#define ZL_COLOR_RESET "\033[0m"
/*
 * The width a table for people is fitted to: $COLUMNS when it is a whole number > 0
 * (as Python's shutil and pytest read it), else the terminal's when fd is one, else 80.
 */
#define ZL_TERM_DEFAULT_WIDTH 80
size_t zl_term_width(int fd);
/* Back to the start of the line and erase it: a progress line rewritten in place. */
#define ZL_TERM_CLEAR_LINE "\r\033[K"

/*
 * s as a terminal may show it (strbuf_add_printable: control bytes shown as \x1b, never
 * sent), for a printf argument that came from a file: fprintf(out, "A: %s\n",
 * zl_term_str(run_id)). The result lives in one of ZL_TERM_STR_SLOTS buffers used in
 * turn, valid until that many more calls; NULL gives "".
 */
#define ZL_TERM_STR_SLOTS 8
const char *zl_term_str(const char *s);

#endif

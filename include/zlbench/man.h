/*
 * The man page zlbench(1), rendered from the very text `zlbench --help` and
 * `zlbench help CMD` print (main.c's command table and the rows' documentation
 * and option tables, help.c), so that the page and the help cannot drift apart. The build writes it
 * with `zlbench help --man` (a hidden form of help).
 */
#ifndef ZLBENCH_MAN_H
#define ZLBENCH_MAN_H

#include <stdio.h>

#include "strbuf.h"

/*
 * Writes the page in roff (man macros) to out. main_usage prints `zlbench --help`;
 * the commands come from zl_commands(). Returns 0, or -1 with err filled.
 */
int zl_man_render(FILE *out, void (*main_usage)(FILE *out), struct strbuf *err);

/* Appends help text (lines as `help CMD` prints them) to page as roff. Exposed for the unit test. */
void zl_man_add_text(struct strbuf *page, const char *text);

#endif

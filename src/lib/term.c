/* Colour on a terminal (include/zlbench/term.h). */
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "zlbench/env.h"
#include "zlbench/strbuf.h"
#include "zlbench/term.h"
#include "zlbench/util.h"
#include "zlbench/banned.h"

static const char *const color_codes[] = {
	[ZL_COLOR_NONE] = "",
	[ZL_COLOR_GREEN] = "\033[32m",
	[ZL_COLOR_RED] = "\033[31m",
	[ZL_COLOR_YELLOW] = "\033[33m",
	[ZL_COLOR_BOLD] = "\033[1m",
	[ZL_COLOR_DIM] = "\033[2m",
	[ZL_COLOR_BOLD_RED] = "\033[1;31m",
};

const char *zl_color_start(enum zl_color c)
{
	return (size_t)c < ZL_ARRAY_SIZE(color_codes) ? color_codes[c] : "";
}

int zl_use_color(int fd)
{
	const char *no_color = zl_env(ZL_ENV_NO_COLOR);
	const char *term = zl_env_raw(ZL_ENV_TERM);

	if (no_color)
		return 0;
	if (term && !*term)
		return 0;
	if (term && term[0] == 'd' && !strcmp(term, "dumb"))
		return 0;
	return isatty(fd);
}

size_t zl_term_width(int fd)
{
	const char *columns = zl_env(ZL_ENV_COLUMNS);
	struct winsize ws;
	long n;

	if (columns && !zl_parse_long(columns, &n) && n > 0)
		return (size_t)n;
	if (isatty(fd) && !ioctl(fd, TIOCGWINSZ, &ws) && ws.ws_col > 0)
		return ws.ws_col;
	return ZL_TERM_DEFAULT_WIDTH;
}

const char *zl_term_str(const char *s)
{
	static struct strbuf slots[ZL_TERM_STR_SLOTS];
	static size_t next;
	struct strbuf *sb = &slots[next++ % ZL_TERM_STR_SLOTS];

	if (!sb->buf)
		strbuf_init(sb, 0);
	strbuf_reset(sb);
	strbuf_add_printable(sb, s ? s : "");
	return sb->buf;
}

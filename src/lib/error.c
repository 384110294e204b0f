#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "zlbench/error.h"
#include "zlbench/banned.h"

int zl_verbosity;

int zl_error(struct strbuf *err, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return -1;
	strbuf_reset(err);
	va_start(ap, fmt);
	strbuf_vaddf(err, fmt, ap);
	va_end(ap);
	return -1;
}

/* One line always: a value echoed in the message (an --op with a newline) cannot add another. */
static void vreport(const char *prefix, const char *fmt, va_list ap)
{
	struct strbuf raw = STRBUF_INIT, line = STRBUF_INIT;

	strbuf_vaddf(&raw, fmt, ap);
	strbuf_add_printable(&line, raw.buf);
	fprintf(stderr, "zlbench: %s%s\n", prefix, line.buf);
	strbuf_release(&raw);
	strbuf_release(&line);
}

void zl_print_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("error: ", fmt, ap);
	va_end(ap);
}

void zl_print_warning(const char *fmt, ...)
{
	va_list ap;

	if (zl_verbosity < 0)
		return;
	va_start(ap, fmt);
	vreport("warning: ", fmt, ap);
	va_end(ap);
}

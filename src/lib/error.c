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

static void vreport(const char *prefix, const char *fmt, va_list ap)
{
	fprintf(stderr, "zlbench: %s", prefix);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
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

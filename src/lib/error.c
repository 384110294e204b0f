#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "zlbench/error.h"
#include "zlbench/zlbench.h"
#include "zlbench/banned.h"

int zl_verbosity;

const struct zl_exit_doc zl_exit_docs[] = {
	{ ZL_EXIT_OK, "0", "passed: the command did what it was asked (compare and ab: the gate, if any, passed); "
	  "also a run whose every test was skipped (status skipped: a --dtypes the op does not support, with the "
	  "reason), and a batch whose operators all passed or were skipped" },
	{ ZL_EXIT_FAILED, "1", "a benchmark failed, or its file did not collect; batch: an operator failed, crashed "
	  "or timed out; compare and ab: the regression gate failed; ab: a run failed; calibrate: a run failed or "
	  "the calibration could not be stored; history: an ingest failed or was refused; push: something was "
	  "spooled or rejected; report: the page could not be written" },
	{ ZL_EXIT_USAGE, "2", "usage or configuration error (compare, ab, report: also a caliber mismatch without "
	  "--allow-caliber-mismatch)" },
	{ ZL_EXIT_PREFLIGHT, "3", "a preflight check failed (PREFLIGHT_FAILED check=<name>); batch and calibrate: "
	  "every operator (of a round) failed preflight, or an operator no benchmark carries (refused before any "
	  "runs); ab: a run failed preflight; doctor: a step failed" },
	{ ZL_EXIT_PYTEST_USAGE, "4", "pytest refused its command line" },
	{ ZL_EXIT_NO_TESTS, "5", "pytest collected no tests" },
	{ ZL_EXIT_INTERNAL, "70", "pytest's internal error (pytest's own 3, moved so that 3 always means preflight)" },
	{ ZL_EXIT_TIMEOUT, "124", "--timeout expired" },
	{ ZL_EXIT_SIGNAL_BASE, "128+N", "the child was killed by signal N (139: SIGSEGV), or zlbench itself by "
	  "signal N (143: SIGTERM)" },
	{ ZL_EXIT_INTERRUPTED, "130", "interrupted (SIGINT, or pytest's own 2 other than a collection error)" },
	{ 0, NULL, NULL },
};

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

/*
 * Quoting for a POSIX shell, for the command lines zlbench prints or writes into
 * scripts (sbatch scripts, doctor's "run it by hand" lines). zlbench itself never
 * runs a shell: children get an argv.
 */
#ifndef ZLBENCH_SHQUOTE_H
#define ZLBENCH_SHQUOTE_H

#include "strbuf.h"

/* Append s quoted for bash: as is when it only holds safe characters, else in single quotes. */
void zl_shell_quote(struct strbuf *out, const char *s);

#endif

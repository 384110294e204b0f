/* Placeholder until this command lands; the owner replaces this file. */
#include <stdio.h>
#include "zlbench/cmd.h"
#include "zlbench/error.h"
#include "zlbench/zlbench.h"

int cmd_batch(int argc, const char **argv)
{
	(void)argc;
	(void)argv;
	zl_print_error("'batch' is not implemented yet");
	return ZL_EXIT_USAGE;
}

void help_batch(FILE *out)
{
	fprintf(out, "usage: zlbench batch (not implemented yet)\n");
}

/* zlbench: the command table, then the global options and the dispatch. */
#include <stddef.h>

#include "zlbench/cmd.h"
#include "zlbench/banned.h"

/* Every command's row (defined in its cmd_<name>.c), in the order `zlbench help` lists them. */
static const struct zl_command *const commands[] = {
	&zl_cmd_run,
	&zl_cmd_batch,
	&zl_cmd_slurm_task,
	&zl_cmd_preflight,
	&zl_cmd_plan,
	&zl_cmd_backends,
	&zl_cmd_devices,
	&zl_cmd_history,
	&zl_cmd_compare,
	&zl_cmd_calibrate,
	&zl_cmd_ab,
	&zl_cmd_report,
	&zl_cmd_push,
	&zl_cmd_doctor,
	&zl_cmd_completion,
	&zl_cmd_help,
	NULL
};

const struct zl_command *const *zl_commands(void)
{
	return commands;
}

int main(int argc, const char **argv)
{
	int code, i = zl_global_options(argc - 1, argv + 1, &code);

	if (i < 0)
		return code;
	return zl_command_dispatch(argc - 1 - i, argv + 1 + i);
}

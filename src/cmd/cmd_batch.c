/* zlbench batch: many operators over several devices, one `zlbench run` child each, resumable. */
#include <limits.h>

#include "zlbench/batch_main.h"
#include "zlbench/cmd.h"
#include "zlbench/error.h"
#include "zlbench/settings.h"
#include "zlbench/slurm.h"
#include "zlbench/util.h"
#include "zlbench/zlbench.h"
#include "zlbench/banned.h"

static struct zl_batch_request bo = {
	.ops = STRVEC_INIT, .exclude = STRVEC_INIT, .warmup_ops = STRVEC_INIT, .sbatch_args = STRVEC_INIT,
};

static const struct zl_option batch_options[] = {
	{ .type = ZL_OPT_GROUP, .help = "Batch options:" },
	{ .type = ZL_OPT_STRLIST, .long_name = "ops", .value = &bo.ops, .argh = "LIST",
	  .help = "operators, comma-separated (repeatable); --ops all alone: every\n"
		  "operator mark of the checkout's benchmark/ tree", .values = ZL_VALUES_OP_LIST },
	{ .type = ZL_OPT_STRING, .long_name = "ops-file", .value = &bo.ops_file, .argh = "FILE",
	  .help = "operators, one per line; '#' starts a comment" },
	{ .type = ZL_OPT_STRLIST, .long_name = "exclude", .value = &bo.exclude, .argh = "LIST",
	  .help = "leave these operators out, comma-separated (repeatable); each must\n"
		  "be a mark of the checkout or an operator of the list", .values = ZL_VALUES_OP_LIST },
	/* the settings' own rows parse these two; what they mean to a batch is said here */
	{ .type = ZL_OPT_STRING, .long_name = "out", .argh = "DIR", .flags = ZL_OPT_DOC_ONLY,
	  .help = "batch directory (absent or empty)", .default_doc = "$ZL_RUNS_DIR/<UTC stamp>-<backend>-batch" },
	{ .type = ZL_OPT_STRING, .long_name = "devices", .argh = "LIST", .flags = ZL_OPT_DOC_ONLY,
	  .help = "devices to use, one operator on each at a time (also --gpus LIST)",
	  .default_doc = "every device the backend enumerates, else 0" },
	{ .type = ZL_OPT_STRING, .long_name = "timeout-per-op", .value = &bo.timeout_per_op, .argh = "SECONDS",
	  .help = "each run's --timeout; a timed-out operator is recorded and the device moves on" },
	{ .type = ZL_OPT_STRING, .long_name = "warmup-devices", .value = &bo.warmup_devices, .argh = "N",
	  .help = "split each operator's shapes into N shape files, warm up (record autotune\n"
		  "winners) on N devices in parallel, each with a private tuner cache, merge\n"
		  "the records, then time the operator once replaying them",
	  .env = "PARALLEL_WARMUP_GPUS", .source = &bo.warmup_source },
	{ .type = ZL_OPT_STRLIST, .long_name = "warmup-ops", .value = &bo.warmup_ops, .argh = "LIST",
	  .help = "only these operators get warm-up sharding", .default_doc = "every operator",
	  .values = ZL_VALUES_OP_LIST },
	{ .type = ZL_OPT_STRING, .long_name = "resume", .value = &bo.resume, .argh = "DIR",
	  .help = "continue the batch in DIR", .values = ZL_VALUES_DIR },
	{ .type = ZL_OPT_FLAG, .long_name = "retry-failed", .value = &bo.retry_failed, .defval = 1,
	  .help = "with --resume: run again every operator whose last row is not passed" },
	{ .type = ZL_OPT_STRING, .long_name = "progress", .value = &bo.progress, .argh = "MODE",
	  .help = "auto (a live line on a terminal, else a line per operator), live, plain, none",
	  .choices = ZL_PROGRESS_CHOICES },
	{ .type = ZL_OPT_STRING, .long_name = "start", .value = &bo.start, .argh = "MODE",
	  .help = "how each operator's Python starts:\n"
		  "worker: one interpreter per device imports FlagGems once and runs the\n"
		  "operators one after another (each its own pytest session, run directory,\n"
		  "timeout and status; a crash, timeout or unresettable global change ends\n"
		  "the worker and the next operator gets a new one); fresh: a new interpreter\n"
		  "per operator. fork is not offered: on every backend importing FlagGems\n"
		  "initialises the device, which a forked child cannot use (docs/worker.md).\n"
		  "Warm-up shards, isolated tuner caches and Slurm tasks always start fresh",
	  .env = "ZL_START", .default_doc = ZL_BATCH_START_DEFAULT, .source = &bo.start_source, .choices = "worker fresh",
	  .hidden_choices = "fork" },
	{ .type = ZL_OPT_STRING, .long_name = "push", .value = &bo.push, .argh = "URL",
	  .help = "POST every run of the batch to a collector at the end", .env = "ZL_PUSH_URL" },
	{ .type = ZL_OPT_FLAG, .long_name = "dry-run", .value = &bo.dry_run, .defval = 1,
	  .help = "print the plan (devices, start order with each operator's expected\n"
		  "duration and files, the estimate of the whole on these devices and\n"
		  "on 8, child argv; with Slurm the sbatch script); start nothing" },
	{ .type = ZL_OPT_GROUP,
	  .help = "Slurm launcher options (docs/slurm.md):" },
	{ .type = ZL_OPT_STRING, .long_name = "launcher", .value = &bo.launcher, .argh = "MODE",
	  .help = "local (default: this host's devices) or slurm (one job array, one\n"
		  "task per operator, one GPU each)", .choices = "local slurm" },
	{ .type = ZL_OPT_STRING, .long_name = "partition", .value = &bo.partition, .argh = "P",
	  .help = "the tasks' partition", .default_doc = "the cluster's" },
	{ .type = ZL_OPT_STRING, .long_name = "account", .value = &bo.account, .argh = "A",
	  .help = "the account charged" },
	{ .type = ZL_OPT_STRING, .long_name = "time-per-op", .value = &bo.time_per_op, .argh = "MIN",
	  .help = "each task's time limit in minutes (sbatch's time limit); a task\n"
		  "Slurm ends for it is recorded as timeout" },
	{ .type = ZL_OPT_STRLIST, .long_name = "sbatch-arg", .value = &bo.sbatch_args, .argh = "ARG",
	  .help = "one more argument for sbatch (repeatable; glue a dashed value on\n"
		  "with '='); zlbench sets the array, output files and job name itself" },
	{ .type = ZL_OPT_FLAG, .long_name = "detach", .value = &bo.detach, .defval = 1,
	  .help = "submit, print SLURM_JOB_ID= and BATCH_DIR=, and return" },
	{ .type = ZL_OPT_STRING, .long_name = "collect", .value = &bo.collect, .argh = "DIR",
	  .help = "follow a submitted batch until every task has its row", .values = ZL_VALUES_DIR },
	{ .type = ZL_OPT_FLAG, .long_name = "no-wait", .value = &bo.no_wait, .defval = 1,
	  .help = "with --collect: record the tasks that have ended and return" },
	ZL_OPT_END_ROW,
};


static int cmd_batch(struct zl_cmd_ctx *ctx)
{
	const struct zl_batch_invocation inv = {
		.s = ctx->s, .refused_settings = ctx->cmd->refused_settings, .argc = ctx->argc, .argv = ctx->argv,
	};

	return zl_batch_main(&bo, &inv);
}


const struct zl_command zl_cmd_batch = {
	.name = "batch",
	.fn = cmd_batch,
	.flags = ZL_CMD_SETTINGS | ZL_CMD_PYTEST,
	.options = batch_options,
	/* a batch names its operators with --ops: it sets these per operator */
	.refused_settings = ZL_SETF_TARGET,
	.summary = "run many operators over several devices, resumable",
	.usage = "[--backend B] [--devices LIST] (--ops LIST | --ops all | --ops-file FILE) [--exclude LIST]\n"
		 "                     [options] [-- <pytest args>]\n"
		 "       zlbench batch --launcher slurm [--partition P] [--account A] [--time-per-op MIN]\n"
		 "                     [--sbatch-arg ARG]... [--detach] (--ops LIST | --ops all | --ops-file FILE) [options]\n"
		 "       zlbench batch --resume DIR [--retry-failed] [--push URL] [--detach]\n"
		 "       zlbench batch --collect DIR [--no-wait]",
	.description =
		"Runs each operator as its own `zlbench run` child (its crash, hang or OOM stays its own),\n"
		"one operator per device at a time, longest expected first (mean durations from the history\n"
		"database; the list order when it has none). Every child's output goes to logs/<op>.log in the\n"
		"batch directory, its run directory is runs/<op>/, and ops_status.csv gets one row (fsync'd) as\n"
		"each operator ends. --resume DIR runs the operators that have no final row (interrupted and\n"
		"preflight_failed are not final) with the settings saved in DIR/batch.json. At the end a cost table\n"
		"says where each operator's wall time went (collection, inputs, compile/autotune, timer, other; also\n"
		"in costs.csv and costs.json). The last line on stdout is BATCH_DIR=<path>.\n",
	.notes =
		"The run settings above are given to every operator's run (--op, --op-file, --test-node and --out\n"
		"are the batch's to set). Environment: ZL_KILL_GRACE (seconds between SIGTERM and SIGKILL of a run),\n"
		"ZL_NO_HISTORY=1 (no history for the start order; runs are not stored),\n"
		"ZL_HISTORY_DB (history database for the start order and the runs; default $ZL_HOME/history.db), NO_COLOR;\n"
		"with Slurm also ZL_SLURM_POLL (seconds between polls, default 1), ZL_SLURM_TIMEOUT (seconds\n"
		"one Slurm command may take, default 30) and SLURM_CONF.\n\n"
		"Exit codes: 0 every operator passed (or was skipped: every test skipped, e.g. a --dtypes\n"
		"it does not support), 1 an operator failed, crashed or timed out, 2 usage,\n"
		"3 every operator failed preflight (a broken environment; also a bad --devices list,\n"
		"or an operator no benchmark carries: all such are refused before any runs),\n"
		"130 interrupted (128+N for signal N; the running operators are recorded as interrupted).\n\n"
		"Examples:\n"
		"  zlbench batch --backend cuda --devices 0,1 --ops mm,bmm,addmm\n"
		"  zlbench batch --backend cuda --devices 0,1,2,3,4,5,6,7 --ops all --exclude fused_marlin_moe --dry-run\n"
		"  zlbench batch --backend musa --gpus 0,1,2,3 --ops-file ops.txt --timeout-per-op 1800 --out runs/nightly\n"
		"  zlbench batch --backend cuda --devices 0,1,2,3 --ops mm --level comprehensive --warmup-devices 4\n"
		"  zlbench batch --resume runs/nightly\n"
		"  zlbench batch --launcher slurm --backend cuda --ops-file ops.txt --partition gpu --time-per-op 60 "
		"--out /shared/runs/qual\n"
		"  zlbench batch --collect /shared/runs/qual\n",
};

/* hidden: the array task's entry point, run by the generated sbatch script on a node */
static const char *task_op, *task_attempt;

static const struct zl_option slurm_task_options[] = {
	{ .type = ZL_OPT_STRING, .long_name = "op", .value = &task_op, .argh = "OP", .help = "the operator" },
	{ .type = ZL_OPT_STRING, .long_name = "attempt", .value = &task_attempt, .argh = "K", .help = "its attempt" },
	ZL_OPT_END_ROW,
};

static int cmd_slurm_task(struct zl_cmd_ctx *ctx)
{
	long k = 0;

	if (ctx->args.nr != 1 || !task_op || !task_attempt || zl_parse_long(task_attempt, &k) || k < 1 || k > INT_MAX) {
		zl_print_error("usage: zlbench batch --slurm-task %s (run by the generated sbatch script)",
			       zl_cmd_slurm_task.usage);
		return ZL_EXIT_USAGE;
	}
	return zl_slurm_task_main(ctx->args.v[0], task_op, (int)k);
}

const struct zl_command zl_cmd_slurm_task = {
	.name = "batch",
	.entry = "--slurm-task",
	.fn = cmd_slurm_task,
	.flags = ZL_CMD_HIDDEN | ZL_CMD_OPERANDS,
	.options = slurm_task_options,
	.summary = "one task of a Slurm batch's job array",
	.usage = "DIR --op OP --attempt K",
};

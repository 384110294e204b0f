/*
 * What the Slurm launcher reads from the cluster: `scontrol -o show job` records (grouped
 * ArrayTaskId specs such as "1,4,7-9%2" or "0-15:4" expand to tasks) and `sbatch --parsable`
 * output. The input's first line is the array job id asked for (and a task spec), the rest
 * the scontrol output. Invariant: each task parsed is found by its number (the first 1000).
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "zlbench/slurm.h"
#include "zlbench/strbuf.h"
#include "zlbench/strvec.h"
#include "zlbench/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct zl_slurm_job job = ZL_SLURM_JOB_INIT;
	struct strbuf err = STRBUF_INIT;
	struct strvec tasks = STRVEC_INIT;
	char *text = fuzz_cstr(data, size);
	char *nl = strchr(text, '\n');
	char *id = nl ? xstrndup(text, (size_t)(nl - text)) : xstrdup(text);
	char *job_id = NULL;
	size_t i;

	(void)zl_slurm_expand_tasks(id, &tasks);
	/* the look-up is a scan (arrays hold one task per operator): the first 1000 are checked */
	if (!zl_slurm_parse_show_job(nl ? nl + 1 : "", id, &job, &err))
		for (i = 0; i < job.nr && i < 1000; i++)
			if (zl_slurm_job_find(&job, job.v[i].task) == NULL)
				fuzz_fail("task %ld is not found by its number", job.v[i].task);
	if (!zl_slurm_parse_job_id(text, &job_id) && (!job_id || !*job_id))
		fuzz_fail("an empty job id was parsed");
	free(job_id);
	zl_slurm_job_release(&job);
	strvec_clear(&tasks);
	strbuf_release(&err);
	free(id);
	free(text);
	return 0;
}

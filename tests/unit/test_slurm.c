/* Unit tests of the Slurm launcher's pure parts: states, scontrol records, devices, slurm.json, the script. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "zlbench/batch.h"
#include "zlbench/child.h"
#include "zlbench/fsutil.h"
#include "zlbench/run.h"
#include "zlbench/shquote.h"
#include "zlbench/slurm.h"
#include "zlbench/strbuf.h"
#include "zlbench/util.h"

/*
 * Real `scontrol -o show job` output of Slurm 22.05.8 (Debian 12's slurm-wlm) on the
 * one-node test cluster of scripts/slurm-up.sh: a throttled array with pending tasks
 * grouped as "4-6%5"; a finished array (one task exited 3); an array cancelled while
 * three tasks ran and three waited; a plain job killed at its one-minute time limit.
 */
static const char pending_and_running[] =
	"JobId=30 ArrayJobId=30 ArrayTaskId=4-6%5 ArrayTaskThrottle=5 JobName=wrap UserId=root(0) G"
	"roupId=root(0) MCS_label=N/A Priority=4294901752 Nice=0 Account=(null) QOS=(null) JobState"
	"=PENDING Reason=Resources Dependency=(null) Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 Exit"
	"Code=0:0 RunTime=00:00:00 TimeLimit=UNLIMITED TimeMin=N/A SubmitTime=2026-11-29T18:11:57 E"
	"ligibleTime=2026-11-29T18:11:57 AccrueTime=Unknown StartTime=Unknown EndTime=Unknown Deadl"
	"ine=N/A SuspendTime=None SecsPreSuspend=0 LastSchedEval=2026-11-29T18:11:57 Scheduler=Main"
	" Partition=zl AllocNode:Sid=localhost:18593 ReqNodeList=(null) ExcNodeList=(null) NodeList"
	"= NumNodes=1 NumCPUs=1 NumTasks=1 CPUs/Task=1 ReqB:S:C:T=0:0:*:* TRES=cpu=1,mem=24105M,nod"
	"e=1,billing=1 Socks/Node=* NtasksPerN:B:S:C=0:0:*:* CoreSpec=* MinCPUsNode=1 MinMemoryNode"
	"=0 MinTmpDiskNode=0 Features=(null) DelayBoot=00:00:00 OverSubscribe=OK Contiguous=0 Licen"
	"ses=(null) Network=(null) Command=(null) WorkDir=/tmp/zlI StdErr=/dev/null StdIn=/dev/null"
	" StdOut=/dev/null Power= TresPerNode=gres:gpu:1 \n"
	"JobId=34 ArrayJobId=30 ArrayTaskId=3 ArrayTaskThrottle=5 JobName=wrap UserId=root(0) Group"
	"Id=root(0) MCS_label=N/A Priority=4294901752 Nice=0 Account=(null) QOS=(null) JobState=RUN"
	"NING Reason=None Dependency=(null) Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=0:0 "
	"RunTime=00:00:01 TimeLimit=UNLIMITED TimeMin=N/A SubmitTime=2026-11-29T18:11:57 EligibleTi"
	"me=2026-11-29T18:11:57 AccrueTime=Unknown StartTime=2026-11-29T18:11:57 EndTime=Unknown De"
	"adline=N/A SuspendTime=None SecsPreSuspend=0 LastSchedEval=2026-11-29T18:11:57 Scheduler=M"
	"ain Partition=zl AllocNode:Sid=localhost:18593 ReqNodeList=(null) ExcNodeList=(null) NodeL"
	"ist=vm BatchHost=vm NumNodes=1 NumCPUs=1 NumTasks=1 CPUs/Task=1 ReqB:S:C:T=0:0:*:* TRES=cp"
	"u=1,node=1,billing=1 Socks/Node=* NtasksPerN:B:S:C=0:0:*:* CoreSpec=* MinCPUsNode=1 MinMem"
	"oryNode=0 MinTmpDiskNode=0 Features=(null) DelayBoot=00:00:00 OverSubscribe=OK Contiguous="
	"0 Licenses=(null) Network=(null) Command=(null) WorkDir=/tmp/zlI StdErr=/dev/null StdIn=/d"
	"ev/null StdOut=/dev/null Power= TresPerNode=gres:gpu:1 \n";

static const char array_done[] =
	"JobId=1 ArrayJobId=1 ArrayTaskId=5 JobName=j.sh UserId=root(0) GroupId=root(0) MCS_label=N"
	"/A Priority=4294901759 Nice=0 Account=(null) QOS=(null) JobState=COMPLETED Reason=None Dep"
	"endency=(null) Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=0:0 RunTime=00:00:02 Tim"
	"eLimit=UNLIMITED TimeMin=N/A SubmitTime=2026-11-29T18:03:12 EligibleTime=2026-11-29T18:03:"
	"13 AccrueTime=2026-11-29T18:03:13 StartTime=2026-11-29T18:03:16 EndTime=2026-11-29T18:03:1"
	"8 Deadline=N/A SuspendTime=None SecsPreSuspend=0 LastSchedEval=2026-11-29T18:03:16 Schedul"
	"er=Main Partition=zl AllocNode:Sid=localhost:18593 ReqNodeList=(null) ExcNodeList=(null) N"
	"odeList=vm BatchHost=vm NumNodes=1 NumCPUs=1 NumTasks=1 CPUs/Task=1 ReqB:S:C:T=0:0:*:* TRE"
	"S=cpu=1,node=1,billing=1 Socks/Node=* NtasksPerN:B:S:C=0:0:*:* CoreSpec=* MinCPUsNode=1 Mi"
	"nMemoryNode=0 MinTmpDiskNode=0 Features=(null) DelayBoot=00:00:00 OverSubscribe=OK Contigu"
	"ous=0 Licenses=(null) Network=(null) Command=/tmp/zlI/j.sh WorkDir=/tmp/zlI StdErr=/tmp/zl"
	"I/o-1_5.out StdIn=/dev/null StdOut=/tmp/zlI/o-1_5.out Power= TresPerNode=gres:gpu:1 \n"
	"JobId=5 ArrayJobId=1 ArrayTaskId=3 JobName=j.sh UserId=root(0) GroupId=root(0) MCS_label=N"
	"/A Priority=4294901759 Nice=0 Account=(null) QOS=(null) JobState=FAILED Reason=NonZeroExit"
	"Code Dependency=(null) Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=3:0 RunTime=00:0"
	"0:02 TimeLimit=UNLIMITED TimeMin=N/A SubmitTime=2026-11-29T18:03:12 EligibleTime=2026-11-2"
	"9T18:03:13 AccrueTime=2026-11-29T18:03:13 StartTime=2026-11-29T18:03:13 EndTime=2026-11-29"
	"T18:03:15 Deadline=N/A SuspendTime=None SecsPreSuspend=0 LastSchedEval=2026-11-29T18:03:13"
	" Scheduler=Main Partition=zl AllocNode:Sid=localhost:18593 ReqNodeList=(null) ExcNodeList="
	"(null) NodeList=vm BatchHost=vm NumNodes=1 NumCPUs=1 NumTasks=1 CPUs/Task=1 ReqB:S:C:T=0:0"
	":*:* TRES=cpu=1,node=1,billing=1 Socks/Node=* NtasksPerN:B:S:C=0:0:*:* CoreSpec=* MinCPUsN"
	"ode=1 MinMemoryNode=0 MinTmpDiskNode=0 Features=(null) DelayBoot=00:00:00 OverSubscribe=OK"
	" Contiguous=0 Licenses=(null) Network=(null) Command=/tmp/zlI/j.sh WorkDir=/tmp/zlI StdErr"
	"=/tmp/zlI/o-1_3.out StdIn=/dev/null StdOut=/tmp/zlI/o-1_3.out Power= TresPerNode=gres:gpu:"
	"1 \n";

static const char cancelled[] =
	"JobId=8 ArrayJobId=8 ArrayTaskId=3-5 JobName=wrap UserId=root(0) GroupId=root(0) MCS_label"
	"=N/A Priority=4294901757 Nice=0 Account=(null) QOS=(null) JobState=CANCELLED Reason=Resour"
	"ces Dependency=(null) Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=0:0 RunTime=00:00"
	":00 TimeLimit=UNLIMITED TimeMin=N/A SubmitTime=2026-11-29T18:03:25 EligibleTime=2026-11-29"
	"T18:03:25 AccrueTime=Unknown StartTime=2026-11-29T18:03:27 EndTime=2026-11-29T18:03:27 Dea"
	"dline=N/A SuspendTime=None SecsPreSuspend=0 LastSchedEval=2026-11-29T18:03:25 Scheduler=Ma"
	"in Partition=zl AllocNode:Sid=localhost:18593 ReqNodeList=(null) ExcNodeList=(null) NodeLi"
	"st= NumNodes=1 NumCPUs=1 NumTasks=N/A CPUs/Task=1 ReqB:S:C:T=0:0:*:* TRES=cpu=1,mem=24105M"
	",node=1,billing=1 Socks/Node=* NtasksPerN:B:S:C=0:0:*:* CoreSpec=* MinCPUsNode=1 MinMemory"
	"Node=0 MinTmpDiskNode=0 Features=(null) DelayBoot=00:00:00 OverSubscribe=OK Contiguous=0 L"
	"icenses=(null) Network=(null) Command=(null) WorkDir=/tmp/zlI StdErr=/tmp/zlI/c-8_42949672"
	"94.out StdIn=/dev/null StdOut=/tmp/zlI/c-8_4294967294.out Power= TresPerNode=gres:gpu:1 \n"
	"JobId=11 ArrayJobId=8 ArrayTaskId=2 JobName=wrap UserId=root(0) GroupId=root(0) MCS_label="
	"N/A Priority=4294901757 Nice=0 Account=(null) QOS=(null) JobState=CANCELLED Reason=None De"
	"pendency=(null) Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=143:0 RunTime=00:00:02 "
	"TimeLimit=UNLIMITED TimeMin=N/A SubmitTime=2026-11-29T18:03:25 EligibleTime=2026-11-29T18:"
	"03:25 AccrueTime=Unknown StartTime=2026-11-29T18:03:25 EndTime=2026-11-29T18:03:27 Deadlin"
	"e=N/A SuspendTime=None SecsPreSuspend=0 LastSchedEval=2026-11-29T18:03:25 Scheduler=Main P"
	"artition=zl AllocNode:Sid=localhost:18593 ReqNodeList=(null) ExcNodeList=(null) NodeList=v"
	"m BatchHost=vm NumNodes=1 NumCPUs=1 NumTasks=1 CPUs/Task=1 ReqB:S:C:T=0:0:*:* TRES=cpu=1,n"
	"ode=1,billing=1 Socks/Node=* NtasksPerN:B:S:C=0:0:*:* CoreSpec=* MinCPUsNode=1 MinMemoryNo"
	"de=0 MinTmpDiskNode=0 Features=(null) DelayBoot=00:00:00 OverSubscribe=OK Contiguous=0 Lic"
	"enses=(null) Network=(null) Command=(null) WorkDir=/tmp/zlI StdErr=/tmp/zlI/c-8_2.out StdI"
	"n=/dev/null StdOut=/tmp/zlI/c-8_2.out Power= TresPerNode=gres:gpu:1 \n";

static const char timed_out[] =
	"JobId=7 JobName=wrap UserId=root(0) GroupId=root(0) MCS_label=N/A Priority=4294901758 Nice"
	"=0 Account=(null) QOS=(null) JobState=TIMEOUT Reason=TimeLimit Dependency=(null) Requeue=1"
	" Restarts=0 BatchFlag=1 Reboot=0 ExitCode=143:0 RunTime=00:01:14 TimeLimit=00:01:00 TimeMi"
	"n=N/A SubmitTime=2026-11-29T18:03:25 EligibleTime=2026-11-29T18:03:25 AccrueTime=2026-11-2"
	"9T18:03:25 StartTime=2026-11-29T18:03:25 EndTime=2026-11-29T18:04:39 Deadline=N/A SuspendT"
	"ime=None SecsPreSuspend=0 LastSchedEval=2026-11-29T18:03:25 Scheduler=Main Partition=zl Al"
	"locNode:Sid=localhost:18593 ReqNodeList=(null) ExcNodeList=(null) NodeList=vm BatchHost=vm"
	" NumNodes=1 NumCPUs=1 NumTasks=1 CPUs/Task=1 ReqB:S:C:T=0:0:*:* TRES=cpu=1,node=1,billing="
	"1 Socks/Node=* NtasksPerN:B:S:C=0:0:*:* CoreSpec=* MinCPUsNode=1 MinMemoryNode=0 MinTmpDis"
	"kNode=0 Features=(null) DelayBoot=00:00:00 OverSubscribe=OK Contiguous=0 Licenses=(null) N"
	"etwork=(null) Command=(null) WorkDir=/tmp/zlI StdErr=/tmp/zlI/t-7.out StdIn=/dev/null StdO"
	"ut=/tmp/zlI/t-7.out Power= TresPerNode=gres:gpu:1 \n";


static void test_states(void **state)
{
	const struct zl_slurm_state_def *d;
	(void)state;
	d = zl_slurm_state_find("COMPLETED");
	assert_non_null(d);
	assert_true(d->done);
	assert_null(d->status); /* the run's identity decides */
	d = zl_slurm_state_find("TIMEOUT");
	assert_true(d->done);
	assert_string_equal(d->status, ZL_STATUS_TIMEOUT);
	assert_non_null(strstr(d->why, "TIMEOUT"));
	d = zl_slurm_state_find("OUT_OF_MEMORY");
	assert_string_equal(d->status, ZL_STATUS_CRASHED);
	assert_true(d->over_crashed);
	d = zl_slurm_state_find("CANCELLED");
	assert_string_equal(d->status, ZL_STATUS_INTERRUPTED);
	assert_false(zl_batch_status_final(d->status, 0)); /* --resume runs it again */
	d = zl_slurm_state_find("NODE_FAIL");
	assert_string_equal(d->status, ZL_STATUS_INTERRUPTED);
	assert_false(zl_slurm_state_find("PENDING")->done);
	assert_false(zl_slurm_state_find("RUNNING")->done);
	assert_false(zl_slurm_state_find("COMPLETING")->done);
	assert_true(zl_slurm_state_find("COMPLETING")->ending); /* right after scancel, processes ending */
	assert_false(zl_slurm_state_find("RUNNING")->ending);
	assert_null(zl_slurm_state_find("NO_SUCH_STATE"));
	assert_null(zl_slurm_state_find(NULL));
}

static void expect_tasks(const char *spec, const char *want)
{
	struct strvec sv = STRVEC_INIT;
	struct strbuf got = STRBUF_INIT;
	size_t i;

	assert_int_equal(zl_slurm_expand_tasks(spec, &sv), 0);
	for (i = 0; i < sv.nr; i++)
		strbuf_addf(&got, "%s%s", i ? " " : "", sv.v[i]);
	assert_string_equal(got.buf, want);
	strvec_clear(&sv);
	strbuf_release(&got);
}

static void test_expand_tasks(void **state)
{
	struct strvec sv = STRVEC_INIT;
	(void)state;
	expect_tasks("7", "7");
	expect_tasks("3-5", "3 4 5");
	expect_tasks("4-6%5", "4 5 6");
	expect_tasks("1,4,7-9%2", "1 4 7 8 9");
	expect_tasks("0-12:4", "0 4 8 12");
	assert_int_equal(zl_slurm_expand_tasks("5-3", &sv), -1);
	assert_int_equal(zl_slurm_expand_tasks("a-b", &sv), -1);
	assert_int_equal(zl_slurm_expand_tasks("", &sv), -1);
	assert_int_equal(zl_slurm_expand_tasks("1-4:0", &sv), -1);
	/* found by fuzzing: a range ending at LONG_MAX overflowed the step; ranges that each fit
	 * the limit but not together asked for 40 million tasks; 4 million took 10 s */
	strvec_clear(&sv);
	assert_int_equal(zl_slurm_expand_tasks("9223372036854775806-9223372036854775807", &sv), 0);
	assert_int_equal(sv.nr, 2);
	assert_string_equal(sv.v[1], "9223372036854775807");
	strvec_clear(&sv);
	assert_int_equal(zl_slurm_expand_tasks("9223372036854775800-9223372036854775807:5", &sv), 0);
	assert_int_equal(sv.nr, 2);
	assert_string_equal(sv.v[1], "9223372036854775805");
	strvec_clear(&sv);
	assert_int_equal(zl_slurm_expand_tasks("0-3999999,0-3999999", &sv), -1);
	assert_int_equal(zl_slurm_expand_tasks("0-99999,7", &sv), -1);
	assert_int_equal(zl_slurm_expand_tasks("0-199998:2", &sv), 0);
	assert_int_equal(sv.nr, 100000);
	/* a spec refused adds nothing */
	assert_int_equal(zl_slurm_expand_tasks("1,2,x", &sv), -1);
	assert_int_equal(sv.nr, 100000);
	strvec_clear(&sv);
}

static void test_parse_pending_and_running(void **state)
{
	struct zl_slurm_job job = ZL_SLURM_JOB_INIT;
	struct strbuf err = STRBUF_INIT;
	const struct zl_slurm_task_state *t;
	(void)state;
	assert_int_equal(zl_slurm_parse_show_job(pending_and_running, "30", &job, &err), 0);
	assert_int_equal(job.nr, 4); /* 4, 5, 6 grouped, and 3 */
	t = zl_slurm_job_find(&job, 5);
	assert_non_null(t);
	assert_string_equal(t->state, "PENDING");
	assert_string_equal(t->reason, "Resources");
	assert_null(t->node);   /* never started */
	assert_null(t->start);  /* StartTime=Unknown */
	t = zl_slurm_job_find(&job, 3);
	assert_string_equal(t->state, "RUNNING");
	assert_string_equal(t->job_id, "34");
	assert_null(t->reason); /* Reason=None */
	assert_string_equal(t->node, "vm");
	assert_null(zl_slurm_job_find(&job, 0)); /* not in the capture */
	zl_slurm_job_release(&job);
	/* another array's records are not this job's */
	assert_int_equal(zl_slurm_parse_show_job(pending_and_running, "31", &job, &err), 0);
	assert_int_equal(job.nr, 0);
	zl_slurm_job_release(&job);
	strbuf_release(&err);
}

static void test_parse_done(void **state)
{
	struct zl_slurm_job job = ZL_SLURM_JOB_INIT;
	struct strbuf err = STRBUF_INIT;
	const struct zl_slurm_task_state *t;
	(void)state;
	assert_int_equal(zl_slurm_parse_show_job(array_done, "1", &job, &err), 0);
	assert_int_equal(job.nr, 2);
	t = zl_slurm_job_find(&job, 3);
	assert_string_equal(t->state, "FAILED");
	assert_string_equal(t->reason, "NonZeroExitCode");
	assert_int_equal(t->exit_code, 3);
	assert_int_equal(t->exit_signal, 0);
	assert_string_equal(t->start, "2026-11-29T18:03:13");
	assert_string_equal(t->end, "2026-11-29T18:03:15");
	t = zl_slurm_job_find(&job, 5);
	assert_string_equal(t->state, "COMPLETED");
	assert_string_equal(t->job_id, "1"); /* the last task keeps the array's id */
	zl_slurm_job_release(&job);

	assert_int_equal(zl_slurm_parse_show_job(cancelled, "8", &job, &err), 0);
	assert_int_equal(job.nr, 4);
	t = zl_slurm_job_find(&job, 4);
	assert_string_equal(t->state, "CANCELLED");
	assert_null(t->node); /* cancelled while pending: it never ran */
	t = zl_slurm_job_find(&job, 2);
	assert_string_equal(t->state, "CANCELLED");
	assert_int_equal(t->exit_code, 143);
	assert_string_equal(t->node, "vm");
	zl_slurm_job_release(&job);

	/* a plain job (no array fields) is task 0 of itself */
	assert_int_equal(zl_slurm_parse_show_job(timed_out, "7", &job, &err), 0);
	assert_int_equal(job.nr, 1);
	t = zl_slurm_job_find(&job, 0);
	assert_string_equal(t->state, "TIMEOUT");
	assert_string_equal(t->reason, "TimeLimit");
	assert_string_equal(zl_slurm_state_find(t->state)->status, ZL_STATUS_TIMEOUT);
	zl_slurm_job_release(&job);
	strbuf_release(&err);
}

static void test_parse_values_with_blanks(void **state)
{
	struct zl_slurm_job job = ZL_SLURM_JOB_INIT;
	struct strbuf err = STRBUF_INIT;
	(void)state;
	/* values may hold blanks (a WorkDir); a key is only a word right before '=' */
	assert_int_equal(zl_slurm_parse_show_job("JobId=9 ArrayJobId=9 ArrayTaskId=0 JobState=RUNNING "
						 "Reason=None ReqNodeList=(null) NodeList=n1 WorkDir=/a b/c "
						 "StdOut=/x StartTime=2026-01-01T00:00:00\n",
						 "9", &job, &err), 0);
	assert_int_equal(job.nr, 1);
	assert_string_equal(job.v[0].node, "n1");
	assert_string_equal(job.v[0].start, "2026-01-01T00:00:00");
	zl_slurm_job_release(&job);
	assert_int_equal(zl_slurm_parse_show_job("JobId=9 ArrayJobId=9 ArrayTaskId=x-y JobState=PENDING\n", "9",
						 &job, &err), -1);
	assert_non_null(strstr(err.buf, "scontrol"));
	zl_slurm_job_release(&job);
	strbuf_release(&err);
}

static void test_parse_job_id(void **state)
{
	char *id = NULL;
	(void)state;
	assert_int_equal(zl_slurm_parse_job_id("123\n", &id), 0);
	assert_string_equal(id, "123");
	free(id);
	assert_int_equal(zl_slurm_parse_job_id("4567;cluster2\n", &id), 0);
	assert_string_equal(id, "4567");
	free(id);
	assert_int_equal(zl_slurm_parse_job_id("sbatch: warning: something\n88\n\n", &id), 0);
	assert_string_equal(id, "88");
	free(id);
	assert_int_equal(zl_slurm_parse_job_id("", &id), -1);
	assert_int_equal(zl_slurm_parse_job_id("sbatch: error: invalid partition\n", &id), -1);
}

/* A backend whose visibility variable Slurm sets itself, and one it does not cover. */
static const struct zl_backend *covered(void)
{
	const struct zl_backend *b;

	for (b = zl_backend_table; b->name; b++)
		if (b->slurm_sets && b->slurm_sets[0])
			return b;
	return NULL;
}

static const struct zl_backend *uncovered(void)
{
	const struct zl_backend *b;

	for (b = zl_backend_table; b->name; b++)
		if (!b->slurm_sets || !b->slurm_sets[0])
			return b;
	return NULL;
}

static void clear_slurm_env(void)
{
	const struct zl_backend *b;
	const char *const *v;

	unsetenv("SLURM_JOB_GPUS");
	unsetenv("SLURM_STEP_GPUS");
	for (b = zl_backend_table; b->name; b++)
		for (v = b->slurm_sets; v && *v; v++)
			unsetenv(*v);
}

static void test_device_covered(void **state)
{
	const struct zl_backend *b = covered();
	struct zl_slurm_device d;
	struct strbuf err = STRBUF_INIT;
	(void)state;
	assert_non_null(b);
	clear_slurm_env();
	/* no device constraints: the granted index itself */
	setenv(b->slurm_sets[0], "2", 1);
	setenv("SLURM_JOB_GPUS", "2", 1);
	assert_int_equal(zl_slurm_task_device(b, &d, &err), 0);
	assert_string_equal(d.pin, "2");
	assert_string_equal(d.gpus, "2");
	assert_non_null(strstr(d.how, b->slurm_sets[0]));
	zl_slurm_device_release(&d);
	/* cgroup device constraints: the job sees its GPU as 0; the real one is in SLURM_JOB_GPUS */
	setenv(b->slurm_sets[0], "0", 1);
	setenv("SLURM_JOB_GPUS", "3", 1);
	assert_int_equal(zl_slurm_task_device(b, &d, &err), 0);
	assert_string_equal(d.pin, "0");
	assert_string_equal(d.gpus, "3");
	zl_slurm_device_release(&d);
	/* a gres without device files: Slurm's placeholder names no GPU */
	setenv(b->slurm_sets[0], "NoDevFiles", 1);
	assert_int_equal(zl_slurm_task_device(b, &d, &err), -1);
	assert_non_null(strstr(err.buf, "File="));
	strbuf_reset(&err);
	clear_slurm_env();
	assert_int_equal(zl_slurm_task_device(b, &d, &err), -1);
	assert_non_null(strstr(err.buf, "granted this task no GPU"));
	strbuf_release(&err);
}

static void test_device_uncovered(void **state)
{
	const struct zl_backend *b = uncovered();
	const struct zl_backend *other = covered();
	struct zl_slurm_device d;
	struct strbuf err = STRBUF_INIT;
	(void)state;
	assert_non_null(b);
	clear_slurm_env();
	/* another vendor's variable (Slurm sets it for every gres gpu) is not this backend's */
	setenv(other->slurm_sets[0], "0", 1);
	setenv("SLURM_JOB_GPUS", "3", 1);
	assert_int_equal(zl_slurm_task_device(b, &d, &err), 0);
	assert_string_equal(d.pin, "3");
	assert_non_null(strstr(d.how, b->visibility_var));
	zl_slurm_device_release(&d);
	/* a step's own GPUs come before the job's */
	setenv("SLURM_STEP_GPUS", "1", 1);
	setenv("SLURM_JOB_GPUS", "1,3", 1);
	assert_int_equal(zl_slurm_task_device(b, &d, &err), 0);
	assert_string_equal(d.pin, "1");
	zl_slurm_device_release(&d);
	setenv("SLURM_STEP_GPUS", "gpu:1", 1);
	assert_int_equal(zl_slurm_task_device(b, &d, &err), -1);
	assert_non_null(strstr(err.buf, "SLURM_STEP_GPUS='gpu:1'"));
	clear_slurm_env();
	strbuf_release(&err);
}

static void test_sbatch_args(void **state)
{
	static const char *const ok[] = { "--account=a", "-A", "a", "--qos=high", "--gres=gpu:h100:1", "--mem=8G",
					  "-N1", "--nice=5", "--ntasks-per-node=1", "--exclusive" };
	static const char *const refused[] = { "--array=0-3", "--array", "-a3", "--output=x", "-o", "--error=y",
					       "--wrap=true", "--parsable", "--wait", "--chdir=/", "-J", "-n2" };
	struct strvec args = STRVEC_INIT;
	struct strbuf err = STRBUF_INIT;
	size_t i;
	(void)state;
	for (i = 0; i < ZL_ARRAY_SIZE(ok); i++)
		strvec_push(&args, ok[i]);
	assert_int_equal(zl_slurm_check_sbatch_args(&args, &err), 0);
	for (i = 0; i < ZL_ARRAY_SIZE(refused); i++) {
		strvec_clear(&args);
		strvec_push(&args, "--qos=x");
		strvec_push(&args, refused[i]);
		strbuf_reset(&err);
		assert_int_equal(zl_slurm_check_sbatch_args(&args, &err), -1);
		assert_non_null(strstr(err.buf, refused[i]));
	}
	strvec_clear(&args);
	strbuf_release(&err);
}

static void test_shell_quote(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	(void)state;
	zl_shell_quote(&sb, "/opt/zl-bench/bin/zlbench");
	assert_string_equal(sb.buf, "/opt/zl-bench/bin/zlbench");
	strbuf_reset(&sb);
	zl_shell_quote(&sb, "a b$c");
	assert_string_equal(sb.buf, "'a b$c'");
	strbuf_reset(&sb);
	zl_shell_quote(&sb, "it's");
	assert_string_equal(sb.buf, "'it'\\''s'");
	strbuf_reset(&sb);
	zl_shell_quote(&sb, "");
	assert_string_equal(sb.buf, "''");
	strbuf_release(&sb);
}

/* A config, a batch config and a two-task submission, for the script and slurm.json. */
struct fixture {
	char *dir;
	struct zl_slurm_config sc;
	struct zl_batch_config bc;
};

static void fixture_make(struct fixture *fx, int with_limits)
{
	struct strbuf err = STRBUF_INIT;
	struct zl_slurm_submission *sub;
	static const char *const ops[] = { "mm", "bmm" };
	size_t i;

	assert_int_equal(zl_mkdtemp_in("/tmp", "zl-test-slurm-", &fx->dir, &err), 0);
	zl_slurm_config_init(&fx->sc);
	zl_batch_config_init(&fx->bc);
	fx->sc.dir = xstrdup(fx->dir);
	fx->sc.zlbench = xstrdup("/opt/zl bench/zlbench");
	if (with_limits) {
		fx->sc.partition = xstrdup("gpu");
		fx->sc.account = xstrdup("proj1");
		fx->sc.time_per_op_min = 45;
		strvec_push(&fx->sc.sbatch_args, "--qos=high");
	}
	fx->bc.dir = xstrdup(fx->dir);
	fx->bc.flaggems_dir = xstrdup("/src/FlagGems");
	ALLOC_GROW(fx->sc.subs, 1, fx->sc.alloc);
	sub = &fx->sc.subs[fx->sc.nr++];
	memset(sub, 0, sizeof(*sub));
	strvec_init(&sub->sbatch_argv);
	sub->job_id = xstrdup("4242");
	sub->script = xstrdup("slurm/submit-1.sbatch");
	sub->submitted_at = xstrdup("2026-11-29T18:00:00Z");
	strvec_push(&sub->sbatch_argv, "sbatch");
	strvec_push(&sub->sbatch_argv, "--parsable");
	for (i = 0; i < ZL_ARRAY_SIZE(ops); i++) {
		ALLOC_GROW(sub->tasks, sub->nr + 1, sub->alloc);
		sub->tasks[sub->nr].index = (long)sub->nr;
		sub->tasks[sub->nr].op = xstrdup(ops[i]);
		sub->tasks[sub->nr].attempt = (int)i + 1;
		sub->nr++;
	}
	strbuf_release(&err);
}

static void fixture_free(struct fixture *fx)
{
	struct strbuf err = STRBUF_INIT;

	zl_remove_tree(fx->dir, &err);
	free(fx->dir);
	zl_slurm_config_release(&fx->sc);
	zl_batch_config_release(&fx->bc);
	strbuf_release(&err);
}

static void test_script(void **state)
{
	struct fixture fx;
	struct strbuf s = STRBUF_INIT, err = STRBUF_INIT, out = STRBUF_INIT;
	char *path, *want;
	int code = -1;
	(void)state;
	fixture_make(&fx, 1);
	zl_slurm_script(&fx.sc, &fx.sc.subs[0], &fx.bc, "/opt/zl bench/plugins", &s);
	assert_true(zl_starts_with(s.buf, "#!/bin/bash\n"));
	assert_non_null(strstr(s.buf, "\n#SBATCH --array=0-1\n"));
	assert_non_null(strstr(s.buf, "\n#SBATCH --gres=gpu:1\n"));
	assert_non_null(strstr(s.buf, "\n#SBATCH --ntasks=1\n"));
	assert_non_null(strstr(s.buf, "\n#SBATCH --time=45\n"));
	assert_non_null(strstr(s.buf, "\n#SBATCH --partition=gpu\n"));
	assert_non_null(strstr(s.buf, "\n#SBATCH --account=proj1\n"));
	assert_non_null(strstr(s.buf, "/logs/slurm-%A_%a.out\n"));
	assert_non_null(strstr(s.buf, "#   plugins   /opt/zl bench/plugins\n"));
	assert_non_null(strstr(s.buf, "#   flaggems  /src/FlagGems\n"));
	want = xstrfmt("exec '/opt/zl bench/zlbench' batch --slurm-task %s --op \"$op\" --attempt \"$attempt\"\n", fx.dir);
	assert_non_null(strstr(s.buf, want));
	free(want);

	/* the script runs: each array index execs the task entry point for its own op and attempt */
	path = zl_path_join(fx.dir, "s.sbatch");
	free(fx.sc.zlbench);
	fx.sc.zlbench = xstrdup("/bin/echo");
	strbuf_reset(&s);
	zl_slurm_script(&fx.sc, &fx.sc.subs[0], &fx.bc, NULL, &s);
	assert_int_equal(zl_write_file_atomic(path, s.buf, s.len, &err), 0);
	{
		const char *argv[] = { "bash", path, NULL };
		const char *env1[] = { "SLURM_ARRAY_TASK_ID=1", NULL };
		const char *env9[] = { "SLURM_ARRAY_TASK_ID=9", NULL };

		assert_int_equal(zl_capture(argv, env1, 30, &out, &code, &err), 0);
		assert_int_equal(code, 0);
		want = xstrfmt("batch --slurm-task %s --op bmm --attempt 2\n", fx.dir);
		assert_string_equal(out.buf, want);
		free(want);
		strbuf_reset(&out);
		assert_int_equal(zl_capture(argv, env9, 30, &out, &code, &err), 0);
		assert_int_equal(code, 2);
		assert_non_null(strstr(out.buf, "is not part of this submission"));
	}
	/* without limits no --time, --partition or --account line */
	zl_slurm_config_release(&fx.sc);
	fixture_free(&fx);
	fixture_make(&fx, 0);
	strbuf_reset(&s);
	zl_slurm_script(&fx.sc, &fx.sc.subs[0], &fx.bc, NULL, &s);
	assert_null(strstr(s.buf, "--time="));
	assert_null(strstr(s.buf, "--partition="));
	assert_null(strstr(s.buf, "--account="));
	fixture_free(&fx);
	free(path);
	strbuf_release(&s);
	strbuf_release(&err);
	strbuf_release(&out);
}

static void test_config_round_trip(void **state)
{
	struct fixture fx;
	struct zl_slurm_config back;
	struct strbuf err = STRBUF_INIT;
	(void)state;
	fixture_make(&fx, 1);
	assert_false(zl_slurm_is_batch(fx.dir));
	assert_int_equal(zl_slurm_config_save(&fx.sc, &err), 0);
	assert_true(zl_slurm_is_batch(fx.dir));
	zl_slurm_config_init(&back);
	assert_int_equal(zl_slurm_config_load(&back, fx.dir, &err), 0);
	assert_string_equal(back.partition, "gpu");
	assert_string_equal(back.account, "proj1");
	assert_int_equal(back.time_per_op_min, 45);
	assert_int_equal(back.sbatch_args.nr, 1);
	assert_string_equal(back.sbatch_args.v[0], "--qos=high");
	assert_string_equal(back.zlbench, "/opt/zl bench/zlbench");
	assert_int_equal(back.nr, 1);
	assert_string_equal(back.subs[0].job_id, "4242");
	assert_int_equal(back.subs[0].nr, 2);
	assert_string_equal(back.subs[0].tasks[1].op, "bmm");
	assert_int_equal(back.subs[0].tasks[1].attempt, 2);
	assert_int_equal(back.subs[0].tasks[1].index, 1);
	assert_string_equal(back.subs[0].sbatch_argv.v[1], "--parsable");
	zl_slurm_config_release(&back);
	/* not a slurm.json: refused with the path */
	{
		char *p = zl_path_join(fx.dir, ZL_SLURM_CONFIG_FILE);

		assert_int_equal(zl_write_file_atomic(p, "{\"schema\":\"other\"}", 18, &err), 0);
		zl_slurm_config_init(&back);
		assert_int_equal(zl_slurm_config_load(&back, fx.dir, &err), -1);
		assert_non_null(strstr(err.buf, ZL_SLURM_SCHEMA));
		zl_slurm_config_release(&back);
		free(p);
	}
	fixture_free(&fx);
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_states),
		cmocka_unit_test(test_expand_tasks),
		cmocka_unit_test(test_parse_pending_and_running),
		cmocka_unit_test(test_parse_done),
		cmocka_unit_test(test_parse_values_with_blanks),
		cmocka_unit_test(test_parse_job_id),
		cmocka_unit_test(test_device_covered),
		cmocka_unit_test(test_device_uncovered),
		cmocka_unit_test(test_sbatch_args),
		cmocka_unit_test(test_shell_quote),
		cmocka_unit_test(test_script),
		cmocka_unit_test(test_config_round_trip),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

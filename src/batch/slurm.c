/*
 * zlbench batch --launcher slurm: what Slurm says (job states, scontrol records,
 * sbatch's answer), the device a task pins, slurm/slurm.json and the generated
 * sbatch script. The task's entry point is slurm_task.c; submitting and
 * following the job array is slurm_launch.c.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "zlbench/env.h"
#include "zlbench/error.h"
#include "zlbench/fsutil.h"
#include "zlbench/json.h"
#include "zlbench/run.h"
#include "zlbench/shquote.h"
#include "zlbench/slurm.h"
#include "zlbench/util.h"
#include "zlbench/zlbench.h"
#include "zlbench/banned.h"

/* ---- job states ---------------------------------------------------------------------- */

/*
 * JobState names from Slurm's job_state_string(); base states and the flag
 * states scontrol prints instead of them (COMPLETING, CONFIGURING, ...).
 */
static const struct zl_slurm_state_def states[] = {
	{ "PENDING", 0, 0, NULL, NULL, 0 },
	{ "RUNNING", 0, 0, NULL, NULL, 0 },
	{ "SUSPENDED", 0, 0, NULL, NULL, 0 },
	{ "COMPLETING", 0, 1, NULL, NULL, 0 },
	{ "CONFIGURING", 0, 0, NULL, NULL, 0 },
	{ "REQUEUED", 0, 0, NULL, NULL, 0 },
	{ "REQUEUE_HOLD", 0, 0, NULL, NULL, 0 },
	{ "REQUEUE_FED", 0, 0, NULL, NULL, 0 },
	{ "RESIZING", 0, 0, NULL, NULL, 0 },
	{ "RESV_DEL_HOLD", 0, 0, NULL, NULL, 0 },
	{ "SIGNALING", 0, 1, NULL, NULL, 0 },
	{ "STAGE_OUT", 0, 1, NULL, NULL, 0 },
	{ "STOPPED", 0, 0, NULL, NULL, 0 },
	{ "POWER_UP_NODE", 0, 0, NULL, NULL, 0 },
	{ "UPDATE_DB", 0, 0, NULL, NULL, 0 },
	{ "COMPLETED", 1, 0, NULL, NULL, 0 },
	{ "FAILED", 1, 0, NULL, NULL, 0 },
	{ "SPECIAL_EXIT", 1, 0, NULL, NULL, 0 },
	{ "TIMEOUT", 1, 0, ZL_STATUS_TIMEOUT, "slurm: time limit reached (TIMEOUT)", 0 },
	{ "DEADLINE", 1, 0, ZL_STATUS_TIMEOUT, "slurm: the job's deadline passed (DEADLINE)", 0 },
	{ "OUT_OF_MEMORY", 1, 0, ZL_STATUS_CRASHED, "slurm: out of memory (OUT_OF_MEMORY)", 1 },
	{ "CANCELLED", 1, 0, ZL_STATUS_INTERRUPTED, "slurm: cancelled (CANCELLED)", 0 },
	/* the op did not fail: interrupted is not final, so --resume runs it again */
	{ "NODE_FAIL", 1, 0, ZL_STATUS_INTERRUPTED, "slurm: its node failed (NODE_FAIL)", 0 },
	{ "BOOT_FAIL", 1, 0, ZL_STATUS_INTERRUPTED, "slurm: its node failed to boot (BOOT_FAIL)", 0 },
	{ "PREEMPTED", 1, 0, ZL_STATUS_INTERRUPTED, "slurm: preempted (PREEMPTED)", 0 },
	{ "REVOKED", 1, 0, ZL_STATUS_INTERRUPTED, "slurm: revoked by a sibling cluster (REVOKED)", 0 },
};

const struct zl_slurm_state_def *zl_slurm_state_find(const char *name)
{
	size_t i;

	for (i = 0; name && i < ZL_ARRAY_SIZE(states); i++)
		if (!strcmp(states[i].name, name))
			return &states[i];
	return NULL;
}

/* ---- scontrol records ------------------------------------------------------------------ */

void zl_slurm_job_release(struct zl_slurm_job *j)
{
	size_t i;

	for (i = 0; i < j->nr; i++) {
		struct zl_slurm_task_state *t = &j->v[i];

		free(t->job_id);
		free(t->state);
		free(t->reason);
		free(t->node);
		free(t->start);
		free(t->end);
	}
	free(j->v);
	j->v = NULL;
	j->nr = j->alloc = 0;
	j->unknown = 0;
}

const struct zl_slurm_task_state *zl_slurm_job_find(const struct zl_slurm_job *j, long task)
{
	size_t i;

	for (i = 0; i < j->nr; i++)
		if (j->v[i].task == task)
			return &j->v[i];
	return NULL;
}


/* One part of a task spec, "7", "3-5" or "0-12:4", as lo..hi by step. 0, or -1 when it is not one. */
static int task_range(const char *p, long *lo, long *hi, long *step)
{
	const char *dash = strchr(p, '-');
	char *a, *b, *colon;
	int bad;

	*step = 1;
	if (!dash) {
		if (zl_parse_long(p, lo) || *lo < 0)
			return -1;
		*hi = *lo;
		return 0;
	}
	a = xstrndup(p, (size_t)(dash - p));
	b = xstrdup(dash + 1);
	colon = strchr(b, ':');
	if (colon)
		*colon++ = '\0';
	bad = zl_parse_long(a, lo) || zl_parse_long(b, hi) || (colon && zl_parse_long(colon, step));
	free(a);
	free(b);
	return bad || *lo < 0 || *hi < *lo || *step < 1 ? -1 : 0;
}

int zl_slurm_expand_tasks(const char *spec, struct strvec *out)
{
	struct strvec parts = STRVEC_INIT;
	char *copy = xstrdup(spec);
	char *pct = strchr(copy, '%');
	long lo, hi, step, k;
	size_t i, total = 0;
	int rc = -1;

	/* "%N" is the throttle: how many run at once, not which */
	if (pct)
		*pct = '\0';
	strvec_split(&parts, copy, ',');
	if (!parts.nr)
		goto out;
	/* counted first: a grouped record never names more tasks than an array may hold (fuzz) */
	for (i = 0; i < parts.nr; i++) {
		if (task_range(parts.v[i], &lo, &hi, &step) || (hi - lo) / step >= ZL_SLURM_MAX_TASKS)
			goto out;
		total += (size_t)((hi - lo) / step) + 1;
		if (total > ZL_SLURM_MAX_TASKS)
			goto out;
	}
	for (i = 0; i < parts.nr; i++) {
		(void)task_range(parts.v[i], &lo, &hi, &step); /* it passed above */
		/* counted, not k += step: hi may be LONG_MAX (fuzz) */
		for (k = 0; k <= (hi - lo) / step; k++)
			strvec_pushf(out, "%ld", lo + k * step);
	}
	rc = 0;
out:
	strvec_clear(&parts);
	free(copy);
	return rc;
}

/*
 * The value of " Key=" in a record, up to the next " Word=" (values such as
 * WorkDir may hold blanks). NULL when absent. Caller frees.
 */
static char *record_value(const char *rec, const char *key)
{
	size_t klen = strlen(key);
	const char *p = rec, *v, *end;

	for (;;) {
		p = strstr(p, key);
		if (!p)
			return NULL;
		if ((p == rec || p[-1] == ' ') && p[klen] == '=')
			break;
		p += klen;
	}
	v = p + klen + 1;
	for (end = v; *end; end++) {
		const char *q;

		if (*end != ' ')
			continue;
		/* the next key: a run of key characters followed by '=' */
		for (q = end + 1; *q && *q != ' ' && *q != '='; q++)
			;
		if (*q == '=' && q > end + 1)
			break;
	}
	while (end > v && end[-1] == ' ')
		end--;
	return xstrndup(v, (size_t)(end - v));
}

/* NULL for Slurm's spellings of "nothing". */
static char *nothing_to_null(char *v)
{
	static const char *const none[] = { "", "None", "(null)", "Unknown", "N/A" };
	size_t i;

	for (i = 0; v && i < ZL_ARRAY_SIZE(none); i++)
		if (!strcmp(v, none[i])) {
			free(v);
			return NULL;
		}
	return v;
}

static int add_records(struct zl_slurm_job *out, const char *line)
{
	char *job_id = record_value(line, "JobId");
	char *array_task = record_value(line, "ArrayTaskId");
	char *exit_code = record_value(line, "ExitCode");
	struct strvec tasks = STRVEC_INIT;
	size_t i;
	int rc = -1, code = 0, sig = 0;

	if (!job_id)
		goto out;
	if (!array_task) {
		/* a plain job: its one task is 0 */
		strvec_push(&tasks, "0");
	} else if (zl_slurm_expand_tasks(array_task, &tasks)) {
		goto out;
	}
	if (exit_code && sscanf(exit_code, "%d:%d", &code, &sig) < 1)
		code = sig = 0;
	for (i = 0; i < tasks.nr; i++) {
		struct zl_slurm_task_state *t;

		ALLOC_GROW(out->v, out->nr + 1, out->alloc);
		t = &out->v[out->nr++];
		memset(t, 0, sizeof(*t));
		t->task = strtol(tasks.v[i], NULL, 10);
		t->job_id = xstrdup(job_id);
		t->state = record_value(line, "JobState");
		t->reason = nothing_to_null(record_value(line, "Reason"));
		t->exit_code = code;
		t->exit_signal = sig;
		t->node = nothing_to_null(record_value(line, "NodeList"));
		t->start = nothing_to_null(record_value(line, "StartTime"));
		t->end = nothing_to_null(record_value(line, "EndTime"));
		if (!t->state)
			t->state = xstrdup("UNKNOWN");
	}
	rc = 0;
out:
	strvec_clear(&tasks);
	free(job_id);
	free(array_task);
	free(exit_code);
	return rc;
}

int zl_slurm_parse_show_job(const char *text, const char *array_job_id, struct zl_slurm_job *out,
			    struct strbuf *err)
{
	const char *line = text;

	while (line && *line) {
		const char *nl = strchr(line, '\n');
		char *one = xstrndup(line, nl ? (size_t)(nl - line) : strlen(line));
		char *aj, *jid;
		int mine;

		line = nl ? nl + 1 : NULL;
		if (!strstr(one, "JobId=")) {
			free(one);
			continue;
		}
		aj = record_value(one, "ArrayJobId");
		jid = record_value(one, "JobId");
		mine = aj ? !strcmp(aj, array_job_id) : jid && !strcmp(jid, array_job_id);
		free(aj);
		free(jid);
		if (mine && add_records(out, one)) {
			zl_error(err, "cannot read scontrol's record '%.80s'", one);
			free(one);
			return -1;
		}
		free(one);
	}
	return 0;
}

int zl_slurm_parse_job_id(const char *out, char **id)
{
	struct strbuf sb = STRBUF_INIT;
	const char *p = out, *line = NULL;
	long v;

	/* sbatch may print warnings first; the id is the last non-empty line */
	while (p && *p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);

		if (n && strspn(p, " \t\r") < n)
			line = p;
		p = nl ? nl + 1 : NULL;
	}
	if (!line)
		return -1;
	strbuf_add(&sb, line, strcspn(line, ";\n"));
	strbuf_trim(&sb);
	if (zl_parse_long(sb.buf, &v) || v <= 0) {
		strbuf_release(&sb);
		return -1;
	}
	*id = strbuf_detach(&sb, NULL);
	return 0;
}

/* ---- the task's device ------------------------------------------------------------------ */

void zl_slurm_device_release(struct zl_slurm_device *d)
{
	free(d->pin);
	free(d->gpus);
	free(d->how);
	memset(d, 0, sizeof(*d));
}

/* "2" or "0,3": non-negative integers separated by commas. */
static int index_list(const char *v)
{
	const char *p = v;

	if (!v || !*v)
		return 0;
	for (;;) {
		if (*p < '0' || *p > '9')
			return 0;
		while (*p >= '0' && *p <= '9')
			p++;
		if (!*p)
			return 1;
		if (*p++ != ',')
			return 0;
	}
}

int zl_slurm_task_device(const struct zl_backend *b, struct zl_slurm_device *out, struct strbuf *err)
{
	/*
	 * Slurm sets no SLURM_STEP_GPUS in a batch step; one inherited from a job the
	 * batch was submitted from never gets here (zl_slurm_submit_env removes it).
	 */
	const char *step = zl_env(ZL_ENV_SLURM_STEP_GPUS);
	const char *job = zl_env(ZL_ENV_SLURM_JOB_GPUS);
	const char *gpus = step ? step : job;
	const char *gpus_var = zl_env_name(step ? ZL_ENV_SLURM_STEP_GPUS : ZL_ENV_SLURM_JOB_GPUS);
	const char *set_by_slurm = b->slurm_sets && b->slurm_sets[0] ? b->slurm_sets[0] : NULL;

	memset(out, 0, sizeof(*out));
	if (gpus && !index_list(gpus))
		return zl_error(err, "%s='%s' is not a list of GPU indices", gpus_var, gpus);
	out->gpus = gpus ? xstrdup(gpus) : NULL;
	if (set_by_slurm) {
		const char *v = zl_env_by_name(set_by_slurm);

		if (v && index_list(v)) {
			out->pin = xstrdup(v);
			if (gpus)
				out->how = xstrfmt("%s=%s set by Slurm (%s=%s)", set_by_slurm, v, gpus_var, gpus);
			else
				out->how = xstrfmt("%s=%s set by Slurm", set_by_slurm, v);
			return 0;
		}
		if (v) {
			zl_slurm_device_release(out);
			return zl_error(err, "Slurm set %s='%s', which names no GPU: does gres.conf list the GPUs' "
					"device files (File=)?", set_by_slurm, v);
		}
	}
	if (gpus) {
		out->pin = xstrdup(gpus);
		out->how = xstrfmt("%s=%s (Slurm sets no visibility variable for backend '%s'; %s takes it)",
				   gpus_var, gpus, b->name, b->visibility_var);
		return 0;
	}
	zl_slurm_device_release(out);
	return zl_error(err, "Slurm granted this task no GPU index: %s%sSLURM_JOB_GPUS %s unset; "
			"does the job ask --gres=gpu:1 and does gres.conf list the GPUs' device files (File=)?",
			set_by_slurm ? set_by_slurm : "", set_by_slurm ? " and " : "", set_by_slurm ? "are" : "is");
}

/* ---- sbatch's environment --------------------------------------------------------------- */

extern char **environ;

/* Slurm client settings a user exports on purpose; every other SLURM_* variable describes a job. */
static const char *const slurm_client_vars[] = {
	"SLURM_CONF", "SLURM_CLUSTERS", "SLURM_HINT", "SLURM_DEBUG_FLAGS", "SLURM_EXIT_ERROR", "SLURM_UMASK",
	"SLURM_TIME_FORMAT",
};

/* sbatch's input variables for what zlbench decides itself (they would override the script's lines). */
static const char *const sbatch_owned_vars[] = {
	"SBATCH_ARRAY_INX", "SBATCH_OUTPUT", "SBATCH_ERROR", "SBATCH_JOB_NAME", "SBATCH_WAIT", "SBATCH_REQUEUE",
	"SBATCH_EXPORT", "SBATCH_INPUT",
};

static int name_is(const char *entry, size_t len, const char *name)
{
	return strlen(name) == len && !strncmp(entry, name, len);
}

void zl_slurm_submit_env(struct strvec *env)
{
	size_t i, j;

	for (i = 0; environ && environ[i]; i++) {
		const char *e = environ[i];
		size_t len = strcspn(e, "=");
		int keep = 1;

		if (!strncmp(e, "SLURM_", 6) || !strncmp(e, "SLURMD_", 7)) {
			keep = 0;
			for (j = 0; j < ZL_ARRAY_SIZE(slurm_client_vars); j++)
				keep |= name_is(e, len, slurm_client_vars[j]);
		}
		for (j = 0; j < ZL_ARRAY_SIZE(sbatch_owned_vars); j++)
			keep &= !name_is(e, len, sbatch_owned_vars[j]);
		/* the visibility variables Slurm's gres sets: only the task's own grant may set them */
		for (j = 0; zl_backend_table[j].name; j++) {
			const char *const *v;

			for (v = zl_backend_table[j].slurm_sets; v && *v; v++)
				keep &= !name_is(e, len, *v);
		}
		if (!keep)
			strvec_pushf(env, "%.*s", (int)len, e);
	}
}

/* ---- slurm/slurm.json ----------------------------------------------------------------- */

void zl_slurm_config_init(struct zl_slurm_config *c)
{
	memset(c, 0, sizeof(*c));
	strvec_init(&c->sbatch_args);
}

static void submission_release(struct zl_slurm_submission *s)
{
	size_t i;

	free(s->job_id);
	free(s->submitted_at);
	free(s->script);
	strvec_clear(&s->sbatch_argv);
	for (i = 0; i < s->nr; i++)
		free(s->tasks[i].op);
	free(s->tasks);
}

void zl_slurm_config_release(struct zl_slurm_config *c)
{
	size_t i;

	free(c->dir);
	free(c->partition);
	free(c->account);
	free(c->zlbench);
	strvec_clear(&c->sbatch_args);
	for (i = 0; i < c->nr; i++)
		submission_release(&c->subs[i]);
	free(c->subs);
	zl_slurm_config_init(c);
}

int zl_slurm_is_batch(const char *batch_dir)
{
	char *path = zl_path_join(batch_dir, ZL_SLURM_CONFIG_FILE);
	int r = zl_is_file(path);

	free(path);
	return r;
}

static cJSON *submission_json(const struct zl_slurm_submission *s)
{
	cJSON *o = cJSON_CreateObject(), *tasks = cJSON_CreateArray();
	size_t i;
	int bad;

	bad = !o || !tasks || zl_json_add_string(o, "job_id", s->job_id) ||
	      zl_json_add_string(o, "submitted_at", s->submitted_at) ||
	      zl_json_add_string(o, "script", s->script) ||
	      zl_json_add_item(o, "sbatch_argv", zl_json_strvec(&s->sbatch_argv));
	if (bad) {
		cJSON_Delete(tasks);
		cJSON_Delete(o);
		return NULL;
	}
	if (zl_json_add_item(o, "tasks", tasks)) {
		cJSON_Delete(o);
		return NULL;
	}
	for (i = 0; i < s->nr; i++) {
		cJSON *t = cJSON_CreateObject();

		if (zl_json_add_item(tasks, NULL, t)) {
			cJSON_Delete(o);
			return NULL;
		}
		if (zl_json_add_number(t, "index", (double)s->tasks[i].index) ||
		    zl_json_add_string(t, "op", s->tasks[i].op) ||
		    zl_json_add_number(t, "attempt", s->tasks[i].attempt)) {
			cJSON_Delete(o);
			return NULL;
		}
	}
	return o;
}

int zl_slurm_config_save(const struct zl_slurm_config *c, struct strbuf *err)
{
	cJSON *doc = cJSON_CreateObject(), *subs = cJSON_CreateArray();
	char *path = zl_path_join(c->dir, ZL_SLURM_CONFIG_FILE);
	char *dir = zl_path_join(c->dir, ZL_SLURM_DIR);
	char *text = NULL;
	size_t i;
	int rc = -1, bad;

	bad = !doc || !subs || zl_json_add_string(doc, "schema", ZL_SLURM_SCHEMA) ||
	      zl_json_add_string(doc, "partition", c->partition) ||
	      zl_json_add_string(doc, "account", c->account) ||
	      zl_json_add_number(doc, "time_per_op_min", c->time_per_op_min > 0 ? (double)c->time_per_op_min : NAN) ||
	      zl_json_add_item(doc, "sbatch_args", zl_json_strvec(&c->sbatch_args)) ||
	      zl_json_add_string(doc, "zlbench", c->zlbench);
	if (!bad) {
		bad = zl_json_add_item(doc, "submissions", subs);
		subs = NULL; /* doc owns it, or it was deleted */
	}
	for (i = 0; !bad && i < c->nr; i++)
		bad = zl_json_add_item(cJSON_GetObjectItemCaseSensitive(doc, "submissions"), NULL,
				       submission_json(&c->subs[i]));
	if (!bad)
		text = cJSON_Print(doc);
	if (!text)
		zl_error(err, "out of memory building '%s'", path);
	else if (!zl_mkdir_p(dir, err))
		rc = zl_write_file_atomic(path, text, strlen(text), err);
	free(text);
	cJSON_Delete(subs);
	cJSON_Delete(doc);
	free(path);
	free(dir);
	return rc;
}

static int load_submission(const cJSON *o, struct zl_slurm_submission *s)
{
	const cJSON *t;

	memset(s, 0, sizeof(*s));
	strvec_init(&s->sbatch_argv);
	if (!cJSON_IsObject(o))
		return -1;
	s->job_id = zl_json_path_dup(o, "job_id");
	s->submitted_at = zl_json_path_dup(o, "submitted_at");
	s->script = zl_json_path_dup(o, "script");
	if (zl_json_to_strvec(cJSON_GetObjectItemCaseSensitive(o, "sbatch_argv"), &s->sbatch_argv) ||
	    !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(o, "tasks")))
		return -1;
	cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(o, "tasks")) {
		const cJSON *idx = cJSON_GetObjectItemCaseSensitive(t, "index");
		const cJSON *att = cJSON_GetObjectItemCaseSensitive(t, "attempt");
		const char *op = zl_json_path_string(t, "op");
		struct zl_slurm_task *task;

		if (!cJSON_IsNumber(idx) || !cJSON_IsNumber(att) || !op)
			return -1;
		ALLOC_GROW(s->tasks, s->nr + 1, s->alloc);
		task = &s->tasks[s->nr++];
		task->index = zl_json_long(idx, -1);
		task->attempt = att->valueint;
		task->op = xstrdup(op);
	}
	return 0;
}

int zl_slurm_config_load(struct zl_slurm_config *c, const char *batch_dir, struct strbuf *err)
{
	char *path = zl_path_join(batch_dir, ZL_SLURM_CONFIG_FILE);
	cJSON *doc = zl_json_read_schema(path, ZL_SLURM_SCHEMA, "was the batch launched with --launcher slurm?", err);
	const cJSON *n, *s;
	int rc = -1;

	if (!doc)
		goto out;
	c->dir = zl_absolute_path(batch_dir);
	c->partition = zl_json_path_dup(doc, "partition");
	c->account = zl_json_path_dup(doc, "account");
	c->zlbench = zl_json_path_dup(doc, "zlbench");
	n = cJSON_GetObjectItemCaseSensitive(doc, "time_per_op_min");
	c->time_per_op_min = zl_json_long(n, 0);
	if (zl_json_to_strvec(cJSON_GetObjectItemCaseSensitive(doc, "sbatch_args"), &c->sbatch_args) ||
	    !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(doc, "submissions"))) {
		zl_error(err, "'%s' lacks sbatch_args or submissions", path);
		goto out;
	}
	cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(doc, "submissions")) {
		ALLOC_GROW(c->subs, c->nr + 1, c->alloc);
		if (load_submission(s, &c->subs[c->nr++])) {
			zl_error(err, "'%s': submission %zu is malformed", path, c->nr);
			goto out;
		}
	}
	rc = 0;
out:
	cJSON_Delete(doc);
	free(path);
	return rc;
}

/* ---- sbatch arguments and the script ------------------------------------------------------ */

int zl_slurm_check_sbatch_args(const struct strvec *args, struct strbuf *err)
{
	/* long and short spellings of what the launcher decides itself */
	static const char *const owned[] = { "--array", "-a", "--output", "-o", "--error", "-e", "--wrap",
		"--parsable", "--wait", "-W", "--chdir", "-D", "--job-name", "-J", "--ntasks", "-n", "--requeue" };
	size_t i, j;

	for (i = 0; i < args->nr; i++) {
		const char *a = args->v[i];
		size_t name_len = strcspn(a, "=");

		for (j = 0; j < ZL_ARRAY_SIZE(owned); j++) {
			size_t n = strlen(owned[j]);

			/* sbatch takes any unambiguous prefix of a long option: "--arr=0-3" is --array */
			if (owned[j][1] == '-' && a[0] == '-' && a[1] == '-' && name_len > 2 && name_len < n &&
			    !strncmp(a, owned[j], name_len))
				return zl_error(err, "--sbatch-arg '%s': an abbreviation of %s, which zlbench sets itself "
						"(one array task per op, logs under the batch directory)", a, owned[j]);

			/* "--array=..", "--array", and short options glued to their value ("-a0-3") */
			if (!strncmp(a, owned[j], n) &&
			    (a[n] == '\0' || a[n] == '=' || (owned[j][1] != '-' && a[n] != '-')))
				return zl_error(err, "--sbatch-arg '%s': zlbench sets %s itself (one array task per op, "
						"logs under the batch directory)", a, owned[j]);
		}
	}
	return 0;
}

void zl_slurm_job_name(struct strbuf *out, const char *dir)
{
	const char *base = strrchr(dir, '/');
	const char *p;
	size_t n = 0;

	strbuf_addstr(out, "zlbench-");
	for (p = base ? base + 1 : dir; *p && n++ < 56; p++)
		strbuf_addch(out, (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
				  *p == '-' || *p == '_' || *p == '.' ? *p : '_');
}

/* The script's comment: what it runs, the shared paths every node must read, how it was submitted. */
static void script_comment(const struct zl_slurm_config *c, const struct zl_slurm_submission *sub,
			   const struct zl_batch_config *bc, const char *plugins_dir, struct strbuf *out)
{
	char stamp[32];
	size_t i;

	zl_utc_iso8601(stamp, zl_now_epoch());
	strbuf_addf(out, "# Generated by zlbench %s at %s for the batch in %s.\n", ZL_VERSION_STRING, stamp, c->dir);
	strbuf_addstr(out,
		      "# One array task per operator, one GPU each. Task i runs the operator of case i below\n"
		      "# through `zlbench batch --slurm-task`, which pins the GPU Slurm granted (through the\n"
		      "# backend's visibility variable), records it in slurm/tasks/<job>_<i>.json and runs\n"
		      "# `zlbench run` with ZL_NO_HISTORY=1: the submitting process fills the history database.\n"
		      "# Shared filesystem: every node must read these paths (the batch directory writable):\n");
	strbuf_addf(out, "#   zlbench   %s\n", c->zlbench);
	strbuf_addf(out, "#   plugins   %s\n", plugins_dir ? plugins_dir : "(not found)");
	strbuf_addf(out, "#   flaggems  %s\n", bc->flaggems_dir);
	strbuf_addf(out, "#   batch     %s\n", c->dir);
	strbuf_addstr(out, "# Submitted as:");
	for (i = 0; i < sub->sbatch_argv.nr; i++) {
		strbuf_addch(out, ' ');
		zl_shell_quote(out, sub->sbatch_argv.v[i]);
	}
	strbuf_addch(out, '\n');
}

/* The #SBATCH lines: one array task per op, one GPU each, output under the batch directory. */
static void script_directives(const struct zl_slurm_config *c, const struct zl_slurm_submission *sub,
			      struct strbuf *out)
{
	strbuf_addstr(out, "#SBATCH --job-name=");
	zl_slurm_job_name(out, c->dir);
	strbuf_addch(out, '\n');
	strbuf_addf(out, "#SBATCH --array=0-%zu\n", sub->nr ? sub->nr - 1 : 0);
	strbuf_addstr(out, "#SBATCH --ntasks=1\n#SBATCH --gres=gpu:1\n");
	/*
	 * A requeued task would rerun into its own used run directory and overwrite its
	 * task record; without requeue Slurm's verdict (NODE_FAIL, PREEMPTED) reaches the
	 * row, which is not final, so --resume gives the op a fresh attempt.
	 */
	strbuf_addstr(out, "#SBATCH --no-requeue\n");
	strbuf_addf(out, "#SBATCH --chdir=%s\n", c->dir);
	strbuf_addf(out, "#SBATCH --output=%s/logs/slurm-%%A_%%a.out\n", c->dir);
	if (c->time_per_op_min > 0)
		strbuf_addf(out, "#SBATCH --time=%ld\n", c->time_per_op_min);
	if (c->partition)
		strbuf_addf(out, "#SBATCH --partition=%s\n", c->partition);
	if (c->account)
		strbuf_addf(out, "#SBATCH --account=%s\n", c->account);
}

/* The body: the task's op and attempt by array index, a check for the binary, then the task itself. */
static void script_body(const struct zl_slurm_config *c, const struct zl_slurm_submission *sub, struct strbuf *out)
{
	size_t i;

	strbuf_addstr(out, "\ncase \"${SLURM_ARRAY_TASK_ID:-}\" in\n");
	for (i = 0; i < sub->nr; i++)
		strbuf_addf(out, "%ld) op=%s attempt=%d ;;\n", sub->tasks[i].index, sub->tasks[i].op,
			    sub->tasks[i].attempt);
	strbuf_addstr(out, "*) echo \"zlbench: array task '${SLURM_ARRAY_TASK_ID:-}' is not part of this submission\" >&2\n"
			   "   exit 2 ;;\nesac\n");
	/* a node without the binary is a broken environment: the op's row says preflight_failed, and why */
	strbuf_addstr(out, "if [ ! -x ");
	zl_shell_quote(out, c->zlbench);
	strbuf_addstr(out, " ]; then\n   printf 'zlbench: preflight failed: the zlbench binary %s is not executable on node "
			   "%s: --launcher slurm needs it at the same path on every node (a shared filesystem)\\n' ");
	zl_shell_quote(out, c->zlbench);
	strbuf_addstr(out, " \"${SLURMD_NODENAME:-$(hostname)}\" >&2\n"
			   "   echo 'PREFLIGHT_FAILED check=slurm_task' >&2\n   exit 3\nfi\nexec ");
	zl_shell_quote(out, c->zlbench);
	strbuf_addstr(out, " batch --slurm-task ");
	zl_shell_quote(out, c->dir);
	strbuf_addstr(out, " --op \"$op\" --attempt \"$attempt\"\n");
}

void zl_slurm_script(const struct zl_slurm_config *c, const struct zl_slurm_submission *sub,
		     const struct zl_batch_config *bc, const char *plugins_dir, struct strbuf *out)
{
	strbuf_addstr(out, "#!/bin/bash\n");
	script_comment(c, sub, bc, plugins_dir, out);
	script_directives(c, sub, out);
	script_body(c, sub, out);
}

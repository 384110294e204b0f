/* zlbench doctor: starting Python and pytest the way a run does, bounded in time. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "zlbench/child.h"
#include "zlbench/doctor.h"
#include "zlbench/error.h"
#include "zlbench/fsutil.h"
#include "zlbench/plan.h"
#include "zlbench/run.h"
#include "zlbench/util.h"
#include "zlbench/zlbench.h"
#include "zlbench/banned.h"

int zl_doctor_take_signals(struct zl_doctor *d)
{
	int sig;

	while ((sig = zl_signals_take()))
		if (sig != SIGCHLD && !d->interrupted)
			d->interrupted = sig;
	return d->interrupted;
}

static int doctor_stop(void *ctx)
{
	return zl_doctor_take_signals(ctx);
}

/*
 * pytest resolves the nodes and finds pytest.ini and conftest.py from where it
 * starts, so it starts in dir. A signal ends the child's whole group at once: a
 * diagnosis holds nothing worth a grace period, and the child leads its own group,
 * so a terminal's Ctrl-C never reaches it.
 */
static int capture_in(struct zl_doctor *d, const char *dir, const struct strvec *argv, const struct strvec *env,
		      struct strbuf *out, int *code, struct strbuf *err)
{
	if (zl_capture_until(dir, argv->v, env->v, d->timeout_s, doctor_stop, d, out, code, err))
		return d->interrupted ? zl_error(err, "interrupted by %s", strsignal(d->interrupted)) : -1;
	return 0;
}

int zl_doctor_python(struct zl_doctor *d, const struct strvec *args, const char *mode,
		     struct strbuf *out, int *code, struct strbuf *err)
{
	struct zl_plan plan = ZL_PLAN_INIT;
	struct strvec argv = STRVEC_INIT, env = STRVEC_INIT, unused = STRVEC_INIT;
	struct strbuf line = STRBUF_INIT;
	size_t i;
	int rc;

	/* the run's own environment: PYTHONPATH, pinned devices, ZL_EXPECTED_VENDOR, ... */
	zl_plan_make(d->s, &plan);
	zl_run_build_child(d->s, &d->pf, &plan, d->plugins_dir, NULL, NULL, &unused, &env);
	/* later edits of a name win: the doctor's files go to its own directory */
	strvec_pushf(&env, "ZL_RUN_DIR=%s", d->tmpdir);
	if (mode)
		strvec_pushf(&env, "ZL_DOCTOR_MODE=%s", mode);
	else
		strvec_push(&env, "ZL_DOCTOR_MODE");
	/* no __pycache__ left in the user's checkout by a diagnosis */
	strvec_push(&env, "PYTHONDONTWRITEBYTECODE=1");
	/* a crash (SIGSEGV in an extension) prints where Python was: the evidence */
	strvec_push(&env, "PYTHONFAULTHANDLER=1");

	strvec_push(&argv, d->pf.python_path ? d->pf.python_path : d->s->python);
	for (i = 0; i < args->nr; i++)
		strvec_push(&argv, args->v[i]);
	strbuf_addf(&line, "(cd %s &&", d->s->flaggems_dir);
	if (mode)
		strbuf_addf(&line, " ZL_DOCTOR_MODE=%s", mode);
	for (i = 0; i < argv.nr; i++)
		strbuf_addf(&line, " %s", argv.v[i]);
	strbuf_addch(&line, ')');
	strvec_push(&d->commands, line.buf);

	rc = capture_in(d, d->s->flaggems_dir, &argv, &env, out, code, err);
	strbuf_release(&line);
	strvec_clear(&argv);
	strvec_clear(&env);
	strvec_clear(&unused);
	zl_plan_release(&plan);
	return rc;
}

void zl_doctor_pytest_args(const struct zl_doctor *d, int collect_only, struct strvec *args)
{
	const struct zl_settings *s = d->s;
	size_t i;

	strvec_push(args, "-m");
	strvec_push(args, "pytest");
	if (collect_only)
		strvec_push(args, "--collect-only");
	strvec_push(args, "-q");
	/* a diagnosis leaves no .pytest_cache in the checkout */
	strvec_push(args, "-p");
	strvec_push(args, "no:cacheprovider");
	for (i = 0; i < d->pf.nodes.nodes.nr; i++)
		strvec_push(args, d->pf.nodes.nodes.v[i]);
	if (d->pf.nodes.marker) {
		strvec_push(args, "-m");
		strvec_push(args, d->pf.nodes.marker);
	}
	strvec_push(args, "-p");
	strvec_push(args, "zl_doctor");
	if (collect_only) {
		strvec_push(args, "-p");
		strvec_push(args, "zl_foreign_vendor");
	}
	strvec_push(args, "--level");
	strvec_push(args, s->level);
	strvec_push(args, "--mode");
	strvec_push(args, "kernel");
	if (s->shape_mode_file) {
		strvec_push(args, "--shape_file");
		strvec_push(args, s->shape_file);
	}
	for (i = 0; i < s->passthrough.nr; i++)
		strvec_push(args, s->passthrough.v[i]);
}

struct cJSON *zl_doctor_read_json(const struct zl_doctor *d, const char *rel, struct strbuf *err)
{
	char *path = zl_path_join(d->tmpdir, rel);
	struct strbuf text = STRBUF_INIT;
	cJSON *doc = NULL;

	if (strbuf_read_file(&text, path) < 0)
		zl_error(err, "no '%s' was written", rel);
	else if (!(doc = cJSON_Parse(text.buf)))
		zl_error(err, "'%s' is not JSON", rel);
	strbuf_release(&text);
	free(path);
	return doc;
}

void zl_doctor_tail(const char *text, size_t n, struct strbuf *out)
{
	struct strvec lines = STRVEC_INIT;
	size_t i, start;

	strvec_split(&lines, text, '\n');
	start = lines.nr > n ? lines.nr - n : 0;
	for (i = start; i < lines.nr; i++)
		strbuf_addf(out, "%s%s", i > start ? " | " : "", lines.v[i]);
	strvec_clear(&lines);
}

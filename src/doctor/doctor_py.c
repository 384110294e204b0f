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
#include "zlbench/run.h"
#include "zlbench/shquote.h"
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

/* The name of an env edit ("NAME=value" or a bare "NAME"), its length. */
static size_t edit_name_len(const char *edit)
{
	return strcspn(edit, "=");
}

/* Is edits[i] the last edit of its name? Only that one counts (child.h). */
static int last_edit(const struct strvec *edits, size_t i)
{
	size_t n = edit_name_len(edits->v[i]), j;

	for (j = i + 1; j < edits->nr; j++)
		if (edit_name_len(edits->v[j]) == n && !strncmp(edits->v[j], edits->v[i], n))
			return 0;
	return 1;
}

static void add_word(struct strbuf *out, const char *word, const char *run_dir)
{
	size_t n = run_dir ? strlen(run_dir) : 0;

	if (n && !strncmp(word, run_dir, n) && (word[n] == '/' || !word[n])) {
		strbuf_addstr(out, "\"$ZL_RUN_DIR\"");
		if (word[n])
			zl_shell_quote(out, word + n);
		return;
	}
	zl_shell_quote(out, word);
}

void zl_doctor_command_line(const char *dir, const struct strvec *env, const struct strvec *argv,
			    const char *run_dir, struct strbuf *out)
{
	size_t i, unset = 0;

	strbuf_addstr(out, "(cd ");
	zl_shell_quote(out, dir);
	/* the doctor's own directory is gone once it ends: a fresh one per rerun */
	strbuf_addstr(out, " && export ZL_RUN_DIR=\"$(mktemp -d)\" && echo \"files in $ZL_RUN_DIR\" >&2 &&");
	for (i = 0; i < env->nr; i++) {
		const char *e = env->v[i];

		if (strchr(e, '=') || !last_edit(env, i) || !strcmp(e, "ZL_RUN_DIR"))
			continue;
		strbuf_addstr(out, unset++ ? " " : " unset ");
		zl_shell_quote(out, e);
	}
	if (unset)
		strbuf_addstr(out, " &&");
	for (i = 0; i < env->nr; i++) {
		const char *e = env->v[i], *eq = strchr(e, '=');

		if (!eq || !last_edit(env, i) || zl_starts_with(e, "ZL_RUN_DIR="))
			continue;
		strbuf_addch(out, ' ');
		strbuf_add(out, e, (size_t)(eq + 1 - e));
		add_word(out, eq + 1, run_dir);
	}
	for (i = 0; i < argv->nr; i++) {
		strbuf_addch(out, ' ');
		add_word(out, argv->v[i], run_dir);
	}
	strbuf_addch(out, ')');
}

int zl_doctor_python(struct zl_doctor *d, const struct strvec *args, const char *mode,
		     struct strbuf *out, int *code, struct strbuf *err)
{
	struct zl_run_ctx c;
	struct strvec argv = STRVEC_INIT, env = STRVEC_INIT, unused = STRVEC_INIT;
	struct strbuf line = STRBUF_INIT;
	size_t i;
	int rc;

	/* the run's own environment: PYTHONPATH, pinned devices, ZL_EXPECTED_VENDOR, ... */
	zl_run_ctx_init(&c, d->s, &d->pf);
	zl_run_build_child(&c, &unused, &env);
	zl_run_ctx_release(&c);
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
	zl_doctor_command_line(d->s->flaggems_dir, &env, &argv, d->tmpdir, &line);
	strvec_push(&d->commands, line.buf);

	rc = capture_in(d, d->s->flaggems_dir, &argv, &env, out, code, err);
	strbuf_release(&line);
	strvec_clear(&argv);
	strvec_clear(&env);
	strvec_clear(&unused);
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

	if (zl_read_file(&text, path, NULL, ZL_CAP_DOC, NULL))
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

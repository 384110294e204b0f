/*
 * zlbench doctor: the ordered checklist (see include/zlbench/doctor.h).
 * Each step reads what the earlier ones found and fills its own result.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "zlbench/child.h"
#include "zlbench/doctor.h"
#include "zlbench/doctor_seen.h"
#include "zlbench/error.h"
#include "zlbench/fsutil.h"
#include "zlbench/json.h"
#include "zlbench/plan.h"
#include "zlbench/resolve.h"
#include "zlbench/schema.h"
#include "zlbench/shapes.h"
#include "zlbench/tunercache.h"
#include "zlbench/util.h"
#include "zlbench/zlbench.h"
#include "zlbench/banned.h"

enum step_index { STEP_PATHS, STEP_VENDOR, STEP_COLLECT, STEP_SKIPS, STEP_FOREIGN, STEP_TUNER, STEP_SHAPES };

/* Lines of evidence listed per kind (node ids, modules, tables) before "... and N more". */
#define MAX_LISTED 10

static const char *const status_names[] = { "not_run", "ok", "warn", "failed" };

const char *zl_doctor_status_name(enum zl_doctor_status st)
{
	return status_names[st];
}

static void result_release(struct zl_doctor_result *r)
{
	free(r->summary);
	free(r->fix);
	strvec_clear(&r->evidence);
	r->summary = r->fix = NULL;
	r->status = ZL_DOCTOR_NOT_RUN;
}

static void set_status(struct zl_doctor_result *r, enum zl_doctor_status st, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void set_status(struct zl_doctor_result *r, enum zl_doctor_status st, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	xstrvfmt_set(&r->summary, fmt, ap);
	va_end(ap);
	r->status = st;
}

static void set_fix(struct zl_doctor_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void set_fix(struct zl_doctor_result *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	xstrvfmt_set(&r->fix, fmt, ap);
	va_end(ap);
}

void zl_doctor_init(struct zl_doctor *d, struct zl_settings *s)
{
	size_t i;

	memset(d, 0, sizeof(*d));
	d->s = s;
	strvec_init(&d->want_shapes);
	strvec_init(&d->commands);
	for (i = 0; i < ZL_DOCTOR_STEPS; i++)
		strvec_init(&d->results[i].evidence);
	d->failed = -1;
	d->timeout_s = 300;
	zl_preflight_init(&d->pf, s);
	strbuf_init(&d->path_msg, 0);
	strbuf_init(&d->vendor_msg, 0);
	strbuf_init(&d->op_msg, 0);
	strbuf_init(&d->probe_out, 0);
}

void zl_doctor_release(struct zl_doctor *d)
{
	size_t i;

	for (i = 0; i < ZL_DOCTOR_STEPS; i++)
		result_release(&d->results[i]);
	if (d->tmpdir) {
		struct strbuf err = STRBUF_INIT;

		if (zl_remove_tree(d->tmpdir, &err))
			zl_print_warning("%s", err.buf);
		strbuf_release(&err);
	}
	/* only now may a signal kill us: the temporary directory is gone */
	if (d->signals_taken)
		zl_signals_restore();
	d->signals_taken = 0;
	free(d->tmpdir);
	free(d->plugins_dir);
	cJSON_Delete(d->collected);
	cJSON_Delete(d->foreign);
	cJSON_Delete(d->probe);
	strbuf_release(&d->probe_out);
	zl_preflight_release(&d->pf);
	strbuf_release(&d->path_msg);
	strbuf_release(&d->vendor_msg);
	strbuf_release(&d->op_msg);
	strvec_clear(&d->want_shapes);
	strvec_clear(&d->commands);
	d->tmpdir = d->plugins_dir = NULL;
	d->collected = d->foreign = d->probe = NULL;
}

/* ---- small readers ------------------------------------------------------- */

static const char *jstr(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static const char *jstr_or(const cJSON *o, const char *key, const char *fallback)
{
	const char *v = jstr(o, key);

	return v ? v : fallback;
}

static const cJSON *jarr(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsArray(v) ? v : NULL;
}

/* The operator the steps talk about: --op, else the -m marker; NULL for a bare test node. */
static const char *op_name(const struct zl_doctor *d)
{
	return d->pf.nodes.op ? d->pf.nodes.op : d->pf.nodes.marker;
}

/* The file half of a node id. Caller frees. */
static char *node_file(const char *node)
{
	const char *sep = strstr(node, "::");

	return sep ? xstrndup(node, (size_t)(sep - node)) : xstrdup(node);
}

static void add_more(struct zl_doctor_result *r, size_t shown, size_t total)
{
	if (total > shown)
		strvec_pushf(&r->evidence, "... and %zu more", total - shown);
}

/* Lines of a crashed child's output kept as evidence. */
#define CRASH_LINES 8

/* Did a child die of a signal? Its number, else 0 (child.h reports signal N as 128+N). */
static int death_signal(int code)
{
	return code > ZL_EXIT_SIGNAL_BASE && code < ZL_EXIT_SIGNAL_BASE + 65 ? code - ZL_EXIT_SIGNAL_BASE : 0;
}

/*
 * Where a crashed Python was: faulthandler's report (PYTHONFAULTHANDLER=1) from its
 * "Fatal Python error" line on, else the last lines of the output; one evidence line each.
 */
static void crash_evidence(struct zl_doctor_result *r, const char *out)
{
	struct strvec lines = STRVEC_INIT;
	const char *fatal = strstr(out, "Fatal Python error");
	size_t i, start, kept = 0;

	strvec_split(&lines, fatal ? fatal : out, '\n');
	start = !fatal && lines.nr > CRASH_LINES ? lines.nr - CRASH_LINES : 0;
	for (i = start; i < lines.nr && kept < CRASH_LINES; i++) {
		/* importlib's own frames say nothing about the crash */
		if (!*lines.v[i] || strstr(lines.v[i], "File \"<frozen "))
			continue;
		strvec_pushf(&r->evidence, "output: %s", lines.v[i]);
		kept++;
	}
	if (!kept)
		strvec_push(&r->evidence, "output: (nothing)");
	strvec_clear(&lines);
}

/* ---- step 1: paths ------------------------------------------------------- */

/* Preflight checks reported by a later step than "paths". */
static const struct {
	const char *check;
	enum step_index step;
} check_steps[] = {
	{ "backend", STEP_VENDOR },
	{ "benchmark_file", STEP_COLLECT },
	{ "op_resolution", STEP_COLLECT },
};

static enum step_index step_of_check(const char *name)
{
	size_t i;

	for (i = 0; i < ZL_ARRAY_SIZE(check_steps); i++)
		if (!strcmp(check_steps[i].check, name))
			return check_steps[i].step;
	return STEP_PATHS;
}

/* Checks whose failure means pytest never loads FlagGems' conftest.py. */
static int loses_conftest(const char *check)
{
	return !strcmp(check, "flaggems_dir") || !strcmp(check, "benchmark_dir");
}

static void step_paths(struct zl_doctor *d, struct zl_doctor_result *r)
{
	const struct zl_check *c;
	struct zl_settings *s = d->s;
	struct strbuf msg = STRBUF_INIT;
	size_t i;

	for (c = zl_checks; c->name; c++) {
		enum step_index step = step_of_check(c->name);
		const struct zl_check **slot = step == STEP_VENDOR ? &d->vendor_check
					     : step == STEP_COLLECT ? &d->op_check : &d->path_check;
		struct strbuf *where = step == STEP_VENDOR ? &d->vendor_msg
				     : step == STEP_COLLECT ? &d->op_msg : &d->path_msg;

		strbuf_reset(&msg);
		if (!c->fn(&d->pf, &msg))
			continue;
		if (!*slot) {
			*slot = c;
			strbuf_addbuf(where, &msg);
		}
		/* later checks need what this one provides (the interpreter, the directory) */
		if (step == STEP_PATHS)
			break;
	}
	strbuf_release(&msg);

	if (d->path_check) {
		set_status(r, ZL_DOCTOR_FAILED, "%s", d->path_msg.buf);
		strvec_pushf(&r->evidence, "preflight check '%s' failed", d->path_check->name);
		if (loses_conftest(d->path_check->name))
			strvec_pushf(&r->evidence, "pytest would never load FlagGems' benchmark/conftest.py, which registers "
				     "--level and --mode, and would die with \"unrecognized arguments: --level %s --mode kernel\"",
				     s->level);
		set_fix(r, "%s", d->path_check->hint);
		return;
	}
	set_status(r, ZL_DOCTOR_OK, "checkout, benchmark/conftest.py, interpreter, pytest, devices and run directory are in place");
	strvec_pushf(&r->evidence, "FlagGems checkout: %s (%s)", s->flaggems_dir, s->v[ZL_SET_FLAGGEMS_DIR].from);
	strvec_pushf(&r->evidence, "interpreter: %s (Python %s, pytest %s)", d->pf.python_path,
		     d->pf.python_version ? d->pf.python_version : "?", d->pf.pytest_version ? d->pf.pytest_version : "?");
	strvec_pushf(&r->evidence, "devices: %s (%s)", s->devices.nr ? s->devices.v[0] : "-",
		     d->pf.devs.available ? d->pf.devs.how : "not verified");
	for (i = 0; i < d->pf.warnings.nr; i++)
		if (!strstr(d->pf.warnings.v[i], "shape file")) /* the shapes step words those itself */
			strvec_pushf(&r->evidence, "warning: %s", d->pf.warnings.v[i]);
}

/* ---- step 2: backend and vendor -------------------------------------------- */

static const struct zl_backend *backend_of_vendor(const char *vendor)
{
	const struct zl_backend *b;

	for (b = zl_backend_table; b->name; b++)
		if (!strcmp(b->vendor_name, vendor))
			return b;
	return NULL;
}

/*
 * Was flag_gems (its __init__.py at file) imported from outside <flaggems>/src? Then its
 * package directory, with an evidence line saying why Python took it and *own_pkg the
 * checkout's package directory (both the caller's to free); else NULL.
 */
static char *outside_checkout(const struct zl_doctor *d, const char *file, struct zl_doctor_result *r, char **own_pkg)
{
	char *src = zl_path_join(d->s->flaggems_dir, "src/");
	const char *slash = strrchr(file, '/');
	char *pkg;

	if (zl_starts_with(file, src) || !slash) {
		free(src);
		return NULL;
	}
	free(src);
	pkg = xstrndup(file, (size_t)(slash - file));
	*own_pkg = zl_path_join(d->s->flaggems_dir, "src/flag_gems");
	if (zl_is_dir(*own_pkg))
		strvec_pushf(&r->evidence, "'%s' exists, but another FlagGems came first on the interpreter's path", *own_pkg);
	else
		strvec_pushf(&r->evidence, "'%s' does not exist, so Python imported the next FlagGems on its path", *own_pkg);
	return pkg;
}

/* `python -m zl_doctor vendor` wrote nothing: a crash in the import, or no plugin to run. */
static void no_vendor_answer(struct zl_doctor *d, struct zl_doctor_result *r, int code, const char *out)
{
	char *plugin = zl_path_join(d->plugins_dir, "zl_doctor.py");
	int sig = death_signal(code);

	if (sig) {
		set_status(r, ZL_DOCTOR_FAILED, "'%s' was killed by signal %d (%s) while importing flag_gems", d->pf.python_path,
			   sig, strsignal(sig));
		crash_evidence(r, out);
		set_fix(r, "the crash is in flag_gems' import or a library it loads (the frames above, from "
			"PYTHONFAULTHANDLER=1): fix or rebuild that, or use an interpreter (--python) whose stack matches");
	} else if (!zl_is_file(plugin)) {
		set_status(r, ZL_DOCTOR_FAILED, "'%s -m zl_doctor' exited %d and wrote no answer: there is no '%s'",
			   d->pf.python_path, code, plugin);
		crash_evidence(r, out);
		set_fix(r, "point ZL_PLUGINS_DIR at zlbench's plugins directory (the one that holds zl_doctor.py)");
	} else {
		set_status(r, ZL_DOCTOR_FAILED, "'%s -m zl_doctor vendor' exited %d while importing flag_gems and wrote no answer",
			   d->pf.python_path, code);
		crash_evidence(r, out);
		set_fix(r, "rerun the command `zlbench --verbose doctor` prints and read its output");
	}
	free(plugin);
}

/* `python -m zl_doctor vendor`'s answer; NULL with r failed when it did not start, timed out or wrote none. */
static cJSON *vendor_answer(struct zl_doctor *d, struct zl_doctor_result *r)
{
	struct strvec args = STRVEC_INIT;
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	cJSON *doc = NULL;
	int code = 0;

	strvec_push(&args, "-m");
	strvec_push(&args, "zl_doctor");
	strvec_push(&args, "vendor");
	strvec_pushf(&args, "%s/vendor.json", d->tmpdir);
	if (zl_doctor_python(d, &args, NULL, &out, &code, &err)) {
		set_status(r, ZL_DOCTOR_FAILED, "cannot start '%s': %s", d->pf.python_path, err.buf);
		set_fix(r, "use an interpreter that runs (--python or ZL_PYTHON)");
	} else if (code == ZL_EXIT_TIMEOUT) {
		set_status(r, ZL_DOCTOR_FAILED, "importing flag_gems did not finish within %g s", d->timeout_s);
		set_fix(r, "find what the import waits for (a device, a lock, a compile); raise --step-timeout if it is only slow");
	} else if (!(doc = zl_doctor_read_json(d, "vendor.json", &err))) {
		no_vendor_answer(d, r, code, out.buf);
	}
	strvec_clear(&args);
	strbuf_release(&out);
	strbuf_release(&err);
	return doc;
}

/* The import raised `error`: where, and the path it searched. */
static void vendor_import_failed(struct zl_doctor *d, struct zl_doctor_result *r, const cJSON *doc, const char *error)
{
	set_status(r, ZL_DOCTOR_FAILED, "'%s' cannot import flag_gems: %s", d->pf.python_path, error);
	if (jstr(doc, "error_at"))
		strvec_pushf(&r->evidence, "raised at %s", jstr(doc, "error_at"));
	strvec_pushf(&r->evidence, "PYTHONPATH starts with %s and %s/src, as in a run", d->plugins_dir,
		     d->s->flaggems_dir);
	set_fix(r, "point --flaggems-dir at a FlagGems checkout whose src/ holds flag_gems, or use an interpreter "
		"(--python) that has FlagGems and its stack installed");
}

/* flag_gems reports vendor det (NULL: none), not the backend's: what forces it, which build fits. */
static void vendor_mismatch(struct zl_doctor *d, struct zl_doctor_result *r, const cJSON *doc, const char *det)
{
	const struct zl_backend *b = d->s->backend;
	const struct zl_backend *other = det ? backend_of_vendor(det) : NULL;
	const cJSON *venv = cJSON_GetObjectItemCaseSensitive(doc, "vendor_env");
	const cJSON *v;

	set_status(r, ZL_DOCTOR_FAILED, "flag_gems reports vendor '%s' but backend '%s' expects '%s'",
		   det ? det : "(none)", b->name, b->vendor_name);
	cJSON_ArrayForEach(v, venv)
		if (cJSON_IsString(v))
			strvec_pushf(&r->evidence, "%s=%s forces FlagGems' vendor", v->string, v->valuestring);
	if (cJSON_GetArraySize(venv) > 0)
		set_fix(r, "unset the variable that forces the vendor, or run with the backend it names");
	else if (other)
		set_fix(r, "this FlagGems is the '%s' build: run it with --backend %s, or point --flaggems-dir "
			"(and --python) at the '%s' build for backend %s", det, other->name, b->vendor_name, b->name);
	else
		set_fix(r, "point --flaggems-dir (and --python) at the FlagGems build for '%s'", b->vendor_name);
}

/* flag_gems came from foreign_pkg, not the checkout's own_pkg: a run would measure the wrong one. */
static void vendor_foreign(struct zl_doctor_result *r, const char *foreign_pkg, const char *own_pkg)
{
	set_status(r, ZL_DOCTOR_WARN, "flag_gems was imported from '%s', outside the checkout's '%s': a run would "
		   "measure that FlagGems, not the checkout's", foreign_pkg, own_pkg);
	if (zl_is_dir(own_pkg))
		set_fix(r, "take the FlagGems in '%s' off the interpreter's path (PYTHONPATH, a .pth file, or "
			"pip uninstall flag_gems) so that '%s' is imported", foreign_pkg, own_pkg);
	else
		set_fix(r, "point --flaggems-dir at the checkout whose src/ holds '%s', or give this checkout its "
			"src/flag_gems", foreign_pkg);
}

static void step_vendor(struct zl_doctor *d, struct zl_doctor_result *r)
{
	const struct zl_backend *b = d->s->backend;
	cJSON *doc;
	const char *det, *file, *error, *version;
	char *foreign_pkg = NULL, *own_pkg = NULL;

	if (d->vendor_check) {
		set_status(r, ZL_DOCTOR_FAILED, "%s", d->vendor_msg.buf);
		strvec_pushf(&r->evidence, "preflight check '%s' failed", d->vendor_check->name);
		set_fix(r, "%s", d->vendor_check->hint);
		return;
	}
	doc = vendor_answer(d, r);
	if (!doc)
		return;
	det = jstr(doc, "vendor_name");
	file = jstr(doc, "file");
	error = jstr(doc, "error");
	if (error) {
		vendor_import_failed(d, r, doc, error);
		goto out;
	}
	version = jstr(doc, "version");
	if (version)
		strvec_pushf(&r->evidence, "flag_gems %s imported from %s", version, file ? file : "?");
	else
		strvec_pushf(&r->evidence, "flag_gems (no __version__) imported from %s", file ? file : "?");
	if (file)
		foreign_pkg = outside_checkout(d, file, r, &own_pkg);
	if (!det || strcmp(det, b->vendor_name))
		vendor_mismatch(d, r, doc, det);
	else if (foreign_pkg)
		vendor_foreign(r, foreign_pkg, own_pkg);
	else
		set_status(r, ZL_DOCTOR_OK, "flag_gems reports vendor '%s', as backend '%s' expects", det, b->name);
out:
	free(foreign_pkg);
	free(own_pkg);
	cJSON_Delete(doc);
}

/* ---- step 3: the op resolves and collects ----------------------------------- */

static size_t count_marked(const cJSON *items, const char *marker)
{
	const cJSON *it, *m;
	size_t n = 0;

	cJSON_ArrayForEach(it, items) {
		cJSON_ArrayForEach(m, jarr(it, "markers"))
			if (cJSON_IsString(m) && !strcmp(m->valuestring, marker)) {
				n++;
				break;
			}
	}
	return n;
}

/* Marker names on the collected items that could be operators. */
static void item_markers(const cJSON *items, struct strvec *out)
{
	static const char *const builtin[] = { "parametrize", "skip", "skipif", "xfail", "usefixtures",
					       "filterwarnings", "timeout", "tryfirst", "trylast", NULL };
	const cJSON *it, *m;

	cJSON_ArrayForEach(it, items) {
		cJSON_ArrayForEach(m, jarr(it, "markers")) {
			const char *const *b;
			int skip = 0;

			if (!cJSON_IsString(m))
				continue;
			for (b = builtin; *b; b++)
				skip |= !strcmp(*b, m->valuestring);
			if (!skip && strvec_find(out, m->valuestring) < 0)
				strvec_push(out, m->valuestring);
		}
	}
}

/* The evidence line listing the markers the collected tests carry (none: no line). */
static void markers_evidence(struct zl_doctor_result *r, const struct strvec *markers)
{
	struct strbuf list = STRBUF_INIT;
	size_t i;

	if (!markers->nr)
		return;
	for (i = 0; i < markers->nr; i++)
		strbuf_addf(&list, "%s%s", i ? ", " : "", markers->v[i]);
	strvec_pushf(&r->evidence, "markers on those tests: %s", list.buf);
	strbuf_release(&list);
}

/* Near names shown for a misspelt op or test. */
#define MAX_NEAR 5

static void resolution_failed(struct zl_doctor *d, struct zl_doctor_result *r)
{
	struct strvec ops = STRVEC_INIT, near = STRVEC_INIT;
	size_t i;

	set_status(r, ZL_DOCTOR_FAILED, "%s", d->op_msg.buf);
	strvec_pushf(&r->evidence, "preflight check '%s' failed", d->op_check->name);
	if (d->pf.nodes.scanned)
		strvec_pushf(&r->evidence, "%zu benchmark files scanned for @pytest.mark.%s", d->pf.nodes.scanned,
			     d->pf.nodes.op ? d->pf.nodes.op : "?");
	/* beyond the typos: "router" and "gemm" are parts of router_gemm */
	if (d->pf.nodes.op) {
		zl_list_ops(d->s->flaggems_dir, &ops);
		zl_doctor_near_names(d->pf.nodes.op, &ops, MAX_NEAR, &near);
	}
	for (i = 0; i < near.nr; i++)
		strvec_pushf(&r->evidence, "near name: %s", near.v[i]);
	if (near.nr)
		set_fix(r, "did you mean --op %s?", near.v[0]);
	else
		set_fix(r, "%s", d->op_check->hint);
	strvec_clear(&ops);
	strvec_clear(&near);
}

/* Was the node a file::name that pytest did not find (exit 4, "ERROR: not found")? Its test name, else NULL. */
static const char *missing_test(const struct zl_doctor *d, const cJSON *doc, int code, const char *out)
{
	const cJSON *st = cJSON_GetObjectItemCaseSensitive(doc, "exitstatus");
	const char *node = d->pf.nodes.nodes.nr == 1 ? d->pf.nodes.nodes.v[0] : NULL;
	const char *name = node ? strrchr(node, ':') : NULL;

	if (!name || !strstr(node, "::"))
		return NULL;
	if (!(cJSON_IsNumber(st) && st->valueint == ZL_EXIT_PYTEST_USAGE) && code != ZL_EXIT_PYTEST_USAGE &&
	    !strstr(out, "ERROR: not found"))
		return NULL;
	return name + 1;
}

/* The node names a test the file does not hold: list what it holds and the near names. */
static void explain_not_found(struct zl_doctor *d, struct zl_doctor_result *r, const char *name)
{
	const char *node = d->pf.nodes.nodes.v[0];
	char *file = node_file(node), *path = zl_path_join(d->s->flaggems_dir, file);
	char *bare = xstrndup(name, strcspn(name, "["));
	struct strvec tests = STRVEC_INIT, near = STRVEC_INIT;
	struct strbuf list = STRBUF_INIT;
	size_t i;

	zl_doctor_tests_in_file(path, &tests);
	zl_doctor_near_names(bare, &tests, MAX_NEAR, &near);
	set_status(r, ZL_DOCTOR_FAILED, "pytest found no '%s' in %s (\"ERROR: not found\", exit 4)", name, file);
	for (i = 0; i < tests.nr && i < MAX_LISTED; i++)
		strbuf_addf(&list, "%s%s", i ? ", " : "", tests.v[i]);
	if (tests.nr > MAX_LISTED)
		strbuf_addf(&list, " ... and %zu more", tests.nr - MAX_LISTED);
	strvec_pushf(&r->evidence, "test functions in %s: %s", file, tests.nr ? list.buf : "none");
	for (i = 0; i < near.nr; i++)
		strvec_pushf(&r->evidence, "near name: %s", near.v[i]);
	if (near.nr)
		set_fix(r, "did you mean --test-node %.*s%s?", (int)(name - node), node, near.v[0]);
	else if (tests.nr)
		set_fix(r, "name one of the file's tests: --test-node %s::%s (or --op-file %s)", file, tests.v[0], file);
	else
		set_fix(r, "name the benchmark file that holds the operator's test (--op-file or --test-node)");
	strbuf_release(&list);
	strvec_clear(&tests);
	strvec_clear(&near);
	free(bare);
	free(path);
	free(file);
}

/* Zero tests left: say which filter removed them. */
static void explain_empty(struct zl_doctor *d, struct zl_doctor_result *r, const cJSON *doc, int code, const char *out)
{
	const cJSON *items = jarr(doc, "items");
	const char *marker = d->pf.nodes.marker, *keyword = jstr(doc, "keyword");
	const char *markexpr = jstr(doc, "markexpr"), *missing;
	size_t total = (size_t)cJSON_GetArraySize(items), i;
	struct strvec markers = STRVEC_INIT, near = STRVEC_INIT;

	/* pytest keeps the last -m: one after -- replaces the op's */
	if (markexpr && marker && !strcmp(markexpr, marker))
		markexpr = NULL;
	if (!total && (missing = missing_test(d, doc, code, out))) {
		explain_not_found(d, r, missing);
		return;
	}
	if (!total) {
		set_status(r, ZL_DOCTOR_FAILED, "pytest collected no tests from %s", d->pf.nodes.nodes.v[0]);
		strvec_push(&r->evidence, "the file holds no test function pytest collects (test_* functions, Test* classes)");
		set_fix(r, "name the benchmark file that holds the operator's test (--op-file or --test-node)");
		return;
	}
	if (marker && !count_marked(items, marker)) {
		item_markers(items, &markers);
		set_status(r, ZL_DOCTOR_FAILED, "-m %s removed all %zu tests: none carries @pytest.mark.%s", marker, total,
			   marker);
		markers_evidence(r, &markers);
		zl_doctor_near_names(marker, &markers, 1, &near);
		if (near.nr || markers.nr)
			set_fix(r, "use --op %s (a marker those tests carry), or --test-node for one test",
				near.nr ? near.v[0] : markers.v[0]);
		else
			set_fix(r, "mark the test with @pytest.mark.%s, or run one test with --test-node", marker);
	} else if (markexpr) {
		set_status(r, ZL_DOCTOR_FAILED, "-m '%s' (given after --) removed all %zu test(s)%s%s%s", markexpr, total,
			   marker ? ": pytest keeps only the last -m, so it replaced -m " : "", marker ? marker : "",
			   marker ? " that zlbench adds for the op" : "");
		item_markers(items, &markers);
		markers_evidence(r, &markers);
		if (marker)
			set_fix(r, "drop -m '%s' after --: --op %s already selects with -m %s (use -k after -- to narrow "
				"further)", markexpr, marker, marker);
		else
			set_fix(r, "change or drop -m '%s' after --", markexpr);
	} else if (keyword) {
		set_status(r, ZL_DOCTOR_FAILED, "-k '%s' removed the %zu test(s)%s%s", keyword,
			   marker ? count_marked(items, marker) : total, marker ? " marked " : "", marker ? marker : "");
		set_fix(r, "change or drop -k '%s' after --", keyword);
	} else {
		set_status(r, ZL_DOCTOR_FAILED, "all %zu tests were deselected (by --deselect or a conftest hook)", total);
		set_fix(r, "check the pytest arguments after -- and benchmark/conftest.py's collection hooks");
	}
	for (i = 0; i < total && i < MAX_LISTED; i++)
		strvec_pushf(&r->evidence, "collected before the filters: %s",
			     jstr_or(cJSON_GetArrayItem(items, (int)i), "nodeid", "?"));
	add_more(r, i, total);
	strvec_clear(&markers);
	strvec_clear(&near);
}

/* A test the probe saw fail: what raised, where, and in which phase. */
static void test_error_summary(struct zl_doctor_result *r, const cJSON *e, int reached)
{
	const char *when = jstr_or(e, "when", "call"), *at = jstr(e, "at");
	const char *phase = !strcmp(when, "setup") ? "the set-up of " : !strcmp(when, "teardown") ? "the teardown of " : "";

	set_status(r, ZL_DOCTOR_FAILED, "%s%s raised %s%s%s%s", phase, jstr_or(e, "nodeid", "?"),
		   jstr_or(e, "error", "(no message)"), at ? " at " : "", at ? at : "",
		   reached || strcmp(when, "call") ? "" : " before its benchmark started: a run fails there");
}

/* Did the probe see a benchmark of this test (its Benchmark.run was reached)? */
static int reached_benchmark(const cJSON *probe, const char *nodeid)
{
	const cJSON *b;

	cJSON_ArrayForEach(b, jarr(probe, "benchmarks"))
		if (nodeid && jstr(b, "nodeid") && !strcmp(jstr(b, "nodeid"), nodeid))
			return 1;
	return 0;
}

/* Start the probe of the n tests; -1 with r failed (unless interrupted) when it did not start, timed out or was killed. */
static int run_probe(struct zl_doctor *d, struct zl_doctor_result *r, size_t n)
{
	struct strvec args = STRVEC_INIT;
	struct strbuf err = STRBUF_INIT;
	int sig, rc = -1;

	zl_doctor_pytest_args(d, 0, &args);
	if (zl_doctor_python(d, &args, "probe", &d->probe_out, &d->probe_code, &err)) {
		if (!d->interrupted) {
			set_status(r, ZL_DOCTOR_FAILED, "cannot start pytest to run the tests: %s", err.buf);
			set_fix(r, "use an interpreter that runs (--python or ZL_PYTHON)");
		}
		goto out;
	}
	d->probe_ran = 1;
	if (d->probe_code == ZL_EXIT_TIMEOUT) {
		set_status(r, ZL_DOCTOR_FAILED, "running the %zu test(s) up to their benchmark (nothing measured) did not "
			   "finish within %g s", n, d->timeout_s);
		strbuf_reset(&err);
		zl_doctor_tail(d->probe_out.buf, 3, &err);
		strvec_pushf(&r->evidence, "output before the timeout: %s", err.len ? err.buf : "(nothing)");
		set_fix(r, "find what the test waits for before its benchmark starts (a device, a lock, a compile); raise "
			"--step-timeout if it is only slow");
		goto out;
	}
	if ((sig = death_signal(d->probe_code))) {
		set_status(r, ZL_DOCTOR_FAILED, "pytest was killed by signal %d (%s) while running %s up to its benchmark",
			   sig, strsignal(sig), d->pf.nodes.nodes.v[0]);
		crash_evidence(r, d->probe_out.buf);
		set_fix(r, "the crash is in the test before its benchmark starts, or in what it loads (the frames above, "
			"from PYTHONFAULTHANDLER=1)");
		goto out;
	}
	rc = 0;
out:
	strvec_clear(&args);
	strbuf_release(&err);
	return rc;
}

/* Tests the probe saw raise (a non-empty errors array): the first one's story, then the list. */
static void probe_errors(struct zl_doctor *d, struct zl_doctor_result *r, const cJSON *errors)
{
	const cJSON *first = cJSON_GetArrayItem(errors, 0);
	const cJSON *e, *trace, *line;
	size_t i = 0;

	test_error_summary(r, first, reached_benchmark(d->probe, jstr(first, "nodeid")));
	/* the errors say it all; the list of collected tests would bury them */
	strvec_clear(&r->evidence);
	cJSON_ArrayForEach(e, errors) {
		if (++i > MAX_LISTED)
			continue;
		strvec_pushf(&r->evidence, "%s (%s): %s%s%s", jstr_or(e, "nodeid", "?"), jstr_or(e, "when", "call"),
			     jstr_or(e, "error", "(no message)"), jstr(e, "at") ? " at " : "", jstr_or(e, "at", ""));
	}
	add_more(r, i < MAX_LISTED ? i : MAX_LISTED, i);
	trace = jarr(first, "trace");
	if (cJSON_GetArraySize(trace) > 1) {
		struct strbuf tb = STRBUF_INIT;

		cJSON_ArrayForEach(line, trace)
			if (cJSON_IsString(line))
				strbuf_addf(&tb, "%s%s", tb.len ? " -> " : "", line->valuestring);
		strvec_pushf(&r->evidence, "traceback of the first: %s", tb.buf);
		strbuf_release(&tb);
	}
	cJSON_ArrayForEach(line, jarr(first, "message"))
		if (cJSON_IsString(line))
			strvec_pushf(&r->evidence, "pytest: %s", line->valuestring);
	set_fix(r, "fix what raises at %s; the run starts the same test the same way (`zlbench --verbose doctor` "
		"prints the probe's command to rerun it)", jstr_or(first, "at", jstr_or(first, "nodeid", "the test")));
}

/*
 * Run the n collected tests with Benchmark.run replaced (zl_doctor.py's probe): a test
 * that raises, crashes or hangs before its benchmark starts fails this step; what it
 * reports (runtime skips, shapes) waits in d->probe for the skips and shapes steps.
 */
static void probe_tests(struct zl_doctor *d, struct zl_doctor_result *r, size_t n)
{
	struct strbuf err = STRBUF_INIT;
	const cJSON *errors, *patched;

	if (run_probe(d, r, n))
		return;
	d->probe = zl_doctor_read_json(d, "plugins/doctor_probe.json", &err);
	strbuf_release(&err);
	errors = jarr(d->probe, "test_errors");
	if (cJSON_GetArraySize(errors) > 0) {
		probe_errors(d, r, errors);
		return;
	}
	patched = cJSON_GetObjectItemCaseSensitive(d->probe, "patched");
	if (d->probe && cJSON_IsNumber(patched) && patched->valueint == 0) {
		set_status(r, ZL_DOCTOR_WARN, "%zu test(s) collected, but their bodies were not run: no FlagGems Benchmark "
			   "class (set_shapes, init_user_config, run) was loaded, so an error or pytest.skip() in them is "
			   "not checked", n);
		set_fix(r, "nothing to do if the file does not use FlagGems' Benchmark; otherwise check that it imports it");
		return;
	}
	if (d->probe)
		strvec_pushf(&r->evidence, "the test(s) ran up to their benchmark without an error (nothing measured)");
}

/* Start the collection; -1 with r failed when pytest did not start, timed out or was killed. */
static int run_collect(struct zl_doctor *d, struct zl_doctor_result *r, struct strbuf *out, int *code)
{
	struct strvec args = STRVEC_INIT;
	struct strbuf err = STRBUF_INIT;
	int rc = -1;

	zl_doctor_pytest_args(d, 1, &args);
	if (zl_doctor_python(d, &args, "collect", out, code, &err)) {
		set_status(r, ZL_DOCTOR_FAILED, "cannot start pytest: %s", err.buf);
	} else if (*code == ZL_EXIT_TIMEOUT) {
		set_status(r, ZL_DOCTOR_FAILED, "collecting %s did not finish within %g s", d->pf.nodes.nodes.v[0], d->timeout_s);
		set_fix(r, "find what the benchmark file's import waits for; raise --step-timeout if it is only slow");
	} else if (death_signal(*code)) {
		set_status(r, ZL_DOCTOR_FAILED, "pytest was killed by signal %d (%s) while collecting %s", death_signal(*code),
			   strsignal(death_signal(*code)), d->pf.nodes.nodes.v[0]);
		crash_evidence(r, out->buf);
		set_fix(r, "the crash is in the benchmark file's import or what it loads (the frames above, from "
			"PYTHONFAULTHANDLER=1)");
	} else {
		rc = 0;
	}
	strvec_clear(&args);
	strbuf_release(&err);
	return rc;
}

/* The collection raised (a non-empty errors array): the first exception line, every message as evidence. */
static void collect_errors(struct zl_doctor_result *r, const cJSON *errors)
{
	const cJSON *first = cJSON_GetArrayItem(errors, 0);
	const cJSON *msg = jarr(first, "message");
	const cJSON *last = msg ? cJSON_GetArrayItem(msg, cJSON_GetArraySize(msg) - 1) : NULL;
	const char *why = cJSON_IsString(last) ? last->valuestring : "(no message)";
	const cJSON *e;

	/* pytest marks the exception line "E   ..." */
	if (why[0] == 'E' && why[1] == ' ')
		why += strspn(why + 1, " ") + 1;
	set_status(r, ZL_DOCTOR_FAILED, "collecting %s failed: %s", jstr(first, "nodeid") ? jstr(first, "nodeid") : "?",
		   why);
	cJSON_ArrayForEach(e, errors) {
		const cJSON *line;

		cJSON_ArrayForEach(line, jarr(e, "message"))
			if (cJSON_IsString(line))
				strvec_pushf(&r->evidence, "%s: %s", jstr(e, "nodeid"), line->valuestring);
	}
	set_fix(r, "fix the import error in the benchmark file (or what it imports)");
}

/* The collection ran clean: the tests it selected (then probed), a module's own skip, or why none was. */
static void collect_selected(struct zl_doctor *d, struct zl_doctor_result *r, int code, const char *out)
{
	const cJSON *selected = jarr(d->collected, "selected");
	const cJSON *skipped = cJSON_GetArrayItem(jarr(d->collected, "module_skips"), 0);
	size_t n = (size_t)cJSON_GetArraySize(selected), i;

	if (!n && skipped) {
		/* the module skipped itself while imported: a skip, with its reason, for step 4 */
		set_status(r, ZL_DOCTOR_OK, "%s skipped itself while imported: no test to collect (step 4 says why)",
			   jstr_or(skipped, "nodeid", "?"));
		return;
	}
	if (!n) {
		explain_empty(d, r, d->collected, code, out);
		return;
	}
	set_status(r, ZL_DOCTOR_OK, "%zu test(s) collected from %s%s%s", n, d->pf.nodes.nodes.v[0],
		   d->pf.nodes.marker ? " with -m " : "", d->pf.nodes.marker ? d->pf.nodes.marker : "");
	for (i = 0; i < n && i < MAX_LISTED; i++)
		strvec_pushf(&r->evidence, "%s", jstr_or(cJSON_GetArrayItem(selected, (int)i), "nodeid", "?"));
	add_more(r, i, n);
	probe_tests(d, r, n);
}

static void step_collect(struct zl_doctor *d, struct zl_doctor_result *r)
{
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	const cJSON *errors;
	int code = 0;

	if (d->op_check) {
		resolution_failed(d, r);
		return;
	}
	if (run_collect(d, r, &out, &code))
		goto out;
	d->collected = zl_doctor_read_json(d, "plugins/doctor.json", &err);
	d->foreign = zl_doctor_read_json(d, "plugins/foreign_vendor.json", &err);
	if (!d->collected) {
		strbuf_reset(&err);
		zl_doctor_tail(out.buf, 3, &err);
		set_status(r, ZL_DOCTOR_FAILED, "pytest refused to collect (exit %d): %s", code, err.buf);
		set_fix(r, code == 4 ? "check the pytest arguments after -- and that benchmark/conftest.py registers --level and --mode"
				     : "run the collection by hand (zlbench --verbose doctor prints the command) and read its error");
		goto out;
	}
	errors = jarr(d->collected, "errors");
	if (cJSON_GetArraySize(errors) > 0)
		collect_errors(r, errors);
	else
		collect_selected(d, r, code, out.buf);
out:
	strbuf_release(&out);
	strbuf_release(&err);
}

/* ---- step 4: skips ----------------------------------------------------------- */

/* The segment after "flag_gems.runtime.backend." on a line, "_<vendor>". Caller frees; NULL if none. */
static char *backend_segment(const char *line)
{
	static const char needle[] = "flag_gems.runtime.backend.";
	const char *p = strstr(line, needle), *end;

	if (!p)
		return NULL;
	p += sizeof(needle) - 1;
	for (end = p; *end == '_' || (*end >= 'a' && *end <= 'z') || (*end >= 'A' && *end <= 'Z') ||
		      (*end >= '0' && *end <= '9'); end++)
		;
	return end > p ? xstrndup(p, (size_t)(end - p)) : NULL;
}

/* Lines of the node files that import another vendor's FlagGems package. */
static void foreign_imports(struct zl_doctor *d, struct zl_doctor_result *r)
{
	const char *own = d->s->backend->vendor_module;
	size_t i;

	for (i = 0; i < d->pf.nodes.nodes.nr; i++) {
		char *rel = node_file(d->pf.nodes.nodes.v[i]);
		char *path = zl_path_join(d->s->flaggems_dir, rel);
		struct strbuf text = STRBUF_INIT;
		struct strvec lines = STRVEC_INIT;
		size_t j, lineno = 0;
		const char *p, *nl;

		if (!zl_read_file(&text, path, NULL, ZL_CAP_DOC, NULL)) {
			for (p = text.buf; *p; p = nl + 1) {
				char *seg, *line;

				nl = strchr(p, '\n');
				lineno++;
				line = nl ? xstrndup(p, (size_t)(nl - p)) : xstrdup(p);
				seg = strstr(line, "import") ? backend_segment(line) : NULL;
				if (seg && strcmp(seg, own)) {
					const char *t = line;

					while (*t == ' ' || *t == '\t')
						t++;
					strvec_pushf(&lines, "%s:%zu imports another vendor's package (%s): %s", rel, lineno, seg, t);
				}
				free(seg);
				free(line);
				if (!nl)
					break;
			}
		}
		for (j = 0; j < lines.nr; j++)
			strvec_push(&r->evidence, lines.v[j]);
		strvec_clear(&lines);
		strbuf_release(&text);
		free(path);
		free(rel);
	}
}

/*
 * Where the op is implemented for the own vendor, then generically: evidence
 * lines; *own_module gets the own vendor's module (dotted) when there is one.
 */
static void own_implementation(struct zl_doctor *d, const char *op, struct zl_doctor_result *r, char **own_module)
{
	static const char *const generic_dirs[] = { "src/flag_gems/ops", "src/flag_gems/fused" };
	char *vdir = xstrfmt("%s/src/flag_gems/runtime/backend/%s", d->s->flaggems_dir, d->s->backend->vendor_module);
	struct strvec own = STRVEC_INIT, generic = STRVEC_INIT;
	size_t i;

	*own_module = NULL;
	zl_doctor_find_defs(d->s->flaggems_dir, vdir, op, &own);
	for (i = 0; i < ZL_ARRAY_SIZE(generic_dirs); i++) {
		char *dir = zl_path_join(d->s->flaggems_dir, generic_dirs[i]);

		zl_doctor_find_defs(d->s->flaggems_dir, dir, op, &generic);
		free(dir);
	}
	for (i = 0; i < own.nr; i++)
		strvec_pushf(&r->evidence, "own implementation for '%s': %s: def %s(", d->s->backend->vendor_name,
			     own.v[i], op);
	if (!own.nr)
		strvec_pushf(&r->evidence, "no def %s( under src/flag_gems/runtime/backend/%s/", op, d->s->backend->vendor_module);
	for (i = 0; i < generic.nr; i++)
		strvec_pushf(&r->evidence, "generic implementation: %s: def %s(", generic.v[i], op);
	if (own.nr) {
		char *file = xstrndup(own.v[0], strcspn(own.v[0], ":"));

		*own_module = zl_doctor_module_of(file);
		free(file);
	}
	strvec_clear(&own);
	strvec_clear(&generic);
	free(vdir);
}

/* One skip of the node files: a mark's verdict, a pytest.skip() while a test ran, a module's own skip. */
static void note_skip(struct zl_doctor_result *r, struct strvec *reasons, size_t *listed, const char *nodeid,
		      const char *how, const char *reason, const char *at)
{
	reason = reason ? reason : "(no reason given)";
	if (strvec_find(reasons, reason) < 0)
		strvec_push(reasons, reason);
	if (++*listed <= MAX_LISTED)
		strvec_pushf(&r->evidence, "%s: %s%s%s: %s", nodeid ? nodeid : "?", how, at ? " at " : "", at ? at : "", reason);
}

/* What the skips step counts from the collection and the probe. */
struct skip_tally {
	struct strvec reasons;      /* distinct reasons, in the order first seen */
	struct strvec skipped_ids;  /* the tests counted as skipped, each once */
	size_t skipped;             /* tests skipped by a mark or by pytest.skip() */
	size_t listed;              /* skips seen, listed as evidence up to MAX_LISTED */
};

/* Every skip: the modules' own, the marks' verdicts, then pytest.skip() while a test ran. */
static void tally_skips(struct zl_doctor *d, struct zl_doctor_result *r, struct skip_tally *t)
{
	const cJSON *it;

	cJSON_ArrayForEach(it, jarr(d->collected, "module_skips"))
		note_skip(r, &t->reasons, &t->listed, jstr(it, "nodeid"), "the module skipped itself while imported",
			  jstr(it, "reason"), jstr(it, "at"));
	cJSON_ArrayForEach(it, jarr(d->collected, "selected")) {
		const cJSON *skip = cJSON_GetObjectItemCaseSensitive(it, "skip");

		if (!cJSON_IsObject(skip))
			continue;
		t->skipped++;
		strvec_push(&t->skipped_ids, jstr_or(it, "nodeid", "?"));
		note_skip(r, &t->reasons, &t->listed, jstr(it, "nodeid"), jstr_or(skip, "mark", "skip"),
			  jstr(skip, "reason"), NULL);
	}
	/* pytest.skip() while the test ran (the probe): a test is counted once */
	cJSON_ArrayForEach(it, jarr(d->probe, "runtime_skips")) {
		const char *id = jstr_or(it, "nodeid", "?");

		if (strvec_find(&t->skipped_ids, id) >= 0)
			continue;
		t->skipped++;
		strvec_push(&t->skipped_ids, id);
		note_skip(r, &t->reasons, &t->listed, id, "pytest.skip() while it ran", jstr(it, "reason"), jstr(it, "at"));
	}
	add_more(r, t->listed < MAX_LISTED ? t->listed : MAX_LISTED, t->listed);
}

/* All n tests skipped (n == 0: the file skipped itself): the first reason, and where the op could come from. */
static void all_skipped(struct zl_doctor *d, struct zl_doctor_result *r, size_t n, const char *reason)
{
	char *own_module = NULL;
	const char *op = op_name(d);

	if (n)
		set_status(r, ZL_DOCTOR_FAILED, "all %zu test(s) would be skipped: %s", n, reason);
	else
		set_status(r, ZL_DOCTOR_FAILED, "%s skipped itself while imported, so no test is left: %s",
			   jstr_or(cJSON_GetArrayItem(jarr(d->collected, "module_skips"), 0), "nodeid", "the benchmark file"),
			   reason);
	if (op && n)
		own_implementation(d, op, r, &own_module);
	if (!n)
		set_fix(r, "the file skips itself when imported on backend %s: give the interpreter what it asks for "
			"(see the reason), or run the benchmark where it has that", d->s->backend->name);
	else if (own_module)
		set_fix(r, "the skip condition holds on backend %s: when flag_gems.vendor_name == '%s', have the "
			"benchmark use `from %s import %s` instead (or run it where the condition is false)",
			d->s->backend->name, d->s->backend->vendor_name, own_module, op);
	else
		set_fix(r, "the skip condition holds on backend %s: run the benchmark where its requirement holds, "
			"or give it an implementation for '%s'", d->s->backend->name, d->s->backend->vendor_name);
	free(own_module);
}

static void step_skips(struct zl_doctor *d, struct zl_doctor_result *r)
{
	const cJSON *patched = cJSON_GetObjectItemCaseSensitive(d->probe, "patched");
	struct skip_tally t = { STRVEC_INIT, STRVEC_INIT, 0, 0 };
	size_t n = (size_t)cJSON_GetArraySize(jarr(d->collected, "selected"));
	size_t nmod = (size_t)cJSON_GetArraySize(jarr(d->collected, "module_skips"));

	tally_skips(d, r, &t);
	if (!t.skipped && !nmod) {
		set_status(r, ZL_DOCTOR_OK, "no skip/skipif mark or pytest.skip() skips the %zu test(s) here", n);
		if (!d->probe)
			strvec_push(&r->evidence, "the tests were not run (no probe report): a pytest.skip() while they run is not seen");
		else if (cJSON_IsNumber(patched) && !patched->valueint)
			strvec_push(&r->evidence, "the test bodies were not run (no FlagGems Benchmark class): a pytest.skip() "
				    "inside them is not seen");
		goto out;
	}
	foreign_imports(d, r);
	if (t.skipped == n) {
		all_skipped(d, r, n, t.reasons.v[0]);
		goto out;
	}
	if (nmod)
		set_status(r, ZL_DOCTOR_WARN, "%zu of %zu tests would be skipped, and %zu file(s) skipped themselves while "
			   "imported", t.skipped, n, nmod);
	else
		set_status(r, ZL_DOCTOR_WARN, "%zu of %zu tests would be skipped", t.skipped, n);
	set_fix(r, "nothing to do if those tests are not the ones you want; otherwise see the reasons");
out:
	strvec_clear(&t.reasons);
	strvec_clear(&t.skipped_ids);
}

/* ---- step 5: other vendors' modules ------------------------------------------- */

/* Is first_test (a node id relative to rootdir) one of the resolved node files, or under one? */
static int from_node_files(const struct zl_doctor *d, const char *rootdir, const char *first_test)
{
	char *file, *abs, *joined;
	size_t i;
	int hit = 0;

	/* "startup", conftest paths and null: not a test file's import */
	if (!first_test || !rootdir || !strstr(first_test, ".py") || zl_ends_with(first_test, "conftest.py"))
		return 0;
	file = node_file(first_test);
	joined = zl_path_join(rootdir, file);
	abs = zl_absolute_path(joined);
	for (i = 0; !hit && i < d->pf.nodes.nodes.nr; i++) {
		char *nf = node_file(d->pf.nodes.nodes.v[i]);
		char *nj = zl_path_join(d->s->flaggems_dir, nf);
		char *na = zl_absolute_path(nj);
		size_t len = strlen(na);

		hit = !strcmp(abs, na) || (!strncmp(abs, na, len) && abs[len] == '/');
		free(nf);
		free(nj);
		free(na);
	}
	free(file);
	free(joined);
	free(abs);
	return hit;
}

static void step_foreign(struct zl_doctor *d, struct zl_doctor_result *r)
{
	const cJSON *mods = jarr(d->foreign, "modules"), *m;
	const char *rootdir = jstr(d->collected, "rootdir");
	const char *deepest = NULL, *deepest_vendor = NULL, *by = NULL;
	const char *op = op_name(d);
	size_t ours = 0, startup = 0;
	char *own_module = NULL;

	if (!d->foreign) {
		set_status(r, ZL_DOCTOR_WARN, "zl_foreign_vendor wrote no report: other vendors' modules were not checked");
		set_fix(r, "check that %s holds zl_foreign_vendor.py (ZL_PLUGINS_DIR)", d->plugins_dir);
		return;
	}
	cJSON_ArrayForEach(m, mods) {
		const char *name = jstr(m, "module"), *first = jstr(m, "first_test");

		if (!name)
			continue;
		if (!from_node_files(d, rootdir, first)) {
			startup++;
			continue;
		}
		if (++ours <= MAX_LISTED)
			strvec_pushf(&r->evidence, "%s (vendor %s) first imported by %s", name,
				     jstr(m, "vendor") ? jstr(m, "vendor") : "?", first);
		if (!deepest || strlen(name) > strlen(deepest)) {
			deepest = name;
			deepest_vendor = jstr(m, "vendor");
			by = first;
		}
	}
	add_more(r, ours < MAX_LISTED ? ours : MAX_LISTED, ours);
	if (startup)
		strvec_pushf(&r->evidence, "%zu other-vendor module(s) loaded while FlagGems started, not by the benchmark "
			     "(FlagGems reads every vendor's descriptor)", startup);
	if (!ours) {
		set_status(r, ZL_DOCTOR_OK, "the benchmark file imports no other vendor's FlagGems module");
		return;
	}
	set_status(r, ZL_DOCTOR_FAILED, "%s imports another vendor's FlagGems module: %s (vendor %s); on backend %s "
		   "its kernels may be what runs, or what crashes", by, deepest, deepest_vendor ? deepest_vendor : "?",
		   d->s->backend->name);
	if (op)
		own_implementation(d, op, r, &own_module);
	if (own_module)
		set_fix(r, "gate that import on flag_gems.vendor_name == '%s', and use `from %s import %s` when vendor_name is '%s'",
			deepest_vendor ? deepest_vendor : "?", own_module, op, d->s->backend->vendor_name);
	else
		set_fix(r, "gate that import on flag_gems.vendor_name == '%s', and skip the benchmark elsewhere "
			"(backend %s has no %s of its own)", deepest_vendor ? deepest_vendor : "?", d->s->backend->name,
			op ? op : "implementation");
	free(own_module);
}

/* ---- step 6: tuner cache --------------------------------------------------------- */

/* Functions defined in the FlagGems files that define op: the kernels it may tune. */
static void op_kernel_defs(const struct zl_doctor *d, const char *op, struct strvec *defs)
{
	static const char *const dirs[] = { "src/flag_gems/ops", "src/flag_gems/fused", NULL /* own vendor */ };
	struct strvec hits = STRVEC_INIT;
	size_t i;

	for (i = 0; i < ZL_ARRAY_SIZE(dirs); i++) {
		char *dir = dirs[i] ? zl_path_join(d->s->flaggems_dir, dirs[i])
				    : xstrfmt("%s/src/flag_gems/runtime/backend/%s", d->s->flaggems_dir,
					      d->s->backend->vendor_module);

		zl_doctor_find_defs(d->s->flaggems_dir, dir, op, &hits);
		free(dir);
	}
	for (i = 0; i < hits.nr; i++) {
		char *rel = xstrndup(hits.v[i], strcspn(hits.v[i], ":"));
		char *path = zl_path_join(d->s->flaggems_dir, rel);

		zl_doctor_defs_in_file(path, defs);
		free(rel);
		free(path);
	}
	strvec_clear(&hits);
}

static void step_tuner(struct zl_doctor *d, struct zl_doctor_result *r)
{
	struct zl_tuner_stats st = ZL_TUNER_STATS_INIT;
	struct strvec defs = STRVEC_INIT;
	const char *op = op_name(d);
	char *cache = NULL, *config_dir = NULL;
	long winners = 0;
	size_t i, tables = 0;

	if (d->s->isolate) {
		set_status(r, ZL_DOCTOR_OK, "isolated: the run gets a fresh tuner cache (%s)", d->s->v[ZL_SET_ISOLATE].from);
		return;
	}
	cache = zl_tuner_default_cache_dir();
	if (!cache) {
		set_status(r, ZL_DOCTOR_OK, "no FLAGGEMS_CACHE_DIR and no HOME: there is no shared tuner cache");
		return;
	}
	config_dir = zl_tuner_config_dir(cache);
	zl_tuner_count_dir(cache, d->s->backend->vendor_name, -1, &st);
	if (op)
		op_kernel_defs(d, op, &defs);
	for (i = 0; i < st.nr; i++) {
		const struct zl_tuner_table *t = &st.tables[i];

		if (t->kind != ZL_TUNER_WINNERS || t->rows <= 0 || !op || !zl_doctor_kernel_of_op(t->kernel, op, &defs))
			continue;
		winners += t->rows;
		if (++tables <= MAX_LISTED)
			strvec_pushf(&r->evidence, "%s/%s: %s: %ld winner(s) (table %s)", config_dir, t->db, t->kernel,
				     t->rows, t->name);
	}
	add_more(r, tables < MAX_LISTED ? tables : MAX_LISTED, tables);
	for (i = 0; i < st.notes.nr; i++)
		strvec_pushf(&r->evidence, "note: %s", st.notes.v[i]);
	if (winners) {
		set_status(r, ZL_DOCTOR_WARN, "the shared tuner cache already holds %ld winner(s) for %s's kernels: the run "
			   "reuses them instead of tuning, so one side of an A/B inherits what the other stored", winners, op);
		set_fix(r, "--isolate-tuner-cache on each side of an A/B (or --replay-from RUN to reuse one side's winners "
			"on purpose); or move %s aside", config_dir);
	} else {
		set_status(r, ZL_DOCTOR_OK, "no winners for %s's kernels in %s (%ld winner(s) for other kernels, %zu database(s))",
			   op ? op : "the op", config_dir, st.winners, st.dbs);
	}
	zl_tuner_stats_release(&st);
	strvec_clear(&defs);
	free(cache);
	free(config_dir);
}

/* ---- step 7: level and shapes ------------------------------------------------------ */

static const cJSON *bench_level(const cJSON *b, const char *level)
{
	const cJSON *levels = cJSON_GetObjectItemCaseSensitive(b, "levels");

	return cJSON_GetObjectItemCaseSensitive(levels, level);
}

static long level_count(const cJSON *b, const char *level)
{
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(bench_level(b, level), "count");

	return zl_json_long(c, -1);
}

static int level_has(const cJSON *b, const char *level, const char *key)
{
	const cJSON *s;

	cJSON_ArrayForEach(s, jarr(bench_level(b, level), "shapes"))
		if (cJSON_IsString(s) && !strcmp(s->valuestring, key))
			return 1;
	return 0;
}

/* Does the benchmark take its shapes from the shape file (set_shapes not overridden)? */
static int bench_uses_file(const cJSON *b)
{
	const cJSON *mro = jarr(b, "mro");
	const cJSON *root = mro ? cJSON_GetArrayItem(mro, cJSON_GetArraySize(mro) - 1) : NULL;
	const char *owner = jstr(b, "set_shapes_owner");

	return !owner || !cJSON_IsString(root) || !strcmp(owner, root->valuestring);
}

/* The op's entry in the shape file, for the evidence and when the probe saw nothing. */
struct file_entry {
	struct zl_shapes_doc *doc;
	struct zl_shapes_entry e;
	int found;
	struct strvec classes;    /* the fallback keys; e.key may point into them */
	struct strvec keys;       /* its shapes, as shape keys */
};

static void load_entry(struct zl_doctor *d, const char *op, struct file_entry *fe)
{
	struct strbuf err = STRBUF_INIT;
	size_t i;

	memset(fe, 0, sizeof(*fe));
	strvec_init(&fe->classes);
	strvec_init(&fe->keys);
	if (!op || !d->pf.shape_sha256[0] || zl_shapes_load(d->pf.shape_source, &fe->doc, &err)) {
		strbuf_release(&err);
		return;
	}
	zl_benchmark_classes(d->s->flaggems_dir, &d->pf.nodes, &fe->classes);
	fe->found = !zl_shapes_find(fe->doc, op, fe->classes.nr ? fe->classes.v : NULL, &fe->e);
	for (i = 0; fe->found && fe->e.shapes && i < fe->e.shapes->nr; i++) {
		struct strbuf flow = STRBUF_INIT, key = STRBUF_INIT;

		zl_yaml_flow(&flow, fe->e.shapes->items[i]);
		zl_doctor_shape_key(flow.buf, &key);
		strvec_push(&fe->keys, key.buf);
		strbuf_release(&flow);
		strbuf_release(&key);
	}
	strbuf_release(&err);
}

static void release_entry(struct file_entry *fe)
{
	zl_shapes_free(fe->doc);
	strvec_clear(&fe->classes);
	strvec_clear(&fe->keys);
}

/* The probe's benchmarks for this op (op_name equal), or all of them when none is. */
static void relevant_benches(const cJSON *probe, const char *op, const cJSON **out, size_t max, size_t *nr)
{
	const cJSON *b;
	int pass;

	*nr = 0;
	for (pass = 0; pass < 2 && !*nr; pass++)
		cJSON_ArrayForEach(b, jarr(probe, "benchmarks"))
			if (*nr < max && (pass || (op && jstr(b, "op_name") && !strcmp(jstr(b, "op_name"), op))))
				out[(*nr)++] = b;
}

static void bench_evidence(struct zl_doctor *d, struct zl_doctor_result *r, const cJSON *b, const struct file_entry *fe)
{
	struct strbuf from = STRBUF_INIT;

	if (!bench_uses_file(b))
		strbuf_addf(&from, "set by %s.set_shapes, not read from the shape file", jstr(b, "set_shapes_owner"));
	else if (fe->found)
		strbuf_addf(&from, "from '%s' entry '%s'", d->pf.shape_source, fe->e.key);
	else
		strbuf_addf(&from, "the benchmark's default shapes: no entry in '%s'",
			    d->pf.shape_source ? d->pf.shape_source : "the shape file");
	strvec_pushf(&r->evidence, "%s: %s '%s': core %ld shapes, comprehensive %ld (%s)",
		     jstr(b, "nodeid") ? jstr(b, "nodeid") : "?", jstr(b, "class") ? jstr(b, "class") : "?",
		     jstr(b, "op_name") ? jstr(b, "op_name") : "?", level_count(b, "core"), level_count(b, "comprehensive"),
		     from.buf);
	strbuf_release(&from);
}

#define MAX_BENCHES 16

/* "level core runs 5 shapes, level comprehensive 29"; a count < 0 is unknown. */
static void count_levels(struct strbuf *sb, const char *level, long cur, const char *other, long oth)
{
	if (cur >= 0)
		strbuf_addf(sb, "level %s runs %ld shape(s)", level, cur);
	else
		strbuf_addf(sb, "level %s: count unknown", level);
	if (oth >= 0)
		strbuf_addf(sb, ", level %s %ld", other, oth);
	else
		strbuf_addf(sb, ", level %s: unknown (no shape probe)", other);
}

/* What the shapes step learns about the op's shapes at the run's level and the other one. */
struct shape_view {
	const char *op, *level, *other;
	const cJSON *benches[MAX_BENCHES]; /* the probe's benchmarks for the op */
	size_t nb;
	struct file_entry fe;              /* the op's entry in the shape file */
	long cur, oth;                     /* most shapes at the level, at the other; -1 unknown */
	int uses_file;                     /* every benchmark reads its shapes from the shape file */
};

/* The counts per level from the probe's benchmarks, else from the shape file's entry. */
static void count_shapes(struct zl_doctor *d, struct zl_doctor_result *r, struct shape_view *v)
{
	struct strbuf err = STRBUF_INIT;
	size_t i;

	/* the probe ran with the collect step */
	relevant_benches(d->probe, v->op, v->benches, MAX_BENCHES, &v->nb);
	for (i = 0; i < v->nb; i++) {
		long c = level_count(v->benches[i], v->level), o = level_count(v->benches[i], v->other);

		v->cur = c > v->cur ? c : v->cur;
		v->oth = o > v->oth ? o : v->oth;
		v->uses_file &= bench_uses_file(v->benches[i]);
		bench_evidence(d, r, v->benches[i], &v->fe);
	}
	if (!v->nb) {
		zl_doctor_tail(d->probe_out.buf, 2, &err);
		if (!d->probe_ran)
			strvec_push(&r->evidence, "the shape probe did not run: counts below come from the shape file only");
		else if (d->probe_code == ZL_EXIT_TIMEOUT)
			strvec_pushf(&r->evidence, "the shape probe did not finish within %g s: counts below come from the shape "
				     "file only", d->timeout_s);
		else
			strvec_pushf(&r->evidence, "the shape probe saw no benchmark (exit %d: %s): counts below come from the "
				     "shape file only", d->probe_code, err.buf);
		if (v->fe.found)
			v->cur = (long)v->fe.keys.nr;
	}
	strbuf_release(&err);
}

/* One shape the user wants: evidence when the level runs it, else the step fails (the first such shape says why). */
static void check_wanted(struct zl_doctor_result *r, const struct shape_view *v, const char *want)
{
	const char *entry = v->fe.found ? v->fe.e.key : v->op ? v->op : "op";
	struct strbuf key = STRBUF_INIT, counts = STRBUF_INIT;
	int in_cur = 0, in_oth = 0;
	size_t j;

	zl_doctor_shape_key(want, &key);
	for (j = 0; j < v->nb; j++) {
		in_cur |= level_has(v->benches[j], v->level, key.buf);
		in_oth |= level_has(v->benches[j], v->other, key.buf);
	}
	if (!v->nb)
		in_cur = strvec_find(&v->fe.keys, key.buf) >= 0;
	if (in_cur) {
		strvec_pushf(&r->evidence, "shape [%s] runs at level %s", key.buf, v->level);
	} else if (r->status != ZL_DOCTOR_FAILED && in_oth) {
		count_levels(&counts, v->level, v->cur, v->other, v->oth);
		set_status(r, ZL_DOCTOR_FAILED, "shape [%s] runs only at level %s (%s for %s)", key.buf, v->other,
			   counts.buf, v->op ? v->op : "the op");
		if (v->uses_file)
			set_fix(r, "--level %s (or keep level %s and add [%s] to the '%s' entry of a shape file "
				"passed with --shape-file)", v->other, v->level, key.buf, entry);
		else
			set_fix(r, "--level %s", v->other);
	} else if (r->status != ZL_DOCTOR_FAILED) {
		count_levels(&counts, v->level, v->cur, v->other, v->nb ? v->oth : -1);
		set_status(r, ZL_DOCTOR_FAILED, "shape [%s] is in no shape list of %s (%s)", key.buf,
			   v->op ? v->op : "the op", counts.buf);
		if (v->uses_file)
			set_fix(r, "add [%s] to the '%s' entry of a shape file and pass it with --shape-file", key.buf, entry);
		else
			set_fix(r, "the benchmark's set_shapes chooses the shapes itself, so no shape file adds one: "
				"change the benchmark");
	}
	strbuf_release(&counts);
	strbuf_release(&key);
}

/* No wanted shape is missing: a warning when the shape file leaves the op to default shapes, else the count. */
static void shapes_verdict(struct zl_doctor *d, struct zl_doctor_result *r, const struct shape_view *v)
{
	if (v->op && v->uses_file && d->pf.shape_sha256[0] && d->pf.shapes_for_op < 0) {
		set_status(r, ZL_DOCTOR_WARN, "'%s' has no entry in shape file '%s' (nor any of its benchmark classes): "
			   "FlagGems falls back to the benchmark's default shapes", v->op, d->pf.shape_source);
		set_fix(r, "add a '%s:' entry with its shapes to a shape file and pass it with --shape-file", v->op);
	} else if (v->uses_file && !d->pf.shape_sha256[0] && !d->s->shape_mode_file) {
		set_status(r, ZL_DOCTOR_WARN, "'%s' is missing: FlagGems falls back to each benchmark's default shapes",
			   d->pf.shape_source ? d->pf.shape_source : "benchmark/core_shapes.yaml");
		set_fix(r, "restore benchmark/core_shapes.yaml or pass a shape file (--shape-file)");
	} else if (v->cur >= 0) {
		set_status(r, ZL_DOCTOR_OK, "%s runs %ld shape(s) at level %s", v->op ? v->op : "the benchmark", v->cur,
			   v->level);
	} else {
		set_status(r, ZL_DOCTOR_OK, "shapes not counted (see the evidence)");
	}
	if (!strcmp(v->level, "core") && v->oth > v->cur && v->cur >= 0)
		strvec_pushf(&r->evidence, "--level comprehensive adds %ld shape(s) (%ld in all)", v->oth - v->cur, v->oth);
}

static void step_shapes(struct zl_doctor *d, struct zl_doctor_result *r)
{
	struct shape_view v = { .op = op_name(d), .level = d->s->level, .cur = -1, .oth = -1, .uses_file = 1 };
	size_t i;

	v.other = strcmp(v.level, "core") ? "core" : "comprehensive";
	load_entry(d, v.op, &v.fe);
	count_shapes(d, r, &v);
	/* the shapes the user wants */
	for (i = 0; i < d->want_shapes.nr; i++)
		check_wanted(r, &v, d->want_shapes.v[i]);
	if (r->status != ZL_DOCTOR_FAILED)
		shapes_verdict(d, r, &v);
	release_entry(&v.fe);
}

/* ---- the table and the walk ----------------------------------------------------------- */

const struct zl_doctor_step zl_doctor_steps[ZL_DOCTOR_STEPS + 1] = {
	{ "paths", "FlagGems checkout, benchmark/conftest.py, interpreter, pytest, devices (the preflight checks)",
	  step_paths,
	  "a FlagGems directory without benchmark/: pytest never collected conftest.py, which registers --level "
	  "and --mode, and died with \"unrecognized arguments: --level core --mode kernel\"" },
	{ "vendor", "the interpreter imports flag_gems as a run would, and its vendor_name matches the backend",
	  step_vendor,
	  "a run pinned to one vendor's devices imported another vendor's FlagGems build: every number came from "
	  "the wrong code path" },
	{ "collect", "the op resolves to benchmark nodes, pytest collects tests from them, and they run up to their "
	  "benchmark (nothing measured)",
	  step_collect,
	  "a misspelt operator resolves to nothing; a marker or -k that matches no test leaves pytest nothing to run (exit 5)" },
	{ "skips", "no skip/skipif mark, pytest.skip() or module-level skip skips the tests",
	  step_skips, zl_doctor_seen_skips },
	{ "foreign_vendor", "the benchmark file imports no other vendor's FlagGems module",
	  step_foreign, zl_doctor_seen_foreign },
	{ "tuner_cache", "the shared tuner cache holds no winners for the op's kernels",
	  step_tuner,
	  "the second side of an A/B inherited the first side's stored winners: 10 variants compiled instead of 234, "
	  "17 s instead of 52 s" },
	{ "shapes", "the op is in the shape file and the level runs the shapes you want",
	  step_shapes,
	  "mm runs 5 shapes at level core and 29 at comprehensive: the shapes wanted came only with comprehensive" },
	{ NULL, NULL, NULL, NULL },
};

/* The temporary directory's set-up failed: the paths step says so. */
static int setup_failed(struct zl_doctor *d, struct strbuf *err)
{
	set_status(&d->results[STEP_PATHS], ZL_DOCTOR_FAILED, "%s", err->buf);
	set_fix(&d->results[STEP_PATHS], "make TMPDIR (or /tmp) writable");
	d->failed = STEP_PATHS;
	strbuf_release(err);
	return -1;
}

int zl_doctor_run(struct zl_doctor *d)
{
	struct strbuf err = STRBUF_INIT;
	size_t i;

	d->plugins_dir = zl_plugins_dir();
	for (i = 0; zl_doctor_steps[i].name; i++) {
		struct zl_doctor_result *r = &d->results[i];

		/*
		 * Step 1 runs under the default signal actions, as run's preflight does: a Ctrl-C
		 * ends its helper (a hanging query tool) and zlbench at once, and nothing is left
		 * to clean up. The handlers come before the directory, so that no signal kills us
		 * while it exists.
		 */
		if (i == STEP_PATHS + 1) {
			if (zl_signals_install(&err))
				return setup_failed(d, &err);
			d->signals_taken = 1;
			if (zl_mkdtemp_in(zl_tmp_dir(), "zlbench-doctor-", &d->tmpdir, &err))
				return setup_failed(d, &err);
			strbuf_release(&err);
		}
		if (!zl_doctor_take_signals(d))
			zl_doctor_steps[i].fn(d, r);
		if (zl_doctor_take_signals(d)) {
			set_status(r, ZL_DOCTOR_NOT_RUN, "not finished: interrupted by %s", strsignal(d->interrupted));
			break;
		}
		if (d->strict && r->status == ZL_DOCTOR_WARN)
			r->status = ZL_DOCTOR_FAILED;
		if (r->status == ZL_DOCTOR_FAILED) {
			d->failed = (int)i;
			break;
		}
	}
	for (i++; i < ZL_DOCTOR_STEPS; i++)
		set_status(&d->results[i], ZL_DOCTOR_NOT_RUN, "not checked: an earlier step %s",
			   d->interrupted ? "was interrupted" : "failed");
	strbuf_release(&err);
	return d->failed < 0 && !d->interrupted ? 0 : -1;
}

/* ---- JSON --------------------------------------------------------------------------------- */

struct cJSON *zl_doctor_to_json(const struct zl_doctor *d)
{
	cJSON *root = cJSON_CreateObject(), *steps = NULL;
	size_t i, warnings = 0;
	int ok = root != NULL;

	for (i = 0; i < ZL_DOCTOR_STEPS; i++)
		warnings += d->results[i].status == ZL_DOCTOR_WARN;
	ok = ok && !zl_json_add_schema(root, ZL_SCHEMA_DOCTOR) && !zl_json_add_string(root, "op", op_name(d)) &&
	     !zl_json_add_string(root, "backend", d->s->backend ? d->s->backend->name : NULL) &&
	     !zl_json_add_string(root, "flaggems_dir", d->s->flaggems_dir) &&
	     !zl_json_add_string(root, "level", d->s->level) &&
	     cJSON_AddBoolToObject(root, "ok", d->failed < 0) &&
	     !zl_json_add_string(root, "failed_step", d->failed < 0 ? NULL : zl_doctor_steps[d->failed].name) &&
	     cJSON_AddNumberToObject(root, "warnings", (double)warnings) &&
	     (steps = cJSON_AddArrayToObject(root, "steps"));
	for (i = 0; ok && i < ZL_DOCTOR_STEPS; i++) {
		const struct zl_doctor_result *r = &d->results[i];
		cJSON *row = cJSON_CreateObject();

		if (zl_json_add_item(steps, NULL, row)) {
			ok = 0;
			break;
		}
		ok = cJSON_AddNumberToObject(row, "number", (double)(i + 1)) &&
		     cJSON_AddStringToObject(row, "name", zl_doctor_steps[i].name) &&
		     cJSON_AddStringToObject(row, "title", zl_doctor_steps[i].title) &&
		     cJSON_AddStringToObject(row, "status", zl_doctor_status_name(r->status)) &&
		     !zl_json_add_string(row, "summary", r->summary) &&
		     !zl_json_add_item(row, "evidence", zl_json_strvec(&r->evidence)) &&
		     !zl_json_add_string(row, "fix", r->fix) &&
		     cJSON_AddStringToObject(row, "seen", zl_doctor_steps[i].seen);
	}
	ok = ok && !zl_json_add_item(root, "commands", zl_json_strvec(&d->commands));
	if (!ok) {
		cJSON_Delete(root);
		return NULL;
	}
	return root;
}

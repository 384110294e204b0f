#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "zlbench/child.h"
#include "zlbench/error.h"
#include "zlbench/fsutil.h"
#include "zlbench/json.h"
#include "zlbench/preflight.h"
#include "zlbench/pyprobe.h"
#include "zlbench/schema.h"
#include "zlbench/sha256.h"
#include "zlbench/shapes.h"
#include "zlbench/util.h"
#include "zlbench/zlbench.h"
#include "zlbench/banned.h"

void zl_preflight_init(struct zl_preflight *pf, struct zl_settings *s)
{
	struct zl_nodes n = ZL_NODES_INIT;
	struct zl_devlist d = ZL_DEVLIST_INIT;

	memset(pf, 0, sizeof(*pf));
	pf->s = s;
	pf->nodes = n;
	pf->devs = d;
	pf->shapes_for_op = -1;
	strbuf_init(&pf->resolve_msg, 0);
	strvec_init(&pf->warnings);
}

void zl_preflight_release(struct zl_preflight *pf)
{
	zl_nodes_release(&pf->nodes);
	strbuf_release(&pf->resolve_msg);
	zl_devlist_release(&pf->devs);
	free(pf->shape_source);
	free(pf->python_path);
	free(pf->python_version);
	free(pf->pytest_version);
	free(pf->out_dir);
	strvec_clear(&pf->warnings);
}

/*
 * backend: an unknown name was refused by the settings (exit 2). What can still be wrong is
 * the checkout: FlagGems finds a vendor only through src/flag_gems/runtime/backend/_<vendor>/,
 * so a checkout without the backend's package (older than that vendor's support) would fail
 * inside pytest. Two stat() calls; a checkout without that layout (FlagGems installed
 * elsewhere, or no checkout at all) is left to the later checks.
 */
static int check_backend(struct zl_preflight *pf, struct strbuf *msg)
{
	const struct zl_backend *b = pf->s->backend;
	char *root, *pkg;
	int rc = 0;

	if (!b)
		return zl_error(msg, "no backend chosen");
	if (!b->vendor_module)
		return 0;
	root = zl_path_join(pf->s->flaggems_dir, "src/flag_gems/runtime/backend");
	pkg = zl_path_join(root, b->vendor_module);
	if (zl_is_dir(root) && !zl_is_dir(pkg))
		rc = zl_error(msg, "backend '%s' (from %s) needs FlagGems' vendor package '%s', which checkout '%s' "
			      "lacks (a FlagGems older than %s support?)", b->name,
			      pf->s->v[ZL_SET_BACKEND].from, pkg, pf->s->flaggems_dir, b->vendor_name);
	free(root);
	free(pkg);
	return rc;
}

/* level: the checkout's conftest must register --level (old FlagGems did not) */
static int check_level(struct zl_preflight *pf, struct strbuf *msg)
{
	char *conftest = zl_path_join(pf->s->flaggems_dir, "benchmark/conftest.py");
	struct strbuf text = STRBUF_INIT;
	int rc = 0;

	if (!zl_read_file(&text, conftest, NULL, ZL_CAP_DOC, NULL)) {
		if (!strstr(text.buf, "\"--level\"") && !strstr(text.buf, "'--level'"))
			rc = zl_error(msg, "'%s' registers no --level option, so level '%s' cannot be passed",
				      conftest, pf->s->level);
	}
	strbuf_release(&text);
	free(conftest);
	return rc;
}

static int check_flaggems_dir(struct zl_preflight *pf, struct strbuf *msg)
{
	const char *why = zl_dir_problem(pf->s->flaggems_dir);

	if (why)
		return zl_error(msg, "FlagGems directory '%s' %s (from %s)", pf->s->flaggems_dir, why,
				pf->s->v[ZL_SET_FLAGGEMS_DIR].from);
	return 0;
}

static int check_benchmark_dir(struct zl_preflight *pf, struct strbuf *msg)
{
	char *bench = zl_path_join(pf->s->flaggems_dir, "benchmark");
	char *conftest = zl_path_join(bench, "conftest.py");
	int rc = 0;

	if (!zl_is_dir(bench))
		rc = zl_error(msg, "'%s' has no benchmark/ directory", pf->s->flaggems_dir);
	else if (!zl_is_file(conftest))
		rc = zl_error(msg, "'%s' is missing: it registers --level and --mode, without it pytest "
			      "dies with \"unrecognized arguments\"", conftest);
	free(bench);
	free(conftest);
	return rc;
}

/*
 * A stray variable in the shell must not silently change what a flag asked for: say so when
 * the environment's TEST_NODE overrides an --op/--op-file flag, or when OP and OP_FILE, one
 * from a flag and one from the environment, are combined into "that file with -m OP".
 */
static void warn_mixed_sources(struct zl_preflight *pf)
{
	const struct zl_setting_value *node = &pf->s->v[ZL_SET_TEST_NODE];
	const struct zl_setting_value *op = &pf->s->v[ZL_SET_OP];
	const struct zl_setting_value *file = &pf->s->v[ZL_SET_OP_FILE];
	const struct zl_setting_value *env, *flag;

	if (node->raw) {
		if (node->source != ZL_SRC_ENV)
			return;
		flag = op->source == ZL_SRC_FLAG ? op : file->source == ZL_SRC_FLAG ? file : NULL;
		if (flag)
			strvec_pushf(&pf->warnings, "%s='%s' from the environment wins over %s '%s' (a test node "
				     "ignores OP and OP_FILE): unset %s or pass --test-node", node->from, node->raw,
				     flag->from, flag->raw, node->from);
		return;
	}
	if (!op->raw || !file->raw || op->source == file->source)
		return;
	env = op->source == ZL_SRC_ENV ? op : file->source == ZL_SRC_ENV ? file : NULL;
	flag = op->source == ZL_SRC_FLAG ? op : file->source == ZL_SRC_FLAG ? file : NULL;
	if (env && flag)
		strvec_pushf(&pf->warnings, "%s='%s' from the environment is combined with %s '%s': the run is "
			     "file '%s' with -m %s; unset %s or pass it as a flag", env->from, env->raw, flag->from,
			     flag->raw, file->raw, op->raw, env->from);
}

/* benchmark_file and op_resolution share one resolution; its failure kind picks the check. */
static enum zl_resolve_fail resolve_once(struct zl_preflight *pf, struct strbuf *msg)
{
	struct zl_settings *s = pf->s;

	if (!pf->resolved) {
		const struct zl_node_sources from = { s->v[ZL_SET_TEST_NODE].from, s->v[ZL_SET_OP].from,
						      s->v[ZL_SET_OP_FILE].from };

		pf->resolved = 1;
		warn_mixed_sources(pf);
		pf->resolve_fail = zl_resolve_nodes_from(s->flaggems_dir, s->v[ZL_SET_TEST_NODE].raw,
							 s->v[ZL_SET_OP].raw, s->v[ZL_SET_OP_FILE].raw, &from,
							 &pf->nodes, &pf->resolve_msg);
	}
	if (pf->resolve_fail)
		zl_error(msg, "%s", pf->resolve_msg.buf);
	return pf->resolve_fail;
}

static int check_benchmark_file(struct zl_preflight *pf, struct strbuf *msg)
{
	struct zl_settings *s = pf->s;
	enum zl_resolve_fail f;

	if (!s->v[ZL_SET_TEST_NODE].raw && !s->v[ZL_SET_OP_FILE].raw)
		return 0; /* resolved from OP by the next check */
	f = resolve_once(pf, msg);
	return f == ZL_RESOLVE_OK ? 0 : -1;
}

static int check_op_resolution(struct zl_preflight *pf, struct strbuf *msg)
{
	return resolve_once(pf, msg) == ZL_RESOLVE_OK ? 0 : -1;
}

static const char *op_for_shapes(const struct zl_preflight *pf)
{
	return pf->nodes.op ? pf->nodes.op : pf->nodes.marker;
}

static int check_shape_file(struct zl_preflight *pf, struct strbuf *msg)
{
	struct zl_settings *s = pf->s;
	struct zl_shapes_doc *doc = NULL;
	const char *op = op_for_shapes(pf);
	char *path;
	int fd;

	path = s->shape_mode_file ? xstrdup(s->shape_file)
				  : zl_path_join(s->flaggems_dir, "benchmark/core_shapes.yaml");
	free(pf->shape_source);
	pf->shape_source = path;
	if (!s->shape_mode_file && !zl_is_file(path)) {
		strvec_pushf(&pf->warnings, "upstream shape file '%s' not found: FlagGems uses its defaults", path);
		return 0;
	}
	/* a fifo or a device would never end the hash below */
	fd = zl_open_regular(path, "shape file", ZL_CAP_SHAPES, msg);
	if (fd < 0)
		return -1;
	close(fd);
	if (zl_sha256_file_hex(path, pf->shape_sha256, msg))
		return -1;
	if (zl_shapes_load(path, &doc, msg))
		return -1;
	if (op) {
		struct strvec classes = STRVEC_INIT;
		struct zl_shapes_entry entry;

		zl_benchmark_classes(s->flaggems_dir, &pf->nodes, &classes);
		if (!zl_shapes_find(doc, op, classes.nr ? classes.v : NULL, &entry) && entry.shapes)
			pf->shapes_for_op = (long)entry.shapes->nr;
		strvec_clear(&classes);
		if (pf->shapes_for_op < 0)
			strvec_pushf(&pf->warnings, "operator '%s' is not in shape file '%s': FlagGems falls back to the benchmark's defaults",
				     op, path);
	}
	zl_shapes_free(doc);
	return 0;
}

static int check_replay_from(struct zl_preflight *pf, struct strbuf *msg)
{
	char *records;
	int rc = 0;

	if (!pf->s->replay_from)
		return 0;
	records = zl_path_join(pf->s->replay_from, "autotune_records");
	if (!zl_is_dir(pf->s->replay_from))
		rc = zl_error(msg, "replay source '%s' (from %s) is not a directory", pf->s->replay_from,
			      pf->s->v[ZL_SET_REPLAY_FROM].from);
	else if (!zl_is_dir(records))
		rc = zl_error(msg, "replay source '%s' has no autotune_records/ directory", pf->s->replay_from);
	free(records);
	return rc;
}

/*
 * The interpreter as an absolute path: the child starts in the FlagGems root, where a
 * relative one (venv/bin/python, or found through a relative PATH entry) names another
 * file. Links are kept: a venv's python is a link, and only the link knows the venv.
 */
static int check_python(struct zl_preflight *pf, struct strbuf *msg)
{
	char cwd[4096];
	char *found;

	free(pf->python_path);
	pf->python_path = NULL;
	found = zl_find_executable(pf->s->python);
	if (!found)
		return zl_error(msg, "interpreter '%s' (from %s) not found%s", pf->s->python,
				pf->s->v[ZL_SET_PYTHON].from, strchr(pf->s->python, '/') ? "" : " on PATH");
	if (found[0] == '/') {
		pf->python_path = found;
		return 0;
	}
	if (!getcwd(cwd, sizeof(cwd))) {
		zl_error(msg, "interpreter '%s' (from %s): cannot make '%s' absolute: %s", pf->s->python,
			 pf->s->v[ZL_SET_PYTHON].from, found, strerror(errno));
		free(found);
		return -1;
	}
	{
		const char *rel = found;

		while (rel[0] == '.' && rel[1] == '/')
			rel += 2;
		pf->python_path = zl_path_join(cwd, rel);
	}
	free(found);
	return 0;
}

static int check_pytest(struct zl_preflight *pf, struct strbuf *msg)
{
	struct zl_pyprobe probe = ZL_PYPROBE_INIT;

	if (pf->skip_python)
		return 0;
	if (zl_pyprobe(pf->python_path, &probe, msg)) {
		zl_pyprobe_release(&probe);
		return -1;
	}
	free(pf->python_version);
	free(pf->pytest_version);
	pf->python_version = probe.python_version;
	pf->pytest_version = probe.pytest_version;
	probe.python_version = probe.pytest_version = NULL;
	zl_pyprobe_release(&probe);
	return 0;
}

static int check_devices(struct zl_preflight *pf, struct strbuf *msg)
{
	struct zl_settings *s = pf->s;
	size_t i;

	if (!pf->devs_done) {
		zl_backend_enumerate(s->backend, &pf->devs);
		pf->devs_done = 1;
	}
	/* the vendor's tool is installed but cannot answer: the driver stack is broken */
	if (pf->devs.tool_failed)
		return zl_error(msg, "backend '%s': %s (a broken driver stack?)", s->backend->name,
				pf->devs.how ? pf->devs.how : s->backend->query_tool);
	if (!pf->devs.available)
		strvec_pushf(&pf->warnings, "devices %s", pf->devs.how ? pf->devs.how : "not verified");
	if (s->devices_defaulted) {
		/* "first device": the first one enumerated, else index 0 (not verified) */
		int first = pf->devs.available && pf->devs.nr;

		strvec_pushf(&s->devices, "%d", first ? pf->devs.v[0].index : 0);
		zl_settings_set_default(s, ZL_SET_DEVICES, s->devices.v[0],
					first ? "the first device" : "device 0, not verified");
		s->devices_defaulted = 0;
	}
	if (!pf->devs.available)
		return 0;
	if (!pf->devs.nr)
		return zl_error(msg, "backend '%s' found no devices (%s)", s->backend->name, pf->devs.how);
	for (i = 0; i < s->devices.nr; i++) {
		long idx;

		if (zl_parse_long(s->devices.v[i], &idx) || !zl_devlist_find(&pf->devs, (int)idx)) {
			struct strbuf have = STRBUF_INIT;
			size_t j;
			int rc;

			for (j = 0; j < pf->devs.nr; j++)
				strbuf_addf(&have, "%s%d", j ? "," : "", pf->devs.v[j].index);
			rc = zl_error(msg, "device %s (from %s) does not exist; %s shows %s", s->devices.v[i],
				      s->v[ZL_SET_DEVICES].from ? s->v[ZL_SET_DEVICES].from : "default",
				      pf->devs.how, have.buf);
			strbuf_release(&have);
			return rc;
		}
	}
	return 0;
}

char *zl_default_run_dir(const struct zl_settings *s, const struct zl_nodes *nodes)
{
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;
	const char *label = nodes && nodes->op ? nodes->op : nodes && nodes->marker ? nodes->marker : "node";

	if (!gmtime_r(&now, &tm) || !strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm))
		snprintf(stamp, sizeof(stamp), "00000000-000000");
	return xstrfmt("%s/%s-%s-%s", s->v[ZL_SET_RUNS_DIR].raw ? s->v[ZL_SET_RUNS_DIR].raw : "runs",
		       stamp, s->backend ? s->backend->name : "none", label);
}

/*
 * The nearest existing ancestor of path when it is not a directory, or a symbolic link to
 * nothing (mkdir fails on both only at claim time), caller frees; else NULL.
 */
static char *existing_non_dir_parent(const char *path)
{
	char *p = xstrdup(path);
	struct stat st;

	for (;;) {
		char *slash = strrchr(p, '/');

		if (!slash || slash == p)
			break;
		*slash = '\0';
		if (!stat(p, &st)) {
			if (S_ISDIR(st.st_mode))
				break;
			return p;
		}
		if (!lstat(p, &st))
			return p;
	}
	free(p);
	return NULL;
}

static int check_out_dir(struct zl_preflight *pf, struct strbuf *msg)
{
	struct zl_settings *s = pf->s;
	struct stat st;
	char *dir, *blocker;

	if (s->v[ZL_SET_OUT].raw) {
		dir = zl_absolute_path(s->v[ZL_SET_OUT].raw);
	} else {
		char *rel = zl_default_run_dir(s, &pf->nodes);
		dir = zl_absolute_path(rel);
		free(rel);
	}
	free(pf->out_dir);
	pf->out_dir = dir;
	free(s->out_default);
	s->out_default = s->v[ZL_SET_OUT].raw ? NULL : xstrdup(dir);
	/* RUN_DIR=<path> is the last line scripts read: a newline in it would forge another */
	if (zl_has_control_char(dir))
		return zl_error(msg, "run directory '%s' (from %s) contains a control character: zlbench "
				"prints it as RUN_DIR=<path> for scripts", dir,
				s->v[ZL_SET_OUT].raw ? s->v[ZL_SET_OUT].from : s->v[ZL_SET_RUNS_DIR].from);
	if (s->v[ZL_SET_OUT].raw && !stat(dir, &st) && !S_ISDIR(st.st_mode))
		return zl_error(msg, "run directory '%s' (from %s) exists and is not a directory", dir,
				s->v[ZL_SET_OUT].from);
	if (s->v[ZL_SET_OUT].raw && stat(dir, &st) && !lstat(dir, &st))
		return zl_error(msg, "run directory '%s' (from %s) is a symbolic link to nothing", dir,
				s->v[ZL_SET_OUT].from);
	/* the directory is made at claim time; a file where a parent should be would fail only then */
	blocker = existing_non_dir_parent(dir);
	if (blocker) {
		zl_error(msg, "'%s' is not a directory, so run directory '%s' (from %s) cannot be made", blocker,
			 dir, s->v[ZL_SET_OUT].raw ? s->v[ZL_SET_OUT].from : s->v[ZL_SET_RUNS_DIR].from);
		free(blocker);
		return -1;
	}
	/* a default name taken by another run gets a suffix when the run claims it */
	if (s->v[ZL_SET_OUT].raw && !zl_dir_absent_or_empty(dir))
		return zl_error(msg, "run directory '%s' exists and is not empty: a run directory is never reused", dir);
	return 0;
}

const struct zl_check zl_checks[] = {
	{ "backend", check_backend, "choose a backend of `zlbench backends` whose vendor package the checkout has "
				    "(--backend or ZL_BACKEND), or update FlagGems" },
	{ "level", check_level, "use a FlagGems checkout whose benchmark/conftest.py registers --level" },
	{ "flaggems_dir", check_flaggems_dir, "point --flaggems-dir or FLAGGEMS_DIR at a FlagGems checkout" },
	{ "benchmark_dir", check_benchmark_dir, "the checkout needs benchmark/ with conftest.py (FlagGems' own)" },
	{ "benchmark_file", check_benchmark_file, "give a node or file relative to the FlagGems root, e.g. benchmark/test_mm.py::test_mm" },
	{ "op_resolution", check_op_resolution, "name an operator mark of the suite (@pytest.mark.<op>; zlbench completion --list-ops lists them), or run a whole file with --op-file" },
	{ "shape_file", check_shape_file, "give a readable YAML mapping of op -> {shapes: [...]}, like FlagGems' core_shapes.yaml" },
	{ "replay_from", check_replay_from, "point --replay-from at an earlier run directory recorded with autotune records" },
	{ "python", check_python, "install Python or pass --python / ZL_PYTHON (Debian's is /usr/bin/python3)" },
	{ "pytest", check_pytest, "use an interpreter that has pytest (--python / ZL_PYTHON)" },
	/* device enumeration runs the vendor's tool (up to ZL_QUERY_TIMEOUT): after every cheap check */
	{ "devices", check_devices, "choose indices the backend enumerates (zlbench devices); a query tool "
				    "that fails means a broken driver stack" },
	{ "out_dir", check_out_dir, "choose a new --out directory (or remove the old one)" },
	{ NULL, NULL, NULL },
};

void zl_preflight_report_failure(const char *check, const char *msg)
{
	struct strbuf line = STRBUF_INIT;

	/* one line: a path with a newline must not forge another PREFLIGHT_FAILED */
	strbuf_add_printable(&line, msg);
	fprintf(stderr, "PREFLIGHT_FAILED check=%s\n", check);
	fprintf(stderr, "zlbench: preflight '%s' failed: %s\n", check, line.buf);
	fflush(stderr);
	strbuf_release(&line);
}

int zl_preflight_batch_ops(const char *flaggems_dir, const struct strvec *ops, FILE *plan)
{
	char *bench = zl_path_join(flaggems_dir, "benchmark");
	struct zl_marks idx = ZL_MARKS_INIT;
	struct strvec refused = STRVEC_INIT;
	struct strbuf err = STRBUF_INIT, line = STRBUF_INIT;
	size_t i, own = 0;
	double t0 = zl_now_monotonic();
	int rc;

	if (!zl_is_dir(bench)) {
		free(bench);
		return 0;
	}
	free(bench);
	zl_marks_scan(flaggems_dir, &idx);
	for (i = 0; i < ops->nr; i++) {
		struct zl_nodes n = ZL_NODES_INIT;

		strbuf_reset(&err);
		if (zl_resolve_op_in(flaggems_dir, &idx, ops->v[i], &n, &err) != ZL_RESOLVE_OK)
			strvec_push(&refused, err.buf);
		else
			own += !strcmp(n.how, "file");
		zl_nodes_release(&n);
	}
	if (refused.nr) {
		fprintf(stderr, "PREFLIGHT_FAILED check=op_resolution\n");
		fprintf(stderr, "zlbench: preflight 'op_resolution' failed for %zu of the batch's %zu operators; "
				"nothing was run:\n", refused.nr, ops->nr);
		for (i = 0; i < refused.nr; i++) {
			strbuf_reset(&line);
			strbuf_add_printable(&line, refused.v[i]);
			fprintf(stderr, "  %s\n", line.buf);
		}
		fflush(stderr);
	} else if (plan) {
		fprintf(plan, "operators resolved: %zu of %zu (%zu by their own file, %zu by marker scan; "
			      "%zu benchmark files scanned in %.1f ms)\n", ops->nr, ops->nr, own, ops->nr - own,
			idx.files_scanned, (zl_now_monotonic() - t0) * 1e3);
	}
	rc = refused.nr ? -1 : 0;
	zl_marks_release(&idx);
	strvec_clear(&refused);
	strbuf_release(&err);
	strbuf_release(&line);
	return rc;
}

int zl_preflight_run(struct zl_preflight *pf, int all, FILE *report,
		     const struct zl_check **failed, struct strbuf *msg)
{
	const struct zl_check *c;
	int rc = 0;

	*failed = NULL;
	for (c = zl_checks; c->name; c++) {
		struct strbuf one = STRBUF_INIT;

		if (c->fn(pf, &one)) {
			if (!*failed) {
				*failed = c;
				strbuf_reset(msg);
				strbuf_addf(msg, "%s; hint: %s", one.buf, c->hint);
			}
			if (report) {
				struct strbuf line = STRBUF_INIT;

				strbuf_add_printable(&line, one.buf);
				fprintf(report, "FAILED  %-15s %s; hint: %s\n", c->name, line.buf, c->hint);
				strbuf_release(&line);
			}
			rc = -1;
			strbuf_release(&one);
			if (!all)
				return rc;
			continue;
		}
		if (report && zl_verbosity >= 0) /* --quiet: only what is wrong */
			fprintf(report, "ok      %s\n", c->name);
		strbuf_release(&one);
	}
	return rc;
}

int zl_preflight_json(struct zl_preflight *pf, FILE *out, const struct zl_check **first, struct strbuf *msg)
{
	cJSON *root = cJSON_CreateObject(), *checks, *warnings;
	const struct zl_check *c;
	int failed = 0;
	size_t i;

	*first = NULL;
	checks = root && !zl_json_add_schema(root, ZL_SCHEMA_PREFLIGHT) ? cJSON_AddArrayToObject(root, "checks") : NULL;
	if (!checks) {
		cJSON_Delete(root);
		zl_print_error("out of memory");
		return ZL_EXIT_INTERNAL;
	}
	for (c = zl_checks; c->name; c++) {
		struct strbuf one = STRBUF_INIT;
		int rc = c->fn(pf, &one);
		cJSON *row = cJSON_CreateObject();

		if (zl_json_add_item(checks, NULL, row) || !cJSON_AddStringToObject(row, "name", c->name) ||
		    !cJSON_AddStringToObject(row, "status", rc ? "failed" : "ok") ||
		    !(rc ? cJSON_AddStringToObject(row, "message", one.buf) : cJSON_AddNullToObject(row, "message")) ||
		    !cJSON_AddStringToObject(row, "hint", c->hint)) {
			strbuf_release(&one);
			cJSON_Delete(root);
			zl_print_error("out of memory");
			return ZL_EXIT_INTERNAL;
		}
		if (rc && !failed) {
			*first = c;
			strbuf_reset(msg);
			strbuf_addf(msg, "%s; hint: %s", one.buf, c->hint);
		}
		if (rc)
			failed = 1;
		strbuf_release(&one);
	}
	warnings = cJSON_AddArrayToObject(root, "warnings");
	/* a warning that cannot be added is left out: the checks' verdict is what counts */
	for (i = 0; warnings && i < pf->warnings.nr; i++)
		(void)zl_json_add_item(warnings, NULL, cJSON_CreateString(pf->warnings.v[i]));
	if (!cJSON_AddBoolToObject(root, "ok", !failed) || zl_json_fprint(out, root, "preflight --json")) {
		cJSON_Delete(root);
		zl_print_error("out of memory");
		return ZL_EXIT_INTERNAL;
	}
	cJSON_Delete(root);
	return failed ? ZL_EXIT_PREFLIGHT : ZL_EXIT_OK;
}

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "zlbench/env.h"
#include "zlbench/error.h"
#include "zlbench/fsutil.h"
#include "zlbench/resolve.h"
#include "zlbench/settings.h"
#include "zlbench/util.h"
#include "zlbench/zlbench.h"
#include "zlbench/banned.h"

const struct zl_setting_def zl_setting_defs[ZL_SET__COUNT] = {
	[ZL_SET_BACKEND] = { .id = ZL_SET_BACKEND, .key = "backend",
	  .flag = "backend", .env = "ZL_BACKEND", .argh = "B",
	  .help = "accelerator backend or alias",
	  .default_doc = "auto: the one vendor present", .flags = ZL_SETF_PLACE | ZL_SETF_PLAN,
	  .values = ZL_VALUES_BACKEND },
	[ZL_SET_FLAGGEMS_DIR] = { .id = ZL_SET_FLAGGEMS_DIR, .key = "flaggems_dir",
	  .flag = "flaggems-dir", .env = "FLAGGEMS_DIR", .argh = "DIR",
	  .help = "FlagGems checkout (holds benchmark/ and src/)",
	  .default_doc = "current directory", .flags = ZL_SETF_PIN, .kind = ZL_SETK_PATH, .values = ZL_VALUES_DIR },
	[ZL_SET_OP] = { .id = ZL_SET_OP, .key = "op",
	  .flag = "op", .env = "OP", .argh = "OP",
	  .help = "operator to benchmark",
	  .flags = ZL_SETF_TARGET, .values = ZL_VALUES_OP },
	[ZL_SET_OP_FILE] = { .id = ZL_SET_OP_FILE, .key = "op_file",
	  .flag = "op-file", .env = "OP_FILE", .argh = "FILE",
	  .help = "benchmark file that holds the operator (run with -m OP)",
	  .flags = ZL_SETF_TARGET | ZL_SETF_NODE },
	[ZL_SET_TEST_NODE] = { .id = ZL_SET_TEST_NODE, .key = "test_node",
	  .flag = "test-node", .env = "TEST_NODE", .argh = "NODE",
	  .help = "pytest node, used as given (wins over OP/OP_FILE)",
	  .flags = ZL_SETF_TARGET | ZL_SETF_NODE },
	[ZL_SET_LEVEL] = { .id = ZL_SET_LEVEL, .key = "level",
	  .flag = "level", .env = "BENCH_LEVEL", .argh = "LEVEL",
	  .help = "benchmark level: core or comprehensive",
	  .default_doc = "core", .choices = "core comprehensive" },
	[ZL_SET_SHAPE_FILE] = { .id = ZL_SET_SHAPE_FILE, .key = "shape_file",
	  .flag = "shape-file", .env = "SHAPE_FILE", .argh = "FILE",
	  .help = "shape file passed to FlagGems (--shape_file)",
	  .kind = ZL_SETK_PATH },
	[ZL_SET_SHAPE_MODE] = { .id = ZL_SET_SHAPE_MODE, .key = "shape_mode",
	  .flag = "shape-mode", .env = "SHAPE_MODE", .argh = "MODE",
	  .help = "file (the shape file) or upstream (FlagGems' own core_shapes.yaml)",
	  .default_doc = "file with a shape file, else upstream", .choices = "file upstream" },
	[ZL_SET_DRAW_INPUTS] = { .id = ZL_SET_DRAW_INPUTS, .key = "draw_inputs",
	  .flag = "draw-inputs", .env = "ZL_DRAW_INPUTS", .argh = "WHERE",
	  .help = "where integer and bool inputs are drawn: flaggems (on the CPU, as FlagGems does) or "
		  "device (same ranges, other values: compare keeps the two apart)",
	  .default_doc = "flaggems", .flags = ZL_SETF_MEASURE | ZL_SETF_PLAN, .choices = "flaggems device" },
	[ZL_SET_REPLAY_FROM] = { .id = ZL_SET_REPLAY_FROM, .key = "replay_from",
	  .flag = "replay-from", .env = "REPLAY_FROM", .argh = "RUN_DIR",
	  .help = "replay the autotune records of an earlier run (batch: or of an earlier batch's runs, merged)",
	  .flags = ZL_SETF_MEASURE, .kind = ZL_SETK_PATH, .values = ZL_VALUES_DIR },
	[ZL_SET_REPLAY_MISS] = { .id = ZL_SET_REPLAY_MISS, .key = "replay_miss",
	  .flag = "replay-miss", .env = "REPLAY_MISS", .argh = "WHAT",
	  .help = "with --replay-from, a tuning key the records lack: fail (the measurement fails; an A/B "
		  "runs on the same configs or not at all) or tune (tuned and recorded: a sweep replaying "
		  "the last sweep's winners)",
	  .default_doc = "fail", .flags = ZL_SETF_MEASURE, .choices = "fail tune" },
	[ZL_SET_AUTOTUNE_RECORDS] = { .id = ZL_SET_AUTOTUNE_RECORDS, .key = "autotune_records",
	  .flag = "autotune-records", .flag_off = "no-autotune-records", .env = "ZL_AUTOTUNE_RECORDS",
	  .help = "record the tuners' winners (autotune mode record); off: no autotune plugin, "
		  "FlagGems tunes as it does alone",
	  .default_doc = "1 (record)", .flags = ZL_SETF_MEASURE | ZL_SETF_PLAN },
	[ZL_SET_ISOLATE] = { .id = ZL_SET_ISOLATE, .key = "isolate_tuner_cache",
	  .flag = "isolate-tuner-cache", .flag_off = "shared-tuner-cache", .env = "ZL_ISOLATE_TUNER_CACHE",
	  .help = "fresh FlagGems tuner cache and Triton cache for this run (removed afterwards)",
	  .default_doc = "0 (shared)" },
	[ZL_SET_DEVICES] = { .id = ZL_SET_DEVICES, .key = "devices",
	  .flag = "devices", .flag_alias = "gpus", .env = "ZL_DEVICES", .argh = "LIST",
	  .help = "device indices, e.g. 0,2",
	  .default_doc = "first device", .flags = ZL_SETF_PLACE },
	[ZL_SET_PYTHON] = { .id = ZL_SET_PYTHON, .key = "python",
	  .flag = "python", .env = "ZL_PYTHON", .argh = "PATH",
	  .help = "Python interpreter that runs pytest",
	  .default_doc = "python3", .flags = ZL_SETF_PIN, .kind = ZL_SETK_PROGRAM },
	[ZL_SET_OUT] = { .id = ZL_SET_OUT, .key = "out",
	  .flag = "out", .argh = "DIR",
	  .help = "run directory (must be absent or empty)",
	  .default_doc = "$ZL_RUNS_DIR/<UTC stamp>-<backend>-<op>", .flags = ZL_SETF_PLACE | ZL_SETF_MEASURE,
	  .values = ZL_VALUES_DIR },
	[ZL_SET_RUNS_DIR] = { .id = ZL_SET_RUNS_DIR, .key = "runs_dir",
	  .env = "ZL_RUNS_DIR", .argh = "DIR",
	  .help = "parent of default run directories",
	  .default_doc = "runs", .flags = ZL_SETF_PLACE, .values = ZL_VALUES_DIR },
	[ZL_SET_CUDAGRAPH] = { .id = ZL_SET_CUDAGRAPH, .key = "cudagraph",
	  .flag = "cudagraph", .flag_off = "no-cudagraph", .env = "ZL_ENABLE_CUDAGRAPH",
	  .help = "graph-capture timer (also the profiler timer's fallback)",
	  .default_doc = "from the backend's capabilities", .flags = ZL_SETF_MEASURE | ZL_SETF_PLAN },
	[ZL_SET_TIMER] = { .id = ZL_SET_TIMER, .key = "timer",
	  .flag = "timer", .env = "ZL_TIMER", .argh = "NAME",
	  .help = "timer: profiler (device timestamps), graph (graph replay) or direct (do_bench)",
	  .default_doc = "the best the backend offers: profiler, else graph, else direct",
	  .flags = ZL_SETF_MEASURE | ZL_SETF_PLAN, .choices = "profiler graph direct" },
	[ZL_SET_NOISE_TARGET] = { .id = ZL_SET_NOISE_TARGET, .key = "noise_target",
	  .flag = "noise-target", .env = "ZL_NOISE_TARGET", .argh = "FRACTION",
	  .help = "profiler timer: sample until the 95 % interval is within this fraction of the estimate",
	  .default_doc = "0.005", .flags = ZL_SETF_MEASURE | ZL_SETF_PLAN },
	[ZL_SET_MAX_TIME_PER_SHAPE] = { .id = ZL_SET_MAX_TIME_PER_SHAPE, .key = "max_time_per_shape",
	  .flag = "max-time-per-shape", .env = "ZL_MAX_TIME_PER_SHAPE", .argh = "SECONDS",
	  .help = "profiler timer: at most this much sampling per measurement",
	  .default_doc = ZL_MAX_TIME_PER_SHAPE_DEFAULT, .flags = ZL_SETF_MEASURE | ZL_SETF_PLAN },
	[ZL_SET_DIRECT_REPEAT] = { .id = ZL_SET_DIRECT_REPEAT, .key = "direct_repeat",
	  .flag = "direct-repeat", .env = "ZL_DIRECT_REPEAT", .argh = "N",
	  .help = "repeats of the direct timer (median reported)",
	  .default_doc = "1", .flags = ZL_SETF_MEASURE },
	[ZL_SET_TIMEOUT] = { .id = ZL_SET_TIMEOUT, .key = "timeout",
	  .flag = "timeout", .env = "ZL_TIMEOUT", .argh = "SECONDS",
	  .help = "stop the run after this long (SIGTERM, 10 s grace, SIGKILL)",
	  .default_doc = "none", .flags = ZL_SETF_MEASURE },
};

/* The timers, best first: the default is the first one the backend and settings allow. */
static const char *const timer_names[] = { "profiler", "graph", "direct" };
/* The values of the settings with a fixed few (the table's choices, in that order). */
static const char *const levels[] = { "core", "comprehensive" };
static const char *const shape_modes[] = { "file", "upstream" };
static const char *const draws[] = { "flaggems", "device" };
static const char *const misses[] = { "fail", "tune" };

void zl_settings_init(struct zl_settings *s)
{
	memset(s, 0, sizeof(*s));
	strvec_init(&s->devices);
	strvec_init(&s->passthrough);
	s->direct_repeat = 1;
}

void zl_settings_release(struct zl_settings *s)
{
	size_t i;

	for (i = 0; i < ZL_SET__COUNT; i++) {
		free(s->v[i].raw);
		free(s->v[i].from);
	}
	free(s->flaggems_dir);
	free(s->shape_file);
	free(s->replay_from);
	free(s->python);
	free(s->out_default);
	free(s->opts);
	strvec_clear(&s->devices);
	strvec_clear(&s->passthrough);
	zl_settings_init(s);
}

static void set_value(struct zl_settings *s, enum zl_setting_id id, const char *raw,
		      enum zl_source src, const char *from)
{
	free(s->v[id].raw);
	free(s->v[id].from);
	s->v[id].raw = raw ? xstrdup(raw) : NULL;
	s->v[id].source = src;
	/* flags are named as typed: "--level" */
	s->v[id].from = src == ZL_SRC_FLAG && from ? xstrfmt("--%s", from) : xstrdup(from ? from : "default");
}

void zl_settings_set(struct zl_settings *s, enum zl_setting_id id, const char *raw)
{
	set_value(s, id, raw, ZL_SRC_FLAG, zl_setting_defs[id].flag);
}

const struct zl_setting_value *zl_settings_given(const struct zl_settings *s, unsigned flags)
{
	size_t i;

	for (i = 0; i < ZL_SET__COUNT; i++)
		if ((flags == ZL_SETF_ALL || (zl_setting_defs[i].flags & flags)) && s->v[i].source == ZL_SRC_FLAG)
			return &s->v[i];
	return NULL;
}

void zl_settings_set_from(struct zl_settings *s, enum zl_setting_id id, const char *raw, enum zl_source src)
{
	set_value(s, id, raw, src, src == ZL_SRC_FLAG ? zl_setting_defs[id].flag : zl_setting_defs[id].env);
}

/* Option rows carry the settings pointer in value and (id << 1 | off) in defval. */
static int setting_cb(const struct zl_option *o, const char *arg, struct strbuf *err)
{
	struct zl_settings *s = o->value;
	enum zl_setting_id id = (enum zl_setting_id)(o->defval >> 1);
	int off = (int)(o->defval & 1);

	(void)err;
	if (o->takes_arg)
		set_value(s, id, arg, ZL_SRC_FLAG, zl_setting_defs[id].flag);
	else
		set_value(s, id, off ? "0" : "1", ZL_SRC_FLAG,
			  off ? zl_setting_defs[id].flag_off : zl_setting_defs[id].flag);
	return 0;
}

const struct zl_option *zl_settings_options(struct zl_settings *s)
{
	size_t i, n = 0;
	struct zl_option *o;

	if (s->opts)
		return s->opts;
	o = s->opts = xcalloc(ZL_SET__COUNT * 3 + 2, sizeof(*o));
	o[n++] = (struct zl_option){ .type = ZL_OPT_GROUP, .help = "Run settings (flag > environment > default):" };
	for (i = 0; i < ZL_SET__COUNT; i++) {
		const struct zl_setting_def *d = &zl_setting_defs[i];
		int boolean = d->flag_off != NULL;

		if (!d->flag)
			continue;
		o[n++] = (struct zl_option){ .type = ZL_OPT_CALLBACK, .long_name = d->flag,
			.value = s, .argh = d->argh, .help = d->help, .defval = (long)(d->id << 1),
			.cb = setting_cb, .takes_arg = !boolean, .env = d->env, .default_doc = d->default_doc,
			.choices = d->choices, .values = d->values };
		if (d->flag_alias)
			o[n++] = (struct zl_option){ .type = ZL_OPT_CALLBACK, .long_name = d->flag_alias,
				.value = s, .argh = d->argh, .help = d->help, .defval = (long)(d->id << 1),
				.cb = setting_cb, .takes_arg = !boolean, .flags = ZL_OPT_HIDDEN,
				.choices = d->choices, .values = d->values };
		if (boolean)
			o[n++] = (struct zl_option){ .type = ZL_OPT_CALLBACK, .long_name = d->flag_off,
				.value = s, .help = "turn the above off", .defval = (long)((d->id << 1) | 1),
				.cb = setting_cb, .takes_arg = 0 };
	}
	o[n] = (struct zl_option){ .type = ZL_OPT_END };
	return o;
}

int zl_settings_option_has(const struct zl_option *o, unsigned flags)
{
	return o->cb == setting_cb && (zl_setting_defs[o->defval >> 1].flags & flags);
}

int zl_settings_parse(struct zl_settings *s, int argc, const char **argv,
		      const struct zl_option *extra, struct strvec *args, struct strbuf *err)
{
	const struct zl_option *tables[3] = { NULL, NULL, NULL };
	struct strvec scratch = STRVEC_INIT;
	int rc;

	tables[0] = extra ? extra : zl_settings_options(s);
	tables[1] = extra ? zl_settings_options(s) : NULL;
	rc = zl_parse_options(argc, argv, tables, args ? args : &scratch, &s->passthrough, err);
	if (!rc && !args && scratch.nr)
		rc = zl_error(err, "unexpected argument '%s' (see --help)", scratch.v[0]);
	strvec_clear(&scratch);
	return rc;
}

/* "invalid value 'v' for <from>: <what it takes>", and the closest of the setting's choices. */
static int invalid(struct strbuf *err, const struct zl_settings *s, enum zl_setting_id id,
		   const char *takes)
{
	const struct zl_setting_value *v = &s->v[id];
	struct strvec words = STRVEC_INIT;

	zl_error(err, "invalid value '%s' for %s: %s", v->raw, v->from ? v->from : zl_setting_defs[id].key, takes);
	if (zl_setting_defs[id].choices) {
		strvec_split(&words, zl_setting_defs[id].choices, ' ');
		zl_did_you_mean(err, "", v->raw, &words);
		strvec_clear(&words);
	}
	return -1;
}

/*
 * The setting's value as one of values (static strings, the setting's table choices in
 * order): *out points at it. Otherwise "choose a, b or c" (invalid()). 0 or -1.
 */
static int choose(struct zl_settings *s, enum zl_setting_id id, const char *const *values, size_t n,
		  const char **out, struct strbuf *err)
{
	struct strbuf takes = STRBUF_INIT;
	size_t i;
	int rc;

	for (i = 0; i < n; i++)
		if (!strcmp(s->v[id].raw, values[i])) {
			*out = values[i];
			return 0;
		}
	strbuf_addstr(&takes, "choose ");
	for (i = 0; i < n; i++)
		strbuf_addf(&takes, "%s%s", i == 0 ? "" : i + 1 == n ? " or " : ", ", values[i]);
	rc = invalid(err, s, id, takes.buf);
	strbuf_release(&takes);
	return rc;
}

static int resolve_bool(struct zl_settings *s, enum zl_setting_id id, int *out, struct strbuf *err)
{
	int b = zl_parse_bool(s->v[id].raw);

	if (b < 0)
		return invalid(err, s, id, "choose one of 0, 1, true, false, yes, no, on, off");
	*out = b;
	return 0;
}

/* A device index: plain decimal digits only (no sign, blank or empty item), at most 4096. */
static int parse_device_index(const char *p, size_t len, long *out)
{
	long n = 0;
	size_t i;

	if (!len)
		return -1;
	for (i = 0; i < len; i++) {
		if (p[i] < '0' || p[i] > '9')
			return -1;
		n = n * 10 + (p[i] - '0');
		if (n > 4096)
			return -1;
	}
	*out = n;
	return 0;
}

/*
 * Split the devices value into canonical indices ("01" is "1") and refuse repeats, so
 * that the visibility variable, batch's slots and the identity all see one spelling.
 * The setting's raw value becomes the canonical list too.
 */
static int resolve_devices(struct zl_settings *s, struct strbuf *err)
{
	const struct zl_setting_value *v = &s->v[ZL_SET_DEVICES];
	const char *p = v->raw;
	struct strbuf canon = STRBUF_INIT;
	long n;
	size_t i;
	char *item = NULL;

	strvec_clear(&s->devices);
	for (;;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		long seen;

		item = xstrndup(p, len);
		if (!len) {
			zl_error(err, "invalid value '%s' for %s: an empty device index; use a comma-separated "
				 "list of non-negative integers, e.g. 0,2", v->raw, v->from);
			goto fail;
		}
		if (parse_device_index(p, len, &n)) {
			zl_error(err, "invalid device index '%s' in %s '%s': use non-negative decimal integers "
				 "(no sign or blank, at most 4096), e.g. 0,2", item, v->from, v->raw);
			goto fail;
		}
		for (i = 0; i < s->devices.nr; i++)
			if (!zl_parse_long(s->devices.v[i], &seen) && seen == n) {
				zl_error(err, "device %ld is listed twice in %s '%s' (again as '%s'): list each device once",
					 n, v->from, v->raw, item);
				goto fail;
			}
		free(item);
		item = NULL;
		strvec_pushf(&s->devices, "%ld", n);
		strbuf_addf(&canon, "%s%ld", canon.len ? "," : "", n);
		if (!end)
			break;
		p = end + 1;
	}
	free(s->v[ZL_SET_DEVICES].raw);
	s->v[ZL_SET_DEVICES].raw = strbuf_detach(&canon, NULL);
	return 0;
fail:
	free(item);
	strbuf_release(&canon);
	strvec_clear(&s->devices);
	return -1;
}

/* 1 when the timer may time on s's backend with s's graph setting. */
static int timer_possible(const struct zl_settings *s, const char *name)
{
	if (!strcmp(name, "profiler"))
		return zl_backend_has(s->backend, ZL_CAP_KERNEL_PROFILER);
	if (!strcmp(name, "graph"))
		return s->cudagraph;
	return 1;
}

/* The timer plan: asked for, or the best one possible; a timer the backend lacks is refused. */
static int resolve_timer(struct zl_settings *s, struct strbuf *err)
{
	const struct zl_setting_value *v;
	const char *note;
	size_t i;

	if (!s->v[ZL_SET_TIMER].raw) {
		for (i = 0; i + 1 < ZL_ARRAY_SIZE(timer_names); i++)
			if (timer_possible(s, timer_names[i]))
				break;
		set_value(s, ZL_SET_TIMER, timer_names[i], ZL_SRC_DEFAULT, "default");
	}
	v = &s->v[ZL_SET_TIMER];
	if (choose(s, ZL_SET_TIMER, timer_names, ZL_ARRAY_SIZE(timer_names), &s->timer, err))
		return -1;
	if (timer_possible(s, s->timer))
		return 0;
	if (!strcmp(s->timer, "profiler")) {
		note = zl_backend_cap_note(s->backend, ZL_CAP_KERNEL_PROFILER);
		return zl_error(err, "%s asks for the profiler timer, but backend '%s' has no kernel profiler%s%s",
				v->from, s->backend->name, note ? ": " : "", note ? note : "");
	}
	if (zl_backend_has(s->backend, ZL_CAP_GRAPH_CAPTURE))
		return zl_error(err, "%s asks for the graph timer, but %s turns it off", v->from,
				s->v[ZL_SET_CUDAGRAPH].from);
	return zl_error(err, "%s asks for the graph timer, but backend '%s' cannot capture graphs", v->from,
			s->backend->name);
}

/* A number from a setting's raw value within (above, at_most]; -1 with the usage message. */
static int resolve_number(struct zl_settings *s, enum zl_setting_id id, double above, double at_most,
			  const char *choices, double *out, struct strbuf *err)
{
	double d;

	if (zl_parse_double(s->v[id].raw, &d) || !(d > above) || !(d <= at_most))
		return invalid(err, s, id, choices);
	*out = d;
	return 0;
}

/* A setting not given takes its variable's value (an empty variable is unset). */
static void take_env(struct zl_settings *s, enum zl_setting_id id)
{
	const struct zl_setting_def *def = &zl_setting_defs[id];
	const char *env;

	if (s->v[id].source != ZL_SRC_UNSET || !def->env)
		return;
	env = zl_env_by_name(def->env);
	if (env)
		set_value(s, id, env, ZL_SRC_ENV, def->env);
}

int zl_settings_resolve_backend(struct zl_settings *s, struct strbuf *err)
{
	struct strbuf why = STRBUF_INIT;
	struct strvec names = STRVEC_INIT;
	int rc;

	take_env(s, ZL_SET_BACKEND);
	if (s->v[ZL_SET_BACKEND].raw) {
		s->backend = zl_backend_find(s->v[ZL_SET_BACKEND].raw);
		if (s->backend)
			return 0;
		strbuf_addstr(&why, "choose one of ");
		zl_backend_choices(&why);
		rc = invalid(err, s, ZL_SET_BACKEND, why.buf);
		zl_backend_names(&names);
		zl_did_you_mean(err, "", s->v[ZL_SET_BACKEND].raw, &names);
		strvec_clear(&names);
		strbuf_release(&why);
		return rc;
	}
	if (zl_backend_detect(&s->backend, &why)) {
		zl_error(err, "%s", why.buf);
		strbuf_release(&why);
		return -1;
	}
	strbuf_release(&why);
	set_value(s, ZL_SET_BACKEND, s->backend->name, ZL_SRC_AUTO, "auto-detected");
	return 0;
}

/* A setting that neither a flag nor the environment gave takes its default. */
static void take_default(struct zl_settings *s, enum zl_setting_id id, const char *raw)
{
	if (!s->v[id].raw)
		set_value(s, id, raw, ZL_SRC_DEFAULT, "default");
}

/* What is refused before anything is resolved, so that every command agrees (exit 2). */
static int check_given(const struct zl_settings *s, struct strbuf *err)
{
	size_t i;
	double d;

	/* an empty variable means unset, but an empty flag value is a mistake (--out '' is not ".") */
	for (i = 0; i < ZL_SET__COUNT; i++)
		if (s->v[i].source == ZL_SRC_FLAG && s->v[i].raw && !*s->v[i].raw)
			return zl_error(err, "empty value for %s: expected %s", s->v[i].from,
					zl_setting_defs[i].argh ? zl_setting_defs[i].argh : "value");

	/* the operator is a name, never a path */
	if (s->v[ZL_SET_OP].raw && !zl_op_name_valid(s->v[ZL_SET_OP].raw))
		return zl_error(err, "invalid operator name '%s' (from %s): use letters, digits and '_' only",
				s->v[ZL_SET_OP].raw, s->v[ZL_SET_OP].from);

	/* read by the device enumeration; a typo must not silently become the default */
	return zl_backend_query_timeout(&d, err) ? -1 : 0;
}

/* What the run reads: the FlagGems directory, the level, the shape file and mode, how inputs are drawn, the run to replay. */
static int resolve_inputs(struct zl_settings *s, struct strbuf *err)
{
	char cwd[4096];
	const char *mode;

	if (!s->v[ZL_SET_FLAGGEMS_DIR].raw) {
		if (!getcwd(cwd, sizeof(cwd)))
			return zl_error(err, "cannot read the current directory");
		set_value(s, ZL_SET_FLAGGEMS_DIR, cwd, ZL_SRC_DEFAULT, "default");
	}
	s->flaggems_dir = zl_absolute_path(s->v[ZL_SET_FLAGGEMS_DIR].raw);

	/* level: only two values, never passed through to pytest unchecked */
	take_default(s, ZL_SET_LEVEL, "core");
	if (choose(s, ZL_SET_LEVEL, levels, ZL_ARRAY_SIZE(levels), &s->level, err))
		return -1;

	if (s->v[ZL_SET_SHAPE_FILE].raw)
		s->shape_file = zl_absolute_path(s->v[ZL_SET_SHAPE_FILE].raw);
	take_default(s, ZL_SET_SHAPE_MODE, s->shape_file ? "file" : "upstream");
	if (choose(s, ZL_SET_SHAPE_MODE, shape_modes, ZL_ARRAY_SIZE(shape_modes), &mode, err))
		return -1;
	s->shape_mode_file = mode == shape_modes[0];
	if (s->shape_mode_file && !s->shape_file)
		return zl_error(err, "shape mode 'file' needs a shape file (--shape-file or SHAPE_FILE)");

	/* draw inputs: FlagGems' way unless asked; the device's values differ, so it is a caliber */
	take_default(s, ZL_SET_DRAW_INPUTS, "flaggems");
	if (choose(s, ZL_SET_DRAW_INPUTS, draws, ZL_ARRAY_SIZE(draws), &s->draw_inputs, err))
		return -1;

	if (s->v[ZL_SET_REPLAY_FROM].raw)
		s->replay_from = zl_absolute_path(s->v[ZL_SET_REPLAY_FROM].raw);
	return 0;
}

/* How the run measures: autotune records, the tuner cache, the graph and timer plan, the profiler's sampling. */
static int resolve_measure(struct zl_settings *s, struct strbuf *err)
{
	/* autotune records: off leaves FlagGems' tuners alone, so there is nothing to replay into */
	take_default(s, ZL_SET_AUTOTUNE_RECORDS, "1");
	if (resolve_bool(s, ZL_SET_AUTOTUNE_RECORDS, &s->autotune_records, err))
		return -1;
	if (!s->autotune_records && s->replay_from)
		return zl_error(err, "%s turns autotune records off, but %s asks to replay them",
				s->v[ZL_SET_AUTOTUNE_RECORDS].from, s->v[ZL_SET_REPLAY_FROM].from);

	/* a miss policy without records to miss would silently mean nothing */
	take_default(s, ZL_SET_REPLAY_MISS, "fail");
	if (choose(s, ZL_SET_REPLAY_MISS, misses, ZL_ARRAY_SIZE(misses), &s->replay_miss, err))
		return -1;
	if (!strcmp(s->replay_miss, "tune") && !s->replay_from)
		return zl_error(err, "%s tunes the keys that replayed records lack, but no --replay-from names "
				"records to replay", s->v[ZL_SET_REPLAY_MISS].from);

	take_default(s, ZL_SET_ISOLATE, "0");
	if (resolve_bool(s, ZL_SET_ISOLATE, &s->isolate, err))
		return -1;

	/* graph timer: default from the backend's capabilities; asking for it without them is an error */
	take_default(s, ZL_SET_CUDAGRAPH, zl_backend_has(s->backend, ZL_CAP_GRAPH_CAPTURE) ? "1" : "0");
	if (resolve_bool(s, ZL_SET_CUDAGRAPH, &s->cudagraph, err))
		return -1;
	if (s->cudagraph && !zl_backend_has(s->backend, ZL_CAP_GRAPH_CAPTURE))
		return zl_error(err, "%s asks for the graph timer, but backend '%s' cannot capture graphs",
				s->v[ZL_SET_CUDAGRAPH].from, s->backend->name);
	if (resolve_timer(s, err))
		return -1;

	take_default(s, ZL_SET_NOISE_TARGET, "0.005");
	if (resolve_number(s, ZL_SET_NOISE_TARGET, 0, 0.5, "a fraction greater than 0 and at most 0.5, "
			   "e.g. 0.005 for +-0.5 %", &s->noise_target, err))
		return -1;
	take_default(s, ZL_SET_MAX_TIME_PER_SHAPE, ZL_MAX_TIME_PER_SHAPE_DEFAULT);
	return resolve_number(s, ZL_SET_MAX_TIME_PER_SHAPE, 0, 3600, "a number of seconds greater than 0 and "
			      "at most 3600", &s->max_time_per_shape_s, err);
}

/* How long and where: direct repeats, the timeout, the devices, the interpreter, the runs directory. */
static int resolve_bounds(struct zl_settings *s, struct strbuf *err)
{
	long n;
	double d;

	take_default(s, ZL_SET_DIRECT_REPEAT, "1");
	if (zl_parse_long(s->v[ZL_SET_DIRECT_REPEAT].raw, &n) || n < 1 || n > 1000)
		return invalid(err, s, ZL_SET_DIRECT_REPEAT, "an integer from 1 to 1000");
	s->direct_repeat = n;

	if (s->v[ZL_SET_TIMEOUT].raw) {
		if (zl_parse_double(s->v[ZL_SET_TIMEOUT].raw, &d) || d <= 0)
			return invalid(err, s, ZL_SET_TIMEOUT, "a number of seconds greater than 0");
		s->timeout_s = d;
	}

	/* devices: checked against the enumeration by preflight */
	if (s->v[ZL_SET_DEVICES].raw) {
		if (resolve_devices(s, err))
			return -1;
	} else {
		s->devices_defaulted = 1;
	}

	take_default(s, ZL_SET_PYTHON, "python3");
	s->python = xstrdup(s->v[ZL_SET_PYTHON].raw);
	take_default(s, ZL_SET_RUNS_DIR, "runs");
	return 0;
}

int zl_settings_resolve(struct zl_settings *s, struct strbuf *err)
{
	size_t i;

	/* environment next, then defaults */
	for (i = 0; i < ZL_SET__COUNT; i++)
		take_env(s, (enum zl_setting_id)i);
	if (check_given(s, err) || zl_settings_resolve_backend(s, err) || resolve_inputs(s, err) ||
	    resolve_measure(s, err) || resolve_bounds(s, err))
		return -1;
	return 0;
}

int zl_settings_need_target(const struct zl_settings *s, struct strbuf *err)
{
	if (s->v[ZL_SET_OP].raw || s->v[ZL_SET_OP_FILE].raw || s->v[ZL_SET_TEST_NODE].raw)
		return 0;
	return zl_error(err, "nothing to run: give --op, --op-file or --test-node (or OP, OP_FILE, TEST_NODE)");
}

void zl_settings_set_default(struct zl_settings *s, enum zl_setting_id id, const char *raw, const char *why)
{
	char *from = xstrfmt("default: %s", why);

	set_value(s, id, raw, ZL_SRC_DEFAULT, from);
	free(from);
}

void zl_settings_print(const struct zl_settings *s, FILE *out)
{
	size_t i;

	for (i = 0; i < ZL_SET__COUNT; i++) {
		const struct zl_setting_value *v = &s->v[i];
		const char *value = v->raw ? v->raw : "-";
		const char *src = zl_source_name(v->source), *sep = "", *from = "";

		if (v->source == ZL_SRC_FLAG || v->source == ZL_SRC_ENV) {
			sep = ": ";
			from = v->from;
		} else if (v->source == ZL_SRC_DEFAULT) {
			src = v->from; /* "default", or "default: <why>" */
		} else if (i == ZL_SET_OUT) {
			/* left unset so that the run may add -2, -3, ...; show what it resolves to */
			value = s->out_default ? s->out_default : zl_setting_defs[i].default_doc;
			src = "default: a new directory under runs_dir";
		} else if (i == ZL_SET_DEVICES && s->devices_defaulted) {
			value = zl_setting_defs[i].default_doc;
			src = "default";
		}
		fprintf(out, "  %-20s = %-40s (%s%s%s)\n", zl_setting_defs[i].key, value, src, sep, from);
	}
}

/* One forwarded value as a flag; a program name is looked up on PATH, paths are made absolute. */
static void forward_one(const struct zl_setting_def *d, const char *raw, struct strvec *args)
{
	char *found, *abs, cwd[4096];
	const char *prog;

	if (d->flag_off) {
		strvec_pushf(args, "--%s", zl_parse_bool(raw) == 1 ? d->flag : d->flag_off);
	} else if (d->kind == ZL_SETK_PATH) {
		/* without resolving links: a venv's python is a link, and only the link knows the venv */
		abs = zl_absolute_path(raw);
		strvec_pushf(args, "--%s=%s", d->flag, abs);
		free(abs);
	} else if (d->kind == ZL_SETK_PROGRAM) {
		/* a name not found stays a name: the run's preflight names it */
		found = strchr(raw, '/') ? xstrdup(raw) : zl_find_executable(raw);
		prog = found ? found : raw;
		if (!strchr(prog, '/') || prog[0] == '/' || !getcwd(cwd, sizeof(cwd)))
			strvec_pushf(args, "--%s=%s", d->flag, prog);
		else
			strvec_pushf(args, "--%s=%s/%s", d->flag, cwd, prog);
		free(found);
	} else {
		strvec_pushf(args, "--%s=%s", d->flag, raw);
	}
}

void zl_settings_forward_args(const struct zl_settings *s, struct strvec *args)
{
	size_t i;

	for (i = 0; i < ZL_SET__COUNT; i++) {
		const struct zl_setting_def *d = &zl_setting_defs[i];
		const struct zl_setting_value *v = &s->v[i];

		if (!d->flag || (d->flags & (ZL_SETF_TARGET | ZL_SETF_PLACE)) || !v->raw)
			continue;
		if (!(d->flags & ZL_SETF_PIN) && v->source != ZL_SRC_FLAG && v->source != ZL_SRC_ENV)
			continue;
		forward_one(d, v->raw, args);
	}
}

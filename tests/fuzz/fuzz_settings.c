/*
 * The settings and environment parsers: the input's first line is a run command's argv
 * (split at tabs), each further line the value of one variable, in the order of vars[]
 * (an absent line unsets it). Through zl_settings_parse and zl_settings_resolve (device
 * lists, booleans, numbers, levels, modes), the kill grace, the push variables and the
 * plain number and boolean parsers. Invariant: resolved devices are canonical (no repeats,
 * at most 4096) and a resolved level and backend are set.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "zlbench/child.h"
#include "zlbench/push.h"
#include "zlbench/settings.h"
#include "zlbench/strbuf.h"
#include "zlbench/strvec.h"
#include "zlbench/util.h"

static const char *const vars[] = {
	"ZL_BACKEND", "FLAGGEMS_DIR", "OP", "OP_FILE", "TEST_NODE", "BENCH_LEVEL", "SHAPE_FILE",
	"SHAPE_MODE", "REPLAY_FROM", "ZL_AUTOTUNE_RECORDS", "ZL_ISOLATE_TUNER_CACHE", "ZL_DEVICES",
	"ZL_PYTHON", "ZL_RUNS_DIR", "ZL_ENABLE_CUDAGRAPH", "ZL_DIRECT_REPEAT", "ZL_TIMEOUT",
	"ZL_QUERY_TIMEOUT", "ZL_KILL_GRACE", "ZL_PUSH_URL", "ZL_PUSH_TOKEN", "ZL_PUSH_BACKOFF_MS",
};

static void check_devices(const struct zl_settings *s)
{
	size_t i, j;
	long a, b;

	for (i = 0; i < s->devices.nr; i++) {
		if (zl_parse_long(s->devices.v[i], &a) || a < 0 || a > 4096)
			fuzz_fail("device '%s' is not a canonical index", s->devices.v[i]);
		for (j = 0; j < i; j++)
			if (!zl_parse_long(s->devices.v[j], &b) && a == b)
				fuzz_fail("device %ld is listed twice after resolving", a);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	struct strvec lines = STRVEC_INIT, args = STRVEC_INIT, words = STRVEC_INIT;
	struct strbuf err = STRBUF_INIT;
	struct zl_settings s;
	struct zl_push_opts po;
	char *text = fuzz_cstr(data, size);
	size_t i;
	long n;
	double d;

	if (!ready) {
		/* auto-detection looks for tools on PATH and nodes under ZL_DEV_ROOT: find none */
		setenv("ZL_DEV_ROOT", fuzz_dir(), 1);
		setenv("PATH", fuzz_dir(), 1);
		ready = 1;
	}
	/* strvec_split drops empty items: split by hand to keep a line's place */
	for (i = 0; ; i++) {
		char *nl = strchr(text, '\n');
		char *line = nl ? xstrndup(text, (size_t)(nl - text)) : xstrdup(text);

		strvec_push(&lines, line);
		free(line);
		if (!nl)
			break;
		memmove(text, nl + 1, strlen(nl + 1) + 1);
	}
	for (i = 0; i < ZL_ARRAY_SIZE(vars); i++) {
		if (i + 1 < lines.nr)
			setenv(vars[i], lines.v[i + 1], 1);
		else
			unsetenv(vars[i]);
	}
	strvec_push(&words, "run");
	strvec_split(&words, lines.v[0], '\t');
	zl_settings_init(&s);
	if (!zl_settings_parse(&s, (int)words.nr - 1, (const char **)words.v + 1, NULL, &args, &err) &&
	    !zl_settings_resolve(&s, &err)) {
		if (!s.backend || !s.level || !s.flaggems_dir || !s.python)
			fuzz_fail("resolved settings without backend, level, flaggems_dir or python");
		check_devices(&s);
		(void)zl_settings_need_target(&s, &err);
	}
	zl_settings_release(&s);
	(void)zl_kill_grace_check(&err);
	(void)zl_kill_grace();
	zl_push_opts_init(&po);
	if (!zl_push_opts_from_env(&po, &err) && po.url)
		(void)zl_push_check_url(po.url, &err);
	for (i = 0; i < lines.nr; i++) {
		(void)zl_parse_bool(lines.v[i]);
		(void)zl_parse_long(lines.v[i], &n);
		(void)zl_parse_double(lines.v[i], &d);
	}
	strvec_clear(&lines);
	strvec_clear(&args);
	strvec_clear(&words);
	strbuf_release(&err);
	free(text);
	return 0;
}

/*
 * The harness without libFuzzer: feed it each file named on the command line, or each file
 * of each directory named (not recursively), once. The ctest tests fuzz/<target> run it over
 * tests/fuzz/corpus/<target> and tests/fuzz/regressions/<target>, with the normal build.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "zlbench/fsutil.h"
#include "zlbench/strbuf.h"
#include "zlbench/strvec.h"
#include "zlbench/util.h"

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The inputs under path: itself when a file, its files (sorted) when a directory. */
static int list_inputs(const char *path, struct strvec *out)
{
	struct strvec names = STRVEC_INIT;
	struct dirent *de;
	DIR *d;
	size_t i;

	if (!zl_is_dir(path)) {
		strvec_push(out, path);
		return 0;
	}
	d = opendir(path);
	if (!d) {
		perror(path);
		return -1;
	}
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			strvec_push(&names, de->d_name);
	closedir(d);
	qsort(names.v, names.nr, sizeof(*names.v), cmp_str);
	for (i = 0; i < names.nr; i++) {
		char *p = zl_path_join(path, names.v[i]);

		if (zl_is_file(p))
			strvec_push(out, p);
		free(p);
	}
	strvec_clear(&names);
	return 0;
}

int main(int argc, char **argv)
{
	struct strvec inputs = STRVEC_INIT;
	struct strbuf err = STRBUF_INIT;
	size_t i;
	int a, bad = 0;

	for (a = 1; a < argc; a++)
		if (list_inputs(argv[a], &inputs))
			bad = 1;
	for (i = 0; i < inputs.nr; i++) {
		struct strbuf data = STRBUF_INIT;

		if (zl_read_file(&data, inputs.v[i], "fuzz input", ZL_CAP_DOC, &err)) {
			fprintf(stderr, "%s\n", err.buf);
			bad = 1;
			continue;
		}
		LLVMFuzzerTestOneInput((const uint8_t *)data.buf, data.len);
		strbuf_release(&data);
	}
	printf("replayed %zu inputs\n", inputs.nr);
	if (!inputs.nr)
		bad = 1;
	strvec_clear(&inputs);
	strbuf_release(&err);
	return bad;
}

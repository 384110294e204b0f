#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "zlbench/cachedir.h"
#include "zlbench/compilestats.h"
#include "zlbench/error.h"
#include "zlbench/fsutil.h"
#include "zlbench/util.h"
#include "zlbench/zlbench.h"
#include "zlbench/banned.h"

#define GROUP_PREFIX "__grp__"

/* Spellings of the op across Triton versions (the dialect was renamed in 3.2). */
static const char *const convert_layout_ops[] = {
	"ttg.convert_layout",
	"triton_gpu.convert_layout",
};

/* Files next to the metadata that are not a compile stage's output. */
static const char *const not_stage_exts[] = { "json", "source" };

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void sort_strvec(struct strvec *sv)
{
	if (sv->nr)
		qsort(sv->v, sv->nr, sizeof(*sv->v), cmp_str);
}

static int is_ident(int ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
	       (ch >= '0' && ch <= '9') || ch == '_' || ch == '.';
}

/* Whole-token occurrences outside "quoted" strings (loc("...") carries source paths). */
long zl_count_convert_layout(const char *text, size_t len)
{
	long count = 0;
	int quoted = 0;
	size_t i, k;

	for (i = 0; i < len; i++) {
		char ch = text[i];
		if (ch == '\n') {
			quoted = 0;
		} else if (ch == '"') {
			quoted = !quoted;
		} else if (ch == '\\' && quoted) {
			i++;
		} else if (!quoted && (i == 0 || !is_ident((unsigned char)text[i - 1]))) {
			for (k = 0; k < ZL_ARRAY_SIZE(convert_layout_ops); k++) {
				size_t n = strlen(convert_layout_ops[k]);
				if (n <= len - i && !memcmp(text + i, convert_layout_ops[k], n) &&
				    (i + n == len || !is_ident((unsigned char)text[i + n]))) {
					count++;
					i += n - 1;
					break;
				}
			}
		}
	}
	return count;
}

char *zl_triton_default_cache_dir(void)
{
	return zl_cache_dir(ZL_CACHE_TRITON);
}

/* ---- snapshot ---- */

void zl_compile_snapshot_release(struct zl_compile_snapshot *snap)
{
	strvec_clear(&snap->names);
}

/* The subdirectory names of dir, sorted. 1 when dir is missing, 0 ok, -1 error. */
static int list_subdirs(const char *dir, struct strvec *out, struct strbuf *err)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d) {
		if (errno == ENOENT)
			return 1;
		return zl_error(err, "cannot read triton cache '%s': %s", dir, strerror(errno));
	}
	while ((de = readdir(d))) {
		struct stat st;
		if (de->d_name[0] == '.')
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, 0) || !S_ISDIR(st.st_mode))
			continue;
		strvec_push(out, de->d_name);
	}
	if (closedir(d))
		return zl_error(err, "cannot close triton cache '%s': %s", dir, strerror(errno));
	sort_strvec(out);
	return 0;
}

int zl_compile_snapshot(const char *dir, struct zl_compile_snapshot *snap, struct strbuf *err)
{
	zl_compile_snapshot_release(snap);
	return list_subdirs(dir, &snap->names, err) < 0 ? -1 : 0;
}

static int in_snapshot(const struct zl_compile_snapshot *snap, const char *name)
{
	const char *key = name;

	return snap && snap->names.nr &&
	       bsearch(&key, snap->names.v, snap->names.nr, sizeof(*snap->names.v), cmp_str) != NULL;
}

/* ---- stats ---- */

void zl_compile_stats_init(struct zl_compile_stats *st)
{
	struct zl_compile_stats blank = ZL_COMPILE_STATS_INIT;

	*st = blank;
}

void zl_compile_stats_release(struct zl_compile_stats *st)
{
	size_t i;

	for (i = 0; i < st->nr; i++)
		free(st->kernels[i].name);
	free(st->kernels);
	strvec_clear(&st->notes);
	zl_compile_stats_init(st);
}

static struct zl_compile_kernel *kernel_slot(struct zl_compile_stats *st, const char *name)
{
	size_t lo = 0, hi = st->nr;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(st->kernels[mid].name, name);
		if (!c)
			return &st->kernels[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	ALLOC_GROW(st->kernels, st->nr + 1, st->alloc);
	memmove(&st->kernels[lo + 1], &st->kernels[lo], (st->nr - lo) * sizeof(*st->kernels));
	st->nr++;
	st->kernels[lo].name = xstrdup(name);
	st->kernels[lo].variants = 0;
	st->kernels[lo].convert_layout = 0;
	return &st->kernels[lo];
}

static int is_stage_output(const char *file, const char *stem)
{
	size_t n = strlen(stem), i;

	if (strncmp(file, stem, n) || file[n] != '.' || !file[n + 1])
		return 0;
	for (i = 0; i < ZL_ARRAY_SIZE(not_stage_exts); i++)
		if (!strcmp(file + n + 1, not_stage_exts[i]))
			return 0;
	return 1;
}

/* Count the variants of one hash directory (its sorted file names in files). */
static void count_hash_dir(const char *path, const struct strvec *files, struct zl_compile_stats *st)
{
	size_t i, j;

	for (i = 0; i < files->nr; i++) {
		const char *f = files->v[i];
		char *stem, *ttgir;
		struct strbuf text = STRBUF_INIT;
		struct zl_compile_kernel *k;
		int staged = 0;

		if (!zl_ends_with(f, ".json") || zl_starts_with(f, GROUP_PREFIX))
			continue;
		stem = xstrndup(f, strlen(f) - strlen(".json"));
		for (j = 0; j < files->nr && !staged; j++)
			staged = is_stage_output(files->v[j], stem);
		if (!staged) {
			free(stem);
			continue;
		}
		k = kernel_slot(st, stem);
		k->variants++;
		st->variants++;
		ttgir = xstrfmt("%s/%s.ttgir", path, stem);
		if (!zl_read_file(&text, ttgir, NULL, ZL_CAP_DOC, NULL)) {
			long n = zl_count_convert_layout(text.buf, text.len);
			k->convert_layout += n;
			st->convert_layout += n;
		} else {
			if (errno != ENOENT)
				strvec_pushf(&st->notes, "cannot read '%s': %s", ttgir, strerror(errno));
			st->no_ttgir++;
		}
		strbuf_release(&text);
		free(ttgir);
		free(stem);
	}
}

static int list_files(const char *path, struct strvec *out)
{
	DIR *d = opendir(path);
	struct dirent *de;

	if (!d)
		return -1;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			strvec_push(out, de->d_name);
	if (closedir(d))
		return -1;
	sort_strvec(out);
	return 0;
}

int zl_compile_stats(const char *dir, const struct zl_compile_snapshot *snap,
		     struct zl_compile_stats *st, struct strbuf *err)
{
	struct strvec hashes = STRVEC_INIT;
	long no_ttgir = st->no_ttgir;
	size_t i;
	int rc = list_subdirs(dir, &hashes, err);

	if (rc < 0)
		return -1;
	if (rc > 0) {
		strvec_pushf(&st->notes, "no triton cache at '%s' (nothing compiled there yet)", dir);
		return 0;
	}
	for (i = 0; i < hashes.nr; i++) {
		struct strvec files = STRVEC_INIT;
		char *path;

		if (in_snapshot(snap, hashes.v[i]))
			continue;
		path = zl_path_join(dir, hashes.v[i]);
		if (list_files(path, &files))
			strvec_pushf(&st->notes, "cannot read '%s': %s", path, strerror(errno));
		else
			count_hash_dir(path, &files, st);
		strvec_clear(&files);
		free(path);
	}
	if (st->no_ttgir > no_ttgir)
		strvec_pushf(&st->notes, "%ld variant(s) in '%s' without a .ttgir: their layout conversions "
			     "are not counted", st->no_ttgir - no_ttgir, dir);
	strvec_clear(&hashes);
	return 0;
}

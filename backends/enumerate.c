/*
 * Device enumeration and backend auto-detection: ask the vendor's query tool,
 * else count its device nodes, and always say which of the two answered (or why
 * neither could).
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "backends/parsers.h"
#include "zlbench/backend.h"
#include "zlbench/child.h"
#include "zlbench/env.h"
#include "zlbench/error.h"
#include "zlbench/fsutil.h"
#include "zlbench/strvec.h"
#include "zlbench/util.h"
#include "zlbench/zlbench.h"
#include "zlbench/banned.h"

const char *zl_dev_root(void)
{
	const char *r = zl_env(ZL_ENV_DEV_ROOT);

	return r ? r : "/dev";
}

/* One way of asking a vendor's tool; a row has a primary and an optional alternative. */
struct query {
	const char *tool;
	const char *const *argv;
	zl_devparse_fn parse;
};

static size_t row_queries(const struct zl_backend *b, struct query q[2])
{
	size_t n = 0;

	if (b->query_tool && b->query_argv && b->parse)
		q[n++] = (struct query){ b->query_tool, b->query_argv, b->parse };
	if (b->alt_query_tool && b->alt_query_argv && b->alt_parse)
		q[n++] = (struct query){ b->alt_query_tool, b->alt_query_argv, b->alt_parse };
	return n;
}

int zl_backend_query_timeout(double *out, struct strbuf *err)
{
	const char *s = zl_env(ZL_ENV_QUERY_TIMEOUT);

	*out = ZL_QUERY_TIMEOUT_DEFAULT;
	if (!s)
		return 0;
	if (zl_parse_double(s, out) || !(*out > 0)) {
		*out = ZL_QUERY_TIMEOUT_DEFAULT;
		return zl_error(err, "invalid value '%s' for ZL_QUERY_TIMEOUT: a number of seconds greater than 0", s);
	}
	return 0;
}

/* The settings resolver has refused a bad value already; here it falls back to the default. */
static double query_timeout(void)
{
	struct strbuf err = STRBUF_INIT;
	double t;

	zl_backend_query_timeout(&t, &err);
	strbuf_release(&err);
	return t;
}

static int path_exists(const char *path)
{
	struct stat st;

	return !stat(path, &st);
}

/* Numbered device nodes <root>/<prefix><N>, their N ascending. */
struct node { long n; char *path; };

static int by_number(const void *a, const void *b)
{
	const struct node *x = a, *y = b;

	return (x->n > y->n) - (x->n < y->n);
}

/*
 * The prefix may hold a directory ("dri/renderD"): list that directory and keep
 * the names that are the base prefix followed by digits only, so "nvidia0"
 * counts and "nvidiactl", "nvidia-uvm" and "nvidia-caps" do not.
 */
static size_t scan_nodes(const char *root, const char *prefix, struct node **out)
{
	const char *slash = strrchr(prefix, '/');
	const char *base = slash ? slash + 1 : prefix;
	char *dir = slash ? xstrfmt("%s/%.*s", root, (int)(slash - prefix), prefix) : xstrdup(root);
	struct node *v = NULL;
	size_t nr = 0, alloc = 0;
	struct dirent *de;
	DIR *d = opendir(dir);

	if (d) {
		while ((de = readdir(d))) {
			const char *digits;
			long n;

			if (!zl_starts_with(de->d_name, base))
				continue;
			digits = de->d_name + strlen(base);
			if (!*digits || strspn(digits, "0123456789") != strlen(digits) ||
			    zl_parse_long(digits, &n))
				continue;
			ALLOC_GROW(v, nr + 1, alloc);
			v[nr].n = n;
			v[nr].path = zl_path_join(dir, de->d_name);
			nr++;
		}
		closedir(d);
	}
	free(dir);
	if (nr > 1)
		qsort(v, nr, sizeof(*v), by_number);
	*out = v;
	return nr;
}

static void free_nodes(struct node *v, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		free(v[i].path);
	free(v);
}

static int probe_present(const struct zl_backend *b, const char *root)
{
	char *p;
	int r;

	if (!b->dev_node_probe)
		return 0;
	p = zl_path_join(root, b->dev_node_probe);
	r = path_exists(p);
	free(p);
	return r;
}

int zl_backend_present(const struct zl_backend *b, struct strbuf *why)
{
	const char *root = zl_dev_root();
	struct query q[2];
	size_t n = row_queries(b, q), i;

	for (i = 0; i < n; i++) {
		char *path = zl_find_executable(q[i].tool);

		if (path) {
			strbuf_addf(why, "%s on PATH", q[i].tool);
			free(path);
			return 1;
		}
	}
	/*
	 * A probe node decides alone when the row has one: numbered nodes such as
	 * dri/renderD<N> exist for every vendor's GPU and would detect them all.
	 */
	if (b->dev_node_probe) {
		if (probe_present(b, root)) {
			strbuf_addf(why, "%s/%s", root, b->dev_node_probe);
			return 1;
		}
		return 0;
	}
	if (b->dev_node_prefix) {
		struct node *nodes;
		size_t nr = scan_nodes(root, b->dev_node_prefix, &nodes);

		if (nr)
			strbuf_addf(why, "%s", nodes[0].path);
		free_nodes(nodes, nr);
		if (nr)
			return 1;
	}
	return 0;
}

int zl_backend_detect(const struct zl_backend **out, struct strbuf *err)
{
	struct strbuf found = STRBUF_INIT, tools = STRBUF_INIT, choices = STRBUF_INIT;
	const struct zl_backend *b, *hit = NULL;
	int hits = 0, ret = 0;

	for (b = zl_backend_table; b->name; b++) {
		struct strbuf why = STRBUF_INIT;
		struct query q[2];
		size_t n = row_queries(b, q), i;

		for (i = 0; i < n; i++)
			strbuf_addf(&tools, "%s%s", tools.len ? ", " : "", q[i].tool);
		if (zl_backend_present(b, &why)) {
			strbuf_addf(&found, "%s%s (%s)", found.len ? ", " : "", b->name, why.buf);
			hit = b;
			hits++;
		}
		strbuf_release(&why);
	}
	zl_backend_choices(&choices);
	if (hits == 1)
		*out = hit;
	else if (!hits)
		ret = zl_error(err, "no backend detected: none of %s is on PATH and no vendor device nodes are under %s; pass --backend (choices: %s)",
			       tools.buf, zl_dev_root(), choices.buf);
	else
		ret = zl_error(err, "several backends detected: %s; pass --backend (choices: %s)",
			       found.buf, choices.buf);
	strbuf_release(&found);
	strbuf_release(&tools);
	strbuf_release(&choices);
	return ret;
}

/* The first non-blank line of a tool's output, shortened, for messages. */
static void first_line(const char *output, struct strbuf *out)
{
	struct strbuf line = STRBUF_INIT;
	const char *pos = output;

	while (zl_next_line(&pos, &line)) {
		strbuf_trim(&line);
		if (line.len)
			break;
	}
	if (line.len > 100) {
		strbuf_setlen(&line, 97);
		strbuf_addstr(&line, "...");
	}
	strbuf_addbuf(out, &line);
	strbuf_release(&line);
}

/*
 * Run one query. 0 with dl filled when it produced devices; -1 with the reason
 * appended to why ("no nvidia-smi on PATH", "nvidia-smi exited 9: NVIDIA-SMI has failed ...").
 * *present is set when the tool was found on PATH (whatever happened next).
 */
static int run_query(const struct query *q, struct zl_devlist *dl, int *present,
		     struct strbuf *why)
{
	static const char *const child_env[] = { "LC_ALL=C", NULL };
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	struct strvec argv = STRVEC_INIT;
	char *path = zl_find_executable(q->tool);
	double timeout = query_timeout();
	int ret = -1, exit_code = 0;

	if (!path) {
		strbuf_addf(why, "no %s on PATH", q->tool);
		return -1;
	}
	*present = 1;
	strvec_push(&argv, path);
	strvec_pushv(&argv, (const char **)q->argv + 1);
	/* LC_ALL=C: decimal points and English labels whatever the user's locale */
	if (zl_capture(argv.v, child_env, timeout, &out, &exit_code, &err)) {
		strbuf_addf(why, "%s could not be started: %s", q->tool, err.buf);
	} else if (exit_code == ZL_EXIT_TIMEOUT) {
		strbuf_addf(why, "%s did not finish within ZL_QUERY_TIMEOUT=%g s", q->tool, timeout);
	} else if (exit_code) {
		/* a tool that failed or crashed may have printed part of a list: not believed */
		strbuf_addf(why, "%s exited %d", q->tool, exit_code);
		if (out.len) {
			strbuf_addstr(why, ": ");
			first_line(out.buf, why);
		}
	} else if (q->parse(out.buf, dl, &err)) {
		strbuf_addf(why, "%s output not understood: %s", q->tool, err.buf);
	} else {
		ret = 0;
	}
	if (ret) {
		/* a half-parsed output is not a device list */
		zl_devlist_release(dl);
	}
	free(path);
	strvec_clear(&argv);
	strbuf_release(&out);
	strbuf_release(&err);
	return ret;
}

/* how for a tool's answer: "nvidia-smi", "amd-smi (no rocm-smi on PATH; ...)". */
static void query_how(struct zl_devlist *dl, const char *tool, const struct strbuf *earlier)
{
	struct strbuf how = STRBUF_INIT;
	struct strbuf notes = STRBUF_INIT;
	size_t replaced = 0, shared = zl_devlist_settle_ids(dl, &replaced);

	if (earlier->len)
		strbuf_addf(&notes, "%s", earlier->buf);
	if (replaced)
		strbuf_addf(&notes, "%s%zu devices share a uuid: bus ids shown instead",
			    notes.len ? "; " : "", replaced);
	/* partitions of one GPU (MI300A in TPX mode) share even the bus id */
	if (shared)
		strbuf_addf(&notes, "%s%zu devices %sshare a uuid", notes.len ? "; " : "", shared,
			    replaced ? "still " : "");
	strbuf_addstr(&how, tool);
	if (notes.len)
		strbuf_addf(&how, " (%s)", notes.buf);
	zl_devlist_set_how(dl, "%s", how.buf);
	strbuf_release(&how);
	strbuf_release(&notes);
}

int zl_backend_enumerate(const struct zl_backend *b, struct zl_devlist *dl)
{
	const char *root = zl_dev_root();
	struct strbuf why = STRBUF_INIT;
	struct query q[2];
	size_t nq = row_queries(b, q), i, nr = 0;
	struct node *nodes = NULL;
	int tool_present = 0;

	for (i = 0; i < nq; i++) {
		if (i)
			strbuf_addstr(&why, "; ");
		if (!run_query(&q[i], dl, &tool_present, &why)) {
			/* drop the separator added for this (successful) query */
			if (i)
				strbuf_setlen(&why, why.len - 2);
			dl->available = 1;
			query_how(dl, q[i].tool, &why);
			strbuf_release(&why);
			return 0;
		}
	}
	dl->tool_failed = tool_present;
	if (b->dev_node_prefix)
		nr = scan_nodes(root, b->dev_node_prefix, &nodes);
	if (nr && (!b->dev_node_probe || probe_present(b, root))) {
		for (i = 0; i < nr; i++)
			zl_devlist_add(dl, (int)i, NULL, NULL, -1, NULL)->node = xstrdup(nodes[i].path);
		dl->available = 1;
		zl_devlist_set_how(dl, "%s nodes (%s%s%s)", root, why.buf,
				   b->dev_node_note ? "; " : "", b->dev_node_note ? b->dev_node_note : "");
	} else {
		dl->available = 0;
		if (!b->dev_node_prefix)
			zl_devlist_set_how(dl, "not verified: %s", why.buf);
		else if (!nr)
			zl_devlist_set_how(dl, "not verified: %s and no %s/%s* nodes", why.buf, root,
					   b->dev_node_prefix);
		else
			zl_devlist_set_how(dl, "not verified: %s and %s/%s* nodes without %s/%s", why.buf,
					   root, b->dev_node_prefix, root, b->dev_node_probe);
	}
	free_nodes(nodes, nr);
	strbuf_release(&why);
	return 0;
}

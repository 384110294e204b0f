/*
 * Node resolution (the FlagGems provider): from TEST_NODE, OP_FILE (+OP) or OP
 * to the pytest node(s) and the -m marker.
 *   TEST_NODE: used as given; only its file half is checked.
 *   OP_FILE (+OP): that file, with -m OP when OP is set.
 *   OP: benchmark/test_<OP>.py when it carries the mark @pytest.mark.<OP>, else every
 *       test_<x>.py under benchmark/ (folders included) that does, run with -m OP; else
 *       refused (ZL_RESOLVE_NO_MATCH) before pytest starts, naming the nearest file's
 *       marks, the marks whose names are close and the --op-file that runs that file.
 * Owner: the caller owns struct zl_nodes; zl_nodes_release() frees it.
 */
#ifndef ZLBENCH_RESOLVE_H
#define ZLBENCH_RESOLVE_H

#include "strbuf.h"
#include "strvec.h"

enum zl_resolve_fail {
	ZL_RESOLVE_OK = 0,
	ZL_RESOLVE_BAD_NAME,   /* operator name is not [A-Za-z0-9_]+ (usage error) */
	ZL_RESOLVE_NOTHING,    /* neither TEST_NODE, OP nor OP_FILE (usage error) */
	ZL_RESOLVE_BAD_FILE,   /* file half of the node / OP_FILE missing (preflight benchmark_file) */
	ZL_RESOLVE_NO_MATCH,   /* no file for OP (preflight op_resolution) */
};

struct zl_nodes {
	struct strvec nodes;      /* relative to the FlagGems root when inside it */
	char *marker;             /* -m value, or NULL */
	char *op;                 /* the operator (given, or NULL) */
	const char *how;          /* "test node", "op file", "file", "marker scan" (static) */
	size_t scanned;           /* files read by a marker scan */
	struct strvec suggestions;/* closest operator marks on NO_MATCH */
};
#define ZL_NODES_INIT { STRVEC_INIT, NULL, NULL, NULL, 0, STRVEC_INIT }
void zl_nodes_release(struct zl_nodes *n);

int zl_op_name_valid(const char *op);

/* Where each input came from ("--op", "OP", ...), for the messages; a NULL member is not named. */
struct zl_node_sources {
	const char *test_node, *op, *op_file;
};

/* Returns ZL_RESOLVE_OK or a failure kind with err filled; from may be NULL. */
enum zl_resolve_fail zl_resolve_nodes_from(const char *flaggems_dir, const char *test_node,
					   const char *op, const char *op_file,
					   const struct zl_node_sources *from,
					   struct zl_nodes *out, struct strbuf *err);
/* The same without sources. */
enum zl_resolve_fail zl_resolve_nodes(const char *flaggems_dir, const char *test_node,
				      const char *op, const char *op_file,
				      struct zl_nodes *out, struct strbuf *err);

/*
 * Walk dir recursively in sorted order, skipping hidden entries and __pycache__, and call
 * fn(path, rel, data) for every *.py file (only test_*.py when tests_only); rel is the
 * path relative to the walk's start, prefixed with the given rel ("" for none).
 * Symlinked directories are followed (as pytest does), but every directory and file is
 * visited once, by (st_dev, st_ino): a link loop ends, and a file reached twice is
 * reported once, under a path without symlinks where the same directory offers one.
 */
typedef void (*zl_walk_fn)(const char *path, const char *rel, void *data);
void zl_walk_python(const char *dir, const char *rel, int tests_only, zl_walk_fn fn, void *data);

/* Every operator mark of benchmark/ (pytest's own marks left out), each with the files carrying it. */
struct zl_mark { char *name; struct strvec files; };   /* files: "benchmark/test_x.py", sorted */
struct zl_marks { struct zl_mark *v; size_t nr, alloc; size_t files_scanned; };
#define ZL_MARKS_INIT { NULL, 0, 0, 0 }
/* Reads every test_*.py under benchmark/ once (zl_walk_python) into out, replacing what it held. Owner: the caller, zl_marks_release(). */
void zl_marks_scan(const char *flaggems_dir, struct zl_marks *out);   /* sorted by name */
const struct zl_mark *zl_marks_find(const struct zl_marks *m, const char *name);
void zl_marks_release(struct zl_marks *m);

/*
 * Append the operator marks of one Python source, in order of first appearance, each once:
 * every pytest.mark.<name> in code (not in comments or strings; pytest's own marks
 * left out). The one reader of marks: the index and resolution both use it.
 */
void zl_marks_in_source(const char *text, struct strvec *marks);

/* OP resolved against an index already scanned (a batch resolves all its ops with one scan). */
enum zl_resolve_fail zl_resolve_op_in(const char *flaggems_dir, const struct zl_marks *idx, const char *op,
				      struct zl_nodes *out, struct strbuf *err);

/* Every operator name the checkout knows: the names of zl_marks_scan, sorted. */
void zl_list_ops(const char *flaggems_dir, struct strvec *ops);

/*
 * FlagGems looks an op up in the shape file by op name, then by the class names of
 * the benchmark's MRO. This lists the *Benchmark classes the node files instantiate,
 * each followed by its parents (from benchmark/base.py and the node files), in order.
 */
void zl_benchmark_classes(const char *flaggems_dir, const struct zl_nodes *nodes, struct strvec *out);

#endif

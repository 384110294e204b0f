/*
 * Node resolution (the FlagGems provider): from TEST_NODE, OP_FILE (+OP) or OP
 * to the pytest node(s) and the -m marker.
 *   TEST_NODE: used as given; only its file half is checked.
 *   OP_FILE (+OP): that file, with -m OP when OP is set.
 *   OP: benchmark/test_<OP>.py when it exists, else every test_<x>.py under benchmark/
 *       carrying the exact marker @pytest.mark.<OP>, run with -m OP.
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
	struct strvec suggestions;/* closest operator names on NO_MATCH */
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

/* Every operator name the checkout knows: test_<name>.py files and @pytest.mark.<name> markers. */
void zl_list_ops(const char *flaggems_dir, struct strvec *ops);

/*
 * FlagGems looks an op up in the shape file by op name, then by the class names of
 * the benchmark's MRO. This lists the *Benchmark classes the node files instantiate,
 * each followed by its parents (from benchmark/base.py and the node files), in order.
 */
void zl_benchmark_classes(const char *flaggems_dir, const struct zl_nodes *nodes, struct strvec *out);

#endif

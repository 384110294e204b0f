/*
 * FlagGems benchmark shape files (benchmark/core_shapes.yaml, benchmark/models_shapes/<model>.yaml)
 * and the shapes.yaml archive of a run.
 *
 * How FlagGems uses them (benchmark/base.py, Benchmark.set_shapes, at commit ed2508bc):
 *  - The file is read with yaml.safe_load; its top level maps a key to an entry
 *    {shapes: [...], shape_desc: "..."}. The key is the benchmark's op_name; when
 *    the op is missing, FlagGems tries each class name of the benchmark's MRO
 *    (mm is not a key of core_shapes.yaml: test_mm's BlasBenchmark entry gives
 *    its 5 shapes; every MRO ends in "Benchmark", which core_shapes.yaml also
 *    has), and only then the class's DEFAULT_SHAPES. An entry without "shapes"
 *    gives DEFAULT_SHAPES too.
 *  - --level core uses exactly those shapes. --level comprehensive (FlagGems'
 *    default) appends the class's set_more_shapes(), which is Python code: for
 *    mm (BlasBenchmark) 5 file shapes + 4 large-K + 112 model shapes = 121, each
 *    run twice (row- and column-major B). Those extra shapes cannot be read from
 *    YAML, so the archive lists the file's part only and says so.
 *  - Many benchmarks override set_shapes() and ignore the file altogether; for
 *    two vendors FlagGems swaps in a per-vendor file of its own (init_user_config).
 *    results.json (shape_detail) is the record of what actually ran.
 *
 * Reading: libyaml's document API (anchors and aliases resolved by libyaml);
 * "<<" merge keys are resolved here like PyYAML does: a mapping or a sequence
 * of mappings is merged, earlier mappings of a sequence win over later ones, and
 * keys of the mapping itself win over merged ones. A duplicate key: the last wins.
 * The result is a tree of struct zl_yaml nodes owned by the struct zl_shapes_doc.
 * Limits (each error names the file, line and column): 200 levels of nesting, checked
 * over libyaml's events before the document is composed and again with aliases expanded;
 * 200 levels of "<<" merges; a million nodes before and after aliases are expanded.
 * zl_shapes_load reads regular files of at most ZL_CAP_SHAPES bytes (fsutil.h).
 *
 * Writing: zl_shapes_write_archive() renders <run>/shapes.yaml with libyaml's
 * emitter and writes it atomically. Keys (schema_version 1):
 *   schema_version, level, shape_mode, source {path, sha256}, op,
 *   entry {key, matched_by: op|class|none, line}, shape_desc, shapes (as
 *   resolved; null when unknown), count (null when unknown), other_keys (the
 *   entry's keys besides shapes/shape_desc, when any), level_adds_shapes (true at
 *   comprehensive), notes [one line each: why the list may differ from what ran].
 */
#ifndef ZLBENCH_SHAPES_H
#define ZLBENCH_SHAPES_H

#include <stddef.h>

#include "strbuf.h"

enum zl_yaml_kind {
	ZL_YAML_SCALAR,
	ZL_YAML_SEQ,
	ZL_YAML_MAP
};

/* How a scalar was written; decides its type when read back (a plain 64 is an int). */
enum zl_yaml_style {
	ZL_YAML_PLAIN,
	ZL_YAML_SINGLE_QUOTED,
	ZL_YAML_DOUBLE_QUOTED,
	ZL_YAML_LITERAL,
	ZL_YAML_FOLDED
};

/*
 * One node of a loaded file, owned by its document (never free one yourself).
 * SCALAR: scalar is the text as written (NUL-terminated; len bytes), style says how.
 * SEQ:    items[0..nr-1].
 * MAP:    keys[i] (scalar keys only) maps to items[i], i < nr; keys are unique
 *         after merging, in PyYAML's order (merged keys first); key_lines[i] is
 *         the 1-based line where keys[i] was written.
 * line, column: 1-based position of the node in the file (for an alias or a
 * merged key: where the anchored node was written).
 */
struct zl_yaml {
	enum zl_yaml_kind kind;
	enum zl_yaml_style style;
	char *scalar;
	size_t len;
	size_t nr;
	char **keys;
	size_t *key_lines;
	struct zl_yaml **items;
	size_t line, column;
};

/* A loaded shape file. Made by zl_shapes_load/parse; freed by zl_shapes_free. */
struct zl_shapes_doc {
	char *path;            /* as given to load (or the name given to parse) */
	struct zl_yaml *root;  /* always a MAP */
};

/* An op's entry as found in a document; pointers into the document (valid until it is freed). */
struct zl_shapes_entry {
	const char *key;                 /* the key that matched: the op, or a fallback class name */
	int by_class;                    /* 1 when found through a fallback key */
	const struct zl_yaml *node;      /* the entry itself (a MAP unless the file is odd) */
	const struct zl_yaml *shapes;    /* its "shapes" SEQ, or NULL when absent or not a list */
	const char *shape_desc;          /* its "shape_desc" scalar, or NULL */
};

/*
 * Load a shape file. On success *out is a new document the caller frees with
 * zl_shapes_free. On failure -1 and err says why, naming the file and, for a
 * YAML error, the line and column: "cannot parse shape file 'x.yaml': did not
 * find expected key at line 3, column 5". The top level must be a mapping.
 */
int zl_shapes_load(const char *path, struct zl_shapes_doc **out, struct strbuf *err);
/* Same from memory; name is used in messages and stored as doc->path. */
int zl_shapes_parse(const char *buf, size_t len, const char *name,
		    struct zl_shapes_doc **out, struct strbuf *err);
/* Free a document and every node in it. NULL is fine. */
void zl_shapes_free(struct zl_shapes_doc *doc);

/* 1 when op is a top-level key of the file. */
int zl_shapes_has_op(const struct zl_shapes_doc *doc, const char *op);
/* Number of shapes listed for op (its own key only); -1 when op is missing or has no "shapes" list. */
long zl_shapes_count(const struct zl_shapes_doc *doc, const char *op);
/*
 * Find op's entry the way FlagGems does: op itself, then each fallback key in
 * order (the benchmark's MRO class names, NULL-terminated; fallbacks may be
 * NULL). 0 and *entry filled, or -1 (entry zeroed) when none is a key.
 */
int zl_shapes_find(const struct zl_shapes_doc *doc, const char *op,
		   const char *const *fallbacks, struct zl_shapes_entry *entry);

/* Value of key in a MAP node, or NULL (also when node is not a MAP). */
const struct zl_yaml *zl_yaml_get(const struct zl_yaml *map, const char *key);
/*
 * A plain scalar that YAML 1.1 (PyYAML) reads as an integer: decimal with
 * optional sign and '_' separators, or 0x hex. 0 and *out set, else -1.
 */
int zl_yaml_to_long(const struct zl_yaml *node, long *out);
/* Append node in compact flow form, e.g. "[[640, 1536], 0, false]", to sb. */
void zl_yaml_flow(struct strbuf *sb, const struct zl_yaml *node);

/* What a run knows when it archives the shapes of its op. Strings are borrowed. */
struct zl_shapes_archive {
	const char *op;                  /* required */
	const char *level;               /* "core" or "comprehensive" (recorded as given) */
	const char *shape_mode;          /* "file" or "upstream" (recorded as given) */
	const char *source_path;         /* the file FlagGems reads; may be NULL */
	const char *source_sha256;       /* NULL: computed from source_path when it is readable */
	const char *const *fallbacks;    /* benchmark class names (MRO order), NULL-terminated, or NULL */
};

/* Render the archive (see the top of this file) into out (appended). doc may be NULL. */
int zl_shapes_archive_render(const struct zl_shapes_doc *doc, const struct zl_shapes_archive *a,
			     struct strbuf *out, struct strbuf *err);
/* Render and write atomically to out_path. */
int zl_shapes_archive_write(const char *out_path, const struct zl_shapes_doc *doc,
			    const struct zl_shapes_archive *a, struct strbuf *err);
/* Convenience form of zl_shapes_archive_write without fallback keys. */
int zl_shapes_write_archive(const char *out_path, const struct zl_shapes_doc *doc, const char *op,
			    const char *level, const char *shape_mode, const char *source_path,
			    const char *sha256, struct strbuf *err);

#endif

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "zlbench/error.h"
#include "zlbench/fsutil.h"
#include "zlbench/sha256.h"
#include "zlbench/shapes.h"
#include "zlbench/strvec.h"
#include "zlbench/util.h"
#include "zlbench/zlbench.h"
#include "zlbench/banned.h"

/*
 * Aliases are expanded by copying, so a hostile file ("billion laughs") could
 * ask for an exponential number of nodes; real shape files have a few thousand.
 */
#define ZL_YAML_MAX_NODES 1000000
/* Conversion recurses; libyaml does not, so bound the nesting (and merge chains) ourselves. */
#define ZL_YAML_MAX_DEPTH 200

/* ---- node tree ---- */

static struct zl_yaml *node_new(enum zl_yaml_kind kind, const yaml_node_t *src)
{
	struct zl_yaml *n = xcalloc(1, sizeof(*n));

	n->kind = kind;
	n->style = ZL_YAML_PLAIN;
	n->line = src->start_mark.line + 1;
	n->column = src->start_mark.column + 1;
	return n;
}

static void node_free(struct zl_yaml *n)
{
	size_t i;

	if (!n)
		return;
	for (i = 0; i < n->nr; i++) {
		node_free(n->items[i]);
		if (n->keys)
			free(n->keys[i]);
	}
	free(n->items);
	free(n->keys);
	free(n->key_lines);
	free(n->scalar);
	free(n);
}

/* ---- conversion from a libyaml document ---- */

/* One key/value pair of a mapping, before duplicates are folded. */
struct pair {
	const yaml_node_t *key;
	int value;            /* node index in the document */
};

struct pairs {
	struct pair *v;
	size_t nr, alloc;
};

struct conv {
	yaml_document_t *doc;
	unsigned char *active;  /* per node index: 1 while it is being converted (cycle check) */
	size_t budget;
	int depth;            /* lists and mappings being converted */
	int merge_depth;      /* "<<" merges being flattened */
	const char *name;
	struct strbuf *err;
};

static yaml_node_t *doc_node(struct conv *c, int index)
{
	return yaml_document_get_node(c->doc, index);
}

static int conv_error(struct conv *c, const yaml_node_t *at, const char *what)
{
	return zl_error(c->err, "cannot read shape file '%s': %s at line %zu, column %zu",
			c->name, what, (size_t)at->start_mark.line + 1,
			(size_t)at->start_mark.column + 1);
}

static int is_merge_key(const yaml_node_t *key)
{
	if (key->type != YAML_SCALAR_NODE)
		return 0;
	if (key->tag && !strcmp((const char *)key->tag, "tag:yaml.org,2002:merge"))
		return 1;
	return key->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
	       key->data.scalar.length == 2 && !memcmp(key->data.scalar.value, "<<", 2);
}

/* Every pair pushed spends budget: nested merges of merges can multiply like aliases. */
static int pairs_push(struct conv *c, struct pairs *p, const yaml_node_t *key, int value)
{
	if (!c->budget)
		return zl_error(c->err, "cannot read shape file '%s': more than %d nodes after expanding aliases",
				c->name, ZL_YAML_MAX_NODES);
	c->budget--;
	ALLOC_GROW(p->v, p->nr + 1, p->alloc);
	p->v[p->nr].key = key;
	p->v[p->nr].value = value;
	p->nr++;
	return 0;
}

static int flatten(struct conv *c, int index, struct pairs *out);

/* Merge the value of one "<<" key into merged, as PyYAML's flatten_mapping does. */
static int flatten_merge(struct conv *c, const yaml_node_t *key, int value, struct pairs *merged)
{
	yaml_node_t *v = doc_node(c, value);
	yaml_node_item_t *item;
	struct pairs *subs = NULL;
	size_t nsubs = 0, i, j;
	int rc = 0;

	if (v->type == YAML_MAPPING_NODE)
		return flatten(c, value, merged);
	if (v->type != YAML_SEQUENCE_NODE)
		return conv_error(c, key, "expected a mapping or list of mappings for merging");
	nsubs = (size_t)(v->data.sequence.items.top - v->data.sequence.items.start);
	subs = xcalloc(nsubs ? nsubs : 1, sizeof(*subs));
	for (item = v->data.sequence.items.start, i = 0; item < v->data.sequence.items.top; item++, i++) {
		yaml_node_t *m = doc_node(c, *item);
		if (m->type != YAML_MAPPING_NODE) {
			rc = conv_error(c, m, "expected a mapping for merging");
			break;
		}
		if (flatten(c, *item, &subs[i])) {
			rc = -1;
			break;
		}
	}
	/* Earlier mappings of the list win: they go last, where later pairs override. */
	for (i = nsubs; !rc && i-- > 0; )
		for (j = 0; !rc && j < subs[i].nr; j++)
			rc = pairs_push(c, merged, subs[i].v[j].key, subs[i].v[j].value);
	for (i = 0; i < nsubs; i++)
		free(subs[i].v);
	free(subs);
	return rc;
}

/* The pairs of a mapping node with merge keys expanded: merged pairs first, then its own. */
static int flatten(struct conv *c, int index, struct pairs *out)
{
	yaml_node_t *n = doc_node(c, index);
	yaml_node_pair_t *p;
	struct pairs merged = { NULL, 0, 0 };
	int rc = 0;

	if (c->active[index])
		return conv_error(c, n, "recursive alias in merge");
	if (c->merge_depth >= ZL_YAML_MAX_DEPTH)
		return zl_error(c->err, "cannot read shape file '%s': merge keys ('<<') nested more than %d levels deep "
				"at line %zu, column %zu", c->name, ZL_YAML_MAX_DEPTH, (size_t)n->start_mark.line + 1,
				(size_t)n->start_mark.column + 1);
	c->active[index] = 1;
	c->merge_depth++;
	for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		yaml_node_t *key = doc_node(c, p->key);
		if (is_merge_key(key)) {
			rc = flatten_merge(c, key, p->value, &merged);
			if (rc)
				break;
		}
	}
	c->active[index] = 0;
	c->merge_depth--;
	if (!rc) {
		size_t i;
		for (i = 0; !rc && i < merged.nr; i++)
			rc = pairs_push(c, out, merged.v[i].key, merged.v[i].value);
		for (p = n->data.mapping.pairs.start; !rc && p < n->data.mapping.pairs.top; p++) {
			yaml_node_t *key = doc_node(c, p->key);
			if (is_merge_key(key))
				continue;
			if (key->type != YAML_SCALAR_NODE)
				rc = conv_error(c, key, "a mapping key is not a scalar");
			else
				rc = pairs_push(c, out, key, p->value);
		}
	}
	free(merged.v);
	return rc;
}

static struct zl_yaml *convert(struct conv *c, int index);

static enum zl_yaml_style style_of(yaml_scalar_style_t s)
{
	static const struct { yaml_scalar_style_t from; enum zl_yaml_style to; } map[] = {
		{ YAML_SINGLE_QUOTED_SCALAR_STYLE, ZL_YAML_SINGLE_QUOTED },
		{ YAML_DOUBLE_QUOTED_SCALAR_STYLE, ZL_YAML_DOUBLE_QUOTED },
		{ YAML_LITERAL_SCALAR_STYLE, ZL_YAML_LITERAL },
		{ YAML_FOLDED_SCALAR_STYLE, ZL_YAML_FOLDED },
	};
	size_t i;

	for (i = 0; i < ZL_ARRAY_SIZE(map); i++)
		if (map[i].from == s)
			return map[i].to;
	return ZL_YAML_PLAIN;
}

static struct zl_yaml *convert_map(struct conv *c, int index, yaml_node_t *src)
{
	struct pairs pairs = { NULL, 0, 0 };
	struct zl_yaml *n = node_new(ZL_YAML_MAP, src);
	size_t i, j, alloc_keys = 0, alloc_items = 0, alloc_lines = 0;

	if (flatten(c, index, &pairs))
		goto fail;
	c->active[index] = 1;
	for (i = 0; i < pairs.nr; i++) {
		const yaml_node_t *k = pairs.v[i].key;
		const char *kv = (const char *)k->data.scalar.value;
		struct zl_yaml *value;

		for (j = 0; j < n->nr; j++)
			if (!strcmp(n->keys[j], kv))
				break;
		value = convert(c, pairs.v[i].value);
		if (!value)
			goto fail_active;
		if (j < n->nr) {
			/* A later pair for the same key wins, keeping the first position (a dict). */
			node_free(n->items[j]);
			n->items[j] = value;
			n->key_lines[j] = k->start_mark.line + 1;
			continue;
		}
		ALLOC_GROW(n->keys, n->nr + 1, alloc_keys);
		ALLOC_GROW(n->items, n->nr + 1, alloc_items);
		ALLOC_GROW(n->key_lines, n->nr + 1, alloc_lines);
		n->keys[n->nr] = xstrndup(kv, k->data.scalar.length);
		n->items[n->nr] = value;
		n->key_lines[n->nr] = k->start_mark.line + 1;
		n->nr++;
	}
	c->active[index] = 0;
	free(pairs.v);
	return n;

fail_active:
	c->active[index] = 0;
fail:
	free(pairs.v);
	node_free(n);
	return NULL;
}

static struct zl_yaml *convert_node(struct conv *c, int index, yaml_node_t *src);

static struct zl_yaml *convert(struct conv *c, int index)
{
	yaml_node_t *src = doc_node(c, index);
	struct zl_yaml *n;

	if (!c->budget) {
		zl_error(c->err, "cannot read shape file '%s': more than %d nodes after expanding aliases",
			 c->name, ZL_YAML_MAX_NODES);
		return NULL;
	}
	c->budget--;
	if (c->active[index]) {
		conv_error(c, src, "recursive alias");
		return NULL;
	}
	if (c->depth >= ZL_YAML_MAX_DEPTH) {
		/* reached through aliases: the file's own nesting was checked while parsing */
		zl_error(c->err, "cannot read shape file '%s': lists and mappings nested more than %d levels deep "
			 "(aliases expanded) at line %zu, column %zu", c->name, ZL_YAML_MAX_DEPTH,
			 (size_t)src->start_mark.line + 1, (size_t)src->start_mark.column + 1);
		return NULL;
	}
	c->depth++;
	n = convert_node(c, index, src);
	c->depth--;
	return n;
}

static struct zl_yaml *convert_node(struct conv *c, int index, yaml_node_t *src)
{
	struct zl_yaml *n;
	yaml_node_item_t *item;
	size_t alloc = 0;

	switch (src->type) {
	case YAML_SCALAR_NODE:
		n = node_new(ZL_YAML_SCALAR, src);
		n->style = style_of(src->data.scalar.style);
		n->len = src->data.scalar.length;
		n->scalar = xmalloc(n->len + 1);
		memcpy(n->scalar, src->data.scalar.value, n->len);
		n->scalar[n->len] = '\0';
		return n;
	case YAML_SEQUENCE_NODE:
		n = node_new(ZL_YAML_SEQ, src);
		c->active[index] = 1;
		for (item = src->data.sequence.items.start; item < src->data.sequence.items.top; item++) {
			struct zl_yaml *child = convert(c, *item);
			if (!child) {
				c->active[index] = 0;
				node_free(n);
				return NULL;
			}
			ALLOC_GROW(n->items, n->nr + 1, alloc);
			n->items[n->nr++] = child;
		}
		c->active[index] = 0;
		return n;
	case YAML_MAPPING_NODE:
		return convert_map(c, index, src);
	default:
		conv_error(c, src, "empty node");
		return NULL;
	}
}

/* ---- loading ---- */

/*
 * libyaml's loader composes the whole document before the conversion sees its depth (100k
 * nested lists took 27 s to be refused), so one pass over the parser's events stops at the
 * depth and node limits first. A syntax error is left to the loader, which reports it with
 * its context.
 */
static int check_events(const char *buf, size_t len, const char *name, struct strbuf *err)
{
	yaml_parser_t parser;
	yaml_event_t ev;
	size_t nodes = 0;
	int depth = 0, rc = 0, done = 0;

	if (!yaml_parser_initialize(&parser))
		return zl_error(err, "cannot read shape file '%s': cannot initialise the yaml parser", name);
	yaml_parser_set_input_string(&parser, (const unsigned char *)buf, len);
	/* depth: the level of the node an event starts, as the conversion counts it (the top is 1) */
	while (!done && !rc && yaml_parser_parse(&parser, &ev)) {
		switch (ev.type) {
		case YAML_SEQUENCE_START_EVENT:
		case YAML_MAPPING_START_EVENT:
		case YAML_SCALAR_EVENT:
		case YAML_ALIAS_EVENT:
			if (depth + 1 > ZL_YAML_MAX_DEPTH)
				rc = zl_error(err, "cannot read shape file '%s': lists and mappings nested more than %d "
					      "levels deep at line %zu, column %zu", name, ZL_YAML_MAX_DEPTH,
					      (size_t)ev.start_mark.line + 1, (size_t)ev.start_mark.column + 1);
			if (ev.type == YAML_SEQUENCE_START_EVENT || ev.type == YAML_MAPPING_START_EVENT)
				depth++;
			nodes++;
			break;
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT:
			depth--;
			break;
		case YAML_STREAM_END_EVENT:
			done = 1;
			break;
		default:
			break;
		}
		if (!rc && nodes > ZL_YAML_MAX_NODES)
			rc = zl_error(err, "cannot read shape file '%s': more than %d nodes (at line %zu)", name,
				      ZL_YAML_MAX_NODES, (size_t)ev.start_mark.line + 1);
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&parser);
	return rc;
}

/* libyaml's complaint: the problem, where, and what was left open (a flow sequence) and where it began. */
static int parse_error(const yaml_parser_t *parser, const char *name, int context, struct strbuf *err)
{
	struct strbuf where = STRBUF_INIT;
	int rc;

	if (context && parser->context)
		strbuf_addf(&where, " (%s started at line %zu, column %zu)", parser->context,
			    (size_t)parser->context_mark.line + 1, (size_t)parser->context_mark.column + 1);
	rc = zl_error(err, "cannot parse shape file '%s': %s at line %zu, column %zu%s", name,
		      parser->problem ? parser->problem : "unknown error", (size_t)parser->problem_mark.line + 1,
		      (size_t)parser->problem_mark.column + 1, where.buf);
	strbuf_release(&where);
	return rc;
}

/* The first document: a mapping, and the only one (yaml.safe_load refuses a stream of several). */
static int check_document(yaml_parser_t *parser, yaml_document_t *document, const char *name, struct strbuf *err)
{
	yaml_node_t *root = yaml_document_get_root_node(document);
	yaml_document_t extra;
	int rc = 0;

	if (!root)
		return zl_error(err, "shape file '%s' is empty", name);
	if (root->type != YAML_MAPPING_NODE)
		return zl_error(err, "shape file '%s': the top level is a %s at line %zu, expected a mapping of op names",
				name, root->type == YAML_SEQUENCE_NODE ? "list" : "scalar",
				(size_t)root->start_mark.line + 1);
	if (!yaml_parser_load(parser, &extra))
		return parse_error(parser, name, 0, err);
	if (yaml_document_get_root_node(&extra))
		rc = zl_error(err, "shape file '%s' holds more than one document (second at line %zu)",
			      name, (size_t)extra.start_mark.line + 1);
	yaml_document_delete(&extra);
	return rc;
}

int zl_shapes_parse(const char *buf, size_t len, const char *name,
		    struct zl_shapes_doc **out, struct strbuf *err)
{
	yaml_parser_t parser;
	yaml_document_t document;
	struct conv c;
	struct zl_yaml *tree = NULL;
	int rc = -1;

	*out = NULL;
	if (check_events(buf, len, name, err))
		return -1;
	if (!yaml_parser_initialize(&parser))
		return zl_error(err, "cannot read shape file '%s': cannot initialise the yaml parser", name);
	yaml_parser_set_input_string(&parser, (const unsigned char *)buf, len);
	if (!yaml_parser_load(&parser, &document)) {
		parse_error(&parser, name, 1, err);
		yaml_parser_delete(&parser);
		return -1;
	}
	if (!check_document(&parser, &document, name, err)) {
		memset(&c, 0, sizeof(c));
		c.doc = &document;
		c.active = xcalloc((size_t)(document.nodes.top - document.nodes.start) + 1, 1);
		c.budget = ZL_YAML_MAX_NODES;
		c.name = name;
		c.err = err;
		tree = convert(&c, 1);
		free(c.active);
	}
	if (tree) {
		*out = xcalloc(1, sizeof(**out));
		(*out)->path = xstrdup(name);
		(*out)->root = tree;
		rc = 0;
	}
	yaml_document_delete(&document);
	yaml_parser_delete(&parser);
	return rc;
}

int zl_shapes_load(const char *path, struct zl_shapes_doc **out, struct strbuf *err)
{
	struct strbuf content = STRBUF_INIT;
	int rc;

	*out = NULL;
	if (zl_read_file(&content, path, "shape file", ZL_CAP_SHAPES, err))
		return -1;
	rc = zl_shapes_parse(content.buf, content.len, path, out, err);
	strbuf_release(&content);
	return rc;
}

void zl_shapes_free(struct zl_shapes_doc *doc)
{
	if (!doc)
		return;
	node_free(doc->root);
	free(doc->path);
	free(doc);
}

/* ---- queries ---- */

const struct zl_yaml *zl_yaml_get(const struct zl_yaml *map, const char *key)
{
	size_t i;

	if (!map || map->kind != ZL_YAML_MAP || !key)
		return NULL;
	for (i = 0; i < map->nr; i++)
		if (!strcmp(map->keys[i], key))
			return map->items[i];
	return NULL;
}

static size_t key_line(const struct zl_yaml *map, const char *key)
{
	size_t i;

	for (i = 0; i < map->nr; i++)
		if (!strcmp(map->keys[i], key))
			return map->key_lines[i];
	return 0;
}

int zl_shapes_has_op(const struct zl_shapes_doc *doc, const char *op)
{
	return doc && zl_yaml_get(doc->root, op) != NULL;
}

static void fill_entry(struct zl_shapes_entry *e, const char *key, int by_class, const struct zl_yaml *node)
{
	const struct zl_yaml *shapes = zl_yaml_get(node, "shapes");
	const struct zl_yaml *desc = zl_yaml_get(node, "shape_desc");

	e->key = key;
	e->by_class = by_class;
	e->node = node;
	e->shapes = shapes && shapes->kind == ZL_YAML_SEQ ? shapes : NULL;
	e->shape_desc = desc && desc->kind == ZL_YAML_SCALAR ? desc->scalar : NULL;
}

int zl_shapes_find(const struct zl_shapes_doc *doc, const char *op,
		   const char *const *fallbacks, struct zl_shapes_entry *entry)
{
	const struct zl_yaml *node;
	size_t i;

	memset(entry, 0, sizeof(*entry));
	if (!doc)
		return -1;
	node = zl_yaml_get(doc->root, op);
	if (node) {
		fill_entry(entry, op, 0, node);
		return 0;
	}
	for (i = 0; fallbacks && fallbacks[i]; i++) {
		node = zl_yaml_get(doc->root, fallbacks[i]);
		if (node) {
			fill_entry(entry, fallbacks[i], 1, node);
			return 0;
		}
	}
	return -1;
}

long zl_shapes_count(const struct zl_shapes_doc *doc, const char *op)
{
	struct zl_shapes_entry e;

	if (zl_shapes_find(doc, op, NULL, &e) || !e.shapes)
		return -1;
	return (long)e.shapes->nr;
}

static int digit_value(int ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return 99;
}

int zl_yaml_to_long(const struct zl_yaml *node, long *out)
{
	/* YAML 1.1 integer forms PyYAML resolves (sexagesimal left out): prefix, base. */
	static const struct { const char *prefix; int base; } forms[] = {
		{ "0x", 16 }, { "0b", 2 }, { "0", 8 }, { "", 10 },
	};
	const char *s;
	unsigned long long v = 0, limit;
	int neg = 0, base = 10, digits = 0;
	size_t i;

	if (!node || node->kind != ZL_YAML_SCALAR || node->style != ZL_YAML_PLAIN)
		return -1;
	s = node->scalar;
	if (*s == '-' || *s == '+')
		neg = *s++ == '-';
	for (i = 0; i < ZL_ARRAY_SIZE(forms); i++) {
		size_t plen = strlen(forms[i].prefix);
		if (!strncmp(s, forms[i].prefix, plen) && (plen == 0 || s[plen])) {
			base = forms[i].base;
			s += plen;
			break;
		}
	}
	limit = neg ? (unsigned long long)LONG_MAX + 1 : (unsigned long long)LONG_MAX;
	for (; *s; s++) {
		int d;
		if (*s == '_')
			continue;
		d = digit_value((unsigned char)*s);
		if (d >= base)
			return -1;
		if (v > (limit - (unsigned)d) / (unsigned)base)
			return -1;
		v = v * (unsigned)base + (unsigned)d;
		digits++;
	}
	if (!digits && base != 8)
		return -1;
	if (neg)
		*out = v == (unsigned long long)LONG_MAX + 1 ? LONG_MIN : -(long)v;
	else
		*out = (long)v;
	return 0;
}

static void add_quoted(struct strbuf *sb, const char *s, size_t len)
{
	size_t i;

	strbuf_addch(sb, '"');
	for (i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)s[i];
		if (ch == '"' || ch == '\\') {
			strbuf_addch(sb, '\\');
			strbuf_addch(sb, ch);
		} else if (ch == '\n') {
			strbuf_addstr(sb, "\\n");
		} else if (ch < 0x20) {
			strbuf_addf(sb, "\\x%02x", ch);
		} else {
			strbuf_addch(sb, ch);
		}
	}
	strbuf_addch(sb, '"');
}

void zl_yaml_flow(struct strbuf *sb, const struct zl_yaml *node)
{
	size_t i;

	if (!node) {
		strbuf_addstr(sb, "null");
		return;
	}
	switch (node->kind) {
	case ZL_YAML_SCALAR:
		if (node->style == ZL_YAML_PLAIN)
			strbuf_add(sb, node->scalar, node->len);
		else
			add_quoted(sb, node->scalar, node->len);
		return;
	case ZL_YAML_SEQ:
		strbuf_addch(sb, '[');
		for (i = 0; i < node->nr; i++) {
			if (i)
				strbuf_addstr(sb, ", ");
			zl_yaml_flow(sb, node->items[i]);
		}
		strbuf_addch(sb, ']');
		return;
	case ZL_YAML_MAP:
		strbuf_addch(sb, '{');
		for (i = 0; i < node->nr; i++) {
			if (i)
				strbuf_addstr(sb, ", ");
			strbuf_addstr(sb, node->keys[i]);
			strbuf_addstr(sb, ": ");
			zl_yaml_flow(sb, node->items[i]);
		}
		strbuf_addch(sb, '}');
		return;
	}
}

/* ---- the archive (libyaml emitter) ---- */

struct emit {
	yaml_emitter_t e;
	int failed;
	const char *problem;
};

static int emit_to_strbuf(void *data, unsigned char *buffer, size_t size)
{
	strbuf_add(data, buffer, size);
	return 1;
}

/* The emitter owns and deletes every event, even when emitting fails. */
static void emit(struct emit *em, yaml_event_t *ev, int made)
{
	if (em->failed)
		return;
	if (!made) {
		em->failed = 1;
		em->problem = "cannot build a yaml event";
		return;
	}
	if (!yaml_emitter_emit(&em->e, ev)) {
		em->failed = 1;
		em->problem = em->e.problem ? em->e.problem : "yaml emitter error";
	}
}

static void emit_scalar_styled(struct emit *em, const char *s, size_t len, yaml_scalar_style_t style)
{
	yaml_event_t ev;
	int made = yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)s, (int)len, 1, 1, style);
	emit(em, &ev, made);
}

/*
 * A string that a YAML 1.1 reader would take for a number, boolean or null is
 * double-quoted, so that values read back as the strings they are.
 */
static int looks_typed(const char *s)
{
	static const char *const words[] = {
		"y", "n", "yes", "no", "true", "false", "on", "off", "null", "~",
	};
	size_t i;

	if (!*s)
		return 1;
	if (strchr("0123456789+-.", *s))
		return 1;
	for (i = 0; i < ZL_ARRAY_SIZE(words); i++)
		if (zl_strcaseeq(s, words[i]))
			return 1;
	return 0;
}

static void emit_str(struct emit *em, const char *s)
{
	if (!s) {
		emit_scalar_styled(em, "null", 4, YAML_PLAIN_SCALAR_STYLE);
		return;
	}
	emit_scalar_styled(em, s, strlen(s),
			   looks_typed(s) ? YAML_DOUBLE_QUOTED_SCALAR_STYLE : YAML_ANY_SCALAR_STYLE);
}

static void emit_plain(struct emit *em, const char *s)
{
	emit_scalar_styled(em, s, strlen(s), YAML_PLAIN_SCALAR_STYLE);
}

static void emit_long(struct emit *em, long v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%ld", v);
	emit_plain(em, buf);
}

static void emit_seq_start(struct emit *em, int flow)
{
	yaml_event_t ev;
	int made = yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1,
			flow ? YAML_FLOW_SEQUENCE_STYLE : YAML_BLOCK_SEQUENCE_STYLE);
	emit(em, &ev, made);
}

static void emit_seq_end(struct emit *em)
{
	yaml_event_t ev;
	int made = yaml_sequence_end_event_initialize(&ev);
	emit(em, &ev, made);
}

static void emit_map_start(struct emit *em, int flow)
{
	yaml_event_t ev;
	int made = yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1,
			flow ? YAML_FLOW_MAPPING_STYLE : YAML_BLOCK_MAPPING_STYLE);
	emit(em, &ev, made);
}

static void emit_map_end(struct emit *em)
{
	yaml_event_t ev;
	int made = yaml_mapping_end_event_initialize(&ev);
	emit(em, &ev, made);
}

static yaml_scalar_style_t libyaml_style(enum zl_yaml_style s)
{
	static const yaml_scalar_style_t map[] = {
		[ZL_YAML_PLAIN] = YAML_PLAIN_SCALAR_STYLE,
		[ZL_YAML_SINGLE_QUOTED] = YAML_SINGLE_QUOTED_SCALAR_STYLE,
		[ZL_YAML_DOUBLE_QUOTED] = YAML_DOUBLE_QUOTED_SCALAR_STYLE,
		[ZL_YAML_LITERAL] = YAML_LITERAL_SCALAR_STYLE,
		[ZL_YAML_FOLDED] = YAML_FOLDED_SCALAR_STYLE,
	};
	return map[s];
}

static int all_scalars(const struct zl_yaml *n)
{
	size_t i;

	for (i = 0; i < n->nr; i++)
		if (n->items[i]->kind != ZL_YAML_SCALAR)
			return 0;
	return 1;
}

/* Re-emit a node of the source with its scalars' original styles (so types survive). */
static void emit_node(struct emit *em, const struct zl_yaml *n, int flow)
{
	size_t i;

	switch (n->kind) {
	case ZL_YAML_SCALAR:
		emit_scalar_styled(em, n->scalar, n->len, libyaml_style(n->style));
		return;
	case ZL_YAML_SEQ:
		flow = flow || all_scalars(n);
		emit_seq_start(em, flow);
		for (i = 0; i < n->nr; i++)
			emit_node(em, n->items[i], flow);
		emit_seq_end(em);
		return;
	case ZL_YAML_MAP:
		flow = flow || (n->nr && all_scalars(n));
		emit_map_start(em, flow);
		for (i = 0; i < n->nr; i++) {
			emit_str(em, n->keys[i]);
			emit_node(em, n->items[i], flow);
		}
		emit_map_end(em);
		return;
	}
}

static void emit_bool(struct emit *em, int v)
{
	emit_plain(em, v ? "true" : "false");
}

static const char *const entry_own_keys[] = { "shapes", "shape_desc" };

static int is_own_key(const char *k)
{
	size_t i;

	for (i = 0; i < ZL_ARRAY_SIZE(entry_own_keys); i++)
		if (!strcmp(k, entry_own_keys[i]))
			return 1;
	return 0;
}

/* Everything the archive says in words: one line per reason the list may differ from what ran. */
static void archive_notes(const struct zl_shapes_doc *doc, const struct zl_shapes_archive *a,
			  const struct zl_shapes_entry *e, int found, int adds, struct strvec *notes)
{
	if (!a->op) {
		strvec_push(notes, "no single op: each collected benchmark picks its own entry");
	} else if (!doc) {
		strvec_push(notes, "no shape file was read: the benchmark uses its own defaults "
			    "(results.json shape_detail records what ran)");
	} else if (!found && a->fallbacks && a->fallbacks[0]) {
		struct strbuf list = STRBUF_INIT;
		size_t i;
		for (i = 0; a->fallbacks[i]; i++)
			strbuf_addf(&list, "%s%s", i ? ", " : "", a->fallbacks[i]);
		strvec_pushf(notes, "neither op '%s' nor its benchmark classes (%s) are keys in the shape "
			     "file: FlagGems uses the benchmark class's DEFAULT_SHAPES", a->op, list.buf);
		strbuf_release(&list);
	} else if (!found) {
		strvec_pushf(notes, "op '%s' is not a key in the shape file: FlagGems falls back to the "
			     "benchmark's own defaults (the first of its class names, e.g. BlasBenchmark, "
			     "that is a key, else the class's DEFAULT_SHAPES); results.json shape_detail "
			     "records what ran", a->op);
	} else {
		if (e->by_class)
			strvec_pushf(notes, "op '%s' is not a key in the shape file: FlagGems uses the "
				     "entry of its benchmark class '%s'", a->op, e->key);
		if (e->node->kind != ZL_YAML_MAP)
			strvec_pushf(notes, "the entry '%s' is not a mapping: FlagGems cannot read shapes "
				     "from it", e->key);
		else if (!zl_yaml_get(e->node, "shapes"))
			strvec_pushf(notes, "the entry '%s' has no 'shapes': FlagGems uses the benchmark "
				     "class's DEFAULT_SHAPES", e->key);
		else if (!e->shapes)
			strvec_pushf(notes, "the entry '%s' has a 'shapes' that is not a list", e->key);
		else
			strvec_push(notes, "these are the shapes the file lists; a benchmark that overrides "
				    "set_shapes() ignores them (results.json shape_detail records what ran)");
	}
	if (adds)
		strvec_push(notes, "level comprehensive: FlagGems also runs the shapes of the benchmark's "
			    "set_more_shapes() (Python code, not in the file); those are not listed here");
	else if (a->level && strcmp(a->level, "core"))
		strvec_pushf(notes, "unknown level '%s'", a->level);
}

/* The stream, the document and the top mapping; -1 when the emitter cannot be made. */
static int archive_open(struct emit *em, struct strbuf *out)
{
	yaml_event_t ev;
	int made;

	memset(em, 0, sizeof(*em));
	if (!yaml_emitter_initialize(&em->e))
		return -1;
	yaml_emitter_set_output(&em->e, emit_to_strbuf, out);
	yaml_emitter_set_unicode(&em->e, 1);
	yaml_emitter_set_width(&em->e, -1);
	made = yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING);
	emit(em, &ev, made);
	made = yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1);
	emit(em, &ev, made);
	emit_map_start(em, 0);
	return 0;
}

static void archive_close(struct emit *em)
{
	yaml_event_t ev;
	int made;

	emit_map_end(em);
	made = yaml_document_end_event_initialize(&ev, 1);
	emit(em, &ev, made);
	made = yaml_stream_end_event_initialize(&ev);
	emit(em, &ev, made);
	if (!em->failed && !yaml_emitter_flush(&em->e)) {
		em->failed = 1;
		em->problem = "cannot flush the yaml emitter";
	}
}

/* schema_version, level, shape_mode, source {path, sha256}, op. */
static void emit_archive_head(struct emit *em, const struct zl_shapes_archive *a, const char *sha)
{
	emit_plain(em, "schema_version");
	emit_long(em, 1);
	emit_plain(em, "level");
	emit_str(em, a->level);
	emit_plain(em, "shape_mode");
	emit_str(em, a->shape_mode);
	emit_plain(em, "source");
	emit_map_start(em, 0);
	emit_plain(em, "path");
	emit_str(em, a->source_path);
	emit_plain(em, "sha256");
	emit_str(em, sha);
	emit_map_end(em);
	emit_plain(em, "op");
	emit_str(em, a->op);
}

/* The entry's keys besides shapes and shape_desc, as other_keys (nothing when there are none). */
static void emit_other_keys(struct emit *em, const struct zl_shapes_entry *e)
{
	size_t i;
	int any = 0;

	for (i = 0; i < e->node->nr; i++) {
		if (is_own_key(e->node->keys[i]))
			continue;
		if (!any) {
			emit_plain(em, "other_keys");
			emit_map_start(em, 0);
			any = 1;
		}
		emit_str(em, e->node->keys[i]);
		emit_node(em, e->node->items[i], 0);
	}
	if (any)
		emit_map_end(em);
}

/* entry {key, matched_by, line}, shape_desc, shapes, count, other_keys: null where none was found. */
static void emit_archive_entry(struct emit *em, const struct zl_shapes_doc *doc, const struct zl_shapes_entry *e,
			       int found)
{
	size_t i;

	emit_plain(em, "entry");
	emit_map_start(em, 0);
	emit_plain(em, "key");
	emit_str(em, found ? e->key : NULL);
	emit_plain(em, "matched_by");
	emit_plain(em, !found ? "none" : e->by_class ? "class" : "op");
	emit_plain(em, "line");
	if (found)
		emit_long(em, (long)key_line(doc->root, e->key));
	else
		emit_plain(em, "null");
	emit_map_end(em);

	emit_plain(em, "shape_desc");
	emit_str(em, found ? e->shape_desc : NULL);
	emit_plain(em, "shapes");
	if (found && e->shapes) {
		emit_seq_start(em, 0);
		for (i = 0; i < e->shapes->nr; i++)
			emit_node(em, e->shapes->items[i], 1);
		emit_seq_end(em);
	} else {
		emit_plain(em, "null");
	}
	emit_plain(em, "count");
	if (found && e->shapes)
		emit_long(em, (long)e->shapes->nr);
	else
		emit_plain(em, "null");
	if (found && e->node->kind == ZL_YAML_MAP)
		emit_other_keys(em, e);
}

/* The source's sha256: given, else computed from the file (a note when it cannot be). */
static const char *archive_sha(const struct zl_shapes_archive *a, char sha[ZL_SHA256_HEX_LEN + 1],
			       struct strvec *notes)
{
	struct strbuf sherr = STRBUF_INIT;
	const char *value = a->source_sha256;

	if (!value && a->source_path && zl_is_file(a->source_path)) {
		if (zl_sha256_file_hex(a->source_path, sha, &sherr))
			strvec_push(notes, sherr.buf);
		else
			value = sha;
	}
	strbuf_release(&sherr);
	return value;
}

int zl_shapes_archive_render(const struct zl_shapes_doc *doc, const struct zl_shapes_archive *a,
			     struct strbuf *out, struct strbuf *err)
{
	struct emit em;
	struct zl_shapes_entry e;
	struct strvec notes = STRVEC_INIT;
	char sha[ZL_SHA256_HEX_LEN + 1];
	const char *sha_value;
	int found = a->op && !zl_shapes_find(doc, a->op, a->fallbacks, &e);
	int adds = a->level && !strcmp(a->level, "comprehensive");
	int rc = 0;
	size_t i;

	if (!found)
		memset(&e, 0, sizeof(e));
	sha_value = archive_sha(a, sha, &notes);
	archive_notes(doc, a, &e, found, adds, &notes);
	if (archive_open(&em, out)) {
		strvec_clear(&notes);
		return zl_error(err, "cannot write the shapes archive: cannot initialise the yaml emitter");
	}
	emit_archive_head(&em, a, sha_value);
	emit_archive_entry(&em, doc, &e, found);
	emit_plain(&em, "level_adds_shapes");
	emit_bool(&em, adds);
	emit_plain(&em, "notes");
	emit_seq_start(&em, 0);
	for (i = 0; i < notes.nr; i++)
		emit_scalar_styled(&em, notes.v[i], strlen(notes.v[i]), YAML_DOUBLE_QUOTED_SCALAR_STYLE);
	emit_seq_end(&em);
	archive_close(&em);
	strvec_clear(&notes);
	if (em.failed)
		rc = zl_error(err, "cannot write the shapes archive for '%s': %s", a->op ? a->op : "(no op)",
			      em.problem);
	yaml_emitter_delete(&em.e);
	return rc;
}

int zl_shapes_archive_write(const char *out_path, const struct zl_shapes_doc *doc,
			    const struct zl_shapes_archive *a, struct strbuf *err)
{
	struct strbuf out = STRBUF_INIT;
	int rc = zl_shapes_archive_render(doc, a, &out, err);

	if (!rc)
		rc = zl_write_file_atomic(out_path, out.buf, out.len, err);
	strbuf_release(&out);
	return rc;
}

int zl_shapes_write_archive(const char *out_path, const struct zl_shapes_doc *doc, const char *op,
			    const char *level, const char *shape_mode, const char *source_path,
			    const char *sha256, struct strbuf *err)
{
	struct zl_shapes_archive a = {
		.op = op,
		.level = level,
		.shape_mode = shape_mode,
		.source_path = source_path,
		.source_sha256 = sha256,
		.fallbacks = NULL,
	};

	return zl_shapes_archive_write(out_path, doc, &a, err);
}

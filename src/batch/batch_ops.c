/*
 * The operators of a new batch (--ops LIST, --ops-file FILE, --ops all, --exclude LIST)
 * and the benchmark files each resolves to, from the mark index of run/resolve.c: one
 * scan of the checkout serves the whole batch.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zlbench/batch.h"
#include "zlbench/batch_estimate.h"
#include "zlbench/error.h"
#include "zlbench/resolve.h"
#include "zlbench/util.h"
#include "zlbench/banned.h"

int zl_batch_ops_is_all(const struct strvec *ops_args, const char *ops_file)
{
	struct strvec names = STRVEC_INIT;
	size_t i;
	int all;

	for (i = 0; i < ops_args->nr; i++)
		zl_batch_ops_add_list(&names, ops_args->v[i]);
	all = !ops_file && names.nr == 1 && !strcmp(names.v[0], ZL_BATCH_OPS_ALL);
	strvec_clear(&names);
	return all;
}

/* Every mark's name (sorted, as the index is). */
static void mark_names(const struct zl_marks *m, struct strvec *out)
{
	size_t i;

	for (i = 0; i < m->nr; i++)
		strvec_push(out, m->v[i].name);
}

/*
 * Each --exclude name must be a mark of the checkout or an op of the list: else an error
 * naming it, with the closest of those. Then the named ops leave the list.
 */
static int exclude(const struct zl_marks *m, const struct zl_batch_ops_request *r, struct strvec *ops,
		   struct strvec *excluded, struct strbuf *err)
{
	struct strvec names = STRVEC_INIT, known = STRVEC_INIT, near = STRVEC_INIT, kept = STRVEC_INIT;
	size_t i, j;
	int rc = -1;

	for (i = 0; i < r->exclude->nr; i++)
		zl_batch_ops_add_list(&names, r->exclude->v[i]);
	for (i = 0; i < names.nr; i++) {
		const char *x = names.v[i];

		if (!zl_op_name_valid(x)) {
			zl_error(err, "--exclude: invalid operator name '%s': use letters, digits and '_'", x);
			goto out;
		}
		if (zl_marks_find(m, x) || strvec_find(ops, x) >= 0) {
			if (strvec_find(excluded, x) < 0)
				strvec_push(excluded, x);
			continue;
		}
		mark_names(m, &known);
		for (j = 0; j < ops->nr; j++)
			if (strvec_find(&known, ops->v[j]) < 0)
				strvec_push(&known, ops->v[j]);
		zl_suggest(x, &known, 3, &near);
		zl_error(err, "--exclude names '%s', which is no operator mark of '%s/benchmark'%s", x, r->flaggems_dir,
			 r->all ? "" : " nor an operator of the batch");
		for (j = 0; j < near.nr; j++)
			strbuf_addf(err, "%s'%s'", j ? ", " : "; did you mean ", near.v[j]);
		goto out;
	}
	for (i = 0; i < ops->nr; i++)
		if (strvec_find(excluded, ops->v[i]) < 0)
			strvec_push(&kept, ops->v[i]);
	if (!kept.nr && ops->nr) {
		zl_error(err, "--exclude leaves no operator to run");
		goto out;
	}
	strvec_clear(ops);
	strvec_pushv(ops, kept.v);
	rc = 0;
out:
	strvec_clear(&names);
	strvec_clear(&known);
	strvec_clear(&near);
	strvec_clear(&kept);
	return rc;
}

int zl_batch_ops_choose(const struct zl_batch_ops_request *r, struct strvec *ops, struct strvec *excluded,
			struct strbuf *err)
{
	struct zl_marks m = ZL_MARKS_INIT;
	size_t i;
	int rc = -1;

	if (r->all || r->exclude->nr)
		zl_marks_scan(r->flaggems_dir, &m);
	if (r->all) {
		if (!m.nr) {
			zl_error(err, "--ops all: no operator mark in any test_*.py under '%s/benchmark' (%zu files read): "
				      "is --flaggems-dir a FlagGems checkout?", r->flaggems_dir, m.files_scanned);
			goto out;
		}
		mark_names(&m, ops);
	} else {
		for (i = 0; i < r->ops->nr; i++)
			zl_batch_ops_add_list(ops, r->ops->v[i]);
		if (r->ops_file && zl_batch_ops_read_file(ops, r->ops_file, err))
			goto out;
	}
	if (r->exclude->nr && exclude(&m, r, ops, excluded, err))
		goto out;
	rc = zl_batch_ops_check(ops, err);
out:
	zl_marks_release(&m);
	return rc;
}

void zl_batch_estimate_ops(struct zl_batch_estimate *e, const struct zl_batch_config *c, const struct strvec *ops)
{
	struct zl_marks m = ZL_MARKS_INIT;
	struct strbuf err = STRBUF_INIT;
	size_t i;

	if (c->flaggems_dir)
		zl_marks_scan(c->flaggems_dir, &m);
	for (i = 0; i < ops->nr; i++) {
		struct zl_nodes n = ZL_NODES_INIT;

		/* the files `zlbench run --op OP` will run: empty when none carries the mark */
		strbuf_reset(&err);
		if (!c->flaggems_dir || zl_resolve_op_in(c->flaggems_dir, &m, ops->v[i], &n, &err) != ZL_RESOLVE_OK)
			strvec_clear(&n.nodes);
		zl_batch_estimate_add(e, ops->v[i], &n.nodes);
		zl_nodes_release(&n);
	}
	zl_marks_release(&m);
	strbuf_release(&err);
	zl_batch_estimate_load(e, c);
}

/*
 * The operators of a new batch (--ops, --ops-file, --ops all, --exclude) and what each
 * resolves to in the checkout, from the mark index of run/resolve.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zlbench/batch.h"
#include "zlbench/batch_estimate.h"
#include "zlbench/fsutil.h"
#include "zlbench/resolve.h"
#include "zlbench/util.h"
#include "zlbench/banned.h"

void zl_batch_estimate_ops(struct zl_batch_estimate *e, const struct zl_batch_config *c, const struct strvec *ops)
{
	size_t i;

	for (i = 0; i < ops->nr; i++)
		zl_batch_estimate_add(e, ops->v[i], NULL);
	(void)c;
	zl_batch_estimate_load(e, c);
}

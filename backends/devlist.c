/* Device lists: the result of an enumeration, and their JSON form. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "backends/parsers.h"
#include "zlbench/backend.h"
#include "zlbench/json.h"
#include "zlbench/util.h"
#include "zlbench/banned.h"

static void device_release(struct zl_device *d)
{
	free(d->name);
	free(d->uuid);
	free(d->driver);
	free(d->bus_id);
	free(d->node);
}

void zl_devlist_release(struct zl_devlist *dl)
{
	size_t i;

	for (i = 0; i < dl->nr; i++)
		device_release(&dl->v[i]);
	free(dl->v);
	free(dl->how);
	dl->v = NULL;
	dl->nr = dl->alloc = 0;
	dl->available = 0;
	dl->how = NULL;
	dl->tool_failed = 0;
}

struct zl_device *zl_devlist_add(struct zl_devlist *dl, int index, const char *name,
				 const char *uuid, long long memory_mib, const char *driver)
{
	struct zl_device *d;

	ALLOC_GROW(dl->v, dl->nr + 1, dl->alloc);
	d = &dl->v[dl->nr++];
	memset(d, 0, sizeof(*d));
	d->index = index;
	d->name = name ? xstrdup(name) : NULL;
	d->uuid = uuid ? xstrdup(uuid) : NULL;
	d->memory_mib = memory_mib;
	d->driver = driver ? xstrdup(driver) : NULL;
	return d;
}

const struct zl_device *zl_devlist_find(const struct zl_devlist *dl, int index)
{
	size_t i;

	for (i = 0; i < dl->nr; i++)
		if (dl->v[i].index == index)
			return &dl->v[i];
	return NULL;
}

void zl_devlist_set_how(struct zl_devlist *dl, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	xstrvfmt_set(&dl->how, fmt, ap);
	va_end(ap);
}

static int by_index(const void *a, const void *b)
{
	const struct zl_device *x = a, *y = b;

	return (x->index > y->index) - (x->index < y->index);
}

static int uuid_shared(const struct zl_devlist *dl, size_t i)
{
	size_t j;

	if (!dl->v[i].uuid)
		return 0;
	for (j = 0; j < dl->nr; j++)
		if (j != i && dl->v[j].uuid && !strcmp(dl->v[i].uuid, dl->v[j].uuid))
			return 1;
	return 0;
}

size_t zl_devlist_settle_ids(struct zl_devlist *dl, size_t *replaced)
{
	unsigned char *dup;
	size_t i, still = 0, n = 0;

	if (dl->nr > 1)
		qsort(dl->v, dl->nr, sizeof(*dl->v), by_index);
	/* mark first, then replace: replacing while scanning would hide the later twin */
	dup = xcalloc(dl->nr ? dl->nr : 1, 1);
	for (i = 0; i < dl->nr; i++)
		dup[i] = (unsigned char)uuid_shared(dl, i);
	for (i = 0; i < dl->nr; i++) {
		struct zl_device *d = &dl->v[i];

		if (dup[i] && d->bus_id) {
			free(d->uuid);
			d->uuid = xstrdup(d->bus_id);
			n++;
		} else if (!d->uuid && d->bus_id) {
			d->uuid = xstrdup(d->bus_id);
		}
	}
	for (i = 0; i < dl->nr; i++)
		still += (size_t)uuid_shared(dl, i);
	free(dup);
	if (replaced)
		*replaced = n;
	return still;
}

cJSON *zl_device_to_json(const struct zl_device *d)
{
	cJSON *o = cJSON_CreateObject();
	cJSON *mem;

	if (!o)
		return NULL;
	if (!cJSON_AddNumberToObject(o, "index", d->index) ||
	    zl_json_add_string(o, "name", d->name) || zl_json_add_string(o, "uuid", d->uuid))
		goto fail;
	mem = d->memory_mib >= 0 ? cJSON_CreateNumber((double)d->memory_mib) : cJSON_CreateNull();
	if (zl_json_add_item(o, "memory_mib", mem))
		goto fail;
	if (zl_json_add_string(o, "driver", d->driver) || zl_json_add_string(o, "bus_id", d->bus_id) ||
	    zl_json_add_string(o, "node", d->node))
		goto fail;
	return o;
fail:
	cJSON_Delete(o);
	return NULL;
}

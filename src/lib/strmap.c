/* A map from strings to numbers (include/zlbench/strmap.h). */
#include <stdlib.h>
#include <string.h>

#include "zlbench/strmap.h"
#include "zlbench/util.h"
#include "zlbench/banned.h"

static uint64_t hash_str(const char *s)
{
	uint64_t h = UINT64_C(0xcbf29ce484222325);

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * UINT64_C(0x100000001b3);
	/* FNV's low bits, which pick the slot, mix poorly */
	h ^= h >> 33;
	h *= UINT64_C(0xff51afd7ed558ccd);
	h ^= h >> 33;
	h *= UINT64_C(0xc4ceb9fe1a85ec53);
	return h ^ (h >> 33);
}

static struct zl_strmap_slot *find(const struct zl_strmap *m, const char *key, uint64_t h)
{
	size_t i = (size_t)h & m->mask;

	while (m->slot[i].key && (m->slot[i].hash != h || strcmp(m->slot[i].key, key)))
		i = (i + 1) & m->mask;
	return &m->slot[i];
}

size_t *zl_strmap_get(const struct zl_strmap *m, const char *key)
{
	struct zl_strmap_slot *s;

	if (!m->slot)
		return NULL;
	s = find(m, key, hash_str(key));
	return s->key ? &s->value : NULL;
}

/* Room for one more key: at most half the slots in use. */
static void reserve(struct zl_strmap *m)
{
	struct zl_strmap bigger = ZL_STRMAP_INIT;
	size_t i;

	if (m->slot && 2 * (m->nr + 1) <= m->mask + 1)
		return;
	bigger.mask = m->slot ? 2 * m->mask + 1 : 15;
	bigger.slot = xcalloc(bigger.mask + 1, sizeof(*bigger.slot));
	for (i = 0; m->slot && i <= m->mask; i++)
		if (m->slot[i].key) {
			*find(&bigger, m->slot[i].key, m->slot[i].hash) = m->slot[i];
			bigger.nr++;
		}
	free(m->slot);
	*m = bigger;
}

size_t *zl_strmap_put(struct zl_strmap *m, const char *key, size_t value, int *added)
{
	uint64_t h = hash_str(key);
	struct zl_strmap_slot *s;

	reserve(m);
	s = find(m, key, h);
	if (added)
		*added = !s->key;
	if (!s->key) {
		s->key = xstrdup(key);
		s->hash = h;
		s->value = value;
		m->nr++;
	}
	return &s->value;
}

void zl_strmap_clear(struct zl_strmap *m)
{
	size_t i;

	for (i = 0; m->slot && i <= m->mask; i++)
		free(m->slot[i].key);
	free(m->slot);
	m->slot = NULL;
	m->mask = m->nr = 0;
}

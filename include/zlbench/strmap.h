/*
 * A map from strings to numbers (an index into the caller's array, a count), hashed
 * (FNV-1a finished as MurmurHash3's fmix64) into an open-addressing table kept at most
 * half full: finding a name among n is O(1), where a scan of a strvec made loops over
 * n names O(n^2) (a report of 100k rows took minutes).
 *
 * Owner: the map copies its keys and frees them in zl_strmap_clear; a pointer to a
 * value is valid until the next zl_strmap_put.
 */
#ifndef ZLBENCH_STRMAP_H
#define ZLBENCH_STRMAP_H

#include <stddef.h>
#include <stdint.h>

struct zl_strmap_slot {
	char *key;               /* NULL: empty */
	uint64_t hash;
	size_t value;
};

struct zl_strmap {
	struct zl_strmap_slot *slot;
	size_t mask;             /* slots - 1; 0 before the first put */
	size_t nr;
};
#define ZL_STRMAP_INIT { NULL, 0, 0 }

/* The value of key, or NULL when key is not in the map. */
size_t *zl_strmap_get(const struct zl_strmap *m, const char *key);
/* The value of key, put there as value first when key is not in the map (*added: 1 then, else 0; may be NULL). */
size_t *zl_strmap_put(struct zl_strmap *m, const char *key, size_t value, int *added);
void zl_strmap_clear(struct zl_strmap *m);

#endif

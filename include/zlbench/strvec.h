/*
 * A NULL-terminated vector of owned strings (after git's strvec).
 * v is never NULL and v[nr] == NULL always, so v can go straight to execve().
 * Owner: whoever declared it; strvec_clear() frees every string and the array.
 */
#ifndef ZLBENCH_STRVEC_H
#define ZLBENCH_STRVEC_H

#include <stddef.h>

extern const char *empty_strvec[];
struct strvec {
	const char **v;
	size_t nr;
	size_t alloc;
};
#define STRVEC_INIT { empty_strvec, 0, 0 }

void strvec_init(struct strvec *sv);
const char *strvec_push(struct strvec *sv, const char *s);
const char *strvec_pushf(struct strvec *sv, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void strvec_pushv(struct strvec *sv, const char **items);
void strvec_pop(struct strvec *sv);
void strvec_clear(struct strvec *sv);
/* Split s at each sep character, skipping empty fields and trimming blanks. */
void strvec_split(struct strvec *sv, const char *s, char sep);
/* Index of the first element equal to s, or -1. */
long strvec_find(const struct strvec *sv, const char *s);

#endif

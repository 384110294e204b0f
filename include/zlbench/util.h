/* Allocation wrappers that never return NULL, and small helpers. */
#ifndef ZLBENCH_UTIL_H
#define ZLBENCH_UTIL_H

#include <stddef.h>
#include <stdarg.h>

struct strbuf;
struct strvec;

#ifndef ZL_ARRAY_SIZE
#define ZL_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

/* Out of memory is not recoverable for a command-line driver: these abort with a message. */
void *xmalloc(size_t size);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *ptr, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* Grow *ptr (of *alloc elements of size elt) so that it holds at least nr elements. */
void *xgrow(void *ptr, size_t elt, size_t nr, size_t *alloc);
#define ALLOC_GROW(p, nr, alloc) ((p) = xgrow((p), sizeof(*(p)), (nr), &(alloc)))

/* Formatted allocation; the caller frees. A format vsnprintf refuses aborts (a bug, not input). */
char *xstrfmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *xstrvfmt(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
/* Format into *slot, freeing what it held after formatting (an argument may be that value). */
void xstrvfmt_set(char **slot, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

int zl_starts_with(const char *s, const char *prefix);
int zl_ends_with(const char *s, const char *suffix);
int zl_strcaseeq(const char *a, const char *b);

/* Parse booleans: 0/1/true/false/yes/no/on/off (case-insensitive). Returns 0/1, or -1. */
int zl_parse_bool(const char *s);
/* Strict integer / double parsing: the whole string must be a number. 0 ok, -1 error. */
int zl_parse_long(const char *s, long *out);
int zl_parse_double(const char *s, double *out);

/* Monotonic clock in seconds; wall clock as ISO 8601 UTC "YYYY-MM-DDTHH:MM:SSZ". */
double zl_now_monotonic(void);
void zl_utc_iso8601(char out[32], double epoch_seconds);
double zl_now_epoch(void);

/* Levenshtein distance (for "did you mean"). */
size_t zl_edit_distance(const char *a, const char *b);
/*
 * The names among names closest to word (edit distance at most a third of its length, at
 * least 2; ties go to the longer common prefix, then the name), best first, at most max,
 * pushed to out: the one "did you mean" of operators, commands, options and choice values.
 */
void zl_suggest(const char *word, const struct strvec *names, size_t max, struct strvec *out);
/*
 * "; did you mean '<prefix>a'?" (or "'<prefix>a' or '<prefix>b'?") for word among names,
 * appended to sb; nothing when none is close. prefix ("--" for options) may be "".
 */
void zl_did_you_mean(struct strbuf *sb, const char *prefix, const char *word, const struct strvec *names);

/* 32 random bits for jitter and unique names (not for secrets): getrandom, else pid ^ time. */
unsigned zl_random_u32(void);

#endif

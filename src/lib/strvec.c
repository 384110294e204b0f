#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "zlbench/strvec.h"
#include "zlbench/strbuf.h"
#include "zlbench/util.h"
#include "zlbench/banned.h"

const char *empty_strvec[] = { NULL };

void strvec_init(struct strvec *sv)
{
	sv->v = empty_strvec;
	sv->nr = sv->alloc = 0;
}

static const char *push_owned(struct strvec *sv, char *s)
{
	if (sv->v == empty_strvec)
		sv->v = NULL;
	ALLOC_GROW(sv->v, sv->nr + 2, sv->alloc);
	sv->v[sv->nr++] = s;
	sv->v[sv->nr] = NULL;
	return s;
}

const char *strvec_push(struct strvec *sv, const char *s)
{
	return push_owned(sv, xstrdup(s));
}

const char *strvec_pushf(struct strvec *sv, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = xstrvfmt(fmt, ap);
	va_end(ap);
	return push_owned(sv, s);
}

void strvec_pushv(struct strvec *sv, const char **items)
{
	for (; items && *items; items++)
		strvec_push(sv, *items);
}

void strvec_pop(struct strvec *sv)
{
	if (!sv->nr)
		return;
	free((char *)sv->v[sv->nr - 1]);
	sv->v[--sv->nr] = NULL;
}

void strvec_clear(struct strvec *sv)
{
	size_t i;

	if (sv->v != empty_strvec) {
		for (i = 0; i < sv->nr; i++)
			free((char *)sv->v[i]);
		free(sv->v);
	}
	strvec_init(sv);
}

void strvec_split(struct strvec *sv, const char *s, char sep)
{
	while (s && *s) {
		const char *end = strchr(s, sep);
		size_t len = end ? (size_t)(end - s) : strlen(s);
		struct strbuf field = STRBUF_INIT;

		strbuf_add(&field, s, len);
		strbuf_trim(&field);
		if (field.len)
			push_owned(sv, strbuf_detach(&field, NULL));
		strbuf_release(&field);
		s = end ? end + 1 : NULL;
	}
}

long strvec_find(const struct strvec *sv, const char *s)
{
	size_t i;

	for (i = 0; i < sv->nr; i++)
		if (!strcmp(sv->v[i], s))
			return (long)i;
	return -1;
}

/* The one redaction rule (include/zlbench/redact.h). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "zlbench/redact.h"
#include "zlbench/util.h"
#include "zlbench/banned.h"

/* A name holding one of these, in any case, is secret ("ZL_api_token", "X-Amz-Signature"). */
static const char *const secret_words[] = { "TOKEN", "SECRET", "PASSWORD", "PASSWD", "KEY", "CREDENTIAL",
					    "AUTH", "SIGNATURE" };
/* Short names that are secret only whole (a "sig" inside "design" is not). */
static const char *const secret_names[] = { "SIG", "PWD", "PASS" };

int zl_name_is_secret_len(const char *name, size_t len)
{
	char upper[128];
	size_t i;

	if (!len)
		return 0;
	/* a name longer than any we look at is cut, not passed: its first 127 bytes decide */
	if (len >= sizeof(upper))
		len = sizeof(upper) - 1;
	for (i = 0; i < len; i++)
		upper[i] = (char)toupper((unsigned char)name[i]);
	upper[len] = '\0';
	for (i = 0; i < ZL_ARRAY_SIZE(secret_names); i++)
		if (!strcmp(upper, secret_names[i]))
			return 1;
	for (i = 0; i < ZL_ARRAY_SIZE(secret_words); i++)
		if (strstr(upper, secret_words[i]))
			return 1;
	return 0;
}

int zl_name_is_secret(const char *name)
{
	return name ? zl_name_is_secret_len(name, strlen(name)) : 0;
}

static int url_end(char c)
{
	return !c || c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '"' || c == '\'' || c == '<' ||
	       c == '>';
}

/* The query s[0..end) (after its '?') with the values of secret parameters as "***". */
static void redact_query(struct strbuf *sb, const char *s, size_t len)
{
	size_t i = 0;

	while (i <= len) {
		size_t j = i, eq;

		while (j < len && s[j] != '&' && s[j] != ';')
			j++;
		for (eq = i; eq < j && s[eq] != '='; eq++)
			;
		if (eq < j && zl_name_is_secret_len(s + i, eq - i)) {
			strbuf_add(sb, s + i, eq + 1 - i);
			strbuf_addstr(sb, "***");
		} else {
			strbuf_add(sb, s + i, j - i);
		}
		if (j < len)
			strbuf_addch(sb, s[j]);
		i = j + 1;
	}
}

char *zl_redact_url_credentials(const char *text)
{
	struct strbuf sb = STRBUF_INIT;
	const char *p = text, *scheme;

	while ((scheme = strstr(p, "://"))) {
		const char *auth = scheme + 3, *end = auth, *at = NULL, *colon, *q;

		/* the authority ends at the path, query or fragment; the host follows its last '@' */
		while (!url_end(*end) && !strchr("/?#", *end)) {
			if (*end == '@')
				at = end;
			end++;
		}
		strbuf_add(&sb, p, (size_t)(auth - p));
		if (at) {
			colon = memchr(auth, ':', (size_t)(at - auth));
			if (colon && colon > auth)
				strbuf_add(&sb, auth, (size_t)(colon - auth + 1));
			strbuf_addstr(&sb, "***");
			auth = at;
		}
		strbuf_add(&sb, auth, (size_t)(end - auth));
		/* the path as it is, then the query's secret values */
		for (q = end; !url_end(*q) && *q != '?' && *q != '#'; q++)
			;
		strbuf_add(&sb, end, (size_t)(q - end));
		if (*q == '?') {
			const char *qe = q + 1;

			while (!url_end(*qe) && *qe != '#')
				qe++;
			strbuf_addch(&sb, '?');
			redact_query(&sb, q + 1, (size_t)(qe - q - 1));
			q = qe;
		}
		p = q;
	}
	strbuf_addstr(&sb, p);
	return strbuf_detach(&sb, NULL);
}

static int name_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '-' || c == '.';
}

void zl_redact_add(struct strbuf *sb, const char *word)
{
	char *shown = zl_redact_url_credentials(word);
	const char *n = shown, *eq;

	/*
	 * NAME=value, or --option=NAME=value: each name runs from the word's start (its
	 * dashes aside) or the '=' before it; a segment that is no name (a URL) ends the search
	 */
	while (*n == '-')
		n++;
	for (eq = n; *eq && name_char(*eq); eq++)
		;
	while (*eq == '=' && eq > n) {
		if (zl_name_is_secret_len(n, (size_t)(eq - n))) {
			strbuf_add(sb, shown, (size_t)(eq + 1 - shown));
			strbuf_addstr(sb, ZL_REDACTED);
			free(shown);
			return;
		}
		for (n = eq = eq + 1; *eq && name_char(*eq); eq++)
			;
	}
	strbuf_addstr(sb, shown);
	free(shown);
}

char *zl_redact_word(const char *word)
{
	struct strbuf sb = STRBUF_INIT;

	zl_redact_add(&sb, word);
	return strbuf_detach(&sb, NULL);
}

void zl_redact_argv(const char *const *argv, struct strvec *out)
{
	for (; argv && *argv; argv++) {
		char *w = zl_redact_word(*argv);

		strvec_push(out, w);
		free(w);
	}
}

char *zl_redact_env_value(const char *name, const char *value)
{
	return zl_name_is_secret(name) ? xstrdup(ZL_REDACTED) : zl_redact_url_credentials(value);
}

/*
 * Secrets out of everything zlbench stores or prints: the one redaction rule.
 *
 * A value is secret when its name says so (zl_name_is_secret: an environment
 * variable ZL_PUSH_TOKEN, a query parameter token=, an argument API_KEY=...), and
 * a URL's password always is. What is redacted becomes "***" (a URL's parts) or
 * ZL_REDACTED (a whole value of a secret name), and the rest stays readable:
 *     https://bob:hunter2@perf.example/api?token=abc&x=1 -> https://bob:***@perf.example/api?token=***&x=1
 *     https://ghp_abc@github.com/x -> https:// ***@github.com/x (without the blank: a lone user may be a token)
 *     --b-env=ZL_API_TOKEN=abc -> --b-env=ZL_API_TOKEN=<redacted>
 *
 * Only what is stored or printed is redacted: the caller keeps the real value for
 * the work itself (the push sends its real URL). docs/hardening.md lists where the
 * rule applies.
 *
 * Owner: every char * returned belongs to the caller; strvecs are the caller's.
 */
#ifndef ZLBENCH_REDACT_H
#define ZLBENCH_REDACT_H

#include "strbuf.h"
#include "strvec.h"

/* What a secret name's whole value is shown as. */
#define ZL_REDACTED "<redacted>"

/*
 * 1 when a variable or parameter name looks secret: it contains, in any case, TOKEN,
 * SECRET, PASSWORD, PASSWD, KEY, CREDENTIAL, AUTH or SIGNATURE, or it is SIG, PWD or PASS.
 */
int zl_name_is_secret(const char *name);
int zl_name_is_secret_len(const char *name, size_t len);

/*
 * text with the secrets of every URL in it (scheme://...) replaced by "***": the
 * password of user:password (a lone user too), and the values of query parameters
 * with secret names. A URL ends at a blank, a quote, '<' or '>'. Caller frees.
 */
char *zl_redact_url_credentials(const char *text);

/*
 * One word as it may be stored or printed: its URLs redacted as above, and a
 * NAME=value in it (alone, or after an option's '=': --b-env=NAME=value) with a secret
 * NAME shown as NAME=<redacted>. Caller frees.
 */
char *zl_redact_word(const char *word);
/* The value of the variable name as it may be stored or printed. Caller frees. */
char *zl_redact_env_value(const char *name, const char *value);
/* Push every word of argv (NULL-terminated) redacted onto out. */
void zl_redact_argv(const char *const *argv, struct strvec *out);
/* Append word redacted to sb. */
void zl_redact_add(struct strbuf *sb, const char *word);

#endif

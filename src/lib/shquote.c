/* Quoting for a POSIX shell (include/zlbench/shquote.h). */
#include <string.h>

#include "zlbench/shquote.h"
#include "zlbench/banned.h"

void zl_shell_quote(struct strbuf *out, const char *s)
{
	static const char safe[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./:=,@+-";
	const char *p;

	if (*s && strspn(s, safe) == strlen(s)) {
		strbuf_addstr(out, s);
		return;
	}
	strbuf_addch(out, '\'');
	for (p = s; *p; p++) {
		if (*p == '\'')
			strbuf_addstr(out, "'\\''");
		else
			strbuf_addch(out, *p);
	}
	strbuf_addch(out, '\'');
}

/*
 * Push's spool: each payload that could not be delivered, written atomically to
 * its own file in $ZL_HOME/spool (or o->spool_dir; the directory 0700, each file
 * 0600), as two lines: {"schema":"zlbench.spool/1","url":URL} and the document as sent.
 * URL is stored redacted (redact.h: no password, no secret query value), with
 * "url_redacted":true when that changed it: such a file is resent only to a URL
 * given again (push --flush-spool --url URL, or ZL_PUSH_URL), never to the stored one.
 */
#ifndef ZLBENCH_PUSH_SPOOL_H
#define ZLBENCH_PUSH_SPOOL_H

#include "push.h"
#include "strbuf.h"
#include "strvec.h"

/* The spool directory's path (not created). Caller frees; NULL when unknown. */
char *zl_spool_path(const struct zl_push_opts *o);
/*
 * Spool (url, doc) of the run called name; *path_out gets the file (caller frees).
 * 0, or -1 with err.
 */
int zl_spool_write(const struct zl_push_opts *o, const char *url, const char *name,
		   const char *doc, char **path_out, struct strbuf *err);
/* The spool's payload files in dir, sorted = oldest first (none when dir is missing). */
int zl_spool_files(const char *dir, struct strvec *out, struct strbuf *err);

/* One spool file read back. Owner: the caller; zl_spooled_release(). */
struct zl_spooled {
	char *url;           /* as stored: redacted */
	int url_redacted;    /* its secrets were cut: it cannot be sent to as it is */
	char *name;          /* the payload's run_id, else the file's name */
	char *body;
};
int zl_spool_read(const char *path, struct zl_spooled *s, struct strbuf *err);
void zl_spooled_release(struct zl_spooled *s);

#endif

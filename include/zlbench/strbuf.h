/*
 * Growable string buffer (after git's strbuf).
 *
 * Invariants: buf is always NUL-terminated and never NULL; len < alloc unless
 * alloc == 0 (then buf points at a shared empty string and must not be written).
 * Owner: whoever declared the strbuf; strbuf_release() frees it and leaves it
 * reusable (as if STRBUF_INIT); strbuf_detach() hands buf over to the caller.
 */
#ifndef ZLBENCH_STRBUF_H
#define ZLBENCH_STRBUF_H

#include <stddef.h>
#include <stdarg.h>

extern char strbuf_slopbuf[];
struct strbuf {
	size_t alloc;
	size_t len;
	char *buf;
};
#define STRBUF_INIT { 0, 0, strbuf_slopbuf }

void strbuf_init(struct strbuf *sb, size_t hint);
void strbuf_release(struct strbuf *sb);
char *strbuf_detach(struct strbuf *sb, size_t *len);
void strbuf_grow(struct strbuf *sb, size_t extra);
void strbuf_setlen(struct strbuf *sb, size_t len);
static inline void strbuf_reset(struct strbuf *sb) { strbuf_setlen(sb, 0); }

void strbuf_add(struct strbuf *sb, const void *data, size_t len);
void strbuf_addstr(struct strbuf *sb, const char *s);
void strbuf_addch(struct strbuf *sb, int c);
void strbuf_addbuf(struct strbuf *sb, const struct strbuf *other);
void strbuf_addf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap);
void strbuf_rtrim(struct strbuf *sb);
void strbuf_trim(struct strbuf *sb);
/*
 * The terminal's edge (docs/architecture.md, "Edges"): append s with what a terminal
 * would act on shown instead of sent, as git's quote_c_style does: \n, \r, \t, other
 * control bytes and DEL as \xNN ("\x1b"), the C1 controls U+0080..U+009F as their two
 * bytes ("\xc2\x9b"), and bytes that are not UTF-8 as \xNN. So a value echoed in a
 * message or a table stays on its line, cannot forge another one, nor move the cursor,
 * set the title or clear the screen.
 */
void strbuf_add_printable(struct strbuf *sb, const char *s);
/* 1 when s holds a control byte (below 0x20, or DEL). */
int zl_has_control_char(const char *s);
/* The length (1..4) of the valid UTF-8 character at s[0..n), or 0 when none starts there. */
size_t zl_utf8_seq_len(const unsigned char *s, size_t n);

/*
 * Read a whole fd or file, whatever it is. Returns bytes read or -1 with errno set.
 * A file that comes from outside is read with zl_read_file() (fsutil.h) instead:
 * regular files only, with a size cap.
 */
long strbuf_read_fd(struct strbuf *sb, int fd);
long strbuf_read_file(struct strbuf *sb, const char *path);

#endif

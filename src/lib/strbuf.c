#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "zlbench/strbuf.h"
#include "zlbench/util.h"
#include "zlbench/banned.h"

char strbuf_slopbuf[1];

void strbuf_init(struct strbuf *sb, size_t hint)
{
	sb->alloc = sb->len = 0;
	sb->buf = strbuf_slopbuf;
	if (hint)
		strbuf_grow(sb, hint);
}

void strbuf_release(struct strbuf *sb)
{
	if (sb->alloc)
		free(sb->buf);
	strbuf_init(sb, 0);
}

char *strbuf_detach(struct strbuf *sb, size_t *len)
{
	char *res;

	strbuf_grow(sb, 0);
	res = sb->buf;
	if (len)
		*len = sb->len;
	strbuf_init(sb, 0);
	return res;
}

void strbuf_grow(struct strbuf *sb, size_t extra)
{
	int fresh = !sb->alloc;

	if (fresh)
		sb->buf = NULL;
	ALLOC_GROW(sb->buf, sb->len + extra + 1, sb->alloc);
	if (fresh)
		sb->buf[0] = '\0';
}

void strbuf_setlen(struct strbuf *sb, size_t len)
{
	if (!sb->alloc)
		return;
	sb->len = len;
	sb->buf[len] = '\0';
}

void strbuf_add(struct strbuf *sb, const void *data, size_t len)
{
	strbuf_grow(sb, len);
	memcpy(sb->buf + sb->len, data, len);
	sb->len += len;
	sb->buf[sb->len] = '\0';
}

void strbuf_addstr(struct strbuf *sb, const char *s)
{
	strbuf_add(sb, s, strlen(s));
}

void strbuf_addch(struct strbuf *sb, int c)
{
	char ch = (char)c;
	strbuf_add(sb, &ch, 1);
}

void strbuf_addbuf(struct strbuf *sb, const struct strbuf *other)
{
	strbuf_add(sb, other->buf, other->len);
}

void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		return;
	strbuf_grow(sb, (size_t)n);
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	sb->len += (size_t)n;
}

void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(sb, fmt, ap);
	va_end(ap);
}

void strbuf_rtrim(struct strbuf *sb)
{
	while (sb->len && (sb->buf[sb->len - 1] == ' ' || sb->buf[sb->len - 1] == '\t' ||
			   sb->buf[sb->len - 1] == '\n' || sb->buf[sb->len - 1] == '\r'))
		sb->len--;
	if (sb->alloc)
		sb->buf[sb->len] = '\0';
}

void strbuf_trim(struct strbuf *sb)
{
	size_t start = 0;

	strbuf_rtrim(sb);
	while (start < sb->len && (sb->buf[start] == ' ' || sb->buf[start] == '\t' ||
				   sb->buf[start] == '\n' || sb->buf[start] == '\r'))
		start++;
	if (start) {
		memmove(sb->buf, sb->buf + start, sb->len - start);
		strbuf_setlen(sb, sb->len - start);
	}
}

long strbuf_read_fd(struct strbuf *sb, int fd)
{
	size_t start = sb->len;

	for (;;) {
		ssize_t n;

		strbuf_grow(sb, 8192);
		n = read(fd, sb->buf + sb->len, sb->alloc - sb->len - 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			strbuf_setlen(sb, start);
			return -1;
		}
		if (n == 0)
			break;
		sb->len += (size_t)n;
	}
	sb->buf[sb->len] = '\0';
	return (long)(sb->len - start);
}

long strbuf_read_file(struct strbuf *sb, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	long n;
	int saved;

	if (fd < 0)
		return -1;
	n = strbuf_read_fd(sb, fd);
	saved = errno;
	close(fd);
	errno = saved;
	return n;
}

size_t zl_utf8_seq_len(const unsigned char *s, size_t n)
{
	size_t len, i;
	unsigned cp;

	if (!n)
		return 0;
	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, cp = s[0] & 0x1fu;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, cp = s[0] & 0x0fu;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, cp = s[0] & 0x07u;
	else
		return 0;
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3fu);
	}
	/* overlong forms, UTF-16 surrogates and beyond U+10FFFF are not UTF-8 */
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || (cp >= 0xd800 && cp <= 0xdfff) ||
	    cp > 0x10ffff)
		return 0;
	return len;
}

void strbuf_add_printable(struct strbuf *sb, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n = strlen(str);

	while (n) {
		size_t len = zl_utf8_seq_len(s, n);

		if (len == 1 && *s >= 0x20 && *s != 0x7f) {
			strbuf_addch(sb, *s);
		} else if (*s == '\n') {
			strbuf_addstr(sb, "\\n");
		} else if (*s == '\r') {
			strbuf_addstr(sb, "\\r");
		} else if (*s == '\t') {
			strbuf_addstr(sb, "\\t");
		} else if (len == 2 && s[0] == 0xc2 && s[1] < 0xa0) {
			/* U+0080..U+009F: C1 controls (U+009B is CSI to a terminal) */
			strbuf_addf(sb, "\\x%02x\\x%02x", s[0], s[1]);
		} else if (len > 1) {
			strbuf_add(sb, s, len);
		} else {
			/* a control byte, or a byte that starts no UTF-8 character */
			strbuf_addf(sb, "\\x%02x", *s);
			len = 1;
		}
		s += len;
		n -= len;
	}
}

int zl_has_control_char(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 1;
	return 0;
}

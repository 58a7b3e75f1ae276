#include "text_i.h"

#include <stdarg.h>
#include <stdbool.h>
#include <string.h>

unsigned long cg_utf8_next(const unsigned char *p, size_t *n)
{
	unsigned long cp;
	size_t len, i;

	if (p[0] < 0x80) {
		*n = 1;
		return p[0];
	}
	if ((p[0] & 0xe0) == 0xc0) {
		len = 2;
		cp = p[0] & 0x1f;
	} else if ((p[0] & 0xf0) == 0xe0) {
		len = 3;
		cp = p[0] & 0x0f;
	} else if ((p[0] & 0xf8) == 0xf0) {
		len = 4;
		cp = p[0] & 0x07;
	} else {
		*n = 1;
		return 0xfffd;
	}
	for (i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80) {
			*n = 1;
			return 0xfffd;
		}
		cp = (cp << 6) | (p[i] & 0x3f);
	}
	*n = len;
	return cp;
}

/* Bytes from @p that are printable ASCII other than stop[0] and stop[1]
 * (@stop has one or two characters): they go out as they are, in one append. */
static size_t plain_run(const unsigned char *p, const unsigned char *end, const char *stop)
{
	const unsigned char *q = p;

	while (q < end && *q >= 0x20 && *q < 0x7f && *q != (unsigned char)stop[0] &&
	       *q != (unsigned char)stop[1])
		q++;
	return (size_t)(q - p);
}

/* A double-quoted string literal of @s: quotes, backslashes and newlines
 * escaped as both languages spell them, printable ASCII as it is, any other
 * code point through @escape (the language's own spelling). */
static int quoted(struct buf *b, const char *s, size_t len,
		  int (*escape)(struct buf *b, unsigned long cp))
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;
	unsigned long cp;
	size_t n;

	buf_putc(b, '"');
	while (p < end && !buf_error(b)) {
		n = plain_run(p, end, "\"\\");
		if (n) {
			buf_append(b, p, n);
			p += n;
			continue;
		}
		cp = cg_utf8_next(p, &n);
		p += n;
		if (cp == '"' || cp == '\\')
			buf_printf(b, "\\%c", (char)cp);
		else if (cp == '\n')
			buf_puts(b, "\\n");
		else if (cp >= 0x20 && cp < 0x7f)
			buf_putc(b, (char)cp);
		else
			escape(b, cp);
	}
	return buf_putc(b, '"');
}

static int py_escape(struct buf *b, unsigned long cp)
{
	if (cp == '\t')
		return buf_puts(b, "\\t");
	if (cp < 0x100)
		return buf_printf(b, "\\x%02lx", cp);
	if (cp < 0x10000)
		return buf_printf(b, "\\u%04lx", cp);
	return buf_printf(b, "\\U%08lx", cp);
}

int cg_py_str_n(struct buf *b, const char *s, size_t len)
{
	return quoted(b, s, len, py_escape);
}

/* Characters that end a line in one of our target languages. */
static bool line_break(unsigned long cp)
{
	return cp == '\n' || cp == '\r' || cp == 0x2028 || cp == 0x2029 || cp == 0x85;
}

static bool rest_blank(const unsigned char *p, const unsigned char *end)
{
	while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
		p++;
	return p == end;
}

int cg_py_doc_n(struct buf *b, const char *s, size_t len, const char *indent)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;
	size_t n, start = b->len;
	unsigned long cp;

	while (p < end && !buf_error(b)) {
		n = plain_run(p, end, "\"\\");
		if (n) {
			buf_append(b, p, n);
			p += n;
			continue;
		}
		cp = cg_utf8_next(p, &n);
		if (cp == '\r' && p + 1 < end && p[1] == '\n')
			n = 2;
		p += n;
		if (line_break(cp)) {
			while (b->len > start && b->data[b->len - 1] == ' ')
				b->len--;
			buf_putc(b, '\n');
			if (p < end && *p != '\n' && *p != '\r')
				buf_puts(b, indent);
		} else if (cp == '\\') {
			buf_puts(b, "\\\\");
		} else if (cp == '"') {
			/* A quote that could join the closing """ or make one
			 * (trailing blanks are trimmed, so look past them). */
			buf_puts(b, (p < end && *p == '"') || rest_blank(p, end) ? "\\\"" : "\"");
		} else if (cp == '\t') {
			buf_puts(b, "    ");
		} else if (cp < 0x20 || cp == 0x7f || cp == 0xfffd) {
			py_escape(b, cp);
		} else {
			buf_append(b, p - n, n);
		}
	}
	if (buf_error(b))
		return buf_error(b);
	while (b->len > start && (b->data[b->len - 1] == ' ' || b->data[b->len - 1] == '\n'))
		b->data[--b->len] = '\0';
	return 0;
}

/* UTF-16 escapes: a surrogate pair above the BMP. */
static int ts_escape(struct buf *b, unsigned long cp)
{
	if (cp < 0x10000)
		return buf_printf(b, "\\u%04lx", cp);
	return buf_printf(b, "\\u%04lx\\u%04lx", 0xd800 + ((cp - 0x10000) >> 10),
			  0xdc00 + ((cp - 0x10000) & 0x3ff));
}

int cg_ts_str_n(struct buf *b, const char *s, size_t len)
{
	return quoted(b, s, len, ts_escape);
}

int cg_ts_doc_n(struct buf *b, const char *s, size_t len, const char *indent)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;
	unsigned long cp;
	size_t n, start;

	buf_printf(b, "%s *", indent);
	start = b->len;
	while (p < end && !buf_error(b)) {
		n = plain_run(p, end, "/");
		if (n) {
			if (b->len == start)
				buf_putc(b, ' ');
			buf_append(b, p, n);
			p += n;
			continue;
		}
		cp = cg_utf8_next(p, &n);
		if (cp == '\r' && p + 1 < end && p[1] == '\n')
			n = 2;
		p += n;
		if (b->len == start && !line_break(cp))
			buf_putc(b, ' ');
		if (line_break(cp)) {
			buf_printf(b, "\n%s *", indent);
			start = b->len;
		} else if (cp == '/' && b->len && b->data[b->len - 1] == '*') {
			buf_puts(b, "\\/");
		} else if (cp == '\t') {
			buf_puts(b, "    ");
		} else if (cp < 0x20 || cp == 0x7f || cp == 0xfffd) {
			buf_printf(b, "\\x%02lx", cp & 0xff);
		} else {
			buf_append(b, p - n, n);
		}
	}
	return buf_putc(b, '\n');
}

int cg_md_line_n(struct buf *b, const char *s, size_t len, size_t max)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;
	size_t start = b->len, n;
	unsigned long cp;
	bool space = false;

	while (p < end && !buf_error(b)) {
		cp = cg_utf8_next(p, &n);
		if (cp < 0x20 || cp == 0x7f || cp == ' ' || line_break(cp)) {
			p += n;
			space = b->len > start;
			continue;
		}
		if (b->len - start + n + (space ? 1 : 0) > max) {
			buf_puts(b, "...");
			break;
		}
		buf_puts(b, space ? " " : "");
		space = false;
		if (cp == '`')
			buf_putc(b, '\'');
		else
			buf_append(b, p, n);
		p += n;
	}
	return buf_error(b);
}

size_t cg_first_sentence(const char *s)
{
	const char *p;

	for (p = s; *p; p++) {
		if (*p == '.' && (p[1] == ' ' || p[1] == '\n' || p[1] == '\r'))
			return (size_t)(p - s) + 1;
		if (*p == '\n' && (p[1] == '\n' || (p[1] == '\r' && p[2] == '\n')))
			return (size_t)(p - s);
	}
	return (size_t)(p - s);
}

int cg_camel(struct buf *b, const char *ident)
{
	bool up = true;

	for (; *ident; ident++) {
		if (*ident == '_') {
			up = true;
			continue;
		}
		buf_putc(b, up && *ident >= 'a' && *ident <= 'z' ? (char)(*ident - 'a' + 'A')
								 : *ident);
		up = false;
	}
	return buf_error(b);
}

int cg_py_str(struct buf *b, const char *s)
{
	return cg_py_str_n(b, s, strlen(s));
}

int cg_py_doc(struct buf *b, const char *s, const char *indent)
{
	return cg_py_doc_n(b, s, strlen(s), indent);
}

int cg_ts_str(struct buf *b, const char *s)
{
	return cg_ts_str_n(b, s, strlen(s));
}

int cg_ts_doc(struct buf *b, const char *s, const char *indent)
{
	return cg_ts_doc_n(b, s, strlen(s), indent);
}

int cg_md_line(struct buf *b, const char *s, size_t max)
{
	return cg_md_line_n(b, s, strlen(s), max);
}

int cg_cat(struct buf *b, ...)
{
	const char *s;
	va_list ap;

	va_start(ap, b);
	while ((s = va_arg(ap, const char *)))
		buf_puts(b, s);
	va_end(ap);
	return buf_error(b);
}

#include "buf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void buf_init(struct buf *b, size_t max)
{
	b->data = NULL;
	b->len = 0;
	b->cap = 0;
	b->max = max;
	b->err = 0;
}

int buf_error(const struct buf *b)
{
	return b->err;
}

int buf_fail(struct buf *b, int err)
{
	if (!b->err)
		b->err = err;
	return b->err;
}

int buf_first_error(const struct buf *b, ...)
{
	va_list ap;
	int err = 0;

	va_start(ap, b);
	for (; b && !err; b = va_arg(ap, const struct buf *))
		err = b->err;
	va_end(ap);
	return err;
}

/* Room for @need bytes and the terminator; false with *err set on failure. */
static bool grow(struct buf *b, size_t need, int *err)
{
	size_t cap;
	char *p;

	if (need > b->max) {
		*err = -E2BIG;
		return false;
	}
	if (need + 1 <= b->cap)
		return true;
	cap = b->cap ? b->cap : 256;
	while (cap < need + 1)
		cap *= 2;
	p = realloc(b->data, cap);
	if (!p) {
		*err = -ENOMEM;
		return false;
	}
	b->data = p;
	b->cap = cap;
	return true;
}

int buf_append(struct buf *b, const void *p, size_t n)
{
	if (b->err)
		return b->err;
	if (n > b->max - b->len)
		return buf_fail(b, -E2BIG);
	if (!grow(b, b->len + n, &b->err))
		return b->err;
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
	return 0;
}

int buf_puts(struct buf *b, const char *s)
{
	return buf_append(b, s, strlen(s));
}

int buf_putc(struct buf *b, char c)
{
	return buf_append(b, &c, 1);
}

int buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->err)
		return b->err;
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return buf_fail(b, -EINVAL);
	if ((size_t)n > b->max - b->len)
		return buf_fail(b, -E2BIG);
	if (!grow(b, b->len + (size_t)n, &b->err))
		return b->err;
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
	return 0;
}

void buf_reset(struct buf *b)
{
	b->len = 0;
	b->err = 0;
	if (b->data)
		b->data[0] = '\0';
}

void buf_free(struct buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = 0;
	b->cap = 0;
	b->err = 0;
}

char *buf_steal(struct buf *b, size_t *len)
{
	char *p = b->data;

	if (!p)
		p = strdup("");
	if (len)
		*len = p ? b->len : 0;
	b->data = NULL;
	b->len = 0;
	b->cap = 0;
	b->err = 0;
	return p;
}

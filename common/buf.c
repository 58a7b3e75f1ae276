#include "buf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void buf_init(struct buf *b, size_t max)
{
	b->data = NULL;
	b->len = 0;
	b->cap = 0;
	b->max = max;
}

static int grow(struct buf *b, size_t need)
{
	size_t cap;
	char *p;

	if (need > b->max)
		return -E2BIG;
	if (need + 1 <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 256;
	while (cap < need + 1)
		cap *= 2;
	p = realloc(b->data, cap);
	if (!p)
		return -ENOMEM;
	b->data = p;
	b->cap = cap;
	return 0;
}

int buf_append(struct buf *b, const void *p, size_t n)
{
	int rc;

	if (n > b->max - b->len)
		return -E2BIG;
	rc = grow(b, b->len + n);
	if (rc)
		return rc;
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
	int n, rc;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -EINVAL;
	if ((size_t)n > b->max - b->len)
		return -E2BIG;
	rc = grow(b, b->len + (size_t)n);
	if (rc)
		return rc;
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
	return 0;
}

void buf_reset(struct buf *b)
{
	b->len = 0;
	if (b->data)
		b->data[0] = '\0';
}

void buf_free(struct buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = 0;
	b->cap = 0;
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
	return p;
}

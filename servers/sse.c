#include "sse.h"

#include <errno.h>
#include <limits.h>
#include <string.h>

/* Field names are short; a type longer than this is not one we act on. */
#define SSE_TYPE_MAX 256

void sse_parser_init(struct sse_parser *p, size_t max)
{
	buf_init(&p->line, max);
	buf_init(&p->data, max);
	buf_init(&p->type, SSE_TYPE_MAX);
	buf_init(&p->id, SSE_TYPE_MAX);
	p->retry_ms = -1;
	p->has_data = false;
	p->after_cr = false;
	p->started = false;
	p->failed = false;
}

void sse_parser_free(struct sse_parser *p)
{
	buf_free(&p->line);
	buf_free(&p->data);
	buf_free(&p->type);
	buf_free(&p->id);
}

const char *sse_parser_last_id(const struct sse_parser *p)
{
	return p->id.data ? p->id.data : "";
}

long sse_parser_retry_ms(const struct sse_parser *p)
{
	return p->retry_ms;
}

static int dispatch(struct sse_parser *p, sse_event_fn fn, void *ctx)
{
	struct sse_event ev;
	int rc = 0;

	/* An event without data lines is not dispatched; its id still counts. */
	if (p->has_data) {
		if (p->data.len && p->data.data[p->data.len - 1] == '\n')
			p->data.data[--p->data.len] = '\0';
		ev.type = p->type.len ? p->type.data : "message";
		ev.data = p->data.data ? p->data.data : "";
		ev.data_len = p->data.len;
		ev.id = sse_parser_last_id(p);
		rc = fn(ctx, &ev);
	}
	buf_reset(&p->data);
	buf_reset(&p->type);
	p->has_data = false;
	return rc;
}

static void set_retry(struct sse_parser *p, const char *v, size_t n)
{
	long ms = 0;
	size_t i;

	if (!n)
		return;
	for (i = 0; i < n; i++) {
		if (v[i] < '0' || v[i] > '9')
			return;
		if (ms > (LONG_MAX - 9) / 10)
			return;
		ms = ms * 10 + (v[i] - '0');
	}
	p->retry_ms = ms;
}

static int field(struct sse_parser *p, const char *name, size_t nlen, const char *v, size_t vlen)
{
	int rc;

	if (nlen == 4 && !memcmp(name, "data", 4)) {
		rc = buf_append(&p->data, v, vlen);
		if (!rc)
			rc = buf_putc(&p->data, '\n');
		if (rc)
			return rc;
		p->has_data = true;
	} else if (nlen == 5 && !memcmp(name, "event", 5)) {
		buf_reset(&p->type);
		return buf_append(&p->type, v, vlen);
	} else if (nlen == 2 && !memcmp(name, "id", 2)) {
		/* The format ignores an id containing NUL. */
		if (memchr(v, '\0', vlen))
			return 0;
		buf_reset(&p->id);
		return buf_append(&p->id, v, vlen);
	} else if (nlen == 5 && !memcmp(name, "retry", 5)) {
		set_retry(p, v, vlen);
	}
	return 0;
}

static int line(struct sse_parser *p, sse_event_fn fn, void *ctx)
{
	const char *s = p->line.data ? p->line.data : "";
	size_t n = p->line.len;
	const char *colon;

	if (!p->started) {
		p->started = true;
		if (n >= 3 && !memcmp(s, "\xEF\xBB\xBF", 3)) {
			s += 3;
			n -= 3;
		}
	}
	if (!n)
		return dispatch(p, fn, ctx);
	if (s[0] == ':')
		return 0;
	colon = memchr(s, ':', n);
	if (!colon)
		return field(p, s, n, "", 0);
	n -= (size_t)(colon + 1 - s);
	if (n && colon[1] == ' ')
		return field(p, s, (size_t)(colon - s), colon + 2, n - 1);
	return field(p, s, (size_t)(colon - s), colon + 1, n);
}

int sse_parser_feed(struct sse_parser *p, const char *bytes, size_t n, sse_event_fn fn, void *ctx)
{
	size_t i = 0, start;
	int rc;

	if (p->failed)
		return -E2BIG;
	while (i < n) {
		if (p->after_cr) {
			p->after_cr = false;
			if (bytes[i] == '\n') {
				i++;
				continue;
			}
		}
		start = i;
		while (i < n && bytes[i] != '\r' && bytes[i] != '\n')
			i++;
		rc = buf_append(&p->line, bytes + start, i - start);
		if (rc)
			goto out_fail;
		if (i == n)
			break;
		p->after_cr = bytes[i] == '\r';
		i++;
		rc = line(p, fn, ctx);
		buf_reset(&p->line);
		if (rc == -E2BIG || rc == -ENOMEM)
			goto out_fail;
		if (rc)
			return rc;
	}
	return 0;
out_fail:
	p->failed = true;
	return rc;
}

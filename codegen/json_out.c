/* The .json file of a tool: the Tool object as the server sent it, keys in
 * the server's order, indented by two spaces. Written here rather than by
 * json_dumps because it is on the per-file path and jansson's callback
 * printer is the slowest step of a render. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "json_out_i.h"

#define MAX_DEPTH 2048
/* Past this depth a value is written on one line: indenting every level
 * makes the text quadratic in depth (a 70 KB tool of 2,000 levels became
 * 10.5 MB), and no reader follows nesting that deep by indentation. */
#define INDENT_MAX 32

static int put_indent(struct buf *b, int depth)
{
	static const char spaces[] =
	    "                                                                ";
	size_t n = (size_t)depth * 2;

	buf_putc(b, '\n');
	while (n && !buf_error(b)) {
		size_t k = n < sizeof(spaces) - 1 ? n : sizeof(spaces) - 1;

		buf_append(b, spaces, k);
		n -= k;
	}
	return buf_error(b);
}

static int put_string(struct buf *b, const char *s, size_t len)
{
	const char *p = s, *end = s + len, *run;

	buf_putc(b, '"');
	while (p < end && !buf_error(b)) {
		for (run = p; p < end && (unsigned char)*p >= 0x20 && *p != '"' && *p != '\\'; p++)
			;
		buf_append(b, run, (size_t)(p - run));
		if (p == end)
			break;
		switch (*p) {
		case '"':
			buf_puts(b, "\\\"");
			break;
		case '\\':
			buf_puts(b, "\\\\");
			break;
		case '\n':
			buf_puts(b, "\\n");
			break;
		case '\r':
			buf_puts(b, "\\r");
			break;
		case '\t':
			buf_puts(b, "\\t");
			break;
		default:
			buf_printf(b, "\\u%04x", (unsigned)(unsigned char)*p);
			break;
		}
		p++;
	}
	return buf_putc(b, '"');
}

static int put_value(struct buf *b, json_t *v, int depth)
{
	bool flat = depth >= INDENT_MAX;
	char num[64];
	const char *key;
	json_t *item;
	size_t i, n;

	if (depth > MAX_DEPTH)
		return buf_puts(b, "null");
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		if (!json_object_size(v))
			return buf_puts(b, "{}");
		buf_putc(b, '{');
		n = 0;
		json_object_foreach(v, key, item)
		{
			buf_puts(b, !n++ ? "" : flat ? ", " : ",");
			if (!flat)
				put_indent(b, depth + 1);
			put_string(b, key, strlen(key));
			buf_puts(b, ": ");
			put_value(b, item, depth + 1);
		}
		if (!flat)
			put_indent(b, depth);
		return buf_putc(b, '}');
	case JSON_ARRAY:
		if (!json_array_size(v))
			return buf_puts(b, "[]");
		buf_putc(b, '[');
		json_array_foreach(v, i, item)
		{
			buf_puts(b, !i ? "" : flat ? ", " : ",");
			if (!flat)
				put_indent(b, depth + 1);
			put_value(b, item, depth + 1);
		}
		if (!flat)
			put_indent(b, depth);
		return buf_putc(b, ']');
	case JSON_STRING:
		return put_string(b, json_string_value(v), json_string_length(v));
	case JSON_INTEGER:
		return buf_printf(b, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
	case JSON_REAL:
		/* As jansson prints reals: 17 digits, and always a real. */
		snprintf(num, sizeof(num), "%.17g", json_real_value(v));
		if (!strpbrk(num, ".eE"))
			strcat(num, ".0");
		return buf_puts(b, num);
	case JSON_TRUE:
		return buf_puts(b, "true");
	case JSON_FALSE:
		return buf_puts(b, "false");
	case JSON_NULL:
		return buf_puts(b, "null");
	}
	return buf_puts(b, "null");
}

int cg_json_pretty(struct buf *b, json_t *v)
{
	put_value(b, v, 0);
	return buf_putc(b, '\n');
}

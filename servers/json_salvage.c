/* One pass over the bytes: UTF-8 checked everywhere (strings are where it
 * matters; elsewhere a bad byte stays a syntax error after repair), and
 * brackets counted outside strings. jansson has no recovery mode, so the
 * repair is on the text, before the second decode. */
#include "json_salvage.h"

#include <string.h>

#include "../common/buf.h"

/* The length of the valid UTF-8 sequence at @p (at most @n bytes), or 0. */
static size_t utf8_seq(const unsigned char *p, size_t n)
{
	unsigned char c = p[0];
	unsigned char lo = 0x80, hi = 0xbf;
	size_t k, i;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		k = 2;
	else if (c >= 0xe0 && c <= 0xef)
		k = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		k = 4;
	else
		return 0;
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f; /* no surrogates */
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (n < k || p[1] < lo || p[1] > hi)
		return 0;
	for (i = 2; i < k; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	return k;
}

/* The end of the value that opens at @p[0] ('{' or '['), or @n if it never
 * closes. */
static size_t skip_value(const char *p, size_t n)
{
	size_t i, depth = 0;
	bool in_str = false, esc = false;

	for (i = 0; i < n; i++) {
		char c = p[i];

		if (in_str) {
			if (esc)
				esc = false;
			else if (c == '\\')
				esc = true;
			else if (c == '"')
				in_str = false;
			continue;
		}
		if (c == '"')
			in_str = true;
		else if (c == '{' || c == '[')
			depth++;
		else if ((c == '}' || c == ']') && --depth == 0)
			return i + 1;
	}
	return n;
}

static bool special(unsigned char c)
{
	return c == '"' || c == '\\' || c == '{' || c == '}' || c == '[' || c == ']';
}

/* The repaired copy of @text into @b. */
static int repair(const char *text, size_t len, struct buf *b)
{
	static const char fffd[] = "\xef\xbf\xbd";
	const unsigned char *p = (const unsigned char *)text;
	bool in_str = false, esc = false;
	size_t i = 0, k, depth = 0;
	int rc = 0;

	while (i < len && !rc) {
		unsigned char c = p[i];

		if (c >= 0x80) {
			esc = false;
			k = utf8_seq(p + i, len - i);
			rc = k ? buf_append(b, p + i, k) : buf_append(b, fffd, 3);
			i += k ? k : 1;
			continue;
		}
		if (!special(c)) {
			esc = false;
			for (k = 1; i + k < len && p[i + k] < 0x80 && !special(p[i + k]); k++)
				;
			rc = buf_append(b, p + i, k);
			i += k;
			continue;
		}
		if (in_str) {
			if (esc)
				esc = false;
			else if (c == '\\')
				esc = true;
			else if (c == '"')
				in_str = false;
		} else if (c == '"') {
			in_str = true;
		} else if (c == '{' || c == '[') {
			if (depth >= JSON_SALVAGE_MAX_DEPTH) {
				rc = buf_puts(b, "\"\\u0000mcpfs: nested too deep\"");
				i += skip_value(text + i, len - i);
				continue;
			}
			depth++;
		} else if (depth) {
			depth--;
		}
		rc = buf_putc(b, (char)c);
		i++;
	}
	return rc;
}

json_t *json_salvage_loadb(const char *text, size_t len, size_t flags, json_error_t *je,
			   bool *repaired)
{
	enum json_error_code code;
	json_error_t je2;
	struct buf b;
	json_t *v;

	if (repaired)
		*repaired = false;
	v = json_loadb(text, len, flags, je);
	if (v)
		return v;
	code = json_error_code(je);
	if (code != json_error_invalid_utf8 && code != json_error_stack_overflow)
		return NULL;
	/* The marker adds a few bytes per cut, never more than the value cut. */
	buf_init(&b, len * 3 + 64);
	if (repair(text, len, &b) == 0)
		v = json_loadb(b.data, b.len, flags, &je2);
	buf_free(&b);
	if (v && repaired)
		*repaired = true;
	return v;
}

bool json_salvage_has_cut(const json_t *v)
{
	const char *key;
	json_t *item;
	size_t i;

	switch (json_typeof(v)) {
	case JSON_STRING:
		return json_string_length(v) == JSON_SALVAGE_CUT_LEN &&
		       !memcmp(json_string_value(v), JSON_SALVAGE_CUT, JSON_SALVAGE_CUT_LEN);
	case JSON_OBJECT:
		json_object_foreach((json_t *)v, key,
				    item) if (json_salvage_has_cut(item)) return true;
		return false;
	case JSON_ARRAY:
		json_array_foreach(v, i, item) if (json_salvage_has_cut(item)) return true;
		return false;
	case JSON_INTEGER:
	case JSON_REAL:
	case JSON_TRUE:
	case JSON_FALSE:
	case JSON_NULL:
		return false;
	}
	return false;
}

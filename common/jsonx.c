#include "jsonx.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

int jsonx_array_sort(json_t *arr, int (*cmp)(const void *, const void *))
{
	size_t n = json_array_size(arr), i;
	json_t **v;

	if (n < 2)
		return 0;
	v = calloc(n, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		v[i] = json_incref(json_array_get(arr, i));
	qsort(v, n, sizeof(*v), cmp);
	json_array_clear(arr);
	for (i = 0; i < n; i++)
		json_array_append_new(arr, v[i]);
	free(v);
	return 0;
}

/* jansson's token buffer (strbuffer.c) starts at 16 bytes and doubles when a
 * byte would fill it: the byte whose growth fails, and is lost, is the one at
 * index 2^k - 1 of the token. */
#define LEX_BUF_MIN 16

/* What the lexer reads: `["` pad `",` text `]`. */
struct padded {
	const char *text;
	size_t len, pad, pos;
};

static size_t padded_read(void *buffer, size_t buflen, void *data)
{
	struct padded *p = data;
	char *out = buffer;
	size_t n = 0, k;

	while (n < buflen) {
		if (p->pos < 2) {
			out[n++] = "[\""[p->pos++];
		} else if (p->pos < 2 + p->pad) {
			k = 2 + p->pad - p->pos;
			k = k < buflen - n ? k : buflen - n;
			memset(out + n, 'a', k);
			n += k;
			p->pos += k;
		} else if (p->pos < 4 + p->pad) {
			out[n++] = "\","[p->pos++ - 2 - p->pad];
		} else if (p->pos < 4 + p->pad + p->len) {
			k = 4 + p->pad + p->len - p->pos;
			k = k < buflen - n ? k : buflen - n;
			memcpy(out + n, p->text + (p->pos - 4 - p->pad), k);
			n += k;
			p->pos += k;
		} else if (p->pos == 4 + p->pad + p->len) {
			out[n++] = ']';
			p->pos++;
		} else {
			break;
		}
	}
	return n;
}

size_t jsonx_longest_token(const char *text, size_t len)
{
	size_t i, start = 0, longest = 0;
	bool in_string = false, in_word = false;

	for (i = 0; i < len; i++) {
		char c = text[i];

		if (in_string) {
			if (c == '\\') {
				i++;
				continue;
			}
			if (c != '"')
				continue;
			in_string = false;
			longest = i + 1 - start > longest ? i + 1 - start : longest;
		} else if (c == '"' || (c && strchr("{}[],: \t\r\n", c))) {
			in_word = false;
			in_string = c == '"';
			start = i;
		} else if (!in_word) {
			in_word = true;
			start = i;
		}
		if (in_word)
			longest = i + 1 - start > longest ? i + 1 - start : longest;
	}
	return longest;
}

json_t *jsonx_parse_own(const char *text, size_t len, size_t token_max)
{
	/* The pad token, quotes included, is 1.5 P long for a power of two P
	 * above any token: its growths happen at indexes below P, its closing
	 * quote (index 1.5 P - 1) is never the byte lost, and it leaves the
	 * buffer 2 P long, which no later token fills. */
	struct padded p = {.text = text, .len = len};
	size_t big = LEX_BUF_MIN;
	json_t *all, *v;

	while (big <= token_max)
		big *= 2;
	p.pad = big + big / 2 - 2;
	all = json_load_callback(padded_read, &p, JSON_ALLOW_NUL, NULL);
	v = json_array_size(all) == 2 ? json_incref(json_array_get(all, 1)) : NULL;
	json_decref(all);
	return v;
}

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
 * index 2^k - 1 of the token. A number or keyword holds one byte more while
 * the lexer looks past its end. */
#define LEX_BUF_MIN 16
/* Pad bytes after the pad's last growth: a failed growth is tried again on
 * each of them before the pad's closing quote could be the byte lost. */
#define PAD_RETRIES 16

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
	/* For the power of two Q above any token (and its look-ahead byte),
	 * the pad token, quotes included, is Q/2 + PAD_RETRIES long: its last
	 * growth (to Q, at index Q/2 - 1) is a pad byte, its closing quote is at
	 * no growth index, and no later token fills a buffer of Q. Lexing the
	 * pad costs as much as lexing text, so it is no longer than that. Q
	 * starts where Q/2 - 1 is a growth index and the retries end below
	 * Q - 1, the next one. */
	struct padded p = {.text = text, .len = len};
	size_t q = 2 * (LEX_BUF_MIN + PAD_RETRIES);
	json_t *all, *v;

	while (q <= token_max + 1)
		q *= 2;
	p.pad = q / 2 + PAD_RETRIES - 2;
	all = json_load_callback(padded_read, &p, JSON_ALLOW_NUL, NULL);
	v = json_array_size(all) == 2 ? json_incref(json_array_get(all, 1)) : NULL;
	json_decref(all);
	return v;
}

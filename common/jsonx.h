/* Small jansson helpers jansson itself lacks. */
#ifndef MCPFS_COMMON_JSONX_H
#define MCPFS_COMMON_JSONX_H

#include <jansson.h>

/* Sort @arr in place with @cmp, which compares two `json_t *const *`.
 * Returns 0, or -ENOMEM with @arr unchanged. */
int jsonx_array_sort(json_t *arr, int (*cmp)(const void *, const void *));

/* Parse @len bytes of JSON that mcpfs wrote itself (json_dumps), none of
 * whose strings, numbers or keys is longer than @token_max bytes as written
 * (@len bounds them all). New value, or NULL when out of memory or not JSON.
 * A string may hold \u0000 (JSON_ALLOW_NUL), as the server sent it.
 *
 * Why not json_loadb: jansson 2.14's lexer ignores a failed growth of its
 * token buffer and goes on with a byte missing, then reads past the token or
 * asserts (akheron/jansson#362). A parse made for each file rendered must
 * fail cleanly instead, so the text is read behind a string of padding long
 * enough that every growth happens inside it: a byte lost there is a pad
 * byte, and no token after it grows the buffer. */
json_t *jsonx_parse_own(const char *text, size_t len, size_t token_max);
/* The longest token (a string with its quotes, a number, a keyword) of the
 * @len bytes of valid JSON at @text: jsonx_parse_own's @token_max, whose
 * padding costs as much to read as it is long. */
size_t jsonx_longest_token(const char *text, size_t len);

#endif

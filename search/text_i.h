/* Text to terms: the one normalisation both the index and the queries use.
 * Words are runs of ASCII letters and digits (other bytes >= 0x80 are kept
 * inside words, so non-English names still match themselves), split where
 * camelCase turns ("getFileInfo", "HTMLParser"), lowercased, stemmed lightly
 * (plurals, -ing, -ed, -tion, a final e) and, for queries, stripped of
 * English function words. */
#ifndef MCPFS_SEARCH_TEXT_I_H
#define MCPFS_SEARCH_TEXT_I_H

#include <stdbool.h>
#include <stddef.h>

#define SEARCH_TERM_MAX 32 /* bytes of a term kept; longer words are cut */

/* Called once per term in text order; @term is NUL-terminated, valid only
 * during the call. Returns 0 to go on, else stops the walk with that value. */
typedef int (*search_term_fn)(void *ctx, const char *term, size_t len);

/* Walk the terms of @s (@n bytes). @stem: apply the light stemmer. @stop:
 * drop function words. Returns 0 or the first non-zero value of @fn. */
int search_terms(const char *s, size_t n, bool stem, bool stop, search_term_fn fn, void *ctx);

/* Stem @w in place (ASCII lowercase, NUL-terminated); returns its length. */
size_t search_stem(char *w, size_t len);

/* Whether @w (lowercase) is an English function word. */
bool search_stopword(const char *w);

#endif

/* Text to terms: the one normalisation both the index and the queries use.
 * Words are runs of ASCII letters and digits (other bytes >= 0x80 are kept
 * inside words, so non-English names still match themselves), split where
 * camelCase turns ("getFileInfo", "HTMLParser"), lowercased, two-word verbs
 * joined ("log in": "login", "how many": "count"), stripped of function
 * words and of the words a request is phrased in ("please", "want"), and
 * stemmed lightly (plurals, -ing, -ed, -tion, a final e). Each term comes
 * with flags that say whether its word looks like a value (a number, a
 * name, a topic) rather than a task. */
#ifndef MCPFS_SEARCH_TEXT_I_H
#define MCPFS_SEARCH_TEXT_I_H

#include <stdbool.h>
#include <stddef.h>

#define SEARCH_TERM_MAX 32 /* bytes of a term kept; longer words are cut */

/* What a term's word looked like, for queries: the value of a task rather
 * than the task ("pid 4242", "Alice", "notes about fusion energy"). */
enum search_term_flag {
	SEARCH_TERM_DIGIT = 1u << 0, /* begins with a digit */
	SEARCH_TERM_CAP = 1u << 1,   /* Capitalised, not the text's first word */
	SEARCH_TERM_ARG = 1u << 2,   /* after "about", "named", "called"... */
};

/* Called once per term in text order with its flags; @term is
 * NUL-terminated, valid only during the call. Returns 0 to go on, else
 * stops the walk with that value. */
typedef int (*search_term_fn)(void *ctx, const char *term, size_t len, unsigned flags);

/* How search_terms treats words. */
enum search_text {
	SEARCH_TEXT_STEM = 1u << 0,    /* apply the light stemmer */
	SEARCH_TEXT_STOP = 1u << 1,    /* drop function words */
	SEARCH_TEXT_PHRASES = 1u << 2, /* join two-word verbs ("log in": "login") */
};

/* Walk the terms of @s (@n bytes) as @how (enum search_text) says. Returns
 * 0 or the first non-zero value of @fn. */
int search_terms(const char *s, size_t n, unsigned how, search_term_fn fn, void *ctx);

/* Stem @w in place (ASCII lowercase, NUL-terminated); returns its length. */
size_t search_stem(char *w, size_t len);

/* Whether @w (lowercase) is an English function word. */
bool search_stopword(const char *w);

#endif

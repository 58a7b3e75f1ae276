/* Query expansion from WordNet (Debian's wordnet-base): a query word's
 * synonyms, the other words of its most common senses. Read in place from
 * the database's sorted index files and byte-addressed data files, mapped
 * once: a lookup is a binary search and a few line reads, nothing loaded. */
#ifndef MCPFS_SEARCH_WORDNET_I_H
#define MCPFS_SEARCH_WORDNET_I_H

#include <stddef.h>

#define SEARCH_WORDNET_DIR "/usr/share/wordnet"

struct search_wordnet;

/* Map the noun and verb files under @dir. NULL when they are missing or
 * unreadable (the search then goes without). */
struct search_wordnet *search_wordnet_open(const char *dir);
void search_wordnet_close(struct search_wordnet *wn); /* accepts NULL */

/* Call @fn for each one-word synonym in the first @senses senses (per part
 * of speech) of @word (lowercase, inflected forms reduced to their lemma). */
void search_wordnet_each(const struct search_wordnet *wn, const char *word, unsigned senses,
			 void (*fn)(void *ctx, const char *syn, size_t len), void *ctx);

#endif

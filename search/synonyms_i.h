/* A small table of words that name the same act or thing in tool catalogs
 * ("delete" / "remove", "folder" / "directory"): a query term also looks for
 * the other words of its groups, at a lower weight. General words only,
 * never words picked for one query. */
#ifndef MCPFS_SEARCH_SYNONYMS_I_H
#define MCPFS_SEARCH_SYNONYMS_I_H

#include <stddef.h>

struct search_synonyms;

/* New table with every word stemmed as the index stems it; NULL when out of
 * memory. */
struct search_synonyms *search_synonyms_new(void);
void search_synonyms_free(struct search_synonyms *s);

/* Call @fn for every other term in @term's groups (each once). */
void search_synonyms_each(const struct search_synonyms *s, const char *term,
			  void (*fn)(void *ctx, const char *syn), void *ctx);

#endif

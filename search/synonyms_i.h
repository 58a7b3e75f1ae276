/* A table of words that name the same act or thing in software and tool
 * catalogs ("delete" / "remove" / "erase", "issue" / "ticket" / "bug"): a
 * query term also looks for the other words of its groups, at a lower
 * weight. General vocabulary only, never words picked for one query. Each
 * group is an act (a verb: what a tool does) or a thing (what it works on);
 * the floor weighs acts less. */
#ifndef MCPFS_SEARCH_SYNONYMS_I_H
#define MCPFS_SEARCH_SYNONYMS_I_H

#include <stdbool.h>
#include <stddef.h>

struct search_synonyms;

/* New table with every word stemmed as the index stems it; NULL when out of
 * memory. */
struct search_synonyms *search_synonyms_new(void);
void search_synonyms_free(struct search_synonyms *s);

/* Call @fn for every other term in @term's groups (each once). */
void search_synonyms_each(const struct search_synonyms *s, const char *term,
			  void (*fn)(void *ctx, const char *syn), void *ctx);

/* Whether @term names an act (a verb: "delete", "send") rather than a
 * thing. */
bool search_synonyms_act(const struct search_synonyms *s, const char *term);

#endif

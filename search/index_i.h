/* The index's insides, shared by its files: index.c builds and ranks,
 * regex.c matches patterns, result.c renders what was found. */
#ifndef MCPFS_SEARCH_INDEX_I_H
#define MCPFS_SEARCH_INDEX_I_H

#include <jansson.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "../codegen/codegen.h"
#include "search.h"
#include "synonyms_i.h"

struct search_server {
	char *name;    /* owned */
	json_t *tools; /* a reference */
};

struct search_doc {
	uint32_t server;   /* index into servers */
	uint32_t tool;	   /* index into that server's tools array */
	json_t *tool_json; /* borrowed from the server's tools */
	const char *name;  /* the MCP tool name, borrowed from tool_json */
};

struct search_posting {
	uint32_t doc;
	float tf;	/* the field-weighted, length-normalised term frequency */
	float strength; /* 1 when in the name, title or first sentence, else less */
	bool named;	/* in the tool's name or title */
};

struct search_term {
	char *s; /* owned */
	uint32_t hash;
	float idf;
	struct search_posting *p; /* owned, in doc order */
	uint32_t n, cap;
};

/* What a query has found in one doc so far. A query term counts once per
 * doc, by the best of its own term and its expansions: the q* members hold
 * that best while the term is scored (stamp tells whose they are). */
struct search_acc {
	float score;	 /* the BM25F score */
	float mass;	 /* the query's weight the doc matched */
	float qscore;	 /* the current query term's share of score */
	float qmass;	 /* and of mass */
	uint32_t stamp;	 /* epoch + query term whose q* these are */
	uint16_t nmatch; /* query terms matched; one in the name or title counts 2 */
	uint8_t qnm;	 /* the current query term's share of nmatch */
	bool touched;
};

/* A candidate in the ranking. */
struct search_hit {
	uint32_t doc;
	float score;
	float conf; /* share of the query's weight the tool matched, 0..1 */
};

struct search_index {
	pthread_mutex_t lock; /* guards everything below */
	unsigned features;
	struct search_server *servers; /* sorted by name */
	size_t nservers, servers_cap;
	bool dirty; /* the servers changed since the last build */

	struct search_doc *docs; /* sorted by (server, tool name) */
	size_t ndocs;
	struct search_term *terms;
	size_t nterms, terms_cap;
	uint32_t *table; /* open addressing: term index + 1, 0 empty */
	size_t table_size;
	struct search_synonyms *syn;
	struct cg_root *root; /* the servers' folder names, for detail "full" */

	/* A query's scratch, one per doc, kept between queries. */
	struct search_acc *acc;
	uint32_t *touched;
	size_t ntouched;
	uint32_t epoch;
};

/* Build if dirty. Called with the lock held. 0 or -ENOMEM. */
int search_build(struct search_index *ix);

/* The regex mode: fills @hits (capacity @limit) best first. Returns their
 * count, or -1 with @err. Called with the lock held, after search_build. */
long search_regex(struct search_index *ix, const char *pattern, struct search_hit *hits,
		  size_t limit, struct err *err);

/* The result object for @hit at @detail: new, or NULL when out of memory. */
json_t *search_result(struct search_index *ix, const struct search_hit *hit,
		      enum search_detail detail);

#endif

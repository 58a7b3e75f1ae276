/* Tool search: one index over the tools of every server, ranked with BM25F
 * (BM25 over weighted fields), a floor so that a query no tool fits returns
 * nothing, and a regex mode (pcre2, with match limits).
 *
 * Fields and weights: the tool name split into words (snake, kebab,
 * camelCase) 3, the title 2, the description's first sentence 2 and the rest
 * 0.5, the server name 1, parameter names 1 and their descriptions 0.5. Words
 * are lowercased, stemmed lightly, two-word verbs joined ("log in": "login")
 * and query words looked up in a table of related words (search/synonyms.c)
 * at 0.4 of their weight, each query word counting once, by its best match.
 * The table is general vocabulary of software and tool catalogs, acts
 * ("delete", "remove", "erase") and things ("issue", "ticket", "bug"); a
 * lexical database (WordNet) measured worse: its everyday senses match
 * too much (BENCHMARKS.md). The floor is decided per query on the best five
 * by score: one must cover a quarter of the query's IDF-weighted words, where
 * a word no tool has weighs most and values and acts less, and score a
 * twentieth of what a tool matching every word in its name would
 * (search/index.c).
 * What each part adds, measured on task-worded queries and on queries held
 * back from tuning: BENCHMARKS.md, "tool search (issue 20)". Results come
 * best first, ties in (server, tool) order, so the same index and query
 * always give the same answer.
 *
 * Thread safety: every function may be called from any thread; one lock per
 * index (a query holds it for its whole run, well under a millisecond at
 * 10,000 tools). */
#ifndef MCPFS_SEARCH_SEARCH_H
#define MCPFS_SEARCH_SEARCH_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "../common/err.h"

struct hub;

#define SEARCH_QUERY_MAX 4096 /* bytes; a longer query is refused */
#define SEARCH_LIMIT_MAX 100
#define SEARCH_LIMIT_DEFAULT 5

enum search_detail {
	SEARCH_DETAIL_NAME,    /* server, tool, name ("server.tool"), score */
	SEARCH_DETAIL_SUMMARY, /* plus title (when set) and summary: one line */
	SEARCH_DETAIL_FULL,    /* plus description, import, signature, args */
};

/* The ranking's parts, each on by default (SEARCH_F_ALL); the benchmark
 * turns them off one at a time to measure what each adds. */
enum search_feature {
	SEARCH_F_STEM = 1u << 0,      /* light stemming */
	SEARCH_F_SYNONYMS = 1u << 1,  /* query expansion from the synonym table */
	SEARCH_F_WEIGHTS = 1u << 2,   /* field weights (off: every field 1) */
	SEARCH_F_FIRST = 1u << 3,     /* the description's first sentence a field */
	SEARCH_F_PARAMS = 1u << 4,    /* parameter names and descriptions indexed */
	SEARCH_F_THRESHOLD = 1u << 5, /* the floor for queries no tool fits */
	SEARCH_F_PHRASES = 1u << 6,   /* two-word verbs joined ("log in": "login") */
	SEARCH_F_VALUES = 1u << 7,    /* values (numbers, names) weigh less in the floor */
	SEARCH_F_ACTS = 1u << 8,      /* acts ("create") weigh half in the floor */
	SEARCH_F_GATE = 1u << 9,      /* the floor decides per query, not per tool */
	SEARCH_F_REACH = 1u << 10,    /* the tool that passes must reach a share of the
					 query's best possible score */
	SEARCH_F_ALL = (1u << 11) - 1,
};

struct search_opts {
	size_t limit;		   /* results at most; 0: SEARCH_LIMIT_DEFAULT */
	enum search_detail detail; /* SEARCH_DETAIL_NAME by default */
	bool regex;		   /* the query is a pcre2 pattern (caseless) */
	unsigned features;	   /* 0: SEARCH_F_ALL */
};

struct search_index;

/* A new, empty index; NULL when out of memory. @features as in
 * search_opts (0: all), fixed for the index's life because they shape what
 * is indexed. */
struct search_index *search_index_new(unsigned features);
void search_index_free(struct search_index *ix); /* accepts NULL */

/* Replace the tools of @server (an array of MCP Tool objects, kept by
 * reference: a catalog is never modified once built) or, with @tools NULL,
 * remove the server. Nothing is indexed until the next query (lazy).
 * Returns 0 or -ENOMEM. */
int search_index_set(struct search_index *ix, const char *server, json_t *tools);

/* Number of tools the index holds (after the next build). */
size_t search_index_ntools(struct search_index *ix);

/* Run @query. Returns a new object {"results": [...], "hint": "..."}: the
 * results best first, each {"server", "tool" (the MCP names), "name"
 * ("server.tool"), "score"} plus what @o->detail adds; "hint" only when
 * there are no results (the closest servers, or "try other words"). NULL
 * with @err (EXIT_USAGE) for an empty or too long query, an invalid regex,
 * or a regex that backtracks past its match limit; (EXIT_FAILED) when out
 * of memory. @o may be NULL. */
json_t *search_query(struct search_index *ix, const char *query, const struct search_opts *o,
		     struct err *err);

/* 0, or -1 with @err (EXIT_USAGE) for an empty or too long query: the
 * checks search_query makes first, for callers with work to do before. */
int search_query_check(const char *query, struct err *err);

/* Parse "name" / "summary" / "full". Returns 0, or -1 for anything else. */
int search_detail_parse(const char *s, enum search_detail *out);

/* A search to hand to code that must not link the hub (the bridge): the
 * query function and its context. */
struct search_source {
	json_t *(*query)(void *ctx, const char *query, const struct search_opts *o,
			 struct err *err);
	void *ctx;
};

/* An index kept current over a hub: built on the first query from
 * hub_tools (the on-disk catalog cache where the hub allows it), and a
 * server re-read after its catalog changed (a hub catalog listener). A
 * server whose catalog cannot be had is left out, and named in "skipped"
 * of the query's answer. */
struct search_hub;
/* @h is borrowed and must outlive the result. NULL when out of memory. */
struct search_hub *search_hub_new(struct hub *h);
void search_hub_free(struct search_hub *sh); /* stops listening; accepts NULL */
/* search_query over the hub's tools, current as of the call. */
json_t *search_hub_query(struct search_hub *sh, const char *query, const struct search_opts *o,
			 struct err *err);
/* @sh as a search_source (borrowed: valid while @sh is). */
struct search_source search_hub_source(struct search_hub *sh);

#endif

/* The synonym groups, stemmed once into a sorted (term, group) table. */
#include <stdlib.h>
#include <string.h>

#include "synonyms_i.h"
#include "text_i.h"

/* One group a line, words separated by spaces. */
static const char *const groups[] = {
    "find search lookup query locate seek discover",
    "delete remove erase destroy purge trash",
    "create add new make insert",
    "list enumerate show display browse",
    "fetch retrieve read obtain load download view",
    "update edit modify change alter patch",
    "rename move relocate",
    "send post message notify",
    "run execute launch start invoke trigger",
    "stop kill terminate cancel halt abort",
    "file document doc",
    "folder directory dir",
    "image picture photo screenshot",
    "web internet online website webpage site url",
    "email mail inbox",
    "memory remember memorize recall",
    "user person people member account",
    "issue ticket bug",
    "channel chat conversation",
    "repository repo",
    "database db",
    "record row entry",
    "write save store persist",
    "copy duplicate clone",
    "log history",
    "error failure fail crash",
    "event meeting appointment",
    "location place address geocode coordinates",
    "direction route navigate",
    "deploy release publish",
    "summary summarize overview",
    "count number total",
    "comment reply",
    "pipeline workflow",
    "job task",
    "secret credential token password",
    "permission access role",
    "code source",
    "think reason thought reflect",
    "scrape crawl extract",
    "company organization org business",
    "contact customer lead",
    "deal opportunity sale",
    "price cost billing invoice",
    "configuration config settings",
    "key value",
    "size length",
    "text string",
    "research investigate",
    "nearby near around",
    "restaurant food",
    "schema structure",
    "relation relationship link connection",
    "attach attachment upload",
    "wait sleep delay",
    "check verify validate test",
    "describe explain detail info information",
    "stay lodging accommodation rental listing",
};

struct entry {
	char term[SEARCH_TERM_MAX + 1];
	unsigned group;
};

struct search_synonyms {
	struct entry *e;
	size_t n, cap;
};

struct add_ctx {
	struct search_synonyms *s;
	unsigned group;
	int oom;
};

static int add_term(void *ctx, const char *term, size_t len)
{
	struct add_ctx *a = ctx;
	struct search_synonyms *s = a->s;
	struct entry *e;

	if (s->n == s->cap) {
		e = realloc(s->e, (s->cap ? s->cap * 2 : 256) * sizeof(*e));
		if (!e)
			return a->oom = -1;
		s->e = e;
		s->cap = s->cap ? s->cap * 2 : 256;
	}
	memcpy(s->e[s->n].term, term, len + 1);
	s->e[s->n++].group = a->group;
	return 0;
}

static int cmp_entry(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	int c = strcmp(x->term, y->term);

	return c ? c : (x->group > y->group) - (x->group < y->group);
}

struct search_synonyms *search_synonyms_new(void)
{
	struct search_synonyms *s = calloc(1, sizeof(*s));
	struct add_ctx a = {s, 0, 0};
	size_t i;

	if (!s)
		return NULL;
	for (i = 0; i < sizeof(groups) / sizeof(groups[0]) && !a.oom; i++) {
		a.group = (unsigned)i;
		search_terms(groups[i], strlen(groups[i]), true, false, add_term, &a);
	}
	if (a.oom) {
		search_synonyms_free(s);
		return NULL;
	}
	qsort(s->e, s->n, sizeof(*s->e), cmp_entry);
	return s;
}

void search_synonyms_free(struct search_synonyms *s)
{
	if (!s)
		return;
	free(s->e);
	free(s);
}

/* Index of the first entry for @term, or s->n. */
static size_t lower_bound(const struct search_synonyms *s, const char *term)
{
	size_t lo = 0, hi = s->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (strcmp(s->e[mid].term, term) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void search_synonyms_each(const struct search_synonyms *s, const char *term,
			  void (*fn)(void *ctx, const char *syn), void *ctx)
{
	size_t i, j;

	for (i = lower_bound(s, term); i < s->n && !strcmp(s->e[i].term, term); i++) {
		/* The group's members: entries are sorted by term, so scan all. */
		for (j = 0; j < s->n; j++)
			if (s->e[j].group == s->e[i].group && strcmp(s->e[j].term, term))
				fn(ctx, s->e[j].term);
	}
}

#include "groups_i.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "../common/strmap.h"

/* Groups shown at most (the largest), and words after the first per group. */
#define GROUPS_MAX 48
#define WORDS_MAX 6

struct group {
	const char *key; /* borrowed from the first ident; keylen bytes */
	size_t keylen;
	size_t count;
	const char *first; /* borrowed: the first ident */
	const char *words[WORDS_MAX];
	size_t wordlen[WORDS_MAX];
	size_t nwords;
	bool more_words;
};

/* The first word of @id: up to its first '_' after the first byte. */
static size_t first_word(const char *id)
{
	const char *us = id[0] ? strchr(id + 1, '_') : NULL;

	return us ? (size_t)(us - id) : strlen(id);
}

static void add_word(struct group *g, const char *id)
{
	const char *w = id + g->keylen, *end;
	size_t len, i;

	if (*w != '_' || !w[1])
		return;
	w++;
	end = strchr(w, '_');
	len = end ? (size_t)(end - w) : strlen(w);
	for (i = 0; i < g->nwords; i++)
		if (g->wordlen[i] == len && !strncmp(g->words[i], w, len))
			return;
	if (g->nwords == WORDS_MAX) {
		g->more_words = true;
		return;
	}
	g->words[g->nwords] = w;
	g->wordlen[g->nwords++] = len;
}

static int by_count(const void *a, const void *b)
{
	const struct group *x = *(const struct group *const *)a,
			   *y = *(const struct group *const *)b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return x < y ? -1 : x > y;
}

static int by_place(const void *a, const void *b)
{
	const struct group *x = *(const struct group *const *)a,
			   *y = *(const struct group *const *)b;

	return x < y ? -1 : x > y;
}

static void group_line(struct buf *out, const struct group *g)
{
	size_t i;

	if (g->count == 1) {
		buf_printf(out, "- `%s`\n", g->first);
		return;
	}
	buf_printf(out, "- `%.*s_*` (%zu)", (int)g->keylen, g->key, g->count);
	for (i = 0; i < g->nwords; i++)
		buf_printf(out, "%s%.*s", i ? ", " : ": ", (int)g->wordlen[i], g->words[i]);
	buf_puts(out, g->more_words ? ", …\n" : "\n");
}

void cg_readme_groups(struct buf *out, const char *ident, const char *const *idents, size_t n)
{
	struct group *groups = calloc(n ? n : 1, sizeof(*groups)), *g, **shown = NULL;
	struct strmap at;
	size_t ngroups = 0, nshown, rest = 0, i;
	void *found;
	int rc = groups ? 0 : -ENOMEM;

	strmap_init(&at, n);
	for (i = 0; !rc && i < n; i++) {
		size_t len = first_word(idents[i]);

		g = &groups[ngroups];
		rc = strmap_put(&at, idents[i], len, g, &found);
		if (rc)
			break;
		if (found) {
			g = found;
		} else {
			g->key = idents[i];
			g->keylen = len;
			g->first = idents[i];
			ngroups++;
		}
		g->count++;
		add_word(g, idents[i]);
	}
	strmap_free(&at);
	nshown = ngroups < GROUPS_MAX ? ngroups : GROUPS_MAX;
	if (!rc && !(shown = malloc((ngroups ? ngroups : 1) * sizeof(*shown))))
		rc = -ENOMEM;
	if (rc) {
		buf_fail(out, rc);
		free(groups);
		return;
	}
	/* The largest groups, shown in name order. */
	for (i = 0; i < ngroups; i++)
		shown[i] = &groups[i];
	qsort(shown, ngroups, sizeof(*shown), by_count);
	for (i = nshown; i < ngroups; i++)
		rest += shown[i]->count;
	qsort(shown, nshown, sizeof(*shown), by_place);
	buf_printf(out,
		   "By the first word of their names (how many: the words next).\nFind one with "
		   "`mcpfs search \"what it does\"` (in a run: `search_tools` from "
		   "`servers._runtime`),\n`grep -il WORD servers/%s/*.json` or `ls "
		   "servers/%s/WORD_*.py`.\n\n",
		   ident, ident);
	for (i = 0; i < nshown; i++)
		group_line(out, shown[i]);
	if (nshown < ngroups)
		buf_printf(out, "- and %zu more groups of %zu tools in all\n", ngroups - nshown,
			   rest);
	free(shown);
	free(groups);
}

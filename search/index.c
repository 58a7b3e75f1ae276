/* Building the index and ranking with BM25F.
 *
 * BM25F rather than BM25 over one text: a word in a tool's name says more
 * about what the tool does than the same word in its third sentence, and
 * per-field length normalisation keeps a long description from drowning its
 * name. Each term's frequencies are summed over fields with their weights
 * after length normalisation, then saturated once (Robertson and Zaragoza,
 * "The Probabilistic Relevance Framework: BM25 and Beyond", 2009, §3.6). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "index_i.h"
#include "text_i.h"

enum field { F_SERVER, F_NAME, F_TITLE, F_FIRST, F_REST, F_PNAME, F_PDESC, NFIELDS };

/* Weights with SEARCH_F_WEIGHTS, and length normalisation (b) per field:
 * names are short and their length says little. */
static const float field_weight[NFIELDS] = {1.0f, 3.0f, 2.0f, 2.0f, 0.5f, 1.0f, 0.5f};
static const float field_b[NFIELDS] = {0.3f, 0.3f, 0.5f, 0.75f, 0.75f, 0.5f, 0.75f};

/* Saturation: higher than the usual 1.2, so that a word in a tool's name
 * (weight 3) outscores the same word in another tool's parameters by more
 * (measured: +0.01 to +0.03 recall@3, BENCHMARKS.md). */
#define K1 2.0f
#define SYNONYM_WEIGHT 0.4f
#define QUERY_TERMS_MAX 64

/* The floor. Each query term weighs its IDF; a tool matched the share
 * ("conf") of the query's weight it has, a term found past the first
 * sentence counting WEAK_STRENGTH of its weight and a synonym
 * SYNONYM_WEIGHT. */
#define WEAK_STRENGTH 0.6f
/* A query term no tool has ("dishwasher") weighs as much as the rarest
 * term: no tool does what it names. */
#define UNKNOWN_SHARE 1.0f
/* Unless it looks like a value (SEARCH_F_VALUES): a number, a capitalised
 * name, the topic after "about"; those say what to work on, not what to do. */
#define VALUE_SHARE 0.5f
/* An act ("create", "apply") weighs half (SEARCH_F_ACTS): many tools
 * share their acts, and a query's thing is what a tool must know. */
#define ACT_SHARE 0.5f
/* Some tool among the best GATE_K by score must have matched CONF_MIN of the
 * query's weight, else nothing fits (SEARCH_F_GATE); then results below
 * CONF_RESULT are dropped. */
#define GATE_K 5
#define CONF_MIN 0.25f
#define CONF_RESULT 0.1f
/* And that tool's score must reach REACH_MIN of the query's reach: the
 * score of a tool that had every query word at the floor's weight, in its
 * name, saturated (SEARCH_F_REACH). Coverage alone counts a word once
 * whether the tool's name says it or its fifth sentence mentions it in
 * passing; the score tells them apart ("translate this paragraph": two
 * words deep in a file reader's description). Measured: BENCHMARKS.md. */
#define REACH_MIN 0.05f

/* One term of one doc while the doc is indexed. */
struct occ {
	uint32_t term;
	uint8_t field;
};

struct builder {
	struct search_index *ix;
	struct occ *occ;
	size_t nocc, cap;
	uint8_t field;
	size_t flen[NFIELDS];
	bool count_only;
	int oom;
};

static uint32_t hash_str(const char *s, size_t n)
{
	uint32_t h = 2166136261u;
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

/* The term's index, or -1. */
static long term_find(const struct search_index *ix, const char *s, size_t n, uint32_t h)
{
	size_t mask = ix->table_size - 1, i;
	uint32_t slot;

	if (!ix->table_size)
		return -1;
	for (i = h & mask;; i = (i + 1) & mask) {
		slot = ix->table[i];
		if (!slot)
			return -1;
		if (ix->terms[slot - 1].hash == h && !strncmp(ix->terms[slot - 1].s, s, n) &&
		    !ix->terms[slot - 1].s[n])
			return (long)slot - 1;
	}
}

static int table_grow(struct search_index *ix)
{
	size_t size = ix->table_size ? ix->table_size * 2 : 1024, i, j;
	uint32_t *t = calloc(size, sizeof(*t));

	if (!t)
		return -ENOMEM;
	for (i = 0; i < ix->nterms; i++) {
		for (j = ix->terms[i].hash & (size - 1); t[j]; j = (j + 1) & (size - 1))
			;
		t[j] = (uint32_t)i + 1;
	}
	free(ix->table);
	ix->table = t;
	ix->table_size = size;
	return 0;
}

/* The term's index, added when new; -1 when out of memory. */
static long term_intern(struct search_index *ix, const char *s, size_t n)
{
	uint32_t h = hash_str(s, n);
	long found = term_find(ix, s, n, h);
	struct search_term *t;
	size_t i;

	if (found >= 0)
		return found;
	if ((ix->nterms + 1) * 2 > ix->table_size && table_grow(ix))
		return -1;
	if (ix->nterms == ix->terms_cap) {
		t = realloc(ix->terms, (ix->terms_cap ? ix->terms_cap * 2 : 1024) * sizeof(*t));
		if (!t)
			return -1;
		ix->terms = t;
		ix->terms_cap = ix->terms_cap ? ix->terms_cap * 2 : 1024;
	}
	t = &ix->terms[ix->nterms];
	memset(t, 0, sizeof(*t));
	t->s = strndup(s, n);
	if (!t->s)
		return -1;
	t->hash = h;
	for (i = h & (ix->table_size - 1); ix->table[i]; i = (i + 1) & (ix->table_size - 1))
		;
	ix->table[i] = (uint32_t)ix->nterms + 1;
	return (long)ix->nterms++;
}

static int on_term(void *ctx, const char *term, size_t len, unsigned flags)
{
	struct builder *b = ctx;
	struct occ *o;
	long t;

	(void)flags;
	b->flen[b->field]++;
	if (b->count_only)
		return 0;
	t = term_intern(b->ix, term, len);
	if (t < 0)
		return b->oom = -1;
	if (b->nocc == b->cap) {
		o = realloc(b->occ, (b->cap ? b->cap * 2 : 256) * sizeof(*o));
		if (!o)
			return b->oom = -1;
		b->occ = o;
		b->cap = b->cap ? b->cap * 2 : 256;
	}
	b->occ[b->nocc].term = (uint32_t)t;
	b->occ[b->nocc++].field = b->field;
	return 0;
}

static void add_text(struct builder *b, int field, const char *s, size_t n)
{
	if (!s || b->oom)
		return;
	b->field = (uint8_t)field;
	/* Lengths do not depend on stems: pass one skips them. */
	search_terms(
	    s, n,
	    SEARCH_TEXT_STOP | (b->ix->features & SEARCH_F_PHRASES ? SEARCH_TEXT_PHRASES : 0) |
		(!b->count_only && (b->ix->features & SEARCH_F_STEM) ? SEARCH_TEXT_STEM : 0),
	    on_term, b);
}

static void add_str(struct builder *b, int field, json_t *v)
{
	if (json_is_string(v))
		add_text(b, field, json_string_value(v), json_string_length(v));
}

/* The end of the description's first sentence: a period, question or
 * exclamation mark before white space, or a line break. */
static size_t first_sentence(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (s[i] == '\n' && i > 0)
			return i;
		if ((s[i] == '.' || s[i] == '!' || s[i] == '?') &&
		    (i + 1 == n || s[i + 1] == ' ' || s[i + 1] == '\n'))
			return i + 1;
	}
	return n;
}

/* Walk one doc's fields. */
static void add_doc(struct builder *b, const struct search_doc *d)
{
	json_t *tool = d->tool_json, *props, *v, *title = json_object_get(tool, "title");
	json_t *desc = json_object_get(tool, "description");
	const char *server = b->ix->servers[d->server].name, *key;
	size_t k;

	memset(b->flen, 0, sizeof(b->flen));
	b->nocc = 0;
	add_text(b, F_SERVER, server, strlen(server));
	add_text(b, F_NAME, d->name, strlen(d->name));
	if (!json_is_string(title))
		title = json_object_get(json_object_get(tool, "annotations"), "title");
	add_str(b, F_TITLE, title);
	if (json_is_string(desc)) {
		const char *s = json_string_value(desc);
		size_t n = json_string_length(desc);

		k = b->ix->features & SEARCH_F_FIRST ? first_sentence(s, n) : 0;
		add_text(b, F_FIRST, s, k);
		add_text(b, F_REST, s + k, n - k);
	}
	if (!(b->ix->features & SEARCH_F_PARAMS))
		return;
	props = json_object_get(json_object_get(tool, "inputSchema"), "properties");
	json_object_foreach(props, key, v)
	{
		add_text(b, F_PNAME, key, strlen(key));
		add_str(b, F_PDESC, json_object_get(v, "description"));
	}
}

static int cmp_occ(const void *a, const void *b)
{
	const struct occ *x = a, *y = b;

	if (x->term != y->term)
		return x->term < y->term ? -1 : 1;
	return (x->field > y->field) - (x->field < y->field);
}

static int posting_add(struct search_term *t, uint32_t doc, float tf, float strength, bool named)
{
	struct search_posting *p;

	if (t->n == t->cap) {
		p = realloc(t->p, (t->cap ? t->cap * 2 : 4) * sizeof(*p));
		if (!p)
			return -ENOMEM;
		t->p = p;
		t->cap = t->cap ? t->cap * 2 : 4;
	}
	t->p[t->n].doc = doc;
	t->p[t->n].strength = strength;
	t->p[t->n].named = named;
	t->p[t->n++].tf = tf;
	return 0;
}

/* Turn the doc's occurrences into postings. */
static int post_doc(struct builder *b, uint32_t doc, const float *avg)
{
	const unsigned weights = b->ix->features & SEARCH_F_WEIGHTS;
	size_t i = 0, j;
	float tf, norm, strength;
	bool named;

	qsort(b->occ, b->nocc, sizeof(*b->occ), cmp_occ);
	while (i < b->nocc) {
		tf = 0;
		strength = WEAK_STRENGTH;
		named = false;
		for (j = i; j < b->nocc && b->occ[j].term == b->occ[i].term; j++) {
			int f = b->occ[j].field;

			if (f == F_NAME || f == F_TITLE || f == F_FIRST)
				strength = 1;
			named = named || f == F_NAME || f == F_TITLE;

			norm = 1 - field_b[f] + field_b[f] * (float)b->flen[f] / avg[f];
			tf += (weights ? field_weight[f] : 1.0f) / norm;
		}
		if (posting_add(&b->ix->terms[b->occ[i].term], doc, tf, strength, named))
			return -ENOMEM;
		i = j;
	}
	return 0;
}

static void index_clear(struct search_index *ix)
{
	size_t i;

	for (i = 0; i < ix->nterms; i++) {
		free(ix->terms[i].s);
		free(ix->terms[i].p);
	}
	free(ix->terms);
	free(ix->table);
	free(ix->docs);
	free(ix->acc);
	free(ix->touched);
	cg_root_free(ix->root);
	ix->terms = NULL;
	ix->table = NULL;
	ix->docs = NULL;
	ix->acc = NULL;
	ix->touched = NULL;
	ix->root = NULL;
	ix->nterms = ix->terms_cap = ix->table_size = ix->ndocs = ix->ntouched = 0;
}

static int cmp_doc(const void *a, const void *b)
{
	const struct search_doc *x = a, *y = b;

	if (x->server != y->server)
		return x->server < y->server ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The docs, in (server, tool name) order. */
static int collect_docs(struct search_index *ix)
{
	size_t n = 0, i, j;
	json_t *tool, *name;

	for (i = 0; i < ix->nservers; i++)
		n += json_array_size(ix->servers[i].tools);
	ix->docs = calloc(n ? n : 1, sizeof(*ix->docs));
	if (!ix->docs)
		return -ENOMEM;
	for (i = 0; i < ix->nservers; i++) {
		json_array_foreach(ix->servers[i].tools, j, tool)
		{
			name = json_object_get(tool, "name");
			if (!json_is_string(name))
				continue;
			ix->docs[ix->ndocs].server = (uint32_t)i;
			ix->docs[ix->ndocs].tool = (uint32_t)j;
			ix->docs[ix->ndocs].tool_json = tool;
			ix->docs[ix->ndocs++].name = json_string_value(name);
		}
	}
	qsort(ix->docs, ix->ndocs, sizeof(*ix->docs), cmp_doc);
	return 0;
}

static int make_root(struct search_index *ix)
{
	const char **names = calloc(ix->nservers ? ix->nservers : 1, sizeof(*names));
	size_t i;

	if (!names)
		return -ENOMEM;
	for (i = 0; i < ix->nservers; i++)
		names[i] = ix->servers[i].name;
	ix->root = cg_root_new(names, ix->nservers, CG_LANG_PY, cg_templates_embedded());
	free(names);
	return ix->root ? 0 : -ENOMEM;
}

int search_build(struct search_index *ix)
{
	struct builder b = {.ix = ix};
	float avg[NFIELDS] = {0};
	size_t i, f;
	int rc = -ENOMEM;

	if (!ix->dirty)
		return 0;
	index_clear(ix);
	if (collect_docs(ix) || make_root(ix))
		goto out;
	/* Pass one: field lengths, for their averages. */
	b.count_only = true;
	for (i = 0; i < ix->ndocs; i++) {
		add_doc(&b, &ix->docs[i]);
		for (f = 0; f < NFIELDS; f++)
			avg[f] += (float)b.flen[f];
	}
	for (f = 0; f < NFIELDS; f++)
		avg[f] = ix->ndocs && avg[f] > 0 ? avg[f] / (float)ix->ndocs : 1;
	/* Pass two: the postings. */
	b.count_only = false;
	for (i = 0; i < ix->ndocs; i++) {
		add_doc(&b, &ix->docs[i]);
		if (b.oom || post_doc(&b, (uint32_t)i, avg))
			goto out;
	}
	for (i = 0; i < ix->nterms; i++) {
		float df = (float)ix->terms[i].n, n = (float)ix->ndocs;

		ix->terms[i].idf = logf(1 + (n - df + 0.5f) / (df + 0.5f));
	}
	ix->acc = calloc(ix->ndocs + 1, sizeof(*ix->acc));
	ix->touched = calloc(ix->ndocs + 1, sizeof(*ix->touched));
	if (!ix->acc || !ix->touched)
		goto out;
	ix->epoch = 0;
	ix->dirty = false;
	rc = 0;
out:
	free(b.occ);
	if (rc)
		index_clear(ix);
	return rc;
}

/* --- the query --- */

struct qterm {
	char s[SEARCH_TERM_MAX + 1]; /* the term */
	long term;		     /* index, or -1 when no tool has it */
	float idf;		     /* its weight in the query's total */
	unsigned flags;		     /* enum search_term_flag */
};

/* A term scored on behalf of a query term: a synonym. */
struct expansion {
	long term;
	float w;
};

#define EXPANSIONS_MAX 64

struct query {
	struct search_index *ix;
	struct qterm t[QUERY_TERMS_MAX];
	size_t n;
	float total; /* sum of the terms' weights */
	size_t cur;  /* the term whose expansions are being gathered */
	struct expansion x[EXPANSIONS_MAX];
	size_t nx;
};

static int on_qterm(void *ctx, const char *word, size_t len, unsigned flags)
{
	struct query *q = ctx;
	char term[SEARCH_TERM_MAX + 1];
	size_t i, tlen = len;

	memcpy(term, word, len + 1);
	if (q->ix->features & SEARCH_F_STEM)
		tlen = search_stem(term, len);
	for (i = 0; i < q->n; i++)
		if (!strcmp(q->t[i].s, term))
			return 0;
	if (q->n == QUERY_TERMS_MAX)
		return 1;
	memcpy(q->t[q->n].s, term, tlen + 1);
	q->t[q->n].term = term_find(q->ix, term, tlen, hash_str(term, tlen));
	q->t[q->n].flags = flags;
	q->n++;
	return 0;
}

/* Score the postings of term @t at weight @w on behalf of the query term
 * being scored (q->cur): each doc keeps the best of that query term's terms. */
static void score_term(struct query *q, const struct search_term *t, float w)
{
	struct search_index *ix = q->ix;
	uint32_t i, mark = ix->epoch + (uint32_t)q->cur;
	struct search_acc *a;
	float tf, s, m;
	uint8_t nm;

	for (i = 0; i < t->n; i++) {
		a = &ix->acc[t->p[i].doc];
		if (!a->touched) {
			a->touched = true;
			ix->touched[ix->ntouched++] = t->p[i].doc;
		}
		if (a->stamp != mark) {
			a->stamp = mark;
			a->qscore = a->qmass = 0;
			a->qnm = 0;
		}
		tf = t->p[i].tf;
		s = w * t->idf * tf * (K1 + 1) / (tf + K1);
		m = w * t->p[i].strength * q->t[q->cur].idf;
		/* A word of the query in the tool's name or title says as
		 * much as two elsewhere. */
		nm = w == 1.0f && t->p[i].named ? 2 : 1;
		if (s > a->qscore) {
			a->score += s - a->qscore;
			a->qscore = s;
		}
		if (m > a->qmass) {
			a->mass += m - a->qmass;
			a->qmass = m;
		}
		if (nm > a->qnm) {
			a->nmatch += nm - a->qnm;
			a->qnm = nm;
		}
	}
}

/* Add @term (stemmed as the index is) at weight @w to the current query
 * term's expansions, unless the query has it or it is there already. */
static void expand(struct query *q, const char *term, size_t len, float w)
{
	long t = term_find(q->ix, term, len, hash_str(term, len));
	size_t i;

	if (t < 0)
		return;
	for (i = 0; i < q->n; i++)
		if (q->t[i].term == t)
			return; /* in the query itself: scored at full weight */
	for (i = 0; i < q->nx; i++) {
		if (q->x[i].term == t) {
			if (q->x[i].w < w)
				q->x[i].w = w;
			return;
		}
	}
	if (q->nx < EXPANSIONS_MAX)
		q->x[q->nx++] = (struct expansion){t, w};
}

static void on_synonym(void *ctx, const char *syn)
{
	expand(ctx, syn, strlen(syn), SYNONYM_WEIGHT);
}

/* Score the current query term and its expansions. */
static void score_qterm(struct query *q)
{
	struct search_index *ix = q->ix;
	const struct qterm *qt = &q->t[q->cur];
	size_t i;

	if (qt->term >= 0)
		score_term(q, &ix->terms[qt->term], 1.0f);
	q->nx = 0;
	if (ix->features & SEARCH_F_SYNONYMS)
		search_synonyms_each(ix->syn, qt->s, on_synonym, q);
	for (i = 0; i < q->nx; i++)
		score_term(q, &ix->terms[q->x[i].term], q->x[i].w);
}

/* Insert @h into @best (sorted, @n of @cap) when it ranks. */
static size_t rank_insert(struct search_hit *best, size_t n, size_t cap, struct search_hit h)
{
	size_t i;

	if (n == cap && (best[n - 1].score > h.score ||
			 (best[n - 1].score == h.score && best[n - 1].doc < h.doc)))
		return n;
	if (n < cap)
		n++;
	for (i = n - 1; i > 0; i--) {
		const struct search_hit *p = &best[i - 1];

		if (p->score > h.score || (p->score == h.score && p->doc < h.doc))
			break;
		best[i] = best[i - 1];
	}
	best[i] = h;
	return n;
}

/* The query terms' weights in the floor (q->t[].idf) and their total. */
static void weigh(struct query *q)
{
	const struct search_index *ix = q->ix;
	float maxidf = logf(1 + ((float)ix->ndocs + 0.5f) / 0.5f);
	struct qterm *t;
	size_t i;

	for (i = 0; i < q->n; i++) {
		t = &q->t[i];
		if (t->term >= 0)
			t->idf = ix->terms[t->term].idf;
		else if ((ix->features & SEARCH_F_VALUES) &&
			 (t->flags & (SEARCH_TERM_DIGIT | SEARCH_TERM_CAP | SEARCH_TERM_ARG)))
			t->idf = VALUE_SHARE * maxidf;
		else
			t->idf = UNKNOWN_SHARE * maxidf;
		if ((ix->features & SEARCH_F_ACTS) && search_synonyms_act(ix->syn, t->s))
			t->idf *= ACT_SHARE;
		q->total += t->idf;
	}
}

/* Rank the query's terms. Fills @hits best first (at most @cap); returns
 * their count. @closest gets up to @ccap candidates regardless of the
 * floor. */
static size_t search_rank(struct search_index *ix, const char *text, size_t *nterms,
			  struct search_hit *hits, size_t cap, struct search_hit *closest,
			  size_t ccap, size_t *nclosest)
{
	const bool fl = ix->features & SEARCH_F_THRESHOLD, gate = ix->features & SEARCH_F_GATE;
	struct query q = {.ix = ix};
	size_t i, n = 0, nc = 0;
	struct search_acc *a;
	struct search_hit h;
	float best = 0, reach;

	search_terms(text, strlen(text),
		     SEARCH_TEXT_STOP | (ix->features & SEARCH_F_PHRASES ? SEARCH_TEXT_PHRASES : 0),
		     on_qterm, &q);
	*nterms = q.n;
	weigh(&q);
	/* Fresh stamps: epochs step by the most terms a query has. */
	if (ix->epoch > UINT32_MAX - 2 * QUERY_TERMS_MAX) {
		for (i = 0; i < ix->ndocs; i++)
			ix->acc[i].stamp = 0;
		ix->epoch = 0;
	}
	ix->epoch += QUERY_TERMS_MAX;
	for (q.cur = 0; q.cur < q.n; q.cur++)
		score_qterm(&q);
	for (i = 0; i < ix->ntouched; i++) {
		h.doc = ix->touched[i];
		a = &ix->acc[h.doc];
		h.score = a->score;
		h.conf = q.total > 0 ? a->mass / q.total : 0;
		/* One word of several is a coincidence, not a fit. */
		if (q.n >= 2 && a->nmatch < 2)
			h.conf = 0;
		a->score = a->mass = 0;
		a->nmatch = 0;
		a->touched = false;
		nc = rank_insert(closest, nc, ccap, h);
		if (!fl || h.conf >= (gate ? CONF_RESULT : CONF_MIN))
			n = rank_insert(hits, n, cap, h);
	}
	ix->ntouched = 0;
	*nclosest = nc;
	/* The floor decides once for the query, on the best few by score:
	 * one tool that fits makes its neighbours worth showing. */
	reach = ix->features & SEARCH_F_REACH ? REACH_MIN * q.total * (K1 + 1) : 0;
	for (i = 0; i < n && i < GATE_K; i++)
		if (hits[i].conf > best && hits[i].score >= reach)
			best = hits[i].conf;
	return fl && gate && best < CONF_MIN ? 0 : n;
}

/* --- the public functions --- */

struct search_index *search_index_new(unsigned features)
{
	struct search_index *ix = calloc(1, sizeof(*ix));

	if (!ix)
		return NULL;
	ix->features = features ? features : SEARCH_F_ALL;
	ix->syn = search_synonyms_new();
	if (!ix->syn || pthread_mutex_init(&ix->lock, NULL)) {
		search_synonyms_free(ix->syn);
		free(ix);
		return NULL;
	}
	ix->dirty = true;
	return ix;
}

void search_index_free(struct search_index *ix)
{
	size_t i;

	if (!ix)
		return;
	index_clear(ix);
	for (i = 0; i < ix->nservers; i++) {
		free(ix->servers[i].name);
		json_decref(ix->servers[i].tools);
	}
	free(ix->servers);
	search_synonyms_free(ix->syn);
	pthread_mutex_destroy(&ix->lock);
	free(ix);
}

int search_index_set(struct search_index *ix, const char *server, json_t *tools)
{
	struct search_server *s;
	size_t i;
	int c = 1, rc = 0;

	pthread_mutex_lock(&ix->lock);
	for (i = 0; i < ix->nservers; i++) {
		c = strcmp(ix->servers[i].name, server);
		if (c >= 0)
			break;
	}
	if (i < ix->nservers && c == 0) {
		json_decref(ix->servers[i].tools);
		if (tools) {
			ix->servers[i].tools = json_incref(tools);
		} else {
			free(ix->servers[i].name);
			memmove(&ix->servers[i], &ix->servers[i + 1],
				(ix->nservers - i - 1) * sizeof(*ix->servers));
			ix->nservers--;
		}
		ix->dirty = true;
		goto out;
	}
	if (!tools)
		goto out;
	if (ix->nservers == ix->servers_cap) {
		s = realloc(ix->servers, (ix->servers_cap ? ix->servers_cap * 2 : 16) * sizeof(*s));
		if (!s) {
			rc = -ENOMEM;
			goto out;
		}
		ix->servers = s;
		ix->servers_cap = ix->servers_cap ? ix->servers_cap * 2 : 16;
	}
	s = &ix->servers[i];
	memmove(s + 1, s, (ix->nservers - i) * sizeof(*s));
	s->name = strdup(server);
	if (!s->name) {
		memmove(s, s + 1, (ix->nservers - i) * sizeof(*s));
		rc = -ENOMEM;
		goto out;
	}
	s->tools = json_incref(tools);
	ix->nservers++;
	ix->dirty = true;
out:
	pthread_mutex_unlock(&ix->lock);
	return rc;
}

size_t search_index_ntools(struct search_index *ix)
{
	size_t n;

	pthread_mutex_lock(&ix->lock);
	n = search_build(ix) ? 0 : ix->ndocs;
	pthread_mutex_unlock(&ix->lock);
	return n;
}

int search_detail_parse(const char *s, enum search_detail *out)
{
	static const char *const names[] = {
	    [SEARCH_DETAIL_NAME] = "name",
	    [SEARCH_DETAIL_SUMMARY] = "summary",
	    [SEARCH_DETAIL_FULL] = "full",
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!strcmp(s, names[i])) {
			*out = (enum search_detail)i;
			return 0;
		}
	}
	return -1;
}

/* The hint for an empty answer: the servers of the closest tools. */
static json_t *hint_new(struct search_index *ix, const struct search_hit *closest, size_t n)
{
	struct buf b;
	const char *names[3];
	size_t i, j, k = 0;
	json_t *h;

	if (!n)
		return json_string("no tool matches these words; try other words (what the tool "
				   "does, or what it works on)");
	for (i = 0; i < n && k < 3; i++) {
		const char *s = ix->servers[ix->docs[closest[i].doc].server].name;

		for (j = 0; j < k && strcmp(names[j], s); j++)
			;
		if (j == k)
			names[k++] = s;
	}
	buf_init(&b, 4096);
	buf_puts(&b, "no tool fits well; the closest servers are ");
	for (i = 0; i < k; i++)
		buf_printf(&b, "%s%s", i ? (i + 1 == k ? " and " : ", ") : "", names[i]);
	buf_puts(&b, "; try other words");
	h = json_string(b.data ? b.data : "");
	buf_free(&b);
	return h;
}

int search_query_check(const char *query, struct err *err)
{
	size_t n = query ? strlen(query) : 0;

	if (!n || strspn(query, " \t\r\n") == n)
		return err_set(err, EXIT_USAGE, "the query is empty");
	if (n > SEARCH_QUERY_MAX)
		return err_set(err, EXIT_USAGE, "the query is %zu bytes; at most %d", n,
			       SEARCH_QUERY_MAX);
	return 0;
}

json_t *search_query(struct search_index *ix, const char *query, const struct search_opts *o,
		     struct err *err)
{
	static const struct search_opts defaults = {0};
	struct search_hit *hits = NULL, *closest = NULL;
	size_t limit, i, n = 0, nc = 0, nterms = 0;
	json_t *out = NULL, *arr, *r;
	long got;

	if (!o)
		o = &defaults;
	limit = o->limit ? o->limit : SEARCH_LIMIT_DEFAULT;
	if (limit > SEARCH_LIMIT_MAX)
		limit = SEARCH_LIMIT_MAX;
	if (search_query_check(query, err))
		return NULL;
	/* The floor looks at the best GATE_K whatever the limit. */
	hits = calloc(limit > GATE_K ? limit : GATE_K, sizeof(*hits));
	closest = calloc(limit, sizeof(*closest));
	if (!hits || !closest) {
		free(hits);
		free(closest);
		err_set(err, EXIT_FAILED, "search: out of memory");
		return NULL;
	}
	pthread_mutex_lock(&ix->lock);
	if (search_build(ix)) {
		err_set(err, EXIT_FAILED, "search: out of memory building the index");
		goto out;
	}
	if (o->regex) {
		got = search_regex(ix, query, hits, limit, err);
		if (got < 0)
			goto out;
		n = (size_t)got;
	} else {
		n = search_rank(ix, query, &nterms, hits, limit > GATE_K ? limit : GATE_K, closest,
				limit, &nc);
		if (n > limit)
			n = limit;
	}
	out = json_object();
	arr = json_array();
	if (!out || json_object_set_new(out, "results", arr))
		goto out_oom;
	for (i = 0; i < n; i++) {
		r = search_result(ix, &hits[i], o->detail);
		if (json_array_append_new(arr, r))
			goto out_oom;
	}
	if (!n && json_object_set_new(out, "hint",
				      o->regex	? json_string("no tool matches the pattern")
				      : !nterms ? json_string("the query has only common words; "
							      "say what the tool does")
						: hint_new(ix, closest, nc)))
		goto out_oom;
	goto out;
out_oom:
	json_decref(out);
	out = NULL;
	err_set(err, EXIT_FAILED, "search: out of memory");
out:
	pthread_mutex_unlock(&ix->lock);
	free(hits);
	free(closest);
	return out;
}

/* WordNet's files, as documented in wndb(5WN): index.<pos> lines are
 * "lemma pos synset_cnt p_cnt [ptr_symbol...] sense_cnt tagsense_cnt
 * synset_offset..." sorted by lemma, senses most frequent first; data.<pos>
 * lines start at their synset_offset: "offset lex_filenum ss_type w_cnt(hex)
 * word lex_id ...". The exception lists <pos>.exc map irregular forms to
 * lemmas ("ran run"). License headers start with two spaces. */
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "wordnet_i.h"

#define WN_WORD_MAX 64

struct map {
	const char *p;
	size_t n;
};

enum { WN_NOUN, WN_VERB, WN_NPOS };

struct search_wordnet {
	struct map index[WN_NPOS], data[WN_NPOS], exc[WN_NPOS];
};

static int map_file(const char *dir, const char *name, struct map *m)
{
	char path[4096];
	struct stat st;
	void *p;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || st.st_size == 0) {
		close(fd);
		return -1;
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return -1;
	m->p = p;
	m->n = (size_t)st.st_size;
	return 0;
}

static void unmap(struct map *m)
{
	if (m->p)
		munmap((void *)m->p, m->n);
}

struct search_wordnet *search_wordnet_open(const char *dir)
{
	static const char *const pos[WN_NPOS] = {"noun", "verb"};
	struct search_wordnet *wn = calloc(1, sizeof(*wn));
	char name[32];
	int i;

	if (!wn)
		return NULL;
	for (i = 0; i < WN_NPOS; i++) {
		snprintf(name, sizeof(name), "index.%s", pos[i]);
		if (map_file(dir, name, &wn->index[i]))
			goto out_close;
		snprintf(name, sizeof(name), "data.%s", pos[i]);
		if (map_file(dir, name, &wn->data[i]))
			goto out_close;
		snprintf(name, sizeof(name), "%s.exc", pos[i]);
		map_file(dir, name, &wn->exc[i]); /* optional */
	}
	return wn;
out_close:
	search_wordnet_close(wn);
	return NULL;
}

void search_wordnet_close(struct search_wordnet *wn)
{
	int i;

	if (!wn)
		return;
	for (i = 0; i < WN_NPOS; i++) {
		unmap(&wn->index[i]);
		unmap(&wn->data[i]);
		unmap(&wn->exc[i]);
	}
	free(wn);
}

/* Compare the line's first field at @line with @key. */
static int cmp_field(const char *line, const char *end, const char *key)
{
	size_t i;

	for (i = 0; line + i < end && line[i] != ' ' && line[i] != '\n'; i++) {
		if (!key[i])
			return 1;
		if ((unsigned char)line[i] != (unsigned char)key[i])
			return (unsigned char)line[i] < (unsigned char)key[i] ? -1 : 1;
	}
	return key[i] ? -1 : 0;
}

/* The line whose first field is @key in a sorted file, or NULL. Header
 * lines (leading space) sort before every word. */
static const char *find_line(const struct map *m, const char *key)
{
	size_t lo = 0, hi = m->n, mid, start;
	const char *end = m->p + m->n;
	int c;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		start = mid;
		while (start > 0 && m->p[start - 1] != '\n')
			start--;
		c = m->p[start] == ' ' ? -1 : cmp_field(m->p + start, end, key);
		if (c == 0)
			return m->p + start;
		if (c < 0) {
			/* Past this line. */
			const char *nl = memchr(m->p + mid, '\n', m->n - mid);

			lo = nl ? (size_t)(nl - m->p) + 1 : m->n;
		} else {
			hi = start;
		}
	}
	return NULL;
}

/* The next space-separated field of [*p, end) into @out; false at the end
 * of the line. */
static bool field(const char **p, const char *end, char *out, size_t n)
{
	size_t k = 0;

	while (*p < end && **p == ' ')
		(*p)++;
	if (*p >= end || **p == '\n')
		return false;
	while (*p < end && **p != ' ' && **p != '\n') {
		if (k + 1 < n)
			out[k++] = **p;
		(*p)++;
	}
	out[k] = '\0';
	return true;
}

/* The words of the synset at @offset in @data. */
static void synset_words(const struct map *data, unsigned long offset,
			 void (*fn)(void *ctx, const char *syn, size_t len), void *ctx)
{
	const char *p, *end = data->p + data->n;
	char f[WN_WORD_MAX];
	unsigned long w, nwords;

	if (offset >= data->n)
		return;
	p = data->p + offset;
	/* offset, lex_filenum, ss_type, w_cnt */
	if (!field(&p, end, f, sizeof(f)) || !field(&p, end, f, sizeof(f)) ||
	    !field(&p, end, f, sizeof(f)) || !field(&p, end, f, sizeof(f)))
		return;
	nwords = strtoul(f, NULL, 16);
	for (w = 0; w < nwords; w++) {
		if (!field(&p, end, f, sizeof(f)))
			return;
		/* Multi-word lemmas ("look_up") and marked adjectives are left out. */
		if (!strchr(f, '_') && !strchr(f, '(') && !strchr(f, '-'))
			fn(ctx, f, strlen(f));
		if (!field(&p, end, f, sizeof(f))) /* lex_id */
			return;
	}
}

/* The synsets of @lemma in one part of speech, first @senses of them. */
static bool lemma_synsets(const struct search_wordnet *wn, int pos, const char *lemma,
			  unsigned senses, void (*fn)(void *ctx, const char *syn, size_t len),
			  void *ctx)
{
	const char *p = find_line(&wn->index[pos], lemma);
	const char *end = wn->index[pos].p + wn->index[pos].n;
	char f[WN_WORD_MAX];
	unsigned long nsyn, nptr, i;

	if (!p)
		return false;
	/* lemma, pos, synset_cnt, p_cnt, ptr_symbols, sense_cnt, tagsense_cnt */
	if (!field(&p, end, f, sizeof(f)) || !field(&p, end, f, sizeof(f)) ||
	    !field(&p, end, f, sizeof(f)))
		return true;
	nsyn = strtoul(f, NULL, 10);
	if (!field(&p, end, f, sizeof(f)))
		return true;
	nptr = strtoul(f, NULL, 10);
	for (i = 0; i < nptr + 2; i++)
		if (!field(&p, end, f, sizeof(f)))
			return true;
	for (i = 0; i < nsyn && i < senses; i++) {
		if (!field(&p, end, f, sizeof(f)))
			break;
		synset_words(&wn->data[pos], strtoul(f, NULL, 10), fn, ctx);
	}
	return true;
}

/* Reduce @word to a lemma of @pos with the exception list and wndb(5WN)'s
 * detachment rules, trying each until the index has it. */
static void each_lemma(const struct search_wordnet *wn, int pos, const char *word,
		       unsigned senses, void (*fn)(void *ctx, const char *syn, size_t len),
		       void *ctx)
{
	static const char *const rules[WN_NPOS][16] = {
	    [WN_NOUN] = {"s", "", "ses", "s", "xes", "x", "zes", "z", "ches", "ch", "shes", "sh",
			 "ies", "y", NULL},
	    [WN_VERB] = {"s", "", "ies", "y", "es", "e", "es", "", "ed", "e", "ed", "", "ing",
			 "e", "ing", ""},
	};
	size_t len = strlen(word), sl, i;
	char lemma[WN_WORD_MAX], f[WN_WORD_MAX];
	const char *p;

	if (len >= WN_WORD_MAX)
		return;
	if (lemma_synsets(wn, pos, word, senses, fn, ctx))
		return;
	if (wn->exc[pos].p && (p = find_line(&wn->exc[pos], word))) {
		const char *end = wn->exc[pos].p + wn->exc[pos].n;

		if (field(&p, end, f, sizeof(f)) && field(&p, end, f, sizeof(f)) &&
		    lemma_synsets(wn, pos, f, senses, fn, ctx))
			return;
	}
	for (i = 0; i < 16 && rules[pos][i]; i += 2) {
		sl = strlen(rules[pos][i]);
		if (len <= sl || strcmp(word + len - sl, rules[pos][i]))
			continue;
		snprintf(lemma, sizeof(lemma), "%.*s%s", (int)(len - sl), word, rules[pos][i + 1]);
		if (lemma_synsets(wn, pos, lemma, senses, fn, ctx))
			return;
	}
}

void search_wordnet_each(const struct search_wordnet *wn, const char *word, unsigned senses,
			 void (*fn)(void *ctx, const char *syn, size_t len), void *ctx)
{
	int pos;

	for (pos = 0; pos < WN_NPOS; pos++)
		each_lemma(wn, pos, word, senses, fn, ctx);
}

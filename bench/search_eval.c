/* Tool search quality over query sets (tests/search/queries*.tsv format):
 * recall@1/3/5, MRR, and the share of no-answer queries answered with
 * nothing, for the full ranking and with each of its parts turned off.
 *   search_eval QUERIES.tsv... CATALOG.json...   (server name = file's stem)
 * The first query file is also reported in two halves, its odd and even
 * queries ("dev", the half the ranking was tuned on, and "test"); a later
 * file (held-out queries) only whole. SEARCH_EVAL_VERBOSE=LABEL prints the
 * misses of the full ranking on the set of that label (e.g. "dev").
 * Built against build/libmcpfs.a by bench/search.sh. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../search/search.h"

struct q {
	char *text, *answers; /* answers: " a b c " or NULL for none */
};

/* A set of queries: a file, or every @step-th query of it from @first. */
struct qset {
	const char *label;
	struct q *qs;
	size_t n, first, step;
};

static size_t load_queries(const char *path, struct q **out)
{
	FILE *f = fopen(path, "r");
	char line[4096], *tab, *nl;
	struct q *qs = NULL;
	size_t n = 0;

	if (!f) {
		perror(path);
		exit(2);
	}
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#' || !(tab = strchr(line, '\t')))
			continue;
		*tab = '\0';
		if ((nl = strchr(tab + 1, '\n')))
			*nl = '\0';
		qs = realloc(qs, (n + 1) * sizeof(*qs));
		if (!qs)
			exit(2);
		qs[n].text = strdup(line);
		qs[n].answers = NULL;
		if (strcmp(tab + 1, "-")) {
			qs[n].answers = malloc(strlen(tab + 1) + 3);
			sprintf(qs[n].answers, " %s ", tab + 1);
		}
		n++;
	}
	fclose(f);
	*out = qs;
	return n;
}

static void eval(struct search_index *ix, const struct qset *s, int verbose)
{
	struct search_opts o = {.limit = 5};
	double r1 = 0, r3 = 0, r5 = 0, mrr = 0;
	size_t pos = 0, neg = 0, empty = 0, i, k;
	struct err e;

	for (i = s->first; i < s->n; i += s->step) {
		const struct q *q = &s->qs[i];
		json_t *res = search_query(ix, q->text, &o, &e), *arr, *r;
		long rank = -1;
		char key[512];

		if (!res) {
			fprintf(stderr, "%s: %s\n", q->text, e.text);
			exit(1);
		}
		arr = json_object_get(res, "results");
		json_array_foreach(arr, k, r)
		{
			snprintf(key, sizeof(key), " %s ",
				 json_string_value(json_object_get(r, "name")));
			if (q->answers && strstr(q->answers, key) && rank < 0)
				rank = (long)k;
		}
		if (!q->answers) {
			neg++;
			empty += json_array_size(arr) == 0;
			if (verbose && json_array_size(arr))
				printf("    no-answer got: %s -> %s\n", q->text,
				       json_string_value(
					   json_object_get(json_array_get(arr, 0), "name")));
		} else {
			pos++;
			r1 += rank == 0;
			r3 += rank >= 0 && rank < 3;
			r5 += rank >= 0 && rank < 5;
			mrr += rank >= 0 ? 1.0 / (double)(rank + 1) : 0;
			if (verbose && (rank < 0 || rank >= 3))
				printf("    miss (rank %ld): %s -> %s\n", rank + 1, q->text,
				       json_array_size(arr) ? json_string_value(json_object_get(
								  json_array_get(arr, 0), "name"))
							    : "(nothing)");
		}
		json_decref(res);
	}
	printf("  %-9s recall@1 %.3f  recall@3 %.3f  recall@5 %.3f  MRR %.3f"
	       "  no-answer empty %.3f  (%zu queries, %zu without an answer)\n",
	       s->label, pos ? r1 / (double)pos : 0, pos ? r3 / (double)pos : 0,
	       pos ? r5 / (double)pos : 0, pos ? mrr / (double)pos : 0,
	       neg ? (double)empty / (double)neg : 0, pos + neg, neg);
}

static struct search_index *load(unsigned features, char **files, int nfiles)
{
	struct search_index *ix = search_index_new(features);
	json_error_t je;
	int i;

	for (i = 0; i < nfiles; i++) {
		json_t *tools = json_load_file(files[i], 0, &je);
		const char *base = strrchr(files[i], '/') ? strrchr(files[i], '/') + 1 : files[i];
		char name[256];

		if (!tools) {
			fprintf(stderr, "%s: %s\n", files[i], je.text);
			exit(2);
		}
		snprintf(name, sizeof(name), "%.*s", (int)(strcspn(base, ".")), base);
		search_index_set(ix, name, tools);
		json_decref(tools);
	}
	return ix;
}

static int is_tsv(const char *path)
{
	size_t n = strlen(path);

	return n > 4 && !strcmp(path + n - 4, ".tsv");
}

int main(int argc, char **argv)
{
	static const struct {
		const char *label;
		unsigned off;
	} variants[] = {
	    {"all", 0},
	    {"- stemming", SEARCH_F_STEM},
	    {"- synonyms", SEARCH_F_SYNONYMS},
	    {"- field weights", SEARCH_F_WEIGHTS},
	    {"- first sentence", SEARCH_F_FIRST},
	    {"- parameters", SEARCH_F_PARAMS},
	    {"- two-word verbs", SEARCH_F_PHRASES},
	    {"- values weigh less", SEARCH_F_VALUES},
	    {"- acts weigh half", SEARCH_F_ACTS},
	    {"- floor per query", SEARCH_F_GATE},
	    {"- score reach", SEARCH_F_REACH},
	    {"- score floor", SEARCH_F_THRESHOLD},
	    {"plain BM25", SEARCH_F_ALL & ~SEARCH_F_PARAMS & ~SEARCH_F_THRESHOLD},
	};
	const char *verbose = getenv("SEARCH_EVAL_VERBOSE");
	struct qset sets[8];
	size_t nsets = 0, i, j;
	int nq = 0;

	while (nq + 1 < argc && is_tsv(argv[nq + 1]))
		nq++;
	if (nq < 1 || nq > 6 || argc - 1 - nq < 1) {
		fprintf(stderr, "usage: search_eval QUERIES.tsv... CATALOG.json...\n");
		return 2;
	}
	for (i = 0; i < (size_t)nq; i++) {
		const char *base =
		    strrchr(argv[i + 1], '/') ? strrchr(argv[i + 1], '/') + 1 : argv[i + 1];
		struct q *qs;
		size_t n = load_queries(argv[i + 1], &qs);

		sets[nsets++] = (struct qset){base, qs, n, 0, 1};
		if (i == 0) {
			sets[nsets++] = (struct qset){"dev", qs, n, 0, 2};
			sets[nsets++] = (struct qset){"test", qs, n, 1, 2};
		}
	}
	for (i = 0; i < sizeof(variants) / sizeof(variants[0]); i++) {
		unsigned f = SEARCH_F_ALL & ~variants[i].off;
		struct search_index *ix;

		/* plain BM25: name, title, description and parameter names, one
		 * field weight, no stemming, synonyms or floor. */
		if (!strcmp(variants[i].label, "plain BM25"))
			f = SEARCH_F_PARAMS;
		ix = load(f ? f : SEARCH_F_PARAMS, argv + 1 + nq, argc - 1 - nq);
		printf("%s\n", variants[i].label);
		for (j = 0; j < nsets; j++)
			eval(ix, &sets[j], i == 0 && verbose && !strcmp(verbose, sets[j].label));
		search_index_free(ix);
	}
	return 0;
}

/* Tool search quality over a query set (tests/search/queries.tsv format):
 * recall@1/3/5, MRR, and the share of no-answer queries answered with
 * nothing, for the full ranking and with each of its parts turned off.
 *   search_eval QUERIES.tsv CATALOG.json...   (server name = file's stem)
 * Built against build/libmcpfs.a by bench/search.sh. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../search/search.h"

struct q {
	char *text, *answers; /* answers: " a b c " or NULL for none */
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

static void eval(struct search_index *ix, struct q *qs, size_t n, const char *label, int verbose)
{
	struct search_opts o = {.limit = 5};
	double r1 = 0, r3 = 0, r5 = 0, mrr = 0;
	size_t pos = 0, neg = 0, empty = 0, i, k;
	struct err e;

	for (i = 0; i < n; i++) {
		json_t *res = search_query(ix, qs[i].text, &o, &e), *arr, *r;
		long rank = -1;
		char key[512];

		if (!res) {
			fprintf(stderr, "%s: %s\n", qs[i].text, e.text);
			exit(1);
		}
		arr = json_object_get(res, "results");
		json_array_foreach(arr, k, r)
		{
			snprintf(key, sizeof(key), " %s ",
				 json_string_value(json_object_get(r, "name")));
			if (qs[i].answers && strstr(qs[i].answers, key) && rank < 0)
				rank = (long)k;
		}
		if (!qs[i].answers) {
			neg++;
			empty += json_array_size(arr) == 0;
			if (verbose && json_array_size(arr))
				printf("  no-answer got: %s -> %s\n", qs[i].text,
				       json_string_value(
					   json_object_get(json_array_get(arr, 0), "name")));
		} else {
			pos++;
			r1 += rank == 0;
			r3 += rank >= 0 && rank < 3;
			r5 += rank >= 0 && rank < 5;
			mrr += rank >= 0 ? 1.0 / (double)(rank + 1) : 0;
			if (verbose && (rank < 0 || rank >= 3))
				printf("  miss (rank %ld): %s -> %s\n", rank + 1, qs[i].text,
				       json_array_size(arr) ? json_string_value(json_object_get(
								  json_array_get(arr, 0), "name"))
							    : "(nothing)");
		}
		json_decref(res);
	}
	printf("%-22s recall@1 %.3f  recall@3 %.3f  recall@5 %.3f  MRR %.3f  no-answer empty %.3f"
	       "  (%zu queries, %zu without an answer)\n",
	       label, r1 / (double)pos, r3 / (double)pos, r5 / (double)pos, mrr / (double)pos,
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
	    {"- score floor", SEARCH_F_THRESHOLD},
	    {"plain BM25", SEARCH_F_ALL & ~SEARCH_F_PARAMS & ~SEARCH_F_THRESHOLD},
	};
	int verbose = getenv("SEARCH_EVAL_VERBOSE") != NULL;
	struct q *qs;
	size_t n, i;

	if (argc < 3) {
		fprintf(stderr, "usage: search_eval QUERIES.tsv CATALOG.json...\n");
		return 2;
	}
	n = load_queries(argv[1], &qs);
	for (i = 0; i < sizeof(variants) / sizeof(variants[0]); i++) {
		unsigned f = SEARCH_F_ALL & ~variants[i].off;
		struct search_index *ix;

		/* plain BM25: name, title, description and parameter names, one
		 * field weight, no stemming, synonyms or floor. */
		if (!strcmp(variants[i].label, "plain BM25"))
			f = SEARCH_F_PARAMS;
		ix = load(f ? f : SEARCH_F_PARAMS, argv + 2, argc - 2);
		eval(ix, qs, n, variants[i].label, verbose && i == 0);
		search_index_free(ix);
	}
	return 0;
}

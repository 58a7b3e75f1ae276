/* Tool search speed: index build time, memory per tool and query latency
 * (p50, p99) at 1,000, 10,000 and 100,000 tools, the tools being the real
 * catalogs given (copied under new server names until there are enough).
 * On a shared machine the plain p99 is mostly the scheduler: each query's
 * best of five runs shows the search's own cost.
 * Baseline, measured in the same run: a plain scan that looks for every
 * query word in every tool's name and description (strcasestr), which is
 * what grep over the READMEs does.
 *   search_speed QUERIES.tsv CATALOG.json...
 * Built against build/libmcpfs.a by bench/search.sh. */
#define _GNU_SOURCE
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../search/search.h"

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static size_t heap_bytes(void)
{
	struct mallinfo2 mi = mallinfo2();

	return mi.uordblks + mi.hblkhd;
}

/* The baseline: tools whose name or description holds every word. */
static size_t scan(json_t *all, const char *query)
{
	char words[16][64];
	size_t nw = 0, i, j, hits = 0;
	const char *p = query;
	json_t *t;

	while (*p && nw < 16) {
		size_t n = strcspn(p, " ");

		if (n && n < 64) {
			memcpy(words[nw], p, n);
			words[nw++][n] = '\0';
		}
		p += n + (p[n] == ' ');
	}
	json_array_foreach(all, i, t)
	{
		const char *d = json_string_value(json_object_get(t, "description")) ?: "";
		const char *nm = json_string_value(json_object_get(t, "name")) ?: "";

		for (j = 0; j < nw; j++)
			if (!strcasestr(d, words[j]) && !strcasestr(nm, words[j]))
				break;
		hits += j == nw;
	}
	return hits;
}

int main(int argc, char **argv)
{
	static const size_t sizes[] = {1000, 10000, 100000};
	char line[4096], *queries[512];
	size_t nq = 0, s, i, k;
	json_t *real = json_array();
	json_error_t je;
	FILE *f;

	if (argc < 3) {
		fprintf(stderr, "usage: search_speed QUERIES.tsv CATALOG.json...\n");
		return 2;
	}
	f = fopen(argv[1], "r");
	while (f && fgets(line, sizeof(line), f) && nq < 512)
		if (line[0] != '#' && strchr(line, '\t'))
			queries[nq++] = strndup(line, strcspn(line, "\t"));
	if (f)
		fclose(f);
	for (i = 2; i < (size_t)argc; i++) {
		json_t *c = json_load_file(argv[i], 0, &je);

		if (!c) {
			fprintf(stderr, "%s: %s\n", argv[i], je.text);
			return 2;
		}
		json_array_extend(real, c);
		json_decref(c);
	}
	printf("%zu real tools copied to size; %zu queries; one core\n", json_array_size(real), nq);
	for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		size_t n = sizes[s], per = json_array_size(real), copies = (n + per - 1) / per;
		size_t mem0, mem1, rounds = 5, nlat = 0;
		struct search_opts o = {.limit = 5};
		double t0, build_us, *lat = calloc(nq * rounds, sizeof(double)),
				     *best = calloc(nq, sizeof(double));
		double scan_us = 0;
		struct search_index *ix;
		json_t *all = json_array();
		struct err e;

		mem0 = heap_bytes();
		ix = search_index_new(0);
		for (k = 0; k < copies; k++) {
			json_t *part = json_array();
			char name[32];

			for (i = 0; i < per && k * per + i < n; i++) {
				json_array_append(part, json_array_get(real, i));
				json_array_append(all, json_array_get(real, i));
			}
			snprintf(name, sizeof(name), "server%05zu", k);
			search_index_set(ix, name, part);
			json_decref(part);
		}
		t0 = now_us();
		search_index_ntools(ix); /* builds */
		build_us = now_us() - t0;
		mem1 = heap_bytes();
		/* One unmeasured round: the first touch of the query's scratch
		 * arrays is page faults, not search. */
		for (i = 0; i < nq; i++)
			json_decref(search_query(ix, queries[i], &o, &e));
		for (k = 0; k < rounds; k++) {
			for (i = 0; i < nq; i++) {
				json_t *r;

				t0 = now_us();
				r = search_query(ix, queries[i], &o, &e);
				lat[nlat++] = now_us() - t0;
				best[i] = k && best[i] < lat[nlat - 1] ? best[i] : lat[nlat - 1];
				json_decref(r);
			}
		}
		qsort(lat, nlat, sizeof(double), cmp_double);
		qsort(best, nq, sizeof(double), cmp_double);
		for (i = 0; i < nq; i++) {
			t0 = now_us();
			scan(all, queries[i]);
			scan_us += now_us() - t0;
		}
		scan_us /= (double)nq;
		printf("%6zu tools: build %.1f ms (%.1f ms per 10,000 tools), index %.0f bytes per "
		       "tool (catalog JSON not counted); query p50 %.3f ms, p99 %.3f ms, p99 of "
		       "each query's best of %zu %.3f ms; plain scan (baseline) mean %.3f ms = "
		       "%.0fx the p50\n",
		       n, build_us / 1e3, build_us / 1e3 * 10000.0 / (double)n,
		       (double)(mem1 - mem0) / (double)n, lat[nlat / 2] / 1e3,
		       lat[nlat * 99 / 100] / 1e3, rounds, best[nq * 99 / 100] / 1e3, scan_us / 1e3,
		       scan_us / lat[nlat / 2]);
		search_index_free(ix);
		json_decref(all);
		free(lat);
		free(best);
	}
	json_decref(real);
	for (i = 0; i < nq; i++)
		free(queries[i]);
	return 0;
}
